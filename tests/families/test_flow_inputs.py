"""Bad input to the attention-flow probes and the text compressors (issue 30's classes):
token ids the model cannot read, positions outside the sequence, sizes and numbers out of
range -- each a TypeError/ValueError naming the argument, never a raw torch IndexError."""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from infometer.systems.probes import flow  # noqa: E402
from infometer.systems.text import compressors  # noqa: E402

MODEL = flow.copy_circuit(vocab=5, length=4, source=1, logit=4.0)
GOOD = np.random.default_rng(0).integers(0, 5, size=(8, 4))
ALL = {"copy": ([3], [1])}  # the edge last <- source


def _refused(f, name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises((TypeError, ValueError)) as info:
            f()
    assert re.search(rf"(?<!\w){re.escape(name)}(?!\w)", str(info.value)), str(info.value)


CALLS = {
    "logit_lens": lambda x, **kw: flow.logit_lens(MODEL, x, **kw),
    "knockout_effect": lambda x, **kw: flow.knockout_effect(MODEL, x, ALL["copy"], [0], **kw),
    "attention_knockout": lambda x, **kw: flow.attention_knockout(MODEL, x, ALL, **kw),
    "prune_to_paths": lambda x, **kw: flow.prune_to_paths(MODEL, x, [], **kw),
}

BAD_INPUTS = {
    "negative ids": GOOD - 10,
    "ids past the vocabulary": GOOD + 100,
    "floats": GOOD + 0.5,
    "strings": GOOD.astype(str),
    "3-D": GOOD[None],
    "empty": np.zeros((0, 4), dtype=int),
    "masked ids": np.ma.masked_array(GOOD, mask=GOOD == 0),
    "longer than the positions": np.zeros((2, 9), dtype=int),
}


@pytest.mark.parametrize("fn", sorted(CALLS))
@pytest.mark.parametrize("bad", sorted(BAD_INPUTS))
def test_token_inputs_class(fn, bad):
    _refused(lambda: CALLS[fn](BAD_INPUTS[bad]), "inputs")


@pytest.mark.parametrize("fn", sorted(CALLS))
@pytest.mark.parametrize("position", [4, -5, 99, "a", 1.5])
def test_positions_class(fn, position):
    _refused(lambda: CALLS[fn](GOOD, position=position), "position")


@pytest.mark.parametrize("fn", sorted(CALLS))
def test_good_input_still_runs(fn):
    CALLS[fn](GOOD, position=-1)
    CALLS[fn](GOOD, position=3)


@pytest.mark.parametrize("top_k", [0, 6, -1])
def test_top_k_inside_the_output(top_k):
    _refused(lambda: flow.logit_lens(MODEL, GOOD, top_k=top_k), "top_k")


@pytest.mark.parametrize(
    "args,name",
    [((0, -1, 2), "k"), ((5, 1, 2), "centre"), ((0, 1, 0), "n_layers"), ((0.5, 1, 2), "centre")],
)
def test_layer_window_arguments(args, name):
    _refused(lambda: flow.layer_window(*args), name)


@pytest.mark.parametrize("logit", [math.nan, math.inf, "4"])
def test_copy_circuit_logit(logit):
    _refused(lambda: flow.copy_circuit(5, 4, 1, logit), "logit")


@pytest.mark.parametrize("bad", [0, -1, 1.5, "2", True, None])
@pytest.mark.parametrize("make", ["LeadK", "RandomK", "MIGSelect", "TokenMerge"])
def test_compressor_sizes(make, bad):
    name = {"MIGSelect": "budget", "TokenMerge": "rate"}.get(make, "k")
    _refused(lambda: getattr(compressors, make)(bad), name)
