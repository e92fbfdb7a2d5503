"""Ctrl-C in every command (issue 40): exit status 130 and one line, from one handler
(``cli/app.py``), never a traceback or a silent 130.

``multi``, ``pid --all-pairs``, ``multiplets`` without a store and ``extract bench`` used to
exit 130 with no message.  The first test walks every command of the tree, so a new command
is covered without a new test; the second raises the interrupt deep inside the library call
of the commands the issue names, where a command's own ``try`` could swallow it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import typer
from typer.testing import CliRunner

from infometer.cli.app import app

runner = CliRunner()


def _leaves(group, path=()):
    for name, cmd in sorted(group.commands.items()):
        if hasattr(cmd, "commands"):
            yield from _leaves(cmd, (*path, name))
        else:
            yield (*path, name)


LEAVES = sorted(_leaves(typer.main.get_command(app)))


def _one_interrupted_line(r, resumable: bool | None = None) -> None:
    assert r.exit_code == 130, r.output
    lines = [ln for ln in r.output.splitlines() if ln.strip()]
    assert lines and lines[-1].startswith("interrupted"), r.output
    assert sum(ln.startswith("interrupted") for ln in lines) == 1, r.output
    assert "Traceback" not in r.output and "internal error" not in r.output, r.output
    if resumable is not None:
        assert ("run again to resume" in lines[-1]) is resumable, r.output


def test_the_walk_finds_the_commands():
    assert {("multi",), ("pid",), ("multiplets",), ("network",), ("extract", "bench")} <= set(
        LEAVES
    )


@pytest.mark.parametrize("path", LEAVES, ids=[" ".join(p) for p in LEAVES])
def test_every_command_ctrl_c_is_one_line_and_130(monkeypatch, path):
    """The interrupt arrives while the command runs (its arguments are not parsed: the
    command body is replaced, so no data is needed)."""

    def interrupted(self, ctx):
        raise KeyboardInterrupt

    monkeypatch.setattr(typer.core.TyperCommand, "parse_args", lambda self, ctx, args: args)
    monkeypatch.setattr(typer.core.TyperCommand, "invoke", interrupted)
    _one_interrupted_line(runner.invoke(app, list(path)))


@pytest.fixture
def table(tmp_path):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(80, 4))
    x[1:, 1] += 0.8 * x[:-1, 0]
    path = tmp_path / "t.csv"
    pd.DataFrame(x, columns=["a", "b", "c", "d"]).to_csv(path, index=False)
    return str(path)


def _raise(*args, **kwargs):
    raise KeyboardInterrupt


DEEP = {
    "multi": ("infometer.o_information", ["multi", "o-information", "{t}"], False),
    "pid --all-pairs": (
        "infometer.pid_pairs",
        ["pid", "{t}", "--target", "d", "--all-pairs"],
        False,
    ),
    "multiplets": ("infometer.multiplets", ["multiplets", "{t}", "-o", "{o}"], False),
    "multiplets --store": (
        "infometer.multiplets",
        ["multiplets", "{t}", "-o", "{o}", "--store", "{s}"],
        True,
    ),
    "network": (
        "infometer.measures.dynamics.infer_network",
        ["network", "{t}", "--max-lag", "1", "-o", "{o}"],
        False,
    ),
    "network --store": (
        "infometer.measures.dynamics.infer_network",
        ["network", "{t}", "--max-lag", "1", "-o", "{o}", "--store", "{s}"],
        True,
    ),
    "complexity": (
        "infometer.measures.complexity.complexity",
        ["complexity", "{t}", "--columns", "a"],
        False,
    ),
    "extract bench": (
        "infometer.systems.extract.bench.run",
        ["extract", "bench", "--out", "{o}", "--parts", "bridge"],
        True,
    ),
}


@pytest.mark.parametrize("case", sorted(DEEP))
def test_ctrl_c_inside_the_library_call(monkeypatch, tmp_path, table, case):
    target, argv, resumable = DEEP[case]
    monkeypatch.setattr(target, _raise)
    subs = {"{t}": table, "{o}": str(tmp_path / "out"), "{s}": str(tmp_path / "store")}
    r = runner.invoke(app, [subs.get(a, a) for a in argv])
    _one_interrupted_line(r, resumable)
