"""Pure kernels of the multivariate family: numpy in, nats out (no validation, no warnings).

Every quantity is a signed sum of joint entropies (:mod:`._terms`); the kernels evaluate
such a sum from

* a joint pmf (one axis per variable): exact;
* integer codes per variable: any entropy kernel of the discrete family;
* the scatter matrix of all columns: Gaussian entropies by batched log-determinants;
* kNN: one max-norm neighbour search in the joint space, then range counts in each
  subspace at the joint radii (the KSG construction of Kraskov et al. 2004, eq. 8,
  generalised from two blocks to any subset; the log-volume terms cancel because every
  quantity here is balanced).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np

from infometer.core.data import encode_columns
from infometer.estimators.discrete._counting import counts
from infometer.estimators.knn._engine import RangeCounter, brute_chosen
from infometer.estimators.knn._kernels import brute_counts, neighbours
from infometer.estimators.parametric._gaussian import RESOLUTION, _wishart_offset

__all__ = [
    "pmf_entropy_sum",
    "codes_entropy_sum",
    "codes_block_entropies",
    "gaussian_block_entropies",
    "block_logdets",
    "gaussian_tree_entropies",
    "gaussian_entropy_sum",
    "ksg_entropy_sum",
    "LOG2PIE",
]

LOG2PIE = float(np.log(2 * np.pi) + 1.0)
Terms = Mapping[frozenset, float]


def _h(p: np.ndarray) -> float:
    q = p[p > 0]
    return float(-(q * np.log(q)).sum())


def pmf_entropy_sum(p: np.ndarray, terms: Terms) -> float:
    """``sum_S c_S H(X_S)`` of a joint pmf ``p`` with one axis per variable (nats).

    Examples
    --------
    >>> import numpy as np
    >>> p = np.full((2, 2), 0.25)  # two independent fair bits
    >>> round(pmf_entropy_sum(p, {frozenset({0}): 1.0, frozenset({0, 1}): -1.0}), 12)
    -0.69314718056
    """
    n = p.ndim
    total = 0.0
    for s, c in terms.items():
        other = tuple(a for a in range(n) if a not in s)
        total += c * _h(p.sum(axis=other) if other else p)
    return total


def codes_entropy_sum(
    codes: Sequence[np.ndarray],
    terms: Terms,
    entropy: Callable[[np.ndarray, frozenset], float],
) -> float:
    """``sum_S c_S Ĥ(X_S)`` where ``entropy(counts, S)`` estimates H from the non-zero
    counts of the joint symbols of the variables ``S`` (``codes[i]``: int64 per row)."""
    total = 0.0
    for s, c in terms.items():
        cols = [codes[i] for i in sorted(s)]
        joint = cols[0] if len(cols) == 1 else encode_columns(cols)
        total += c * entropy(counts(joint), s)
    return total


def codes_block_entropies(
    codes: np.ndarray, cards: np.ndarray, blocks: np.ndarray, miller_madow: bool
) -> np.ndarray:
    """Entropies (nats) of the joint symbols of many equal-sized column blocks at once.

    Parameters
    ----------
    codes
        (n, d) int64 codes, column j in ``0..cards[j] - 1``; or a stack (b, n, d)
        (surrogates) sharing the blocks.
    cards
        (d,) alphabet sizes.
    blocks
        (m, s) column indices, one block per row; the product of a block's ``cards`` must
        be below 2**62 (the joint symbol is one int64 in mixed radix).
    miller_madow
        Add ``(K - 1) / (2n)``, K the distinct joint symbols seen (Miller 1955); else the
        plug-in entropy.

    Returns
    -------
    numpy.ndarray
        (m,) (or (b, m)) entropies: per block, the joint codes of all rows are sorted once
        and the run lengths ``c`` give ``log n - Σ c log c / n`` (no Python loop per block).

    Examples
    --------
    >>> import numpy as np
    >>> c = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
    >>> codes_block_entropies(c, np.array([2, 2]), np.array([[0], [1]]), False)
    array([0.69314718, 0.69314718])
    >>> float(codes_block_entropies(c, np.array([2, 2]), np.array([[0, 1]]), False)[0])
    1.3862943611198906
    """
    codes = np.asarray(codes, dtype=np.int64)
    if codes.ndim == 3:
        return np.stack([codes_block_entropies(c, cards, blocks, miller_madow) for c in codes])
    n = codes.shape[0]
    m, s = blocks.shape
    if m == 0 or n == 0:
        return np.zeros(m)
    radix = np.ones((m, 1), dtype=np.int64)
    joint = np.zeros((m, n), dtype=np.int64)
    for j in range(s):  # c0 + K0 (c1 + K1 (...)), block by block
        joint += radix * codes[:, blocks[:, j]].T
        radix = radix * np.asarray(cards, dtype=np.int64)[blocks[:, j]][:, None]
    joint.sort(axis=1)
    flat = joint.ravel()
    new = np.ones(flat.size, dtype=bool)
    new[1:] = flat[1:] != flat[:-1]
    new[::n] = True  # every block's first row starts a run
    starts = np.flatnonzero(new)
    runs = np.diff(np.append(starts, flat.size)).astype(np.float64)
    row = starts // n
    # sum p log(1/p) per block: no negative rounding (a constant block is exactly 0)
    h = np.bincount(row, weights=runs / n * np.log(n / runs), minlength=m)
    if miller_madow:
        h = h + (np.bincount(row, minlength=m) - 1) / (2.0 * n)
    return h


def gaussian_block_entropies(
    scatter: np.ndarray, n: int, blocks: np.ndarray, bias_correct: bool
) -> np.ndarray:
    """Gaussian entropies of many equal-sized column blocks at once (no Python loop).

    Parameters
    ----------
    scatter
        ``W = Σ_t (x_t - x̄)(x_t - x̄)ᵀ`` of all columns, (d, d), or a stack (b, d, d) of
        scatter matrices (surrogates) sharing the blocks.
    n
        Samples behind ``W``.
    blocks
        (m, s) column indices, one block per row.
    bias_correct
        Wishart-unbiased ``log det Σ`` (see :mod:`infometer.estimators.parametric._gaussian`).

    Returns
    -------
    numpy.ndarray
        (m,) (or (b, m)) entropies ``½ (log det Σ̂ + s log 2πe)``; NaN where a block is
        singular (collinear or constant columns).
    """
    m, s = blocks.shape
    if s == 0:
        return np.zeros(scatter.shape[:-2] + (m,))
    ld, bad = block_logdets(scatter, blocks)
    offset = _wishart_offset(n, s) if bias_correct else s * np.log(n)
    h = 0.5 * (ld - offset + s * LOG2PIE)
    return np.where(bad, np.nan, h)


def block_logdets(scatter: np.ndarray, blocks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``log det`` of the blocks ``scatter[b][ix_(row, row)]`` and whether each is singular.

    A block is singular when its smallest eigenvalue is at most ``RESOLUTION`` times its
    largest (a column is a linear function of the others to ~13 digits), as in
    :func:`infometer.estimators.parametric._gaussian.logdet_sigma`.  The log-determinants
    come from one batched LU (``slogdet``, several times cheaper than eigenvalues); since
    ``λ_min ≤ R λ_max`` implies ``det ≤ R λ_max^s ≤ R tr^s``, only the blocks with
    ``det ≤ R tr^s`` (or a sign that is not +1) can be singular, and only those are
    decomposed into eigenvalues to apply the rule exactly.

    Examples
    --------
    >>> import numpy as np
    >>> w = np.array([[2.0, 1.0, 1.0], [1.0, 2.0, 1.0], [1.0, 1.0, 2.0]])
    >>> ld, bad = block_logdets(w, np.array([[0, 1], [0, 2]]))
    >>> ld.round(12), bad
    (array([1.09861229, 1.09861229]), array([False, False]))
    """

    s = blocks.shape[1]
    if s == 1:
        diag = np.diagonal(scatter, axis1=-2, axis2=-1)[..., blocks[:, 0]]
        bad = ~(diag > 0)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.log(np.where(bad, 1.0, diag)), bad
    sub = scatter[..., blocks[:, :, None], blocks[:, None, :]]  # (..., m, s, s)
    sign, ld = np.linalg.slogdet(sub)
    tr = np.trace(sub, axis1=-2, axis2=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        clear = (sign > 0) & (ld > np.log(RESOLUTION) + s * np.log(tr))
    bad = np.zeros(ld.shape, dtype=bool)
    if not clear.all():
        suspect = ~clear
        ev = np.linalg.eigvalsh(sub[suspect])
        worse = ~(ev[..., -1] > 0) | (ev[..., 0] <= RESOLUTION * ev[..., -1])
        with np.errstate(divide="ignore", invalid="ignore"):
            ld[suspect] = np.log(np.where(ev > 0, ev, 1.0)).sum(axis=-1)
        bad[suspect] = worse
    return ld, bad


def gaussian_tree_entropies(
    scatter: np.ndarray,
    n: int,
    levels: Sequence[tuple[np.ndarray, np.ndarray]],
    bias_correct: bool,
) -> list[np.ndarray]:
    """Gaussian entropies of nested subsets, each from its prefix's Cholesky factor.

    Parameters
    ----------
    scatter
        (d, d) scatter matrix or a stack (b, d, d).
    n
        Samples behind it.
    levels
        ``levels[k-1] = (subsets, parent)``: k-subsets ((m_k, k), rows increasing) and the
        position in ``levels[k-2]`` of each one's (k-1)-prefix (all but the largest
        element); :func:`._subsets.colex_levels` (every subset) or
        :func:`._subsets.prefix_levels` (some subsets and their prefixes).
    bias_correct
        Wishart-unbiased log-determinants.

    Returns
    -------
    list of numpy.ndarray
        Per level, the entropies (NaN where singular), shape ``batch + (m_k,)``.

    Notes
    -----
    With ``L`` the Cholesky factor of a prefix ``P`` and ``e`` the new element, the factor of
    ``P ∪ {e}`` adds the row ``(y, √q)``, ``L y = W[P, e]``, ``q = W[e, e] - |y|²``, and
    ``log det W[S] = log det W[P] + log q``: one forward substitution per subset (k
    elementwise numpy steps over all subsets of a level) instead of a factorisation.
    Every step is elementwise and in a fixed order, so a subset's value is bit for bit the
    same whichever other subsets are computed with it.  The singular rule of
    :func:`block_logdets` is then applied exactly: only blocks with
    ``det ≤ RESOLUTION tr^k`` (or no positive ``q``) are decomposed into eigenvalues.

    Examples
    --------
    >>> import numpy as np
    >>> from infometer.measures.multivariate._subsets import colex_levels
    >>> w = np.array([[2.0, 1.0, 1.0], [1.0, 2.0, 1.0], [1.0, 1.0, 2.0]])
    >>> h = gaussian_tree_entropies(w, 100, colex_levels(3, 3), False)
    >>> ref = gaussian_block_entropies(w, 100, np.array([[0, 1, 2]]), False)
    >>> bool(np.isclose(h[2][0], ref[0], rtol=1e-14))
    True
    """
    diag = np.diagonal(scatter, axis1=-2, axis2=-1)
    rows: list[np.ndarray] = []  # per level: the last row of each subset's factor
    lds: list[np.ndarray] = []
    out = []
    top = len(levels)
    for k, (subs, parent) in enumerate(levels, start=1):
        e = subs[:, -1]
        with np.errstate(divide="ignore", invalid="ignore"):
            if k == 1:
                q = diag[..., e]
                y = np.sqrt(q)[..., None]
                ld = np.log(q)
            else:
                # the ranks of the j-prefixes of every subset, j = 1..k-1
                anc = [parent]
                for j in range(k - 2, 0, -1):
                    anc.append(levels[j][1][anc[-1]])
                anc.reverse()  # anc[j]: position of the (j + 1)-prefix in levels[j]
                y = np.empty(scatter.shape[:-2] + (subs.shape[0], k))
                for j in range(k - 1):
                    row = rows[j][..., anc[j], :]  # row j of the prefix's factor
                    acc = scatter[..., subs[:, j], e]
                    for i in range(j):
                        acc = acc - row[..., i] * y[..., i]
                    y[..., j] = acc / row[..., j]
                q = diag[..., e]
                for j in range(k - 1):
                    q = q - y[..., j] * y[..., j]
                y[..., k - 1] = np.sqrt(q)
                ld = lds[-1][..., parent] + np.log(q)
            # the singular rule: det <= R tr^k is necessary for lambda_min <= R lambda_max
            tr = diag[..., subs[:, 0]]
            for j in range(1, k):
                tr = tr + diag[..., subs[:, j]]
            clear = ld > np.log(RESOLUTION) + k * np.log(tr)
        if k < top:
            rows.append(y)
        lds.append(ld)
        h = ld.copy()
        if not clear.all():
            suspect = ~clear
            at = np.nonzero(suspect)
            blocks = subs[at[-1]]
            lead = tuple(a[:, None, None] for a in at[:-1])
            mats = scatter[lead + (blocks[:, :, None], blocks[:, None, :])]
            ev = np.linalg.eigvalsh(mats)
            bad = ~(ev[..., -1] > 0) | (ev[..., 0] <= RESOLUTION * ev[..., -1])
            with np.errstate(divide="ignore", invalid="ignore"):
                h[suspect] = np.where(bad, np.nan, np.log(np.where(ev > 0, ev, 1.0)).sum(-1))
        offset = _wishart_offset(n, k) if bias_correct else k * np.log(n)
        out.append(0.5 * (h - offset + k * LOG2PIE))
    return out


def gaussian_entropy_sum(
    scatter: np.ndarray,
    n: int,
    groups: Sequence[Sequence[int]],
    terms: Terms,
    bias_correct: bool,
) -> float:
    """``sum_S c_S H_G(X_S)`` from one scatter matrix; ``groups[i]``: columns of variable i.

    NaN when a block is singular.
    """
    blocks = {
        s: np.concatenate([np.asarray(groups[i], dtype=np.intp) for i in sorted(s)]) for s in terms
    }
    h: dict[frozenset, float] = {}
    for width in {b.size for b in blocks.values()}:  # one batched call per block width
        same = [s for s, b in blocks.items() if b.size == width]
        hs = gaussian_block_entropies(scatter, n, np.stack([blocks[s] for s in same]), bias_correct)
        h.update(zip(same, hs.tolist(), strict=True))
    total = 0.0
    for s, c in terms.items():  # the terms' own order
        total += c * h[s]
    return total


def ksg_entropy_sum(blocks: Sequence[np.ndarray], terms: Terms, k: int) -> tuple[float, dict]:
    """KSG-style estimate of a balanced ``sum_S c_S H(X_S)`` from one joint search.

    With ``ε_t`` the max-norm distance from row t to its k-th neighbour in the joint
    space of all variables and ``n_S(t)`` the number of other rows strictly closer than
    ``ε_t`` in the subspace of ``S``, ``H(X_S) ≈ ψ(N) - <ψ(n_S + 1)> + d_S <log 2ε>``
    (``ψ(k)`` in place of ``<ψ(n_S + 1)>`` for the joint space itself).  For a balanced
    sum the ``d_S <log 2ε>`` terms cancel, leaving
    ``ψ(N) Σ c_S - c_full ψ(k) - Σ_{S ≠ full} c_S <ψ(n_S + 1)>`` (Kraskov et al. 2004, eq. 8
    for two blocks).  ``blocks[i]``: the prepared (n, d_i) columns of variable i (d_i may
    be 0 for a constant variable).

    Returns
    -------
    (float, dict)
        The estimate (nats) and ``{"mean_counts": {subset label: mean n_S}}``.
    """
    from scipy.special import digamma

    n = blocks[0].shape[0]
    full = frozenset(range(len(blocks)))
    subsets = [s for s in terms if s != full]
    counts: dict[frozenset, np.ndarray] = {}
    d = sum(b.shape[1] for b in blocks)
    # brute force reads, per point pair, one buffered distance per member of each subset:
    # it is chosen only while that is at most the joint dimension (its distance pass)
    if brute_chosen(n, d) and sum(len(s) for s in subsets) <= d:
        _, cnts = brute_counts(list(blocks), [sorted(s) for s in subsets], k)
        counts = dict(zip(subsets, cnts, strict=True))
    else:
        eps, _ = neighbours(np.hstack(blocks), k)
    total = digamma(n) * sum(terms.values())
    means = {}
    for s, c in terms.items():
        if s == full:
            total -= c * digamma(k)
            continue
        cnt = counts.get(s)
        if cnt is None:
            sub = np.hstack([blocks[i] for i in sorted(s)])
            if sub.shape[1] == 0:  # constant variables only: every row is within any radius
                cnt = np.full(n, n - 1, np.int64)
            else:
                cnt = RangeCounter(sub).count(eps, strict=True)
        total -= c * float(np.mean(digamma(cnt + 1)))
        means["".join(map(str, sorted(s))) if len(s) < 8 else str(sorted(s))] = float(cnt.mean())
    return float(total), {"mean_counts": means}
