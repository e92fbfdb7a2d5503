"""Surrogates for the null of mutual independence (shared by :func:`multivariate_test`
and :func:`multiplets`): every variable's rows are permuted independently, which keeps
each marginal (and, with ``block``, each variable's short-range autocorrelation) and
destroys every dependence between variables.  The row orders come from
:mod:`infometer.measures.stats.independence` (plain or block permutations)."""

from __future__ import annotations

import numpy as np

from infometer.measures.stats.independence import block_permutation

__all__ = ["independent_orders", "scheme_name"]


def independent_orders(
    rng: np.random.Generator, n: int, k: int, block: int | None = None
) -> list[np.ndarray]:
    """``k`` independent row orders of ``n`` rows, one per variable.

    Examples
    --------
    >>> o = independent_orders(np.random.default_rng(0), 6, 2, block=3)
    >>> [sorted(p.tolist()) == list(range(6)) for p in o]
    [True, True]
    """
    if block is None:
        return [rng.permutation(n) for _ in range(k)]
    return [block_permutation(rng, n, block) for _ in range(k)]


def scheme_name(block: int | None) -> str:
    """How the surrogates were made, in words."""
    base = "each variable permuted independently"
    return base if block is None else f"{base} in blocks of {block} rows"
