"""The HTML report: self-contained, the right sections, failures highlighted, and it renders
in headless Chromium to a non-blank screenshot (Chromium is installed by .ci/ensure-chromium)."""

import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from infometer import truth
from infometer.bench import Store, plan, run_sweep
from infometer.bench.report import aggregate, load, write_report

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
        run_sweep(jobs, st, workers=1, progress=False)
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
        "Summary per estimator",
        "Failing tasks",
        "Estimates vs truth",
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
