"""``infometer network --method pcmciplus --tau-min 0``: the link column, --json, errors."""

from __future__ import annotations

import json

import pandas as pd
from typer.testing import CliRunner

from infometer.cli.app import app

from .test_pcmciplus import runge_data

runner = CliRunner()


def test_pcmciplus_cli_json_and_table(tmp_path):
    path = tmp_path / "ts.csv"
    pd.DataFrame(runge_data(2000, 0), columns=["x", "y", "z"]).to_csv(path, index=False)
    args = ["network", str(path), "--method", "pcmciplus", "--tau-min", "0", "--max-lag", "2"]
    args += ["--alpha", "0.01", "--out", str(tmp_path / "o")]
    r = runner.invoke(app, [*args, "--json"])
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    # the same graph as the API's ground-truth test (tests/dynamics/test_pcmciplus.py)
    got = [(e["source"], e["target"], e["lag"], e["link"]) for e in d["edges"]]
    assert got == [("x", "y", 0, "-->"), ("x", "z", 0, "-->"), ("y", "z", 1, "-->")]
    edges = pd.read_csv(d["files"]["edges"])
    assert list(edges.columns)[-1] == "link"
    t = runner.invoke(app, args)
    assert t.exit_code == 0, t.output
    assert "link" in t.stdout and "-->" in t.stdout


def test_pcmciplus_cli_errors_are_one_line(tmp_path):
    path = tmp_path / "ts.csv"
    pd.DataFrame(runge_data(300, 1), columns=["x", "y", "z"]).to_csv(path, index=False)
    base = ["network", str(path), "--max-lag", "2", "--out", str(tmp_path / "o")]
    r = runner.invoke(app, [*base, "--method", "mte", "--tau-min", "0"])
    assert r.exit_code == 2 and "contemporaneous" in r.output and "Traceback" not in r.output
    r = runner.invoke(app, [*base, "--method", "pcmciplus", "--tau-min", "5"])
    assert r.exit_code == 2 and "--tau-min must be <= 2" in r.output
