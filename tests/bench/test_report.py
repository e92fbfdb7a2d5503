"""The HTML report: self-contained, the right sections, failures highlighted, and it renders
in headless Chromium to a non-blank screenshot (Chromium is installed by .ci/ensure-chromium)."""

import base64
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from infometer.measures import truth
from infometer.workflows.bench import Store, plan, run_sweep
from infometer.workflows.bench._report import (
    aggregate,
    completeness,
    incomplete_message,
    load,
    write_report,
)

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def bench_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("bench")
    tasks = [
        truth.get_task(t)
        for t in (
            "symchannel-1pair-V2-0.5nat",
            "symchannel-2pairs-V8-1nat",
            "zipf-100",
            "ising2d-3x3-T2.5",
        )
    ]
    jobs, _ = plan(tasks, ["plugin", "miller_madow"], [300, 1000], [0, 1])
    with Store(d) as st:
        run_sweep(jobs, st, n_jobs=1, progress=False)
        st.add(
            {
                "task": "zipf-100",
                "method": "nsb",
                "n": 300,
                "seed": 0,
                "quantity": "entropy",
                "family": "table",
                "truth": tasks[2].truth,
                "status": "error",
                "message": "RuntimeError: synthetic failure for the report test",
            }
        )
        st.set_meta({"suite": "test"})
    return d


def test_aggregate_flags_failures(bench_dir):
    df, meta = load(bench_dir)
    agg = aggregate(df, tolerance=0.1)
    # plug-in MI bias ~ (K_X-1)(K_Y-1)/(2N) with K = 64 joint symbols per side: nats, not 0.1
    bad = agg[(agg["task"] == "symchannel-2pairs-V8-1nat") & (agg["method"] == "plugin")]
    assert not bad["pass"].any() and (bad["bias"] > 0.1).all()
    errored = agg[(agg["task"] == "zipf-100") & (agg["method"] == "nsb")]
    assert errored["failed"].iloc[0] == 1 and not errored["pass"].iloc[0]
    ok = agg[(agg["task"] == "symchannel-1pair-V2-0.5nat") & (agg["n"] == 1000)]
    assert ok["pass"].all()
    assert meta["suite"] == "test"


def _chromium():
    for b in ("chromium", "chromium-browser"):
        if shutil.which(b):
            return shutil.which(b)
    subprocess.run([str(ROOT / ".ci" / "ensure-chromium")], check=False, timeout=900)
    path = shutil.which("chromium")
    if path is None:
        pytest.fail("chromium is not installed and .ci/ensure-chromium could not install it")
    return path


