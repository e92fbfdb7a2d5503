"""The newer commands' own validation (issue 30 §3): one ``error:`` line and a non-zero exit
before any work, for each class: unwritable outputs, bad option values, damaged or foreign
result stores, a store killed before its metadata was written, malformed CSV files, Ctrl-C.
"""

from __future__ import annotations

import sqlite3

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from infometer.cli.app import app

runner = CliRunner()


def one_error(r, *texts: str, code: int = 2) -> None:
    assert r.exit_code == code, r.output
    assert "Traceback" not in r.output and "internal error" not in r.output, r.output
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    lines = [ln for ln in r.output.splitlines() if ln.strip()]
    assert lines and lines[-1].startswith("error: "), r.output
    for t in texts:
        assert t in r.output, r.output


@pytest.fixture
def table(tmp_path):
    rng = np.random.default_rng(0)
    df = pd.DataFrame(rng.normal(size=(60, 3)), columns=["a", "b", "c"])
    df["t"] = (df.a > 0).astype(int)
    path = tmp_path / "t.csv"
    df.to_csv(path, index=False)
    return path


def _bad_places(tmp_path):
    """Output places that cannot be written: under a file, a file for a folder, a folder
    for a file (root may write anywhere else, so no chmod-based case)."""
    f = tmp_path / "plain-file"
    f.write_text("x")
    return {"under a file": str(f / "sub"), "a file": str(f)}


# ------------------------------------------------------- outputs checked before work
OUT_COMMANDS = {
    "matrix": lambda data, out: ["matrix", data, "-o", out],
    "rank": lambda data, out: ["rank", data, "--target", "t", "-o", out],
    "demo": lambda data, out: ["demo", "-o", out],
    "layers": lambda data, out: ["layers", "--out", out, "--steps", "1"],
    "needle": lambda data, out: ["text", "needle", "--out", out],
    "pid": lambda data, out: ["pid", data, "--target", "t", "-s", "a,b", "-o", out],
    "multi": lambda data, out: ["multi", "gradient-o-information", data, "-o", out],
    "complexity": lambda data, out: ["complexity", data, "--multiscale", "3", "-o", out],
    "channel-mi": lambda data, out: (
        ["text", "channel-mi", "--contexts", data] + ["--summaries", data, "-o", out]
    ),
    "select": lambda data, out: (
        ["text", "select", "--contexts", data, "--budget", "5"] + ["-o", out]
    ),
    "seq": lambda data, out: ["seq", "entropy", data, "-o", out],
    "network": lambda data, out: ["network", data, "-o", out],
    "multiplets": lambda data, out: ["multiplets", data, "-o", out],
    "bench": lambda data, out: ["bench", "--tasks", "gauss-entropy-1d", "-o", out],
}


@pytest.mark.parametrize("command", sorted(OUT_COMMANDS))
@pytest.mark.parametrize("place", ["under a file", "a file"])
def test_unwritable_output_folder_before_any_work(tmp_path, command, place):
    out = _bad_places(tmp_path)[place]
    # the input does not exist: the output is checked first, so it is what is reported
    r = runner.invoke(app, OUT_COMMANDS[command](str(tmp_path / "missing.csv"), out))
    one_error(r, "--out")


@pytest.mark.parametrize("place", ["under a file", "a folder"])
def test_unwritable_output_files(tmp_path, place):
    target = _bad_places(tmp_path)["under a file"] if place == "under a file" else str(tmp_path)
    r = runner.invoke(app, ["report", str(tmp_path), "-o", target])
    assert r.exit_code == 2, r.output  # no store here either; one line either way


# ----------------------------------------------------------------- bad option values
@pytest.mark.parametrize(
    "args,named",
    [
        (["--steps", "0"], "--steps"),
        (["--steps", "-5"], "--steps"),
        (["--seeds", "0"], "--seeds"),
        (["--threads", "0"], "--threads"),
        (["--n", "3"], "--n"),
        (["--method", "nope"], "nope"),
        (["--method", "ksg1"], "--method"),  # KSG has no steps=: named, before loading
        (["--model", "/no/such/folder"], "--model"),
    ],
)
def test_layers_options_validated_before_loading_the_model(tmp_path, args, named):
    r = runner.invoke(app, ["layers", "--out", str(tmp_path / "o"), *args])
    one_error(r, named)
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    "args,named",
    [
        (["rank", "{data}", "--target", "t", "--top", "-1"], "--top"),
        (["rank", "{data}", "--target", "t", "--keep", "0"], "--keep"),
        (["demo", "--top", "-3"], "--top"),
        (["matrix", "{data}", "--permutations", "-1"], "--permutations"),
        (["matrix", "{data}", "--k", "0"], "--k"),
        (["matrix", "{data}", "--network", "tree"], "--network"),
        (["matrix", "{data}", "--columns", "a,a"], "columns"),
    ],
)
def test_pairwise_commands_option_values(tmp_path, table, args, named):
    argv = [a.replace("{data}", str(table)) for a in args] + ["-o", str(tmp_path / "o")]
    one_error(runner.invoke(app, argv), named)


