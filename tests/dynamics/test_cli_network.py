"""``infometer network``: files written, --json parsed back, one-line errors (exit 2)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
from typer.testing import CliRunner

from infometer.cli.app import app
from infometer.measures.dynamics import simulate

runner = CliRunner()


def _csv(tmp_path):
    a = np.zeros((1, 3, 3))
    a[0][np.diag_indices(3)] = 0.4
    a[0, 1, 0] = 0.6
    x = simulate.var(a, 800, seed=0)
    path = tmp_path / "ts.csv"
    pd.DataFrame(x, columns=["a", "b", "c"]).to_csv(path, index=False)
    return path


def test_network_json_and_files(tmp_path):
    path = _csv(tmp_path)
    out = tmp_path / "out"
    r = runner.invoke(
        app,
        [
            "network",
            str(path),
            "--method",
            "mte",
            "--max-lag",
            "2",
            "--cmi",
            "gaussian",
            "--permutations",
            "100",
            "--correction",
            "fdr_bh",
            "--out",
            str(out),
            "--json",
        ],
    )
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    assert d["correction"] == "fdr_bh"
    assert d["nodes"] == ["a", "b", "c"]
    assert [(e["source"], e["target"], e["lag"]) for e in d["edges"]] == [("a", "b", 1)]
    edges = pd.read_csv(d["files"]["edges"])
    assert list(edges.columns) == ["source", "target", "lag", "estimate", "p_value", "p_corrected"]
    adj = pd.read_csv(d["files"]["adjacency"], index_col=0)
    assert adj.loc["a", "b"] > 0 and adj.loc["b", "a"] == 0
    assert (out / "network.png").stat().st_size > 1000


def test_network_table_output_and_pcmci(tmp_path):
    path = _csv(tmp_path)
    r = runner.invoke(
        app,
        [
            "network",
            str(path),
            "--method",
            "pcmci",
            "--max-lag",
            "2",
            "--out",
            str(tmp_path / "o"),
            "-q",
        ],
    )
    assert r.exit_code == 0, r.output
    assert "pcmci (gaussian)" in r.stdout


def test_network_bad_input_is_one_line_exit_2(tmp_path):
    path = _csv(tmp_path)
    r = runner.invoke(app, ["network", str(path), "--max-lag", "500", "--out", str(tmp_path)])
    assert r.exit_code == 2
    assert "half the length" in r.output
    r = runner.invoke(app, ["network", str(path), "--columns", "a,zz", "--out", str(tmp_path)])
    assert r.exit_code == 2 and "zz" in r.output
