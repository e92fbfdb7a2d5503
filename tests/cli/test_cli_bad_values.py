"""Every command, every option that takes a value, bad values (issue 40, "the CLI sweep covers
every command and flag with bad values"): the typer app is walked, and each option gets the bad
values of its kind: a non-number for int/float options, 0 and -1 for counts, ``nan``/``inf``
for floats, an unknown word for options with a fixed set of choices, a path under a regular
file for outputs. Each must end in a non-zero exit and one ``error:`` line naming the flag as
typed, with no traceback, before the work (inputs are tiny, so a wrongly accepted value still
finishes; the alarm is a generous bound against a hang, never a speed assertion)."""

from __future__ import annotations

import json
import signal
from contextlib import contextmanager

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from infometer.cli.app import app

from .test_cli_flags import COMMANDS  # the one walk of the typer app

runner = CliRunner()

#: Sanity bound per case (seconds): a value accepted by mistake on tiny input finishes far
#: sooner; this only turns a hang (``--seconds nan`` once served forever) into a failure.
BOUND = 60


# ----------------------------------------------------------------- the valid command lines
GOOD_SCRIPT = "def main(html):\n    return []\n"


@pytest.fixture(scope="module")
def d(tmp_path_factory):
    d = tmp_path_factory.mktemp("badvalues")
    rng = np.random.default_rng(0)
    n = 60
    df = pd.DataFrame(rng.normal(size=(n, 3)), columns=["a", "b", "c"])
    df["t"] = (df.a > 0).astype(int)
    df["p"], df["q"] = rng.integers(0, 2, n), rng.integers(0, 2, n)  # discrete sources (pid)
    df.to_csv(d / "t.csv", index=False)
    s = np.zeros((80, 2))
    for i in range(1, 80):
        s[i] = [rng.standard_normal(), 0.8 * s[i - 1, 0] + 0.3 * rng.standard_normal()]
    pd.DataFrame(s, columns=["u", "v"]).to_csv(d / "ts.csv", index=False)
    pd.DataFrame({"x": rng.standard_normal(200)}).to_csv(d / "sig.csv", index=False)
    seqs = rng.choice(list("ACGT"), size=(12, 8))
    (d / "s.fa").write_text("".join(f">r{i}\n{''.join(q)}\n" for i, q in enumerate(seqs)))
    (d / "labels.txt").write_text("\n".join(seqs[:, 2]) + "\n")
    ctx = [{"id": f"p{i}", "text": f"Patient {i} has a cough and fever {i}."} for i in range(4)]
    (d / "c.jsonl").write_text("".join(json.dumps(r) + "\n" for r in ctx))
    summ = [{"context": f"p{i}", "summary": "cough", "compressor": "c"} for i in range(4)]
    (d / "s.jsonl").write_text("".join(json.dumps(r) + "\n" for r in summ))
    (d / "script.py").write_text(GOOD_SCRIPT)
    (d / "plain-file").write_text("x")
    from infometer.workflows.bench._store import Store

    (d / "store").mkdir()
    with Store(d / "store") as st:
        st.add(
            {
                "task": "t",
                "method": "m",
                "n": 10,
                "seed": 0,
                "quantity": "q",
                "truth": 0.0,
                "status": "ok",
                "message": "",
            }
        )
    return d


def _base(d, tmp) -> dict[str, list[str]]:
    """A small valid command line per command (outputs in ``tmp``); the bad option is added
    after it, so it wins over a value given here (click keeps the last)."""
    o = str(tmp / "out")
    seq = ["--steps", "2", "--hidden", "8", "--passes", "1", "--quiet"]
    return {
        "entropy": ["entropy", f"{d}/t.csv", "-c", "a"],
        "mi": ["mi", f"{d}/t.csv", "--x", "a", "--y", "b"],
        "kl": ["kl", f"{d}/t.csv", f"{d}/t.csv", "-c", "a"],
        "methods": ["methods", "entropy"],
        "demo": ["demo", "--dataset", "wine", "--top", "3", "-q", "-o", o],
        "bench": ["bench", "--tasks", "gauss-entropy-1d", "--n", "50", "--seeds", "1", "-o", o],
        "report": ["report", f"{d}/store", "--output", str(tmp / "r.html")],
        "layers": ["layers", "--out", o, "--steps", "1", "--n", "64"],
        "matrix": ["matrix", f"{d}/t.csv", "-c", "a,b", "-o", o],
        "rank": ["rank", f"{d}/t.csv", "--target", "t", "-c", "a,b", "-o", o],
        "network": ["network", f"{d}/ts.csv", "--max-lag", "1", "-B", "9", "-o", o],
        "multi": ["multi", "o-information", f"{d}/t.csv", "-c", "a,b,c"],
        "pid": ["pid", f"{d}/t.csv", "--target", "t", "-s", "p,q"],
        "multiplets": ["multiplets", f"{d}/t.csv", "-c", "a,b,c", "-o", o],
        "complexity": ["complexity", f"{d}/sig.csv"],
        "seq entropy": ["seq", "entropy", f"{d}/s.fa", *seq],
        "seq mi": ["seq", "mi", f"{d}/s.fa", "--x", "0:2", "--y", "2:4", *seq],
        "seq scan": ["seq", "scan", f"{d}/s.fa", "--labels", f"{d}/labels.txt", *seq],
        "seq kl": ["seq", "kl", f"{d}/s.fa", f"{d}/s.fa", *seq],
        "text channel-mi": ["text", "channel-mi", "--contexts", f"{d}/c.jsonl"]
        + ["--summaries", f"{d}/s.jsonl"],
        "text select": ["text", "select", "--contexts", f"{d}/c.jsonl", "--budget", "5"],
        "text needle": ["text", "needle", "--n-contexts", "2", "--rates", "32", "--out", o],
        "extract score": ["extract", "score", "--script", f"{d}/script.py", "--pages", "1"]
        + ["--allow-unisolated"],
        "extract bench": ["extract", "bench", "--parts", "litecost", "--size", "tiny"]
        + ["--quiet", "--out", o],
        "extract serve": ["extract", "serve", "--seconds", "0.5", "--pages", "1"],
    }


