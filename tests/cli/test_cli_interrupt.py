"""Ctrl-C is handled in one place (the top-level command group): any command exits with status
130 and one line on stderr, "interrupted; run again to resume" when it keeps finished work.
(Real SIGINTs to real processes: tests/store/test_resume.py and tests/bench/test_kill.py.)"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from infometer.cli.app import app

runner = CliRunner()


def _interrupt(*args, **kwargs):
    raise KeyboardInterrupt


@pytest.fixture
def table(tmp_path):
    p = tmp_path / "t.csv"
    pd.DataFrame(np.random.default_rng(0).normal(size=(40, 4)), columns=list("abcd")).to_csv(
        p, index=False
    )
    return p


def _one_line(r, line):
    assert r.exit_code == 130, r.output
    assert r.output == line + "\n", r.output


def test_a_command_without_a_store_says_interrupted(table, monkeypatch):
    import infometer.core.api as api

    monkeypatch.setattr(api, "estimate", _interrupt)
    _one_line(runner.invoke(app, ["entropy", str(table)]), "interrupted")


@pytest.mark.parametrize(
    ("argv", "where", "line"),
    [
        (["multiplets", "{t}", "-o", "{o}"], "multiplets", "interrupted"),
        (["multiplets", "{t}", "-o", "{o}", "--store", "{s}"], "multiplets", "resume"),
        (["network", "{t}", "-o", "{o}"], "network", "interrupted"),
        (["network", "{t}", "-o", "{o}", "--store", "{s}"], "network", "resume"),
    ],
)
def test_multiplets_and_network_with_a_store_say_how_to_resume(
    table, tmp_path, monkeypatch, argv, where, line
):
    import infometer as im
    import infometer.measures.dynamics as dyn

    monkeypatch.setattr(im, "multiplets", _interrupt)
    monkeypatch.setattr(dyn, "infer_network", _interrupt)
    args = [a.format(t=table, o=tmp_path / "o", s=tmp_path / "s") for a in argv]
    expect = "interrupted; run again to resume" if line == "resume" else "interrupted"
    _one_line(runner.invoke(app, args), expect)


def test_an_interrupted_run_raises_keyboard_interrupt_not_an_incomplete_run():
    from infometer.core.parallel import IncompleteRun, Outcome

    out = Outcome(planned=2, interrupted=True, missing={1: "not run: interrupted"})
    with pytest.raises(KeyboardInterrupt, match="run again to resume"):
        out.raise_if_incomplete()
    out.interrupted = False
    with pytest.raises(IncompleteRun):
        out.raise_if_incomplete()
