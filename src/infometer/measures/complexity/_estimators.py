"""Registered signal-complexity measures: quantity ``complexity`` (role ``x``: one signal)
and ``image_complexity`` (role ``x``: an image, rows x columns).

The method name is the measure (``permutation``, ``sample``, ...).  Error bars: with
``stderr_blocks=B`` (the default 10; :func:`infometer.measures.complexity` turns it off unless
``ci=`` is asked for) the signal is cut into B contiguous blocks of length L, the measure is
computed on each (with the full signal's tolerance ``r·sd`` where there is one) and the
standard error of the full-signal value is ``sd(block values) · sqrt(L / N)`` with B - 1
degrees of freedom (:func:`infometer.core.resample.block_stderr`): non-overlapping block
subsampling (Carlstein 1986; Politis & Romano 1994), valid for a √N-consistent measure of
a stationary, weakly dependent signal.  It describes the spread of the estimate, not its
bias (small-N bias of every entropy here).
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from infometer.core.data import Variable, cell_widths
from infometer.core.data import dequantize as spread
from infometer.core.registry import EXAMPLES, QUANTITY_ROLES, AutoRule, Raw, register, register_auto
from infometer.core.resample import block_stderr
from infometer.core.validation import check_bool, check_int

from . import _measures as measures

__all__ = ["QUANTITY", "IMAGE_QUANTITY"]

QUANTITY = "complexity"
IMAGE_QUANTITY = "image_complexity"
QUANTITY_ROLES[QUANTITY] = ("x",)
QUANTITY_ROLES[IMAGE_QUANTITY] = ("x",)


def _example(rng: np.random.Generator) -> dict[str, np.ndarray]:
    e = rng.normal(size=700)
    x = np.empty(700)
    x[0] = e[0]
    for t in range(1, 700):  # AR(1), phi = 0.6
        x[t] = 0.6 * x[t - 1] + e[t]
    return {"x": x}


def _image_example(rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {"x": rng.normal(size=(40, 30)).cumsum(axis=1)}


EXAMPLES[QUANTITY] = _example
EXAMPLES[IMAGE_QUANTITY] = _image_example


def _signal(x: Variable, image: bool) -> np.ndarray:
    """The checked signal (or image), at least ``MIN_SAMPLES`` long."""
    if image:
        s = np.ascontiguousarray(x.values, dtype=np.float64).view()
        s.flags.writeable = False  # it may be the caller's own image: the measure only reads
        return s
    if x.d != 1:
        raise ValueError(
            f"x must be one signal (a 1-D array), got {x.d} columns; pass one column at a "
            "time (or measure='permutation_2d' for an image)"
        )
    if x.n < measures.MIN_SAMPLES:
        raise ValueError(
            f"x has {x.n} samples; a signal's complexity needs at least "
            f"{measures.MIN_SAMPLES} (and each measure more: order! windows for the ordinal "
            "ones, template pairs at length order + 1 for sample, approximate and fuzzy)"
        )
    s = np.ascontiguousarray(x.columns[0], dtype=np.float64).view()
    s.flags.writeable = False  # it may be the caller's own array: the measures only read
    return s


#: Fewest rows of an image in one block of ``stderr_blocks`` (a 2-D pattern spans 2 rows).
MIN_IMAGE_ROWS = 2


def _blocks(value: Any, n: int, image: bool = False) -> int:
    """``stderr_blocks``: 0 (no error bar) or 2 up to the blocks of ``MIN_SAMPLES`` samples
    each (of ``MIN_IMAGE_ROWS`` rows for an image)."""
    blocks = check_int(value, "stderr_blocks", min_value=0)
    least = MIN_IMAGE_ROWS if image else measures.MIN_SAMPLES
    most = n // least
    if blocks == 1 or blocks > most:
        raise ValueError(
            f"stderr_blocks must be 0 (no error bar) or 2..{most}: blocks of at least "
            f"{least} of the {n} {'rows' if image else 'samples'}, got {blocks}"
        )
    return blocks


#: Measures that compare distances with a tolerance: on rounded data they take
#: ``dequantize=`` (and ``seed=``) and warn about the grid (:func:`_grid_check`).
DISTANCE_MEASURES = ("sample", "approximate", "fuzzy")

#: Warn when the rounding step exceeds this fraction of the tolerance r·sd: sample entropy
#: grows like -log(tolerance), so a tolerance off by this fraction moves it by about as
#: many nats.  Fuzzy entropy's membership is smooth in the distance: it warns from 0.25.
GRID_RATIO = {"sample": 0.05, "approximate": 0.05, "fuzzy": 0.25}


def _grid_check(
    name: str, x: Variable, s: np.ndarray, kw: dict[str, Any], dequantize: bool, seed
) -> tuple[np.ndarray, list[str], dict[str, Any]]:
    """A tied (rounded) signal for a distance-comparing measure: dequantised when asked
    (tolerance kept at r·sd of the recorded signal), else a warning when the grid is
    coarse next to the tolerance.  Returns the signal, warnings and diagnostics."""
    t = x.ties.get(0)
    if t is None or t.levels < 2:
        return s, [], {}
    tol = measures._tolerance(s, kw.get("r", 0.2), kw.get("r_abs"))
    facts = {"tied_share": t.tied_share, "levels": t.levels, "step": t.step}
    if dequantize:
        kw["r_abs"] = tol  # the tolerance of the recorded signal
        diag = {"ties": {"x": {"0": facts}}, "dequantized_columns": {"x": [0]}, "tolerance": tol}
        return spread(s, cell_widths(s, t), seed), [], diag
    diag: dict[str, Any] = {"ties": {"x": {"0": facts}}}
    if t.step is not None and t.step <= GRID_RATIO[name] * tol:
        return s, [], diag
    if t.step is not None:
        eff = np.floor(tol / t.step + 1e-9) * t.step
        within = f"those within {eff:.4g}" if eff > 0 else "exact matches only"
        what = (
            f"every template distance is a multiple of the step, so the pairs within the "
            f"tolerance r*sd = {tol:.4g} are {within}, and the value jumps as r crosses a "
            "multiple of the step"
        )
    else:
        what = "template distances take few values, and the value jumps as r crosses them"
    return (
        s,
        [
            f"x has tied values: {t.describe()}; {what}. Pass dequantize=True to spread each "
            f"value uniformly over its rounding step (seeded) before {name} entropy"
        ],
        diag,
    )


#: Measures of ordinal patterns, whose tied values are ordered by time.
TIME_ORDERED_TIES = ("permutation", "weighted_permutation", "statistical_complexity")


def _few_values(name: str, x: Variable) -> tuple[list[str], dict[str, Any]]:
    """A signal the reader found to take few distinct values, said in this family's terms
    (the reader's own advice, ``discrete=True``, means nothing to a signal's complexity):
    the tie facts for every measure, and for the ordinal ones a warning that runs of equal
    values make patterns of their own."""
    t = x.ties.get(0)
    if t is None:
        return [], {}
    facts = {"tied_share": t.tied_share, "levels": t.levels, "step": t.step}
    diag: dict[str, Any] = {"ties": {"x": {"0": facts}}}
    if name not in TIME_ORDERED_TIES:
        return [], diag
    return [
        f"x takes few distinct values: {t.describe()}; {name} orders tied values by time "
        "(the earlier ranks lower), so a run of equal values counts as a rising pattern "
        "the signal does not have. measure='modified_permutation' gives tied values one "
        "rank (Bian et al. 2012)"
    ], diag


def _make(name: str, fn: Callable[..., float], image: bool) -> Callable[..., Raw]:
    sig = inspect.signature(fn)
    own = [p for p in sig.parameters.values() if p.kind is inspect.Parameter.KEYWORD_ONLY]
    distance = name in DISTANCE_MEASURES

    def est(x: Variable, **kw: Any) -> Raw:
        raw_blocks = kw.pop("stderr_blocks")
        s = _signal(x, image)
        blocks = (
            0
            if type(raw_blocks) is int and raw_blocks == 0
            else _blocks(raw_blocks, s.shape[0], image)
        )
        # where squares of x would overflow: rescaled by a power of two (scale-free ones)
        s, scale = measures.rescaled(s) if name in measures.SCALE_FREE else (s, 1.0)
        if kw.get("r_abs") is not None:  # an absolute tolerance scales with the signal
            kw["r_abs"] = measures.check_float(kw["r_abs"], "r_abs", low=0.0) * scale
        warns: list[str] = []
        tie_diag: dict[str, Any] = {}
        if distance:
            deq = check_bool(kw.pop("dequantize"), "dequantize")
            seed = kw.pop("seed")
            s, warns, tie_diag = _grid_check(name, x, s, kw, deq, seed)
        elif not image and x.diagnostics.get("few_distinct_float_columns"):
            warns, tie_diag = _few_values(name, x)
        value = float(fn(s, **kw))
        diag: dict[str, Any] = {"measure": name, **tie_diag}
        if kw.get("normalize"):
            diag["normalized"] = True
        if name == "statistical_complexity":
            diag["normalized"] = True
        if math.isinf(value):
            warns.append(
                f"{name} entropy is infinite: no template pair matched at length order + 1 "
                "(too short a signal or too small an r)"
            )
        se = dof = None
        if blocks and math.isfinite(value):
            bparams = dict(kw)
            if "r_abs" in bparams and bparams["r_abs"] is None:
                bparams["r_abs"] = measures._tolerance(s, kw.get("r", 0.2), None)
            se, dof, d2 = block_stderr(fn, s, bparams, blocks)
            diag.update(d2)
        return Raw(value=value, stderr=se, stderr_dof=dof, diagnostics=diag, warnings=warns)

    params = [inspect.Parameter("x", inspect.Parameter.POSITIONAL_OR_KEYWORD), *own]
    params.append(inspect.Parameter("stderr_blocks", inspect.Parameter.KEYWORD_ONLY, default=10))
    if distance:
        for nm, default in (("dequantize", False), ("seed", 0)):
            params.append(inspect.Parameter(nm, inspect.Parameter.KEYWORD_ONLY, default=default))
    est.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    est.__name__ = f"complexity_{name}"
    est.__doc__ = fn.__doc__
    return est


for _name, (_fn, _normalisable, _summary) in measures.MEASURES.items():
    register(
        _name,
        QUANTITY,
        kinds=("continuous",),
        family="complexity",
        resampling="posterior",
        summary=_summary,
    )(_make(_name, _fn, image=False))

register(
    "permutation_2d",
    IMAGE_QUANTITY,
    kinds=("continuous",),
    family="complexity",
    resampling="posterior",
    summary="2-D permutation entropy of an image (Ribeiro et al. 2012)",
)(_make("permutation_2d", measures.permutation_2d, image=True))

register_auto(AutoRule(QUANTITY, 100, lambda c: True, "permutation", "default measure"))
register_auto(AutoRule(IMAGE_QUANTITY, 100, lambda c: True, "permutation_2d", "images"))
