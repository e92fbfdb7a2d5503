"""Registered signal-complexity measures: quantity ``complexity`` (role ``x``: one signal)
and ``image_complexity`` (role ``x``: an image, rows x columns).

The method name is the measure (``permutation``, ``sample``, ...).  Error bars: with
``stderr_blocks=B`` (the default 10; :func:`infometer.measures.complexity` turns it off unless
``ci=`` is asked for) the signal is cut into B contiguous blocks of length L, the measure is
computed on each (with the full signal's tolerance ``r·sd`` where there is one) and the
standard error of the full-signal value is ``sd(block values) · sqrt(L / N)`` with B - 1
degrees of freedom: non-overlapping block subsampling (Carlstein 1986; Politis & Romano
1994), valid for a √N-consistent measure of a stationary, weakly dependent signal.  It
describes the spread of the estimate, not its bias (small-N bias of every entropy here).
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from infometer.core.data import Variable
from infometer.core.registry import EXAMPLES, QUANTITY_ROLES, AutoRule, Raw, register, register_auto
from infometer.core.validation import check_int

from . import measures

__all__ = ["block_stderr", "QUANTITY", "IMAGE_QUANTITY"]

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


def block_stderr(
    fn: Callable[..., float], s: np.ndarray, params: dict[str, Any], n_blocks: int
) -> tuple[float | None, int | None, dict[str, Any]]:
    """``(stderr, dof, diagnostics)`` by non-overlapping block subsampling (rows for 2-D)."""
    n = s.shape[0]
    L = n // n_blocks
    vals = []
    try:
        for b in range(n_blocks):
            vals.append(fn(s[b * L : (b + 1) * L], **params))
    except ValueError as exc:
        return None, None, {"stderr_note": f"blocks of {L} too short for the measure: {exc}"}
    v = np.asarray(vals, dtype=float)
    if not np.all(np.isfinite(v)):
        return None, None, {"stderr_note": "the measure is not finite on some block"}
    se = float(np.std(v, ddof=1) * math.sqrt(L / n))
    return se, n_blocks - 1, {"stderr_method": f"block subsampling, {n_blocks} blocks of {L}"}


def _signal(x: Variable, image: bool) -> np.ndarray:
    """The checked signal (or image), at least ``MIN_SAMPLES`` long."""
    if image:
        return np.ascontiguousarray(x.values)
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
    return np.ascontiguousarray(x.values[:, 0])


def _blocks(value: Any, n: int) -> int:
    """``stderr_blocks``: 0 (no error bar) or 2 up to the blocks of ``MIN_SAMPLES`` each."""
    blocks = check_int(value, "stderr_blocks", min_value=0)
    most = n // measures.MIN_SAMPLES
    if blocks == 1 or blocks > most:
        raise ValueError(
            f"stderr_blocks must be 0 (no error bar) or 2..{most}: blocks of at least "
            f"{measures.MIN_SAMPLES} of the {n} samples (rows), got {blocks}"
        )
    return blocks


def _make(name: str, fn: Callable[..., float], image: bool) -> Callable[..., Raw]:
    sig = inspect.signature(fn)
    own = [p for p in sig.parameters.values() if p.kind is inspect.Parameter.KEYWORD_ONLY]

    def est(x: Variable, **kw: Any) -> Raw:
        raw_blocks = kw.pop("stderr_blocks")
        s = _signal(x, image)
        blocks = _blocks(raw_blocks, s.shape[0])
        # where squares of x would overflow: rescaled by a power of two (scale-free ones)
        s, scale = measures.rescaled(s) if name in measures.SCALE_FREE else (s, 1.0)
        if kw.get("r_abs") is not None:  # an absolute tolerance scales with the signal
            kw["r_abs"] = measures.check_float(kw["r_abs"], "r_abs", low=0.0) * scale
        value = float(fn(s, **kw))
        diag: dict[str, Any] = {"measure": name}
        if kw.get("normalize"):
            diag["normalized"] = True
        if name == "statistical_complexity":
            diag["normalized"] = True
        warns = []
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