@pytest.mark.slow
def test_report_renders_in_headless_chromium(bench_dir, tmp_path):
    out = write_report(bench_dir, tmp_path / "report.html", tolerance=0.1)
    text = out.read_text()
    for section in (
        "Winner per task family",
        "Contenders side by side, per task family",
        "Summary per estimator",
        "Failing tasks",
        "Time per estimator",
        "Error table",
        "Run errors",
    ):
        assert section in text
    assert 'class="fail"' in text and "symchannel-2pairs-V8-1nat" in text
    assert "synthetic failure" in text
    # self-contained: every image is inline, nothing is fetched
    assert len(re.findall(r'src="data:image/png;base64,', text)) >= 4
    assert not re.search(r'(src|href)="(https?:)?//', text)
    shot = tmp_path / "shot.png"
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run(
            [
                _chromium(),
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                f"--user-data-dir={profile}",
                "--window-size=1280,1600",
                f"--screenshot={shot}",
                out.as_uri(),
            ],
            check=True,
            timeout=180,
            capture_output=True,
        )
    import matplotlib.image as mpimg

    img = mpimg.imread(shot)[..., :3]
    assert img.shape[0] >= 1000 and img.shape[1] >= 1000
    not_white = (img < 0.95).any(axis=2).mean()
    assert not_white > 0.03, not_white  # text, tables and figures cover the page
    assert img.std() > 0.05
    # the red highlight of failing cells is on screen
    red = (img[..., 0] > 0.9) & (img[..., 1] < 0.85) & (img[..., 2] < 0.85)
    assert red.sum() > 50
    # issue 31: the error panels (estimate − truth, one colour per estimator) render too
    assert len(re.findall(r'alt="[^"]*: estimate − truth"', text)) >= 2
    tall = tmp_path / "tall.png"
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run(
            [_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"]
            + ["--disable-background-networking", "--disable-component-update"]
            + [f"--user-data-dir={profile}", "--window-size=1280,4200", f"--screenshot={tall}"]
            + [out.as_uri()],
            check=True,
            timeout=180,
            capture_output=True,
        )
    low = mpimg.imread(tall)[1600:, :, :3]  # below the first screen: figures and tables
    assert (low < 0.95).any(axis=2).mean() > 0.02
    # the figures below the first screen are drawn: tab10 orange is miller_madow's points in
    # the error panels and the n = 1000 timing bars (the heat map is red/blue)
    orange = (low[..., 0] > 0.9) & (np.abs(low[..., 1] - 0.5) < 0.1) & (low[..., 2] < 0.2)
    assert orange.sum() > 20


def test_report_of_failed_runs_only(tmp_path):
    with Store(tmp_path) as st:
        st.add(
            {
                "task": "zipf-100",
                "method": "nsb",
                "n": 300,
                "seed": 0,
                "quantity": "entropy",
                "family": "table",
                "truth": 3.68,
                "status": "error",
                "message": "boom",
            }
        )
    text = write_report(tmp_path, tmp_path / "r.html").read_text()
    # the errored cell counts as failing and is highlighted
    assert "Run errors" in text and "boom" in text and 'class="fail"' in text
    with pytest.raises(ValueError, match="no finished runs"):
        write_report(tmp_path / "empty", tmp_path / "e.html")


def _without_write_permission_bypass():
    """Drop CAP_DAC_OVERRIDE/CAP_DAC_READ_SEARCH in the child, so that even root obeys
    file permissions there (root ignores chmod otherwise)."""
    if os.geteuid() != 0:
        return None
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)

    def drop():
        for cap in (1, 2):  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH
            if libc.prctl(24, cap, 0, 0, 0) != 0:  # PR_CAPBSET_DROP; applies after exec
                raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")

    return drop


@pytest.mark.slow
def test_report_of_a_read_only_store(bench_dir, tmp_path, bench_env):
    if not hasattr(os, "geteuid"):
        pytest.skip("POSIX permissions")
    ro = tmp_path / "ro"
    ro.mkdir()
    shutil.copy(bench_dir / "results.sqlite", ro / "results.sqlite")  # closed: no -wal/-shm
    shutil.copy(bench_dir / "manifest.json", ro / "manifest.json")  # the store's identity
    out = tmp_path / "out"
    out.mkdir()
    os.chmod(ro / "results.sqlite", 0o444)
    os.chmod(ro / "manifest.json", 0o444)
    os.chmod(ro, 0o555)
    try:
        cmd = [sys.executable, "-m", "infometer.cli._bench", "report", str(ro), "-o"]
        r = subprocess.run(
            [*cmd, str(out / "r.html")],
            env=bench_env,
            capture_output=True,
            text=True,
            timeout=300,
            preexec_fn=_without_write_permission_bypass(),
        )
        if r.returncode and "PR_CAPBSET_DROP" in r.stderr:
            pytest.skip("running as root without CAP_SETPCAP: cannot make a store read-only")
        assert r.returncode == 0, r.stderr
        assert "Summary per estimator" in (out / "r.html").read_text()
        # the same process cannot write there: the test really was read-only
        probe = subprocess.run(
            ["sh", "-c", f"touch {ro}/x"], preexec_fn=_without_write_permission_bypass()
        )
        assert probe.returncode != 0
        assert sorted(p.name for p in ro.iterdir()) == ["manifest.json", "results.sqlite"]
    finally:
        os.chmod(ro, 0o755)


