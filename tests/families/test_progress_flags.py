"""Every trainable object reads ``progress=`` through the shared check: True, False or None
(the shared default), never a truthy string or number taken as True."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")

import infometer as im  # noqa: E402
from infometer.systems.probes.clib import CLIB  # noqa: E402

MAKERS = {
    "NeuralMI": lambda p: im.NeuralMI("infonce", progress=p),
    "InfoSEDD": lambda p: im.InfoSEDD(progress=p),
    "CLIB": lambda p: CLIB(3, progress=p),
}


@pytest.mark.parametrize("bad", ["yes", "no", 1, 0, 1.0])
@pytest.mark.parametrize("name", sorted(MAKERS))
def test_progress_flag_refused(name, bad):
    with pytest.raises(TypeError, match="progress"):
        MAKERS[name](bad)


@pytest.mark.parametrize("name", sorted(MAKERS))
@pytest.mark.parametrize("good", [True, False, None])
def test_progress_flag_kept(name, good):
    assert MAKERS[name](good).progress is good
