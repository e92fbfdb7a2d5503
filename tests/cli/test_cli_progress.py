"""The progress bar of resampling (issues 10 and 29): one helper, ``infometer.core.progress``;
drawn on a terminal when the re-runs take a while, never under ``--quiet``
(``progress.quiet()``)."""

from __future__ import annotations

import io
import sys

import numpy as np

from infometer.cli import app as cli
from infometer.core import progress


def _data():
    rng = np.random.default_rng(0)
    x = rng.normal(size=300)
    return x, x + rng.normal(size=300)


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _run(monkeypatch, terminal: bool, quiet: bool) -> str:
    buf = _Terminal() if terminal else io.StringIO()
    monkeypatch.setattr(sys, "stderr", buf)
    monkeypatch.setattr(progress, "AUTO_SECONDS", 0.0)  # every re-run counts as long here
    x, y = _data()
    est = cli._estimate("mutual_info", {"x": x, "y": y}, "ksg1", "nats", 0.9, 0, None, quiet)
    assert est.ci is not None
    return buf.getvalue()


def test_bar_on_a_terminal_only_and_never_when_quiet(monkeypatch):
    assert "resampling" in _run(monkeypatch, terminal=True, quiet=False)
    assert "resampling" not in _run(monkeypatch, terminal=True, quiet=True)
    assert "resampling" not in _run(monkeypatch, terminal=False, quiet=False)
