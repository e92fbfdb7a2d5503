"""``--discrete`` reaches every command that takes a table (issue 35 §2): each data
command is run with ``--discrete`` on XOR / AND / copy data written as floats (0.0/1.0, so
that without the flag they would be read as numbers) and must print the discrete answer.

Ground truths (balanced samples: the empirical pmf is the gate's, so plug-in values are
exact and bias-corrected ones within 1/(2n ln 2) bits per term): H(fair bit) = 1 bit;
XOR: I(a,b; z) = I(a; z | b) = 1 bit, synergy 1 bit, O-information -1 bit; AND:
I(a; z) = 1.5 - 0.75 log2 3 bits; KL(fair bit || Bernoulli(1/4)) = ½ log2(2/3) + ½ log2 2
bits; copy with lag 1: TE = 1 bit.  A command added later must join this walk or the list
of commands that take no table, with its reason.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from infometer.cli.app import app

LOG2_3 = float(np.log2(3.0))
R_AND = 1.5 - 0.75 * LOG2_3
KL_BITS = 0.5 * np.log2(2 / 3) + 0.5
TOL = 0.005  # bias corrections at n = 1000: < 3 x 1/(2n ln 2) = 0.0022 bits

#: commands that take no table of samples (why --discrete has nothing to reach there)
NO_TABLE = {
    "methods": "lists estimators",
    "demo": "bundled datasets with their own kinds",
    "bench": "benchmark tasks with exact answers",
    "report": "reads a benchmark folder",
    "layers": "a bundled model's activations",
    "complexity": "ordinal / distance-based signal measures: no reading of symbols",
    "seq": "sequences of tokens: symbols by construction",
    "text": "text and compressor scores",
    "extract": "documents and scripts",
}


def _balanced(f, reps=250):
    rng = np.random.default_rng(0)
    ab = np.array([[a, b] for a in (0, 1) for b in (0, 1)] * reps)
    ab = ab[rng.permutation(len(ab))]
    return pd.DataFrame({"a": ab[:, 0], "b": ab[:, 1], "z": f(ab[:, 0], ab[:, 1])}).astype(float)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("discrete")
    paths = {
        "xor": d / "xor.csv",
        "and": d / "and.csv",
        "p": d / "p.csv",
        "q": d / "q.csv",
        "ts": d / "ts.csv",
    }
    _balanced(lambda a, b: a ^ b).to_csv(paths["xor"], index=False)
    _balanced(lambda a, b: a & b).to_csv(paths["and"], index=False)
    pd.DataFrame({"v": np.tile([0.0, 1.0], 500)}).to_csv(paths["p"], index=False)
    pd.DataFrame({"v": np.tile([0.0, 0.0, 0.0, 1.0], 250)}).to_csv(paths["q"], index=False)
    rng = np.random.default_rng(1)
    a = rng.integers(0, 2, 1200)
    ts = pd.DataFrame({"a": a, "b": np.r_[0, a[:-1]], "c": rng.integers(0, 2, 1200)})
    ts.astype(float).to_csv(paths["ts"], index=False)
    for p in paths.values():
        assert "0.0" in p.read_text()  # floats on disk: read as numbers by default
    return {k: str(v) for k, v in paths.items()}


def _json(args):
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def _value(doc):
    return doc["value"]


CASES = {
    "entropy": (
        lambda f: ["entropy", f["xor"], "-c", "a", "-u", "bits"],
        lambda d: abs(_value(d) - 1.0) < TOL,
    ),
    "mi": (
        lambda f: ["mi", f["xor"], "--x", "a,b", "--y", "z", "-u", "bits"],
        lambda d: abs(_value(d) - 1.0) < TOL,
    ),
    "mi --given": (
        lambda f: ["mi", f["xor"], "--x", "a", "--y", "z", "--given", "b", "-u", "bits"],
        lambda d: abs(_value(d) - 1.0) < TOL,
    ),
    "kl": (
        lambda f: ["kl", f["p"], f["q"], "-u", "bits"],
        lambda d: abs(_value(d) - KL_BITS) < TOL,
    ),
    "matrix": (
        lambda f: ["matrix", f["and"], "-u", "bits", "-o", f["and"] + ".m", "-q"],
        lambda d: all(
            abs(e["value"] - (R_AND if "z" in (e["x"], e["y"]) else 0.0)) < TOL for e in d["edges"]
        ),
    ),
    "rank": (
        lambda f: ["rank", f["and"], "--target", "z", "-o", f["and"] + ".r", "-q", "-u", "bits"],
        lambda d: all(abs(r["value"] - R_AND) < TOL for r in d["ranking"]),
    ),
    "network": (
        lambda f: (
            ["network", f["ts"], "--max-lag", "1", "--permutations", "60", "-u", "bits"]
            + ["-o", f["ts"] + ".n", "-q"]
        ),
        lambda d: any(
            e["source"] == "a" and e["target"] == "b" and abs(e["estimate"] - 1.0) < 0.02
            for e in d["edges"]
        ),
    ),
    "multi": (
        lambda f: ["multi", "o-information", f["xor"], "-u", "bits"],
        lambda d: abs(_value(d) + 1.0) < TOL,
    ),
    "multi --permutations": (
        lambda f: ["multi", "o-information", f["xor"], "-u", "bits", "-B", "19"],
        lambda d: abs(_value(d) + 1.0) < TOL and d["p_value"] <= 0.1,
    ),
    "pid": (
        lambda f: ["pid", f["xor"], "--sources", "a,b", "--target", "z", "-u", "bits"],
        lambda d: abs(d["atoms"][-1]["value"] - 1.0) < 1e-9,
    ),
    "pid --all-pairs": (
        lambda f: ["pid", f["xor"], "--all-pairs", "--target", "z", "-q", "-u", "bits"],
        lambda d: abs(d["pairs"][0]["synergy"] - 1.0) < TOL,
    ),
    "multiplets": (
        lambda f: (
            ["multiplets", f["xor"], "--size", "3", "-u", "bits", "-o", f["xor"] + ".x"] + ["-q"]
        ),
        lambda d: abs(d["top"][0]["value"] + 1.0) < TOL,
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_discrete_flag_gives_the_discrete_answer(case, files):
    args, check = CASES[case]
    doc = _json([*args(files), "--discrete", "--json"])
    assert check(doc), doc


@pytest.mark.parametrize("case", ["multi", "pid", "pid --all-pairs", "multiplets", "network"])
def test_without_the_flag_float_bits_are_refused_by_name(case, files):
    # the Gaussian-default commands do not read float bits as numbers silently
    r = CliRunner().invoke(app, [*CASES[case][0](files), "--json"])
    assert r.exit_code == 2, r.output
    assert "--discrete" in r.output


def test_every_command_is_walked_or_takes_no_table():
    commands = {c.name for c in app.registered_commands} | {g.name for g in app.registered_groups}
    walked = {c.split()[0] for c in CASES}
    assert commands == walked | set(NO_TABLE), commands ^ (walked | set(NO_TABLE))
    for name in walked:  # and each walked command has the flag
        r = CliRunner().invoke(app, [name, "--help"])
        assert "--discrete" in r.output, name
