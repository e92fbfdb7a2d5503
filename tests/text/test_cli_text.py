"""``infometer text``: channel-mi from JSONL (table, JSON lines, line-numbered errors), select,
needle."""

from __future__ import annotations

import json
import math

import pytest
from typer.testing import CliRunner

from infometer import Estimate
from infometer.cli.app import app
from infometer.systems.text.records import patient_records

from .conftest import build_tiny_gpt2

runner = CliRunner()


def run(*args):
    return runner.invoke(app, [str(a) for a in args])


def write_jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("text-cli")
    recs = patient_records(8, seed=2)
    ctx = write_jsonl(d / "c.jsonl", [{"id": f"p{i}", "text": r.text} for i, r in enumerate(recs)])
    q = write_jsonl(
        d / "q.jsonl", [{"id": f"p{i}", "query": r.query} for i, r in enumerate(reversed(recs))]
    )
    # queries given by id in reverse order: they must land on the right contexts
    q.write_text(
        "".join(
            json.dumps({"id": f"p{i}", "query": recs[i].query}) + "\n"
            for i in reversed(range(len(recs)))
        ),
        encoding="utf-8",
    )
    rows = []
    for i, r in enumerate(recs):
        rows.append({"context": f"p{i}", "summary": r.facts[1], "compressor": "fact"})
        rows.append({"context": f"p{i}", "summary": "The patient was seen.", "compressor": "same"})
    s = write_jsonl(d / "s.jsonl", rows)
    return d, ctx, q, s, recs


def test_channel_mi_table_and_json(files):
    d, ctx, q, s, _ = files
    r = run("text", "channel-mi", "--contexts", ctx, "--summaries", s, "--queries", q)
    assert r.exit_code == 0, r.output
    assert "fact" in r.stdout and "same" in r.stdout and "log N" in r.stdout
    r = run("text", "channel-mi", "--contexts", ctx, "--summaries", s, "--json", "--unit", "nats")
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)  # one document: the compressors as a list
    by = {x["compressor"]: Estimate.from_dict(x) for x in doc["compressors"]}
    # one sentence naming the patient identifies the record: at the log 8 ceiling
    assert by["fact"].value == pytest.approx(math.log(8), abs=0.1)
    assert by["fact"].diagnostics["ceiling_nats"] == pytest.approx(math.log(8))
    # the same text for every record carries nothing (Jensen: <= 0, small)
    assert -0.05 < by["same"].value <= 1e-12
    assert by["fact"].diagnostics["bits_per_token"] > 0.4


def test_channel_mi_with_a_local_causal_lm_and_a_plot(tmp_path):
    words = "the cat dog sat ran on mat a".split()
    build_tiny_gpt2(tmp_path / "lm", vocab_words=words, n_positions=64)
    ctx = write_jsonl(tmp_path / "c.jsonl", ["the cat sat", "a dog ran", "the dog sat on a mat"])
    s = write_jsonl(tmp_path / "s.jsonl", ["cat sat", "dog ran", "mat"])  # bare: contexts 0, 1, 2
    png = tmp_path / "channel-mi.png"
    r = run(
        "text", "channel-mi", "--contexts", ctx, "--summaries", s, "-u", "bits",
        "--scorer", tmp_path / "lm", "--batch-size", 4, "--out", tmp_path, "--json",
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    (est,) = [Estimate.from_dict(d) for d in json.loads(r.stdout)["compressors"]]
    assert est.diagnostics["token_unit"] == "scorer tokens"
    assert est.diagnostics["mean_tokens"] == pytest.approx(5 / 3)  # 2 + 2 + 1 word-level tokens
    assert est.value <= math.log2(3) + 1e-9
    assert png.stat().st_size > 10_000


A = '{"id": "a", "text": "x y"}\n'
P0 = '{"context": "p0", "summary": "s"}\n'


@pytest.mark.parametrize(
    ("which", "content", "message"),
    [
        ("contexts", A + '{"id": "b", "text": oops}\n', "c.jsonl:2: not valid JSON"),
        ("contexts", A + '\n{"id": "b", "body": "z"}\n', "c.jsonl:3: the context object has no"),
        ("contexts", A, "needs at least 2 contexts"),
        ("contexts", A + A, "id 'a' is used twice"),
        ("summaries", P0 + '{"context": "zz", "summary": "s"}\n', "s.jsonl:2: no context with id"),
        ("summaries", '{"summary": "s"}\n', "s.jsonl:1: the summary object has no 'context'"),
        ("summaries", '{"context": "p0", "summary": 3}\n', "s.jsonl:1: field 'summary' must be"),
        ("queries", '{"id": "p0", "query": "q"}\n', "no query for 7 context(s)"),
        ("queries", "[1, 2]\n", "q.jsonl:1: expected a JSON string or object"),
    ],
)
def test_malformed_lines_are_reported_by_line_number(files, tmp_path, which, content, message):
    _, ctx, q, s, _ = files
    paths = {"contexts": ctx, "summaries": s, "queries": q}
    name = {"contexts": "c.jsonl", "summaries": "s.jsonl", "queries": "q.jsonl"}[which]
    bad = tmp_path / name
    bad.write_text(content, encoding="utf-8")
    paths[which] = bad
    r = run(
        "text", "channel-mi", "--contexts", paths["contexts"], "--summaries", paths["summaries"],
        "--queries", paths["queries"],
    )  # fmt: skip
    assert r.exit_code == 2
    assert "error:" in r.output and message in r.output.replace("\n", "")
    assert "Traceback" not in r.output


def test_missing_file_and_hub_id_are_one_line_errors(files, tmp_path):
    _, ctx, _, s, _ = files
    r = run("text", "channel-mi", "--contexts", tmp_path / "nope.jsonl", "--summaries", s)
    assert r.exit_code == 2 and "no such file" in r.output
    r = run("text", "channel-mi", "--contexts", ctx, "--summaries", s, "--scorer", "gpt2")
    assert r.exit_code == 2 and "not a local directory" in r.output


def test_select_writes_summaries_that_channel_mi_reads(files, tmp_path):
    pytest.importorskip("sentence_transformers")
    _, ctx, q, _, recs = files
    out = tmp_path / "summaries.jsonl"
    r = run("text", "select", "--contexts", ctx, "--queries", q, "--budget", 12, "-o", tmp_path)
    assert r.exit_code == 0, r.output
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert [row["context"] for row in rows] == [f"p{i}" for i in range(len(recs))]
    # MiniLM ranks the allergy line first for "What is X allergic to?"
    assert sum(recs[i].answer in row["summary"] for i, row in enumerate(rows)) >= 7
    r = run("text", "channel-mi", "--contexts", ctx, "--summaries", out, "--queries", q, "--json")
    assert r.exit_code == 0, r.output


def test_needle_command(tmp_path):
    pytest.importorskip("sentence_transformers")
    r = run("text", "needle", "--n-contexts", 3, "--rates", "32", "--json", "--out", tmp_path)
    assert r.exit_code == 0, r.output
    rows = json.loads(r.stdout)["rows"]
    assert len(rows) == 3 and {row["rate"] for row in rows} == {32}  # one row per method
    assert (tmp_path / "needle.png").exists() and (tmp_path / "needle.csv").exists()
    r = run("text", "needle", "--rates", "x")
    assert r.exit_code == 2 and "error:" in r.output
