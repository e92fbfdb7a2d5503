"""Partial information decomposition kernels on a joint pmf (pure: numpy in, nats out).

The pmf ``p`` has one axis per source and the target on the last axis.  The redundancy
lattice of ``m`` sources (Williams & Beer 2010) is the set of antichains of non-empty
source collections, ordered by ``α ≤ β ⟺ ∀B∈β ∃A∈α: A ⊆ B``; the atoms are the Möbius
inversion of a redundancy function on it.  Measures:

* ``imin``: ``I_min(T; α) = Σ_t p(t) min_{A∈α} I(T=t; A)`` with the specific information
  ``I(T=t; A) = Σ_a p(a|t) log p(t|a)/p(t)`` (Williams & Beer 2010).
* ``mmi``: ``min_{A∈α} I(A; T)`` (minimum mutual information; Barrett 2015).
* ``isx``: shared-exclusion redundancy ``Σ_{s,t} p(s,t) log P(t | ∪_{A∈α} 𝔞) / P(t)``,
  ``𝔞`` the event that the sources in A take their observed values (Makkeh, Gutknecht &
  Wibral 2021; atoms may be negative).
* ``broja`` (two sources): ``UI(T; S1\\S2) = min_{q∈Δ_p} I_q(T; S1 | S2)`` over the
  distributions with p's (S1,T) and (S2,T) marginals (Bertschinger et al. 2014); a convex
  program, solved through its dual (a geometric program) by a primal–dual interior-point
  method in :mod:`._broja`, certified by the duality gap.
* ``ccs`` (two sources): pointwise common change in surprisal (Ince 2017) on the maximum
  entropy distribution with p's pairwise marginals (:mod:`._maxent`: certified to a
  marginal residual of 1e-14, also where the optimum sits on zeros).
* ``dep`` (two sources): unique information as the least increase of I(S1,S2; T) when the
  constraint (S_i, T) is added anywhere in the lattice of maximum-entropy dependency
  constraints (James, Emenheiser & Crutchfield 2018).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from itertools import combinations

import numpy as np

from ._broja import broja_unique as _broja_unique
from ._maxent import maxent

__all__ = [
    "MEASURES",
    "TWO_SOURCE_MEASURES",
    "lattice",
    "leq",
    "label",
    "decompose",
    "mutual_info_st",
    "maxent_pairwise",
    "mobius",
    "mmi_from_mutual_info",
]

MEASURES = ("imin", "mmi", "broja", "ccs", "dep", "isx")
TWO_SOURCE_MEASURES = ("broja", "ccs", "dep")
#: Largest number of sources of the full lattice (166 atoms for 4; 7579 for 5).
MAX_SOURCES = 4

Antichain = tuple[frozenset, ...]


def _xlogx_ratio(a: np.ndarray, b: np.ndarray) -> float:
    """``Σ a log(a / b)`` over a > 0."""
    s = a > 0
    return float(np.sum(a[s] * np.log(a[s] / b[s])))


def _h(p: np.ndarray) -> float:
    q = p[p > 0]
    return float(-(q * np.log(q)).sum())


def lattice(m: int) -> list[Antichain]:
    """The antichains of non-empty subsets of ``range(m)``, bottom ``{0}{1}...`` first.

    Examples
    --------
    >>> [label(a) for a in lattice(2)]
    ['{0}{1}', '{0}', '{1}', '{01}']
    """
    return list(_lattice(m))


@cache
def _lattice(m: int) -> tuple[Antichain, ...]:
    """:func:`lattice`, built once per ``m`` (antichains are immutable)."""
    subsets = [frozenset(c) for r in range(1, m + 1) for c in combinations(range(m), r)]
    nodes: list[Antichain] = []

    def extend(chosen: list[frozenset], start: int) -> None:
        if chosen:
            nodes.append(tuple(sorted(chosen, key=lambda s: (len(s), sorted(s)))))
        for i in range(start, len(subsets)):
            s = subsets[i]
            if all(not (s <= c or c <= s) for c in chosen):
                extend([*chosen, s], i + 1)

    extend([], 0)
    below = {a: sum(leq(b, a) for b in nodes) for a in nodes}
    return tuple(sorted(nodes, key=lambda a: (below[a], -len(a), [sorted(s) for s in a])))


def leq(a: Antichain, b: Antichain) -> bool:
    """``a ≤ b`` in the redundancy lattice: every collection of b contains one of a."""
    return all(any(x <= y for x in a) for y in b)


def label(a: Antichain, names: tuple[str, ...] | None = None) -> str:
    """``{0}{1}``-style label (with ``names``: ``{x}{y}``, ``{x,y}``)."""
    if names is None:
        return "".join("{" + "".join(str(i) for i in sorted(s)) + "}" for s in a)
    return "".join("{" + ",".join(names[i] for i in sorted(s)) + "}" for s in a)


def _marg(p: np.ndarray, keep: frozenset) -> np.ndarray:
    """Joint of the sources ``keep`` (in axis order) and the target, as (K_A, K_T)."""
    m = p.ndim - 1
    other = tuple(i for i in range(m) if i not in keep)
    q = p.sum(axis=other) if other else p
    return q.reshape(-1, p.shape[-1])


def mutual_info_st(p: np.ndarray, keep: frozenset) -> float:
    """I(S_keep; T) of the pmf (nats)."""
    q = _marg(p, keep)
    return _xlogx_ratio(q, np.outer(q.sum(1), q.sum(0)))


# ------------------------------------------------------------- redundancy functions
def _specific(p: np.ndarray, keep: frozenset) -> np.ndarray:
    """Specific information I(T=t; A) for every t (nats)."""
    q = _marg(p, keep)
    pa, pt = q.sum(1), q.sum(0)
    out = np.zeros(q.shape[1])
    for t in range(q.shape[1]):
        if pt[t] <= 0:
            continue
        s = q[:, t] > 0
        p_a_t = q[s, t] / pt[t]
        p_t_a = q[s, t] / pa[s]
        out[t] = float(np.sum(p_a_t * np.log(p_t_a / pt[t])))
    return out


def _red_imin(p: np.ndarray, nodes: list[Antichain]) -> dict[Antichain, float]:
    pt = p.reshape(-1, p.shape[-1]).sum(0)
    spec = {}
    out = {}
    for a in nodes:
        vals = []
        for s in a:
            if s not in spec:
                spec[s] = _specific(p, s)
            vals.append(spec[s])
        out[a] = float(np.sum(pt * np.min(vals, axis=0)))
    return out


def _red_mmi(p: np.ndarray, nodes: list[Antichain]) -> dict[Antichain, float]:
    mi: dict[frozenset, float] = {}
    out = {}
    for a in nodes:
        for s in a:
            if s not in mi:
                mi[s] = mutual_info_st(p, s)
        out[a] = min(mi[s] for s in a)
    return out


def _red_isx(p: np.ndarray, nodes: list[Antichain]) -> dict[Antichain, float]:
    m = p.ndim - 1
    shape = p.shape[:-1]
    pst = p.reshape(-1, p.shape[-1])  # (K_S, K_T)
    ps, pt = pst.sum(1), pst.sum(0)
    configs = np.stack(np.unravel_index(np.arange(pst.shape[0]), shape), axis=1)  # (K, m)
    live = np.flatnonzero(ps > 0)
    # match[j][s, s']: source j agrees between configurations s (observed) and s'
    eq = [configs[live, j][:, None] == configs[None, :, j] for j in range(m)]
    match: dict[frozenset, np.ndarray] = {}
    out = {}
    for a in nodes:
        union = np.zeros((live.size, pst.shape[0]), bool)
        for s in a:
            if s not in match:
                match[s] = np.logical_and.reduce([eq[j] for j in sorted(s)])
            union |= match[s]
        pu = union @ ps  # P(union event) for each observed s
        put = union @ pst  # P(union event, t)
        w = pst[live]
        ok = w > 0
        ratio = np.where(ok, put / np.where(pu[:, None] > 0, pu[:, None], 1.0), 1.0)
        ratio = np.where(ok, ratio / np.where(pt > 0, pt, 1.0)[None, :], 1.0)
        out[a] = float(np.sum(w[ok] * np.log(ratio[ok])))
    return out


# ----------------------------------------------------------------- two-source PIDs
def maxent_pairwise(p: np.ndarray) -> tuple[np.ndarray, dict]:
    """Maximum-entropy 3-D pmf with the pairwise marginals of ``p`` and the solver's
    certificate (:func:`._maxent.maxent`)."""
    return maxent(p, [(1, 2), (0, 2), (0, 1)])


def _coinfo_terms(q: np.ndarray) -> tuple[np.ndarray, ...]:
    """Local i(s1;t), i(s2;t), i(s1s2;t) and co-information of a 3-D pmf (nats, where
    q > 0; 0 elsewhere)."""
    p1t, p2t, p12 = q.sum(1), q.sum(0), q.sum(2)
    p1, p2, pt = q.sum((1, 2)), q.sum((0, 2)), q.sum((0, 1))
    s = q > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        i1 = np.log(p1t[:, None, :] / (p1[:, None, None] * pt[None, None, :]))
        i2 = np.log(p2t[None, :, :] / (p2[None, :, None] * pt[None, None, :]))
        i12 = np.log(q / (p12[:, :, None] * pt[None, None, :]))
    z = np.zeros_like(q)
    i1, i2, i12 = (np.where(s, v, z) for v in (i1, i2, i12))
    return i1, i2, i12, i1 + i2 - i12


#: Local terms (nats) within this of 0 count as 0 in the sign tests of ``ccs``: they are 0 in
#: exact arithmetic (e.g. ``i(s1;t) = log 1``) and only rounding gives them a sign (dit
#: uses 1e-8 bits in the same place).
SIGN_ZERO = 1e-9


def _red_ccs(p: np.ndarray, fits: list) -> float:
    q, info = maxent_pairwise(p)
    fits.append(info)
    i1, i2, i12, c = (np.where(np.abs(v) <= SIGN_ZERO, 0.0, v) for v in _coinfo_terms(q))
    sg = np.sign(c)
    agree = (np.sign(i1) == sg) & (np.sign(i2) == sg) & (np.sign(i12) == sg)
    return float(np.sum(np.where(agree & (q > 0), q * c, 0.0)))


def _mi12_t(q: np.ndarray) -> float:
    return _xlogx_ratio(q, q.sum(2)[:, :, None] * q.sum((0, 1))[None, None, :])


def _unique_dep(p: np.ndarray, i: int, fits: list) -> float:
    """dep unique information of source ``i`` (0 or 1): the least increase of
    I(S1,S2; T) over the lattice edges that add the constraint (S_i, T)."""
    j = 1 - i
    add = (i, 2)
    bases = [[(0,), (1,), (2,)], [(0, 1), (2,)], [(j, 2), (i,)], [(0, 1), (j, 2)]]
    deltas = []
    for base in bases:
        lo, info_lo = maxent(p, base)
        hi, info_hi = maxent(p, [b for b in base if not set(b) <= set(add)] + [add])
        fits += [info_lo, info_hi]
        deltas.append(_mi12_t(hi) - _mi12_t(lo))
    return min(deltas)


def _certificate(fits: list[dict]) -> tuple[dict, list[str]]:
    """Summary of the maximum-entropy fits behind one ccs / dep decomposition, and a note
    when one stopped above its tolerance."""
    worst = max(f["residual"] for f in fits)
    out = {
        "fits": len(fits),
        "max_marginal_residual": worst,
        "tol": fits[0]["tol"],
        "forced_zero_cells": max(f["forced_zero_cells"] for f in fits),
        "solvers": sorted({f["solver"] for f in fits}),
        "converged": all(f["converged"] for f in fits),
    }
    notes = []
    if not out["converged"]:
        notes.append(
            f"the maximum-entropy fit stopped with its marginals {worst:.2g} from the "
            f"data's (tolerance {out['tol']:.0e}); the atoms are those of a pmf that "
            "close to the data"
        )
    return out, notes


# ---------------------------------------------------------------------- decompose
def mobius(nodes: list[Antichain], red: dict[Antichain, float]) -> dict[Antichain, float]:
    """Atoms from a redundancy function: ``Π(α) = I∩(α) - Σ_{β<α} Π(β)`` (nodes in a
    linear extension of the lattice, as :func:`lattice` lists them)."""
    atoms: dict[Antichain, float] = {}
    for a in nodes:
        atoms[a] = float(red[a] - sum(v for b, v in atoms.items() if leq(b, a)))
    return atoms


def mmi_from_mutual_info(
    m: int, mi: Callable[[frozenset], float]
) -> tuple[dict[Antichain, float], dict[Antichain, float]]:
    """MMI atoms and redundancies of ``m`` sources from ``mi(A) = I(S_A; T)``."""
    nodes = lattice(m)
    cache: dict[frozenset, float] = {}
    red = {}
    for a in nodes:
        for s in a:
            if s not in cache:
                cache[s] = float(mi(s))
        red[a] = min(cache[s] for s in a)
    return mobius(nodes, red), red


def decompose(p: np.ndarray, measure: str) -> tuple[dict[Antichain, float], dict]:
    """Atoms of the PID of ``p`` (sources on the first axes, target last) by ``measure``.

    Returns
    -------
    (dict, dict)
        ``{antichain: atom (nats)}`` in lattice order, and diagnostics (the redundancy
        of every node, solver facts).

    Examples
    --------
    >>> import numpy as np
    >>> p = np.zeros((2, 2, 2))
    >>> for a in (0, 1):
    ...     for b in (0, 1):
    ...         p[a, b, a ^ b] = 0.25
    >>> atoms, _ = decompose(p, "mmi")
    >>> {label(k): round(v / 0.6931471805599453, 9) for k, v in atoms.items()}
    {'{0}{1}': 0.0, '{0}': 0.0, '{1}': 0.0, '{01}': 1.0}
    """
    m = p.ndim - 1
    nodes = lattice(m)
    diag: dict = {}
    if measure in TWO_SOURCE_MEASURES:
        if m != 2:
            raise ValueError(
                f"measure {measure!r} is defined here for exactly 2 sources, got {m}; "
                "for more use imin, mmi or isx"
            )
        s0, s1, s01 = frozenset({0}), frozenset({1}), frozenset({0, 1})
        i0, i1, i01 = mutual_info_st(p, s0), mutual_info_st(p, s1), mutual_info_st(p, s01)
        if measure == "broja":
            u0, diag = _broja_unique(p)
            r = i0 - u0
        elif measure == "ccs":
            fits: list = []
            r = _red_ccs(p, fits)
        else:
            fits = []
            u0 = _unique_dep(p, 0, fits)
            diag["dep_unique_1_own"] = _unique_dep(p, 1, fits)
            r = i0 - u0
        if measure != "broja":
            diag["maxent"], notes = _certificate(fits)
            if notes:
                diag["notes"] = notes
        red = {nodes[0]: r, nodes[1]: i0, nodes[2]: i1, nodes[3]: i01}
    else:
        fn: Callable = {"imin": _red_imin, "mmi": _red_mmi, "isx": _red_isx}[measure]
        red = fn(p, nodes)
    atoms = mobius(nodes, red)
    diag["redundancy"] = {label(a): red[a] for a in nodes}
    return atoms, diag