#: Options that exist for some of a command's modes only: the mode they belong to.
MODE = {
    ("complexity", "--r"): ["--measure", "sample"],
    ("complexity", "--classes"): ["--measure", "dispersion"],
}

# ----------------------------------------------------------------- the bad values per kind
#: Options taking a path that the command writes.
OUTPUTS = {"--out", "--output", "--store"}
#: Options whose value is one of a fixed set of words.
CHOICES = {
    "--method", "--unit", "--correction", "--network", "--nan", "--scheduler", "--measure",
    "--search", "--objective", "--policy", "--arch", "--estimator", "--device", "--variant",
    "--scorer", "--suite", "--dataset", "--size", "--render", "--similarity", "--template",
    "--domain", "--cmi", "--null", "--select", "--scheme",
}  # fmt: skip

#: Options that name columns, positions, tasks, files: a name that is not there.
NAMES = {
    "--columns": "nope", "--x": "nope", "--y": "nope", "--given": "nope", "--target": "nope",
    "--sources": "nope", "--positions": "nope", "--starts": "nope", "--tasks": "nope",
    "--estimators": "nope", "--peers": "nope", "--n": "abc", "--rates": "abc", "--parts": ",",
    "--alphabet": "", "--labels": "/no/such/file", "--contexts": "/no/such/file",
    "--summaries": "/no/such/file", "--queries": "/no/such/file", "--script": "/no/such/file",
    "--model": "/no/such/folder", "--peer-dir": "/no/such/folder",
}  # fmt: skip

#: Free text under a name that elsewhere is a choice.
FREE_TEXT = {("text channel-mi", "--template")}  # a prompt with {context} and {query} fields

#: Int options where 0 is a legitimate value (why, per flag).
ZERO_OK = {
    "--seed",  # seed 0 is a seed
    "--top",  # 0 = show all rows (the default)
    "--permutations",  # 0 = no permutation test (matrix, multiplets default)
    "--min-lag",  # lag 0 (contemporaneous links) is a lag
    "--tau-min",  # likewise for PCMCI
    "--retries",  # 0 = try once
    "--jobs",  # 0/-1 follow joblib: all cores (core.parallel.check_jobs)
    "--block",  # multi: 0 = no block bootstrap
}
#: Int options where -1 is a legitimate value.
NEGATIVE_OK = {"--jobs"}  # -1 = all cores (joblib's spelling, core.parallel)

#: Float options where ``inf`` is a legitimate value.
INF_OK: set[str] = set()


def _kind(param) -> str:
    a = param.type_descriptor.annotation
    name = getattr(a, "__name__", str(a))
    return {"int": "int", "float": "float"}.get(name, "str")


def _cases():
    for name, cmd in sorted(COMMANDS.items()):
        for p in cmd.params:
            if p.param_type_name != "option" or p.is_flag or p.hidden:
                continue
            flag = max(p.opts, key=len)
            kind = _kind(p)
            values: list[str] = []
            if kind == "int":
                values += ["abc", "1.5"]
                if flag not in NEGATIVE_OK:
                    values.append("-1")
                if flag not in ZERO_OK:
                    values.append("0")
            elif kind == "float":
                values += ["abc", "nan"]
                if flag not in INF_OK:
                    values.append("inf")
            elif flag in CHOICES and (name, flag) not in FREE_TEXT:
                values.append("no-such-word")
            elif flag in OUTPUTS:
                values.append("{under-a-file}")
            elif flag in NAMES:
                values.append(NAMES[flag])
            for v in values:
                yield pytest.param(name, flag, v, id=f"{name}:{flag}={v}")


CASES = list(_cases())


@contextmanager
def _bound(seconds: int):
    def hang(*_):
        raise TimeoutError(f"still running after {seconds} s")

    old = signal.signal(signal.SIGALRM, hang)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def test_the_sweep_covers_every_command_with_options():
    swept = {c.values[0] for c in CASES}
    with_values = {
        n
        for n, c in COMMANDS.items()
        if any(p.param_type_name == "option" and not p.is_flag for p in c.params)
    }
    assert swept == with_values
    assert len(CASES) > 300


@pytest.mark.parametrize("name,flag,value", CASES)
def test_bad_value_is_one_error_naming_the_flag(d, tmp_path, name, flag, value):
    if value == "{under-a-file}":
        value = f"{d}/plain-file/sub"
    argv = [*_base(d, tmp_path)[name], *MODE.get((name, flag), []), flag, value]
    with _bound(BOUND):
        r = runner.invoke(app, argv)
    out = r.output
    assert r.exit_code not in (0, None), f"accepted: {argv}\n{out}"
    assert "Traceback" not in out and "internal error" not in out, out
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    lines = [ln for ln in out.splitlines() if ln.strip()]
    errors = [ln for ln in lines if ln.startswith("error:")]
    assert len(errors) == 1, out
    assert flag in out, f"the error does not name {flag}: {out}"
    # refused before the work: the command's output folder was never made
    assert not (tmp_path / "out").exists(), f"{argv}: wrote its output before refusing"