@pytest.mark.slow
def test_report_of_a_partial_store_says_what_is_missing(tmp_path):
    tasks = [truth.get_task(t) for t in ("zipf-100", "table-4x5-dirichlet")]
    jobs, _ = plan(tasks, ["plugin", "miller_madow"], [200], [0, 1, 2])  # 12 runs
    with Store(tmp_path) as st:
        st.add_planned(j.key for j in jobs)
        run_sweep(jobs[:7], st, n_jobs=1, progress=False)
        assert len(st.missing_keys()) == 5
    info = completeness(tmp_path)
    assert (info["planned"], info["stored"], len(info["missing"])) == (12, 7, 5)
    text = write_report(tmp_path, tmp_path / "r.html").read_text()
    assert "The sweep is incomplete: 5 of 12 planned runs are missing" in text
    assert 'class="warn"' in text and "table-4x5-dirichlet × miller_madow" in text
    # a complete store has nothing missing and so no banner
    with Store(tmp_path) as st:
        run_sweep(jobs, st, n_jobs=1, progress=False)
    info = completeness(tmp_path)
    assert (info["stored"], info["missing"]) == (12, [])
    assert incomplete_message(info) is None


def _runs(spec):
    """Rows (family, task, method, abs error or None for a failed run)."""
    import pandas as pd

    rows = [
        {
            "family": f,
            "task": t,
            "n": 100,
            "method": m,
            "status": "ok" if e is not None else "error",
            "abs_error": e if e is not None else float("nan"),
            "resolved_method": r,
        }
        for f, t, m, e, r in spec
    ]
    return pd.DataFrame(rows)


def test_winner_is_lowest_median_abs_error_with_ties_failures_and_coverage():
    from infometer.workflows.bench._report import winners

    df = _runs(
        [
            # family A: b has the lower median (0.2 vs 0.3) though a has the best single run
            ("A", "a1", "a", 0.01, None),
            ("A", "a1", "a", 0.3, None),
            ("A", "a1", "a", 0.9, None),
            ("A", "a1", "b", 0.2, None),
            ("A", "a1", "b", 0.2, None),
            ("A", "a1", "b", 0.25, None),
            # c fails on 2 of 3 runs: infinite median, cannot win despite 0.0
            ("A", "a1", "c", 0.0, None),
            ("A", "a1", "c", None, None),
            ("A", "a1", "c", None, None),
            # auto does not compete; what it chose is reported
            ("A", "a1", "auto", 0.0, "b"),
            # family B: a tie; d ran on only one of the two tasks and does not compete
            ("B", "b1", "x", 0.1, None),
            ("B", "b2", "x", 0.3, None),
            ("B", "b1", "y", 0.3, None),
            ("B", "b2", "y", 0.1, None),
            ("B", "b1", "d", 0.0, None),
            # family C: every estimator fails
            ("C", "c1", "z", None, None),
        ]
    )
    w = winners(df).set_index("family")
    assert w.loc["A", "winner"] == "b" and w.loc["A", "median |err|"] == pytest.approx(0.2)
    assert w.loc["A", "runner-up"] == "a" and w.loc["A", "runner-up |err|"] == pytest.approx(0.3)
    assert w.loc["A", "auto chose"] == "b" and w.loc["A", "compared"] == 3
    assert w.loc["B", "winner"] == "x = y" and w.loc["B", "compared"] == 2
    assert w.loc["B", "median |err|"] == pytest.approx(0.2) and w.loc["B", "tasks"] == 2
    assert w.loc["C", "winner"].startswith("none")


