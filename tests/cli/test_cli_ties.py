"""The CLI on rounded data (issue 35 §1): the auto reading printed, warnings in the
command's words, and every suggested flag accepted by the command that suggests it."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import infometer as im
from infometer.cli.app import app

runner = CliRunner()


@pytest.fixture
def rounded_csv(tmp_path):
    rng = np.random.default_rng(0)
    z = rng.multivariate_normal([0, 0], [[1, 0.6], [0.6, 1]], 400)
    df = pd.DataFrame({"a": np.round(5.8 + 0.8 * z[:, 0], 1), "b": np.round(z[:, 1], 1)})
    path = tmp_path / "rounded.csv"
    df.to_csv(path, index=False)
    return path, df


def flags_suggested(output: str) -> list[str]:
    return re.findall(r"--[a-z][a-z-]+", output)


def ok(r):
    assert r.exit_code == 0, r.output
    assert "Traceback" not in r.output
    return r.output


def test_entropy_auto_states_the_reading_in_cli_words(rounded_csv):
    path, df = rounded_csv
    out = ok(runner.invoke(app, ["entropy", str(path), "-c", "a", "--json"]))
    assert '"dequantize": true' in out
    out = ok(runner.invoke(app, ["entropy", str(path), "-c", "a"]))
    assert "auto:" in out and "step 0.1" in out and "--discrete" in out
    assert "discrete=True" not in out
    value = float(out.split()[0])
    assert value == pytest.approx(im.entropy(df["a"]).value, abs=1e-3)


def test_explicit_method_warns_with_a_flag_the_command_takes(rounded_csv):
    path, df = rounded_csv
    r = runner.invoke(app, ["entropy", str(path), "-c", "a", "--method", "kozachenko_leonenko"])
    out = ok(r)
    assert "warning:" in out and "of rows tied" in out and "step 0.1" in out
    assert "--dequantize" in out and "dequantize=True" not in out
    assert "--method gkov" not in out and "fine for rounding" not in out
    for flag in set(flags_suggested(out.split("warning:", 1)[1])):
        assert flag in ok(runner.invoke(app, ["entropy", "--help"])), flag
    fixed = ok(
        runner.invoke(
            app,
            ["entropy", str(path), "-c", "a", "--method", "kozachenko_leonenko", "--dequantize"],
        )
    )
    assert "warning:" not in fixed
    auto = ok(runner.invoke(app, ["entropy", str(path), "-c", "a"]))
    assert fixed.split()[0] == auto.split()[0]


def test_mi_and_kl_take_the_flag(rounded_csv):
    path, _ = rounded_csv
    out = ok(runner.invoke(app, ["mi", str(path), "--x", "a", "--y", "b", "--method", "ksg1"]))
    assert "--dequantize" in out
    ok(runner.invoke(app, ["mi", str(path), "--x", "a", "--y", "b", "--dequantize"]))
    out = ok(runner.invoke(app, ["kl", str(path), str(path), "-c", "a", "--no-dequantize"]))
    assert "--dequantize" in out  # the jitter warning, in flags


def test_complexity_sample_entropy_suggests_its_flag(rounded_csv):
    path, _ = rounded_csv
    out = ok(runner.invoke(app, ["complexity", str(path), "--columns", "b", "--measure", "sample"]))
    assert "warning:" in out and "--dequantize" in out
    ok(
        runner.invoke(
            app, ["complexity", str(path), "--columns", "b", "--measure", "sample", "--dequantize"]
        )
    )
    r = runner.invoke(
        app, ["complexity", str(path), "--columns", "b", "--measure", "spectral", "--dequantize"]
    )
    assert r.exit_code == 2 and "--dequantize applies to" in r.output


def test_pairwise_and_multi_take_the_flag(rounded_csv, tmp_path):
    path, _ = rounded_csv
    out = ok(
        runner.invoke(app, ["matrix", str(path), "--method", "ksg", "-o", str(tmp_path / "m")])
    )
    assert "--dequantize" in out
    ok(runner.invoke(app, ["matrix", str(path), "--dequantize", "-o", str(tmp_path / "m2")]))
    ok(
        runner.invoke(
            app,
            [
                "rank",
                str(path),
                "-t",
                "b",
                "--method",
                "ksg1",
                "--dequantize",
                "-o",
                str(tmp_path / "r"),
            ],
        )
    )
    df = pd.read_csv(path)
    df["c"] = np.round(df["a"] + df["b"], 1)
    p3 = tmp_path / "three.csv"
    df.to_csv(p3, index=False)
    out = ok(runner.invoke(app, ["multi", "o-information", str(p3), "--method", "ksg"]))
    assert "--dequantize" in out
    ok(runner.invoke(app, ["multi", "o-information", str(p3), "--method", "ksg", "--dequantize"]))