# ----------------------------------------------------------------- malformed CSV files
@pytest.mark.parametrize(
    "text,named",
    [
        ("a,a,b\n1,2,3\n4,5,6\n", "more than once"),
        ("a,b,a,b\n1,2,3,4\n", "more than once"),
        ("a,b,c\n1,2,3\n4,5\n", "line 3"),
        ("a,b,c\n1,2\n4,5,6\n", "line 2"),
        ("a,b\n1,2\n3,4,5\n", "line 3"),
    ],
)
@pytest.mark.parametrize("command", ["matrix", "entropy"])
def test_malformed_csv(tmp_path, text, named, command):
    f = tmp_path / "bad.csv"
    f.write_text(text)
    argv = (
        ["matrix", str(f), "-o", str(tmp_path / "o")]
        if command == "matrix"
        else ["entropy", str(f)]
    )
    one_error(runner.invoke(app, argv), named)


# ----------------------------------------------------------------- stores
def _truncated_store(d):
    from infometer.workflows.bench.store import Store

    with Store(d) as s:
        for i in range(50):
            s.add(
                {
                    "task": "t",
                    "method": "m",
                    "n": 10,
                    "seed": i,
                    "quantity": "q",
                    "truth": 0.0,
                    "status": "ok",
                    "message": "x" * 200,
                }
            )
    p = d / "results.sqlite"
    data = p.read_bytes()
    p.write_bytes(data[: len(data) // 3])


STORES = {
    "random bytes": lambda d: (d / "results.sqlite").write_bytes(
        np.random.default_rng(0).bytes(5000)
    ),
    "text": lambda d: (d / "results.sqlite").write_text("hello, not a database\n" * 40),
    "empty file": lambda d: (d / "results.sqlite").write_bytes(b""),
    "foreign database": lambda d: sqlite3.connect(d / "results.sqlite").execute(
        "CREATE TABLE foo (x)"
    ),
    "foreign runs table": lambda d: sqlite3.connect(d / "results.sqlite").execute(
        "CREATE TABLE runs (x)"
    ),
    "truncated store": _truncated_store,
}


@pytest.mark.parametrize("kind", sorted(STORES))
@pytest.mark.parametrize("command", ["report", "bench"])
def test_damaged_or_foreign_results_store(tmp_path, kind, command):
    d = tmp_path / "store"
    d.mkdir()
    STORES[kind](d)
    before = _files(d)
    argv = (
        ["report", str(d), "-o", str(tmp_path / "r.html")]
        if command == "report"
        else ["bench", "--tasks", "gauss-entropy-1d", "--n", "50", "--seeds", "1", "--out", str(d)]
    )
    one_error(runner.invoke(app, argv), "results.sqlite")
    assert _files(d) == before  # nothing written into it, no identity made up for it


def _files(d):
    """Every file of a folder and its bytes (the lock file aside: taking it writes the pid;
    and the -wal/-shm files SQLite's reader of a WAL database makes beside it)."""
    aside = {".lock", "results.sqlite-wal", "results.sqlite-shm"}
    return {p: p.read_bytes() for p in d.rglob("*") if p.is_file() and p.name not in aside}


@pytest.mark.parametrize("blocks", [1, 3])
def test_block_store_killed_before_its_manifest(tmp_path, table, blocks):
    pytest.importorskip("pyarrow")
    store = tmp_path / "store"
    (store / "blocks").mkdir(parents=True)
    for g in range(blocks):
        (store / "blocks" / f"g{g}_h{g}.parquet").write_bytes(b"PAR1")
    r = runner.invoke(app, ["matrix", str(table), "-o", str(tmp_path / "o"), "--store", str(store)])
    one_error(r, "manifest.json")


def test_block_store_with_an_empty_manifest_and_no_blocks_is_refused(tmp_path, table):
    # an empty identity is a truncated one: the store service never reuses or rewrites it
    pytest.importorskip("pyarrow")
    store = tmp_path / "store"
    (store / "blocks").mkdir(parents=True)
    (store / "manifest.json").write_text("")
    r = runner.invoke(app, ["matrix", str(table), "-o", str(tmp_path / "o"), "--store", str(store)])
    one_error(r, "manifest.json", str(store))
    assert (store / "manifest.json").read_text() == ""


# ------------------------------------------------------------------------ Ctrl-C
def test_matrix_ctrl_c_is_exit_130_and_says_how_to_resume(tmp_path, table, monkeypatch):
    import infometer.workflows.allpairs as ap

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(ap, "pairwise", interrupted)
    r = runner.invoke(app, ["matrix", str(table), "-o", str(tmp_path / "o")])
    assert r.exit_code == 130, r.output
    assert "interrupted; run again to resume" in r.output
    assert "Traceback" not in r.output and "internal error" not in r.output


def test_pairwise_raises_keyboard_interrupt_when_its_run_was_interrupted(monkeypatch):
    import infometer as im
    from infometer.workflows.allpairs import _blocks

    real = _blocks._run

    def stopped(*args, **kwargs):
        out = real(*args, **kwargs)
        out.interrupted = True
        return out

    monkeypatch.setattr(_blocks, "_run", stopped)
    with pytest.raises(KeyboardInterrupt):
        im.pairwise(np.random.default_rng(0).normal(size=(30, 3)), method="gaussian_copula")
