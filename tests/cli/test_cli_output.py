"""The same options everywhere (issue 31 §3): ``--json`` on every command that prints
results, ``-`` for standard input, ``--threads`` on training commands, tables that keep
their width when piped, one warning summary per run."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from infometer.cli._console import summarize_warnings
from infometer.cli.app import app

runner = CliRunner()


@pytest.fixture
def table(tmp_path):
    rng = np.random.default_rng(0)
    a = rng.integers(0, 3, 120)
    df = pd.DataFrame(
        {
            "a": a,
            "b[x]": (a + rng.integers(0, 2, 120)) % 3,
            "c": rng.integers(0, 2, 120),
            "cls": a % 2,
        }
    )
    f = tmp_path / "t.csv"
    df.to_csv(f, index=False)
    return f


def _json(r):
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def test_json_on_every_result_command(table, tmp_path):
    out = tmp_path / "o"
    d = _json(runner.invoke(app, ["mi", str(table), "--x", "a", "--y", "c", "--json"]))
    assert d["quantity"] == "mutual_info"
    d = _json(runner.invoke(app, ["methods", "entropy", "--json"]))
    assert {"quantity", "method", "family"} <= set(d[0]) and any(m["method"] == "nsb" for m in d)
    d = _json(
        runner.invoke(
            app,
            ["rank", str(table), "--target", "cls", "--ci", "0.9", "-o", str(out), "-q", "--json"]
            + ["--select", "mrmr", "--keep", "2"],
        )
    )
    assert [r["column"] for r in d["ranking"]][0] == "a"  # cls = a mod 2
    assert len(d["selected"]) == 2 and d["selected"][0] == "a"
    d = _json(
        runner.invoke(app, ["matrix", str(table), "-o", str(out / "m"), "-q", "--json", "-j", "1"])
    )
    assert d["columns"] == ["a", "b[x]", "c", "cls"] and len(d["edges"]) == 6
    d = _json(
        runner.invoke(
            app,
            ["bench", "--tasks", "gauss-entropy-1d", "--n", "50", "--seeds", "1", "-j", "1"]
            + ["-e", "histogram", "--out", str(out / "b"), "-q", "--json"],
        )
    )
    assert d["methods"][0]["estimator"] == "histogram" and d["ran"] == 1


def test_every_result_command_has_json():
    # commands that print results; `report` writes a file and `text select` prints JSON
    for path in (
        ["entropy"],
        ["mi"],
        ["kl"],
        ["methods"],
        ["demo"],
        ["bench"],
        ["layers"],
        ["matrix"],
        ["rank"],
        ["seq", "entropy"],
        ["seq", "mi"],
        ["seq", "scan"],
        ["seq", "kl"],
        ["text", "channel-mi"],
        ["text", "needle"],
    ):
        r = runner.invoke(app, [*path, "--help"], terminal_width=200)
        assert "--json" in r.output, path


def test_training_commands_take_threads():
    for path in (
        ["entropy"],
        ["mi"],
        ["kl"],
        ["layers"],
        ["seq", "entropy"],
        ["seq", "mi"],
        ["seq", "scan"],
        ["seq", "kl"],
    ):
        r = runner.invoke(app, [*path, "--help"], terminal_width=200)
        assert "--threads" in r.output, path


def test_dash_reads_standard_input(table):
    text = table.read_text()
    r = runner.invoke(app, ["mi", "-", "--x", "a", "--y", "cls", "--json"], input=text)
    from_file = runner.invoke(app, ["mi", str(table), "--x", "a", "--y", "cls", "--json"])
    assert _json(r)["value"] == _json(from_file)["value"]
    r = runner.invoke(app, ["mi", "-", "--x", "a", "--y", "cls"], input="")
    assert r.exit_code == 2 and "standard input is empty" in r.output


def test_a_piped_table_fits_80_columns_with_every_name_whole(monkeypatch):
    # was: 258 columns in a pipe, and names cut to "gaussian_co…" on an 80-column terminal
    monkeypatch.delenv("COLUMNS", raising=False)
    r = runner.invoke(app, ["methods"])  # CliRunner's stdout is not a terminal
    assert r.exit_code == 0
    lines = r.output.splitlines()
    assert max(len(ln) for ln in lines) <= 80
    assert "…" not in r.output
    from infometer.core import registry

    listed: dict[str, set[str]] = {}
    *blocks, legend = r.output.strip().split("\n\n")
    assert legend.startswith("data: c continuous")
    for block in blocks:
        head, _, *rows = block.splitlines()  # "quantity (n)", the column names, the rows
        listed[head.split()[0]] = {ln.split()[0] for ln in rows if not ln[0].isspace()}
    for q in registry.quantities():
        names = {s.name for s in registry.specs(q)}
        assert names == listed.get(q, set()), q  # each method whole, on a line of its own
    monkeypatch.setenv("COLUMNS", "120")  # a width the user asks for is kept
    r = runner.invoke(app, ["methods", "mutual_info"])
    assert 80 < max(len(ln) for ln in r.output.splitlines()) <= 120


def test_one_warning_line_per_cause():
    msgs = [
        "x columns ['a'] have tied values (up to 75.2% of rows share one)",
        "x columns ['b'] have tied values (up to 12.0% of rows share one)",
        "x columns ['a'] have tied values (up to 75.2% of rows share one)",
        "ksg1 estimate is negative (-0.01 nats)",
    ]
    lines = summarize_warnings(msgs)
    assert lines == [
        "x columns ['a'] have tied values (up to 75.2% of rows share one) (and 1 more like it)",
        "ksg1 estimate is negative (-0.01 nats)",
    ]
    assert len(summarize_warnings([f"w{i}: kind {'x' * i}" for i in range(9)], limit=3)) == 3


def test_rank_prints_one_summary_of_warnings(tmp_path):
    rng = np.random.default_rng(1)
    x = np.round(rng.normal(size=(300, 6)), 1)  # rounded: each column warns about ties
    df = pd.DataFrame(x, columns=[f"f{j}" for j in range(6)])
    df["y"] = (x[:, 0] > 0).astype(int)
    f = tmp_path / "r.csv"
    df.to_csv(f, index=False)
    r = runner.invoke(app, ["rank", str(f), "--target", "y", "-o", str(tmp_path / "o"), "-q"])
    assert r.exit_code == 0, r.output
    warns = [ln for ln in r.stderr.splitlines() if ln.startswith("warning:")]
    assert 1 <= len(warns) <= 2, r.stderr  # was: one per column and cause


def test_matrix_warns_once_in_cli_words(tmp_path):
    rng = np.random.default_rng(0)
    x = np.round(rng.normal(size=(200, 5)), 1)  # rounded: every column has ties
    f = tmp_path / "m.csv"
    pd.DataFrame(x, columns=[f"f{j}" for j in range(5)]).to_csv(f, index=False)
    # the default (auto) dequantises the rounded columns: a stated reading, no warning
    r = runner.invoke(app, ["matrix", str(f), "-o", str(tmp_path / "o"), "-q", "-j", "1"])
    assert r.exit_code == 0, r.output
    assert not [ln for ln in r.stderr.splitlines() if ln.startswith("warning:")], r.stderr
    # an explicit KSG keeps the tiny jitter and says so, once
    r = runner.invoke(
        app, ["matrix", str(f), "--method", "ksg", "-o", str(tmp_path / "o2"), "-q", "-j", "1"]
    )
    assert r.exit_code == 0, r.output
    warns = [ln for ln in r.stderr.splitlines() if ln.startswith("warning:")]
    assert len(warns) == 1, r.stderr  # was: one line per pair and cause
    assert "pass --dequantize" in warns[0] and "dequantize=True" not in warns[0]
    assert "--discrete" in warns[0] and "discrete=True" not in warns[0]
