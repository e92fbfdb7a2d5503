"""``infometer multi``, ``pid`` and ``multiplets`` on small files: --json parsed back,
figures written, one-line errors with exit code 2."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from infometer.cli.app import app

runner = CliRunner()


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("multi")
    rng = np.random.default_rng(0)
    n = 800
    a, b = rng.integers(0, 2, n), rng.integers(0, 2, n)
    pd.DataFrame({"a": a, "b": b, "y": a ^ b}).to_csv(d / "xor.csv", index=False)
    x = rng.normal(size=(n, 5))
    x[:, 4] = x[:, 0] + x[:, 1] + 0.3 * rng.normal(size=n)
    pd.DataFrame(x, columns=list("pqrst")).to_csv(d / "cont.csv", index=False)
    return d


def test_multi_json(files):
    r = runner.invoke(
        app,
        [
            "multi",
            "o-information",
            str(files / "xor.csv"),
            "--method",
            "plugin",
            "--unit",
            "bits",
            "--json",
        ],
    )
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    # the empirical pmf of 800 rows of XOR: Ω within 0.01 bits of -1
    assert d["quantity"] == "o_information" and abs(d["value"] + 1) < 0.01


def test_gradient_with_plot(files, tmp_path):
    png = tmp_path / "gradient-o-information.png"
    r = runner.invoke(
        app,
        ["multi", "gradient-o-information", str(files / "cont.csv"), "--json", "-o", str(tmp_path)],
    )
    assert r.exit_code == 0, r.output
    rows = json.loads(r.stdout)["rows"]
    assert [row["variable"] for row in rows] == list("pqrst") and png.exists()


def test_pid_json_and_plot(files, tmp_path):
    png = tmp_path / "pid.png"
    r = runner.invoke(
        app,
        [
            "pid",
            str(files / "xor.csv"),
            "--sources",
            "a,b",
            "--target",
            "y",
            "--measure",
            "broja",
            "-u",
            "bits",
            "--json",
            "--out",
            str(tmp_path),
        ],
    )
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    kinds = {row["kind"]: row["value"] for row in d["atoms"]}
    assert kinds["synergy"] > 0.98 and png.exists()


def test_multiplets_files(files, tmp_path):
    r = runner.invoke(
        app,
        [
            "multiplets",
            str(files / "cont.csv"),
            "--size",
            "3",
            "--top",
            "3",
            "-B",
            "9",
            "--json",
            "-o",
            str(tmp_path),
        ],
    )
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    assert d["multiplets"] == 10 and d["top"][0]["multiplet"] == ["p", "q", "t"]
    for f in ("multiplets.csv", "multiplets.png", "pairs.png"):
        assert (tmp_path / f).exists()


@pytest.mark.parametrize(
    "args,word",
    [
        (["pid", "xor.csv", "--sources", "a,y", "--target", "y"], "--target"),
        (["pid", "cont.csv", "--sources", "p,q", "--target", "t", "--measure", "ccs"], "measure"),
        (["multi", "entropy", "xor.csv"], "QUANTITY"),
        (["multi", "o-information", "xor.csv", "--columns", "a,b"], "has 2 variable"),
        (["multiplets", "cont.csv", "--size", "2"], "--size"),
    ],
)
def test_errors_are_one_line(files, args, word):
    args = [str(files / a) if a.endswith(".csv") else a for a in args]
    r = runner.invoke(app, args)
    assert r.exit_code == 2
    assert word in r.output and "Traceback" not in r.output


def test_multi_permutations_prints_p_value(files):
    f = str(files / "xor.csv")
    r = runner.invoke(app, ["multi", "o-information", f, "-m", "plugin", "--permutations", "49"])
    assert r.exit_code == 0, r.output
    assert "p = 0.02" in r.output and "mutual independence" in r.output
    r = runner.invoke(
        app, ["multi", "total-correlation", f, "--permutations", "19", "--block", "10", "--json"]
    )
    assert r.exit_code == 0, r.output
    d = json.loads(r.output)
    assert d["p_value"] == pytest.approx(0.05) and d["alternative"] == "greater"
    assert "blocks of 10" in d["scheme"]
    r = runner.invoke(app, ["multi", "o-information", f, "--block", "10"])
    assert r.exit_code == 2 and "--permutations" in r.output


def test_multiplets_greedy_search(files, tmp_path):
    args = ["multiplets", str(files / "cont.csv"), "--size", "3", "--max-size", "4"]
    r = runner.invoke(app, [*args, "--search", "greedy", "--json", "-o", str(tmp_path)])
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    # t = p + q + noise: the greedy synergy search starts from (p, q, t)
    assert d["top"][0]["multiplet"][:2] == ["p", "q"] and len(d["top"]) == 2
    sur = [*args, "--search", "greedy", "--permutations", "4", "--json", "-o", str(tmp_path)]
    one = json.loads(runner.invoke(app, sur).stdout)
    r = runner.invoke(app, [*sur, "--jobs", "2"])  # surrogate searches on 2 processes
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["top"] == one["top"]
    r = runner.invoke(app, [*args, "--search", "greedy", "--store", str(tmp_path / "s")])
    assert r.exit_code == 2 and "store" in r.output
