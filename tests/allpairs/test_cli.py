"""``infometer matrix`` and ``infometer rank`` on small files: outputs, resume, errors."""

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from infometer.cli.app import app

runner = CliRunner()


def run(*args):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    d = tmp_path_factory.mktemp("pw")
    rng = np.random.default_rng(0)
    n = 400
    a = rng.standard_normal(n)
    b = a + rng.standard_normal(n)
    df = pd.DataFrame(
        {
            "a": a,
            "b": b,
            "c": b + rng.standard_normal(n),
            "d": rng.standard_normal(n),
            "cls": (a + 0.5 * rng.standard_normal(n) > 0).astype(int),
        }
    )
    df.to_csv(d / "t.csv", index=False)
    df[["a"]].to_csv(d / "one.csv", index=False)
    return d


@pytest.mark.slow
def test_matrix_writes_matrix_edges_heatmap_network_and_resumes(table, tmp_path):
    out = tmp_path / "m"
    r = run("matrix", table / "t.csv", "-o", out, "-B", "19", "--network", "aracne", "-q")
    assert r.exit_code == 0, r.output
    m = pd.read_csv(out / "matrix.csv", index_col=0)
    assert list(m.columns) == ["a", "b", "c", "d", "cls"] and np.allclose(m, m.T, equal_nan=True)
    e = pd.read_csv(out / "edges.csv")
    assert len(e) == 10 and {"p_value", "q_value", "significant"} <= set(e.columns)
    for f in ("heatmap.png", "significant_edges.csv", "network.csv", "network.png"):
        assert (out / f).stat().st_size > 0, f
    net = pd.read_csv(out / "network.csv")
    assert ("a", "c") not in set(zip(net.x, net.y, strict=True))  # a-c only through b
    assert "blocks computed 1" in r.output
    again = run("matrix", table / "t.csv", "-o", out, "-B", "19", "--network", "aracne", "-q")
    assert again.exit_code == 0 and "already stored 1" in again.output
    pd.testing.assert_frame_equal(pd.read_csv(out / "matrix.csv", index_col=0), m)


def test_matrix_copula_given_and_unit(table, tmp_path):
    r = run(
        "matrix", table / "t.csv", "-o", tmp_path, "-m", "copula", "--given", "b",
        "--columns", "a,b,c,d", "--unit", "bits", "-q",
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    m = pd.read_csv(tmp_path / "matrix.csv", index_col=0)
    assert list(m.columns) == ["a", "c", "d"]
    assert abs(m.loc["a", "c"]) < 0.02  # a and c are independent given b


@pytest.mark.parametrize(
    "args, match",
    [
        (["one.csv"], "at least 2"),
        (["t.csv", "--network", "tree"], "--network"),
        (["t.csv", "-m", "ksg", "--columns", "a,cls"], "discrete"),
        (["missing.csv"], "no such file"),
        (["t.csv", "--scheduler", "tcp://127.0.0.1:9"], "cannot reach the Dask scheduler"),
    ],
)
def test_matrix_errors_are_one_line(table, tmp_path, args, match):
    r = run("matrix", *[table / a if a.endswith(".csv") else a for a in args], "-o", tmp_path)
    assert r.exit_code == 2, r.output
    assert match in r.output and "Traceback" not in r.output


def test_rank_with_error_bars_and_mrmr_selection(table, tmp_path):
    r = run(
        "rank", table / "t.csv", "--target", "cls", "--select", "mrmr", "--keep", "2",
        "-o", tmp_path, "-q",
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    rank = pd.read_csv(tmp_path / "rank.csv")
    assert rank.column.iloc[0] == "a" and (rank.ci_low <= rank.value).all()
    sel = pd.read_csv(tmp_path / "selected.csv")
    assert sel.feature.iloc[0] == "a" and sel["rank"].notna().sum() == 2
    assert (tmp_path / "rank.png").stat().st_size > 0
    bad = run("rank", table / "t.csv", "--target", "zz", "-o", tmp_path)
    assert bad.exit_code == 2 and "no column 'zz'" in bad.output