def test_quick_suite_compares_the_main_estimators_on_every_family():
    from infometer.workflows.bench import SUITES, suite_tasks

    quick = SUITES["quick"]
    jobs, skipped = plan(suite_tasks("quick"), quick.methods, [1000], [0])
    by_task: dict[str, set] = {}
    for j in jobs:
        by_task.setdefault(j.task, set()).add(j.method)
    assert set(by_task) == set(quick.names)
    from infometer.measures import truth

    for task, methods in by_task.items():
        # something to compare; a PID atom or a complexity measure's truth belongs to one
        # estimator per kind of data (peers are the other contenders there)
        least = 1 if truth.get_task(task).quantity in ("pid_atom", "complexity") else 2
        assert len(methods - {"auto"}) >= least, (task, methods)
    ran = {j.method for j in jobs}
    for m in ("ksg1", "ksg2", "gaussian_copula", "gkov", "plugin", "nsb", "histogram"):
        assert m in ran
    # gkov and the copula run on the mixed task; kNN only on continuous data; the
    # copula is skipped (not failed) where no variable is continuous
    assert {"gkov", "gaussian_copula"} <= by_task["mixed-uniform-m5"]
    assert "ksg1" not in by_task["zipf-100"] and "plugin" not in by_task["1v1-normal-0.75"]
    assert ("table-4x5-dirichlet", "gaussian_copula") in {(t, m) for t, m, _ in skipped}


@settings(max_examples=30, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["F", "G"]),
            st.sampled_from(["t1", "t2"]),
            st.sampled_from(["a", "b", "c", "auto"]),
            st.one_of(st.none(), st.floats(0, 5, allow_nan=False)),
        ),
        min_size=1,
        max_size=40,
    ),
    st.randoms(use_true_random=False),
)
@pytest.mark.slow
def test_winner_properties(spec, rnd):
    from infometer.workflows.bench._report import TIE_NATS, winners

    df = _runs([(f, t, m, e, "a" if m == "auto" else None) for f, t, m, e in spec])
    w = winners(df)
    shuffled = winners(df.sample(frac=1.0, random_state=rnd.randint(0, 2**31)))
    assert w.reset_index(drop=True).equals(shuffled.reset_index(drop=True))  # order-free
    for _, r in w.iterrows():
        fd = df[(df["family"] == r["family"]) & (df["method"] != "auto")]
        assert "auto" not in r["winner"].split(" = ")
        if r["winner"].startswith("none"):
            continue
        cells = {m: set(zip(d["task"], d["n"], strict=True)) for m, d in fd.groupby("method")}
        widest = max(map(len, cells.values()))
        med = {
            m: np.median(np.where(d["status"] == "ok", d["abs_error"], np.inf))
            for m, d in fd.groupby("method")
            if len(cells[m]) == widest
        }
        best = min(med.values())
        assert np.isfinite(best) and r["median |err|"] == best
        assert set(r["winner"].split(" = ")) == {m for m, v in med.items() if v - best <= TIE_NATS}


def test_family_panels_plot_the_error_one_colour_per_estimator(bench_dir):
    # issue 31 §5: panels show estimate − truth (tasks of 0.3 and 3.7 nats on one axis hid
    # the errors), every estimator has its own colour, the legend sits off the points
    from infometer.workflows.bench import _figures as figures

    df, _ = load(bench_dir)
    agg = aggregate(df, tolerance=0.1)
    figs = [fig for _, fig in figures.family_panels(agg)]
    assert figs
    n_max = agg["n"].max()
    for fig in figs:
        ax = fig.axes[0]
        assert ax.get_ylabel() == "estimate − truth (nats)"
        fam = ax.get_title().split(", n = ")[0]
        want = agg[(agg["n"] == n_max) & (agg["family"] == fam)]
        got = {c.get_label(): c for c in ax.containers}
        for m, md in want.groupby("method"):
            if md["mean"].notna().any():
                ys = got[m].lines[0].get_ydata()
                err = (md["mean"] - md["truth"]).dropna().to_numpy()
                assert sorted(ys) == pytest.approx(sorted(err)), m
        leg = ax.get_legend()
        assert leg.get_bbox_to_anchor().x0 >= ax.get_window_extent().x1 - 1  # outside
    styles = figures.method_styles([f"m{i}" for i in range(25)] + ["auto"])
    keys = {
        (tuple(v["color"]) if not isinstance(v["color"], str) else v["color"], v["marker"])
        for v in styles.values()
    }
    assert len(keys) == 26 and styles["auto"]["color"] == "black"
    names = [
        "chao_shen",
        "grassberger",
        "histogram",
        "kozachenko_leonenko",
        "ksg1",
        "ksg2",
        "miller_madow",
        "nsb",
        "plugin",
        "shrinkage",
        "gaussian",
        "gaussian_copula",
        "gkov",
    ]
    st = figures.method_styles(names)
    assert st["chao_shen"]["color"] != st["plugin"]["color"]  # was: both tab10's blue


