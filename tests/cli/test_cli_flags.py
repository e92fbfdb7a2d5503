"""One spelling per option (issue 37 §2, docs/cli.md "The same options everywhere"): the CLI
is walked command by command and held to the policy of ``infometer.cli._options``; the
command lines the docs show use options their command has."""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import pytest
import typer

from infometer.cli.app import app

ROOT = Path(__file__).resolve().parents[2]

#: The policy: parameter meaning -> its one spelling (long, short).
POLICY = {
    "unit": ("--unit", "-u"),
    "quiet": ("--quiet", "-q"),
    "jobs": ("--jobs", "-j"),
    "columns": ("--columns", "-c"),
    "out_dir": ("--out", "-o"),
    "json_out": ("--json", None),
    "seed": ("--seed", None),
    "permutations": ("--permutations", "-B"),
}
#: Parameter names that mean the same as a policy name.
SAME = {"column": "columns", "out": "out_dir"}
#: Spellings of other tools or of earlier releases: each meaning has one spelling above.
RETIRED = (
    "--workers",
    "--n-jobs",
    "--processes",
    "--no-progress",
    "--progress",
    "--silent",
    "--bits",
    "--n-perm",
    "--n-permutations",
    "--surrogates",
    "--fdr",
    "--outdir",
    "--out-dir",
    "--output-dir",
    "--json-out",
    "--cols",
    "--col",
    "--column",
)


def _commands() -> dict[str, object]:
    found: dict[str, object] = {}

    def walk(cmd, path):
        if hasattr(cmd, "commands"):
            for name, sub in cmd.commands.items():
                walk(sub, [*path, name])
        else:
            found[" ".join(path)] = cmd

    walk(typer.main.get_command(app), [])
    return found


COMMANDS = _commands()


def _options(cmd) -> list:
    return [p for p in cmd.params if getattr(p, "param_type_name", "") == "option"]


def _meaning(param) -> str:
    return SAME.get(param.name, param.name)


def test_every_command_is_walked():
    assert {"entropy", "mi", "matrix", "bench", "report", "seq entropy", "text needle"} <= set(
        COMMANDS
    )
    assert len(COMMANDS) >= 25


def test_each_spelling_has_one_meaning():
    meanings: dict[str, set[str]] = defaultdict(set)
    where: dict[tuple[str, str], str] = {}
    for name, cmd in COMMANDS.items():
        for p in _options(cmd):
            for flag in (*p.opts, *p.secondary_opts):
                if name == "report" and p.name == "output":  # its one file: the exception
                    continue
                meanings[flag].add(_meaning(p))
                where[(flag, _meaning(p))] = name
    clash = {f: {m: where[(f, m)] for m in ms} for f, ms in meanings.items() if len(ms) > 1}
    assert not clash, f"one spelling, several meanings (meaning: a command): {clash}"


@pytest.mark.parametrize("meaning", sorted(POLICY))
def test_each_meaning_has_its_one_spelling(meaning):
    long, short = POLICY[meaning]
    seen = []
    for name, cmd in COMMANDS.items():
        for p in _options(cmd):
            if _meaning(p) != meaning:
                continue
            seen.append(name)
            assert long in p.opts, f"{name}: {meaning} is spelled {p.opts}, not {long}"
            shorts = [o for o in p.opts if not o.startswith("--")]
            assert shorts == ([short] if short else []), f"{name}: {meaning} short {shorts}"
    assert seen, f"no command has {meaning}"


def test_unit_defaults_to_nats_everywhere():
    for name, cmd in COMMANDS.items():
        for p in _options(cmd):
            if p.name == "unit":
                assert p.default == "nats", f"{name}: --unit defaults to {p.default!r}"


def test_no_retired_spelling():
    for name, cmd in COMMANDS.items():
        for p in _options(cmd):
            flags = {*p.opts, *p.secondary_opts}
            assert not flags & set(RETIRED), f"{name}: {sorted(flags & set(RETIRED))}"
            if p.name == "output":
                assert name == "report", f"{name}: --output is report's alone (use --out DIR)"


# ``infometer CMD ... --flag``, in a code block, a code span or a table cell of the docs
_LINE = re.compile(r"\binfometer ((?:[a-z][a-z-]*)(?: [a-z][a-z-]*)?)\b(.*)")
_FLAG = re.compile(r"(?<![\w-])(--[a-z][a-z-]*)")


def _doc_lines():
    for page in [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md", ROOT / "Makefile"]:
        last = None  # a usage line's continuation: indented, opens with an option
        for i, line in enumerate(page.read_text().splitlines(), 1):
            if last and re.match(r"\s+\[?--", line):
                yield f"{page.name}:{i}", last, _FLAG.findall(line)
                continue
            last = None
            for m in _LINE.finditer(line):
                words = m.group(1).split()
                name = " ".join(words) if " ".join(words) in COMMANDS else words[0]
                if name not in COMMANDS:
                    continue
                # the flags of this command's line: up to the next command, comment or prose
                rest = re.split(r"`| \| | #|; | infometer |\. ", m.group(2))[0]
                yield f"{page.name}:{i}", name, _FLAG.findall(rest)
                last = name


def test_docs_show_only_options_their_command_has():
    bad = []
    checked = 0
    for where, name, flags in _doc_lines():
        have = {f for p in COMMANDS[name].params for f in (*p.opts, *p.secondary_opts)}
        have |= {"--help"}
        checked += len(flags)
        bad += [f"{where}: infometer {name} {f}" for f in flags if f not in have]
    assert checked > 50, checked
    assert not bad, "\n".join(bad)
