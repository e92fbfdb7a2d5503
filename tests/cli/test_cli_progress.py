"""The progress bar of ``--ci`` (issue 10): re-runs are reported, the bar is drawn on a
terminal only, and ``--quiet`` turns it off."""

from __future__ import annotations

import io

import numpy as np
from rich.console import Console

import infometer as im
from infometer.cli import app as cli
from infometer.resample import report_progress


def _data():
    rng = np.random.default_rng(0)
    x = rng.normal(size=300)
    return x, x + rng.normal(size=300)


def test_resampling_reports_each_rerun():
    x, y = _data()
    seen: list[tuple[int, int]] = []
    with report_progress(lambda done, total: seen.append((done, total))):
        est = im.mutual_info(x, y, method="ksg1", ci=0.9, seed=1)
    assert est.ci is not None
    total = seen[-1][1]
    assert total >= 10 and seen == [(b, total) for b in range(1, total + 1)]
    seen.clear()
    im.mutual_info(x, y, method="ksg1", ci=0.9, seed=1)  # outside the block: no calls
    assert seen == []


def _run(monkeypatch, terminal: bool, quiet: bool) -> str:
    buf = io.StringIO()
    monkeypatch.setattr(cli, "err", Console(file=buf, force_terminal=terminal, width=100))
    x, y = _data()
    cli._estimate("mutual_info", {"x": x, "y": y}, "ksg1", "nats", 0.9, 0, None, quiet)
    return buf.getvalue()


def test_bar_on_a_terminal_only(monkeypatch):
    assert "resampling" in _run(monkeypatch, terminal=True, quiet=False)
    assert "resampling" not in _run(monkeypatch, terminal=True, quiet=True)
    assert "resampling" not in _run(monkeypatch, terminal=False, quiet=False)