def test_family_table_puts_every_contender_side_by_side():
    import pandas as pd

    from infometer.workflows.bench._report import family_table

    def run(method, task, seed, est, status="ok", cpu=0.01, **diag):
        return {"family": "F", "quantity": "transfer_entropy", "task": task, "n": 100,
                "seed": seed, "method": method, "truth": 1.0, "estimate": est,
                "error": None if est is None else est - 1.0, "status": status,
                "cpu_s": cpu, **diag}  # fmt: skip

    rows = [run("a", t, s, 1.0 + 0.1 * s) for t in ("t1", "t2") for s in range(3)]
    rows += [run("peer:p", t, s, 1.3) for t in ("t1", "t2") for s in range(2)]
    rows += [run("peer:p", "t1", 2, None, status="peer-crashed", cpu=None)]
    df = pd.DataFrame(rows)
    df["abs_error"] = df["error"].abs()
    ft = family_table(df, "F").set_index("contender")
    assert list(ft.index) == ["a", "peer:p"]  # best first
    assert ft.loc["a", "median |err|"] == pytest.approx(0.1)  # errors 0, .1, .2 per task
    assert ft.loc["a", "bias"] == pytest.approx(0.1)
    assert ft.loc["a", "spread (sd)"] == pytest.approx(0.1)  # sd of 1.0, 1.1, 1.2
    assert ft.loc["peer:p", "failed"] == 1 and ft.loc["peer:p", "runs"] == 5
    assert ft.loc["peer:p", "bias"] == pytest.approx(0.3) and ft.loc["peer:p", "tasks"] == "2/2"
    assert ft.loc["a", "median CPU (s)"] == pytest.approx(0.01)
    net = df.assign(quantity="network", precision=0.5, recall=1.0, fpr=0.25)
    ftn = family_table(net, "F")
    assert {"precision", "recall", "FPR"} <= set(ftn.columns)
    assert ftn["FPR"].iloc[0] == pytest.approx(0.25)


# ---------------------------------------------------------------- screenshots (issue 41)
# The bench report and every figure the CLI writes (pid, multiplets, matrix, network),
# rendered by headless Chromium at 800 and 1400 px and kept as test artefacts in
# ``$INFOMETER_TEST_ARTIFACTS`` (else pytest's temporary folder).  Each screenshot must be
# drawn, and the figures must scale to the page (no horizontal overflow).
WIDTHS = (800, 1400)


def _artefacts(tmp_path: Path) -> Path:
    d = Path(os.environ.get("INFOMETER_TEST_ARTIFACTS", tmp_path)) / "screenshots"
    d.mkdir(parents=True, exist_ok=True)
    return d


