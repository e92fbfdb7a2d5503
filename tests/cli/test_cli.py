"""The CLI on small files: each command, --json parsed back, one-line errors with exit code 2."""

import json
import math

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from infometer import Estimate, __version__
from infometer.cli.app import app

runner = CliRunner()


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    d = tmp_path_factory.mktemp("cli")
    rng = np.random.default_rng(0)
    n = 4000
    a = rng.integers(0, 2, n)
    b = a ^ (rng.random(n) < 0.1)
    c = rng.choice(["u", "v", "w"], n)
    df = pd.DataFrame({"a": a, "b": b, "c": c, "f": rng.normal(size=n)})
    paths = {
        "csv": d / "t.csv",
        "tsv": d / "t.tsv",
        "parquet": d / "t.parquet",
        "jsonl": d / "t.jsonl",
    }
    df.to_csv(paths["csv"], index=False)
    df.to_csv(paths["tsv"], sep="\t", index=False)
    df.to_parquet(paths["parquet"])
    df.to_json(paths["jsonl"], orient="records", lines=True)
    np.save(d / "t.npy", np.column_stack([a, b]))
    paths["npy"] = d / "t.npy"
    return paths, df


def run(*args):
    return runner.invoke(app, [str(a) for a in args])


def test_version():
    r = run("--version")
    assert r.exit_code == 0 and __version__ in r.output


@pytest.mark.parametrize("fmt", ["csv", "tsv", "parquet", "jsonl"])
def test_mi_json_round_trip_on_every_format(table, fmt):
    paths, _ = table
    r = run("mi", paths[fmt], "--x", "a", "--y", "b", "--method", "plugin", "--json")
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    e = Estimate.from_dict(d)
    h = -(0.1 * math.log(0.1) + 0.9 * math.log(0.9))
    assert e.value == pytest.approx(math.log(2) - h, abs=0.02)  # n=4000: sd ~ 0.007
    assert e.method == "plugin" and e.quantity == "mutual_info" and d["x"] == "a"


def test_entropy_columns_bits_and_ci(table):
    paths, _ = table
    r = run("entropy", paths["csv"], "--columns", "c", "--unit", "bits", "--ci", "0.9", "--json")
    assert r.exit_code == 0, r.output
    e = Estimate.from_dict(json.loads(r.stdout))
    assert e.unit == "bits" and e.value == pytest.approx(math.log2(3), abs=0.01)
    assert e.ci is not None and e.ci_level == 0.9


def test_npy_columns_are_numbered(table):
    paths, _ = table
    r = run("mi", paths["npy"], "--x", "0", "--y", "1", "--method", "miller_madow")
    assert r.exit_code == 0, r.output
    assert "nats" in r.output and "miller_madow" in r.output


def test_conditional_mi_with_given(table):
    paths, _ = table
    r = run("mi", paths["csv"], "--x", "a", "--y", "c", "--given", "b", "--json")
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    assert d["quantity"] == "cond_mutual_info" and abs(d["value"]) < 0.01


def test_human_output_shows_auto_reason(table):
    paths, _ = table
    r = run("entropy", paths["csv"], "--columns", "a,b")
    assert r.exit_code == 0 and "auto:" in r.output and "[nsb, n=4000]" in r.output


def test_kl_between_files(table, tmp_path):
    paths, df = table
    q = tmp_path / "q.csv"
    df.assign(c=np.where(df["c"] == "u", "v", df["c"])).to_csv(q, index=False)
    r = run("kl", paths["csv"], q, "--columns", "c", "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["method"] == "pseudocount"


def test_methods_lists_estimators():
    r = run("methods", "entropy")
    assert r.exit_code == 0 and "nsb" in r.output and "chao_shen" in r.output


@pytest.mark.parametrize(
    "args, msg",
    [
        (["mi", "nope.csv", "--x", "a", "--y", "b"], "no such file"),
        (["mi", "{csv}", "--x", "a", "--y", "zz"], "no column 'zz'; columns are: a, b, c, f"),
        (["entropy", "{bad}"], "unknown table format"),
        (["entropy", "{garbage}"], "cannot read as parquet"),
        (["entropy", "{csv}", "--columns", "a", "--method", "nope"], "unknown method 'nope'"),
        (["entropy", "{csv}", "--columns", "f", "--method", "plugin"], "pass --discrete"),
    ],
)
def test_errors_are_one_line_with_exit_2(table, tmp_path, args, msg):
    paths, _ = table
    bad = tmp_path / "x.xlsx"
    bad.write_text("x")
    garbage = tmp_path / "g.parquet"
    garbage.write_text("not parquet")
    args = [a.format(csv=paths["csv"], bad=bad, garbage=garbage) for a in args]
    r = run(*args)
    assert r.exit_code == 2
    assert msg in r.output
    assert "Traceback" not in r.output
    assert len(r.output.strip().splitlines()) <= 3  # one message (rich may wrap it)


def test_demo_writes_table_and_png(tmp_path):
    r = run("demo", "--out", tmp_path, "--top", "5", "--ci", "0.9", "--unit", "bits")
    assert r.exit_code == 0, r.output
    assert "pixel_" in r.output and "bits" in r.output
    png = tmp_path / "digits_mi.png"
    assert png.exists() and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    table = pd.read_csv(tmp_path / "digits_mi.csv")
    assert len(table) == 64 and table["value"].is_monotonic_decreasing
    # MI >= 0: no interval reaches below 0; the clipped ones say so, with the bound before
    assert (table["ci_low"] >= 0).all()
    clipped = table[table["ci_clipped"]]
    assert len(clipped) > 0 and (clipped["ci_low"] == 0).all()
    assert (clipped["ci_low_unclipped"] < 0).all()
    # label carries log2(10) bits at most; every pixel carries less
    assert table["value"].max() < math.log2(10)
    # beside the bars, the 8x8 map of bits per pixel: a two-panel figure, wider than tall
    import matplotlib.image as mpimg

    from infometer.cli.demo import pixel_grid

    h, w = mpimg.imread(png).shape[:2]
    assert w > h
    grid = pixel_grid(dict(zip(table["feature"], table["value"], strict=True)))
    assert grid.shape == (8, 8)
    assert grid[4, 1] == table.set_index("feature").loc["pixel_4_1", "value"]
    # pixels that are blank in every image carry no information: 0 on the map
    from infometer.cli.demo import load

    X, _, _ = load("digits")
    blank = [c for c in X.columns if X[c].nunique() == 1]
    assert "pixel_0_0" in blank
    for c in blank:
        r, k = map(int, c.split("_")[1:])
        assert abs(grid[r, k]) < 1e-9, c
    assert pixel_grid({"pixel_0_0": 1.0, "other": 2.0}) is None
    assert pixel_grid({"pixel_0_0": 1.0, "pixel_1_1": 2.0}) is None  # not a full grid
