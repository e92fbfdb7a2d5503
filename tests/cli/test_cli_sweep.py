"""The CLI sweep of issue 41 ("one voice across interfaces"): every ``--json`` parses with a
strict JSON parser (no NaN/Infinity: ``null``, and a ``"nonfinite"`` entry naming its path
and why), warnings speak the CLI's flags and not Python's arguments, and output to a pipe has
no progress frames and fits 80 columns."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest
import typer
from rich.cells import cell_len
from typer.testing import CliRunner

from infometer.cli.app import app

runner = CliRunner()


def _refuse(constant: str):
    raise ValueError(f"not strict JSON: {constant}")


def strict(text: str):
    """``json.loads`` that refuses NaN, Infinity and -Infinity (RFC 8259)."""
    return json.loads(text, parse_constant=_refuse)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("sweep")
    rng = np.random.default_rng(0)
    n = 300
    a = rng.integers(0, 3, n)
    t = (a + rng.integers(0, 2, n)) % 3
    pd.DataFrame(
        {
            "a": a,
            "b": rng.integers(0, 2, n),
            "t": t,
            "x": rng.standard_normal(n),
            "bits": rng.integers(0, 2, n).astype(float),  # floats with two values
            "const": np.ones(n),
        }
    ).to_csv(d / "t.csv", index=False)
    s = np.zeros((200, 2))
    for i in range(1, 200):
        s[i] = [rng.standard_normal(), 0.8 * s[i - 1, 0] + 0.3 * rng.standard_normal()]
    pd.DataFrame(s, columns=["u", "v"]).to_csv(d / "ts.csv", index=False)
    # 60 samples: sample entropy is infinite at coarse scales (no template pair matches)
    pd.DataFrame({"x": rng.standard_normal(60)}).to_csv(d / "short.csv", index=False)
    return d


def _cases(d):
    o = str(d / "out")
    return {
        "entropy": ["entropy", d / "t.csv", "-c", "a"],
        "mi": ["mi", d / "t.csv", "--x", "a", "--y", "t", "--ci", "0.9"],
        "kl": ["kl", d / "t.csv", d / "t.csv", "-c", "x"],
        "methods": ["methods", "entropy"],
        "matrix": ["matrix", d / "t.csv", "-c", "a,t,x", "-o", o + "m", "-B", "9", "-j", "1"],
        "rank": ["rank", d / "t.csv", "--target", "t", "-c", "a,b,x", "-o", o + "r"],
        "network": ["network", d / "ts.csv", "--max-lag", "1", "-B", "20", "-o", o + "n"],
        "multi": ["multi", "o-information", d / "t.csv", "-c", "a,b,t"],
        "pid": ["pid", d / "t.csv", "--target", "t", "-s", "a,b", "-o", o + "p"],
        "multiplets": ["multiplets", d / "t.csv", "-c", "a,b,t", "-o", o + "mp", "-B", "19"],
        "complexity": ["complexity", d / "short.csv", "--measure", "sample"]
        + ["--multiscale", "6", "-o", o + "c"],
    }


#: Commands with --json that train a model or serve pages: their JSON is checked in their
#: own test files (tests/diffusion, tests/text, tests/extract, tests/bench, tests/neural).
HEAVY = {
    "demo",
    "bench",
    "layers",
    "seq entropy",
    "seq mi",
    "seq scan",
    "seq kl",
    "text channel-mi",
    "text needle",
    "extract score",
    "extract bench",
    "extract serve",
}


def _json_commands() -> set[str]:
    found = set()

    def walk(cmd, path):
        if hasattr(cmd, "commands"):
            for name, sub in cmd.commands.items():
                walk(sub, [*path, name])
        elif any("--json" in getattr(p, "opts", ()) for p in cmd.params):
            found.add(" ".join(path))

    walk(typer.main.get_command(app), [])
    return found


def test_every_json_command_is_swept_or_named(files):
    assert _json_commands() == set(_cases(files)) | HEAVY


def _run(args):
    return runner.invoke(app, [str(a) for a in args], catch_exceptions=False)


@pytest.mark.parametrize(
    "name",
    ["entropy", "mi", "kl", "methods", "matrix", "rank", "network", "multi", "pid"]
    + ["multiplets", "complexity"],
)
def test_json_is_strict_and_speaks_cli_words(files, name):
    r = _run([*_cases(files)[name], "--json"])
    assert r.exit_code == 0, r.output
    doc = strict(r.stdout)  # one document, no NaN/Infinity
    assert isinstance(doc, dict | list)
    # warnings (stderr) and the document's own warning fields use the command's flags
    python_words = re.compile(r"(?<![\w-])(discrete|method|n_permutations|n_jobs|dequantize)=")
    assert not python_words.search(r.stderr), r.stderr
    assert not python_words.search(json.dumps(doc)), name


def test_nonfinite_values_are_null_with_a_reason(files):
    r = _run([*_cases(files)["complexity"], "--json"])
    doc = strict(r.stdout)
    gone = [i for i, row in enumerate(doc["rows"]) if row["value"] is None]
    assert gone, "60 samples at scales up to 6 (10 coarse samples) leave sample entropy undefined"
    assert all(doc["nonfinite"][f"rows/{i}/value"] == "inf" for i in gone)
    assert r.stderr.count("warning:") == 1  # one line per cause, not one per scale


def test_python_advice_reaches_the_cli_in_flags(files):
    # float columns holding two values: the library says "discrete=True", the CLI --discrete
    r = _run(["entropy", files / "t.csv", "-c", "bits", "--method", "kozachenko_leonenko"])
    assert "--discrete" in r.stderr and "discrete=True" not in r.stderr


def test_a_constant_column_is_one_warning(files):
    r = _run(["mi", files / "t.csv", "--x", "const", "--y", "x"])
    assert r.exit_code == 0, r.output
    lines = [ln for ln in r.stderr.splitlines() if ln.startswith("warning:")]
    assert len(lines) == 1 and "constant" in lines[0], r.stderr
    assert "0 nats" in r.stdout  # exactly 0, not -inf


def test_dates_are_said_as_dates(tmp_path):
    days = pd.date_range("2024-01-01", periods=200, freq="D")
    y = np.random.default_rng(0).standard_normal(200)
    pd.DataFrame({"day": days.strftime("%Y-%m-%d"), "y": y}).to_csv(tmp_path / "d.csv")
    r = _run(["entropy", tmp_path / "d.csv", "-c", "day"])
    assert r.exit_code == 0, r.output
    assert "dates or times" in r.stderr


def test_rank_says_an_unknown_target_in_plain_words(files):
    r = _run(["rank", files / "t.csv", "--target", "nope", "-o", files / "out-r2"])
    assert r.exit_code == 2
    assert "columns are: a, b, t, x" in r.output and "[" not in r.output.split("columns")[-1]


@pytest.mark.parametrize("name", ["methods", "matrix", "rank", "network", "pid", "multi"])
def test_piped_output_fits_80_columns_without_progress_frames(files, name):
    r = _run(_cases(files)[name])
    assert r.exit_code == 0, r.output
    wide = [ln for ln in r.stdout.splitlines() if cell_len(ln) > 80]
    assert not wide, wide[:3]
    assert "\r" not in r.stderr and "\x1b[" not in r.stderr  # no bar frames, no cursor codes


def test_rank_keeps_a_negative_estimate_and_marks_it():
    import warnings

    from rich.console import Console

    import infometer as im
    from infometer.cli._demo import ranking_frame, ranking_table

    rng = np.random.default_rng(0)
    x, y = rng.normal(size=300), rng.normal(size=300)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = im.mutual_info(x, y, method="ksg1")  # independent: -0.0025 nats at this seed
    assert est.value < 0  # estimation error, kept (never clipped)
    rows = [{"feature": "x", "estimate": est}]
    con = Console(record=True, width=80)
    con.print(ranking_table(rows, "MI with y"))
    text = con.export_text()
    assert "‡" in text and "estimate below 0" in text
    assert ranking_frame(rows)["negative"].tolist() == [True]