def _shot(page: Path, png: Path, width: int, height: int) -> np.ndarray:
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run(
            [_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"]
            + ["--disable-background-networking", "--disable-component-update"]
            + ["--hide-scrollbars", f"--user-data-dir={profile}"]
            + [f"--window-size={width},{height}", f"--screenshot={png}", page.as_uri()],
            check=True,
            timeout=180,
            capture_output=True,
        )
    import matplotlib.image as mpimg

    return mpimg.imread(png)[..., :3]


def _cli_figures(d: Path) -> list[Path]:
    rng = np.random.default_rng(0)
    a, b = rng.integers(0, 2, 400), rng.integers(0, 2, 400)
    pd.DataFrame({"a": a, "b": b, "z": a ^ b}).to_csv(d / "xor.csv", index=False)
    x = rng.normal(size=(300, 6))
    x[:, 1] += x[:, 0]
    x[:, 2] += x[:, 1]
    pd.DataFrame(x, columns=list("uvwxyz")).to_csv(d / "tab.csv", index=False)
    t, e = np.zeros((400, 3)), rng.normal(size=(400, 3))
    for i in range(1, 400):
        t[i] = 0.5 * t[i - 1] + e[i]
        t[i, 1] += 0.6 * t[i - 1, 0]
    pd.DataFrame(t, columns=["p", "q", "s"]).to_csv(d / "ts.csv", index=False)
    runs = {
        "pid": ["pid", str(d / "xor.csv"), "--sources", "a,b", "--target", "z"],
        "multiplets": ["multiplets", str(d / "tab.csv"), "--size", "3"],
        "matrix": ["matrix", str(d / "tab.csv")],
        "network": ["network", str(d / "ts.csv"), "--max-lag", "1", "--permutations", "100"],
    }
    from typer.testing import CliRunner

    from infometer.cli.app import app

    for name, args in runs.items():
        r = CliRunner().invoke(app, [*args, "-o", str(d / name), "-q"])
        assert r.exit_code == 0, (name, r.output)
    return sorted(d.glob("*/*.png"))


@pytest.mark.slow
def test_report_and_cli_figures_at_800_and_1400_px(bench_dir, tmp_path):
    art = _artefacts(tmp_path)
    pngs = _cli_figures(tmp_path)
    assert {p.parent.name for p in pngs} == {"pid", "multiplets", "matrix", "network"}
    imgs = "".join(
        f'<figure><img alt="{p.parent.name}/{p.name}" style="max-width:100%;height:auto" '
        f'src="data:image/png;base64,{base64.b64encode(p.read_bytes()).decode()}">'
        f"<figcaption>{p.parent.name}/{p.name}</figcaption></figure>"
        for p in pngs
    )
    gallery = tmp_path / "figures.html"
    gallery.write_text(f"<!doctype html><html><body style='margin:8px'>{imgs}</body></html>")
    report = write_report(bench_dir, tmp_path / "report.html", tolerance=0.1)
    for page, height in ((report, 2400), (gallery, 4800)):
        for width in WIDTHS:
            png = art / f"{page.stem}-{width}px.png"
            img = _shot(page, png, width, height)
            assert img.shape[1] == width, (png, img.shape)
            drawn = (img < 0.95).any(axis=2).mean()
            assert drawn > 0.03, (png, drawn)  # text, tables and figures on screen
            # the page is no wider than the window (wide tables scroll inside their box)
            assert _page_width(page, width) <= width, (page.name, width)


def _page_width(page: Path, width: int) -> int:
    """The laid-out width of ``page`` (``scrollWidth``) in a window ``width`` px wide."""
    probe = page.with_name(f"{page.stem}-probe.html")
    js = (
        "<script>addEventListener('load', function () { document.body.setAttribute("
        "'data-scroll-width', document.documentElement.scrollWidth); });</script>"
    )
    probe.write_text(page.read_text().replace("</body>", js + "</body>"))
    with tempfile.TemporaryDirectory() as profile:
        out = subprocess.run(
            [_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"]
            + [f"--user-data-dir={profile}", f"--window-size={width},2400", "--dump-dom"]
            + [probe.as_uri()],
            check=True,
            timeout=180,
            capture_output=True,
            text=True,
        ).stdout
    found = re.findall(r'data-scroll-width="(\d+)"', out)
    assert found, "the probe script did not run"
    return int(found[0])
