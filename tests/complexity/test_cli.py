"""``infometer complexity FILE`` (issue 26)."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from infometer.cli.app import app

runner = CliRunner()


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("cx")
    rng = np.random.default_rng(0)
    pd.DataFrame({"v": rng.normal(size=6000)}).to_csv(d / "one.csv", index=False)
    pd.DataFrame({"a": np.arange(600.0), "b": rng.normal(size=600)}).to_csv(
        d / "two.csv", index=False
    )
    return d


def test_issue_command_line(files, tmp_path):
    png = tmp_path / "multiscale.png"
    res = runner.invoke(
        app,
        [
            "complexity",
            str(files / "one.csv"),
            "--measure",
            "permutation",
            "--order",
            "5",
            "--multiscale",
            "20",
            "--json",
            "--quiet",
            "--out",
            str(tmp_path),
        ],
    )
    assert res.exit_code == 0, res.output
    d = json.loads(res.stdout)
    assert [r["scale"] for r in d["rows"]] == list(range(1, 21))
    # white noise at scale 1: log 5! minus the plug-in bias (< 0.01 at N = 6000)
    assert d["rows"][0]["value"] == pytest.approx(math.log(120), abs=0.02)
    assert png.stat().st_size > 0


def test_single_value_json_and_column(files):
    res = runner.invoke(
        app, ["complexity", str(files / "two.csv"), "--columns", "a", "--normalize", "--json"]
    )
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["value"] == 0.0  # a ramp: one ordinal pattern


@pytest.mark.parametrize(
    "args, words",
    [
        (["two.csv"], "--columns"),
        (["one.csv", "--order", "9"], "order"),
        (["one.csv", "--measure", "nope"], "nope"),
        (["one.csv", "--columns", "zz"], "zz"),
    ],
)
def test_errors_are_one_line_exit_2(files, args, words):
    res = runner.invoke(app, ["complexity", str(files / args[0]), *args[1:]])
    assert res.exit_code == 2 and words in res.output
