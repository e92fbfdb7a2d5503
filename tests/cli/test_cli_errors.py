"""The CLI never shows a traceback: one ``error:`` line and a non-zero exit (issue 9 §3)."""

from __future__ import annotations

import socket
import sys
import time

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from infometer.cli import app as cli_app
from infometer.cli.app import app

runner = CliRunner()


def one_error(r, text: str, code: int = 2) -> None:
    assert r.exit_code == code, r.output
    assert "Traceback" not in r.output
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    lines = [ln for ln in r.output.splitlines() if ln.strip()]
    assert lines and lines[-1].startswith("error: "), r.output
    assert text in r.output, r.output


def test_methods_of_an_unknown_quantity_is_an_error():
    # was: an empty table and exit 0
    one_error(runner.invoke(app, ["methods", "foo"]), "unknown quantity 'foo'")
    r = runner.invoke(app, ["methods", "entropy"])
    assert r.exit_code == 0 and "nsb" in r.output


def test_bench_out_pointing_at_a_file(tmp_path):
    f = tmp_path / "results"
    f.write_text("not a directory")
    r = runner.invoke(
        app, ["bench", "--tasks", "gauss-entropy-1d", "--n", "50", "--seeds", "1", "--out", str(f)]
    )
    one_error(r, "is a file; give a directory")
    assert f.read_text() == "not a directory"


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed again on exit: nothing listens there


def test_unreachable_scheduler_fails_fast(tmp_path):
    pytest.importorskip("distributed")
    addr = f"tcp://127.0.0.1:{_closed_port()}"
    t0 = time.perf_counter()
    r = runner.invoke(
        app,
        ["bench", "--tasks", "gauss-entropy-1d", "--n", "50", "--seeds", "1"]
        + ["--out", str(tmp_path / "o"), "--scheduler", addr],
    )
    # was: a traceback after the Dask client's 30 s timeout
    one_error(r, "cannot connect to 127.0.0.1")
    assert time.perf_counter() - t0 < 20  # refused at once; 5 s timeout for silent hosts
    assert not (tmp_path / "o").exists()  # checked before the store is created
    one_error(
        runner.invoke(
            app, ["bench", "--tasks", "gauss-entropy-1d", "--scheduler", "tcp://:x", "--n", "50"]
        ),
        "is not an address",
    )


def test_library_errors_in_core_commands_are_one_line(tmp_path):
    f = tmp_path / "d.csv"
    pd.DataFrame({"a": np.arange(30) % 3, "b": np.arange(30) % 2}).to_csv(f, index=False)
    cases = [
        (["mi", str(f), "--x", "a", "--y", "zz"], "zz"),
        (["mi", str(f), "--x", "a", "--y", "b", "--method", "nope"], "unknown method 'nope'"),
        (["mi", str(f), "--x", "a", "--y", "b", "--unit", "base-inf"], "unit 'base-inf'"),
        (["mi", str(f), "--x", "a", "--y", "b", "--ci", "1.5"], "ci must be"),
        (["entropy", str(tmp_path / "missing.csv")], "no such file"),
        (["report", str(tmp_path)], "has no results.sqlite"),
    ]
    for args, text in cases:
        one_error(runner.invoke(app, args), text)


def test_an_unexpected_exception_is_one_line_too(monkeypatch, capsys):
    # the console entry point is the last resort: an internal error (a bug) is reported in
    # one line with exit 1, never as a traceback; INFOMETER_DEBUG=1 re-raises it
    def boom(*a, **k):
        raise RuntimeError("something deep inside broke\nsecond line")

    monkeypatch.setattr(cli_app, "app", boom)
    monkeypatch.setattr(sys, "argv", ["infometer", "entropy", "x.csv"])
    with pytest.raises(SystemExit) as ei:
        cli_app.main()
    assert ei.value.code == 1
    err = capsys.readouterr().err
    assert err.startswith("error: RuntimeError: something deep inside broke")
    assert "Traceback" not in err and "second line" not in err
    monkeypatch.setenv("INFOMETER_DEBUG", "1")
    with pytest.raises(RuntimeError):
        cli_app.main()
