"""Histogram estimators of H, MI and CMI for continuous data.

Each column is cut into bins (equal width or equal frequency); a sample's cell is the
tuple of its column bins.  Entropy terms are computed on the cell counts with the
plug-in or the Miller–Madow estimator; differential entropy adds the mean log cell
volume:

    ĥ(X) = Ĥ(cells) + (1/n) Σ_t Σ_j log w_j(b_j(t))

where ``w_j(b)`` is the width of bin ``b`` of column ``j``.  For MI and CMI the same
column bins are used in every term, so the volumes cancel and the estimate is the
discrete MI/CMI of the cell codes.

Bin rules (``bins=``): an integer (bins per column), a numpy rule (``"fd"``,
``"sturges"``, ``"scott"``, ``"sqrt"``, ``"rice"``, ``"doane"``), or ``"auto"``
(default): the Freedman–Diaconis count per column, capped so that the joint grid of
all D columns of the quantity has at most n/5 cells, i.e. ``⌊(n/5)^(1/D)⌋`` bins per
column (at least 2).  The cap keeps roughly ≥ 5 samples per cell, where the
Miller–Madow correction is accurate; FD alone makes MI grids far too fine.

References
----------
* Freedman & Diaconis (1981), Z. Wahrsch. verw. Gebiete 57:453; Sturges (1926), JASA 21:65;
  Scott (1979), Biometrika 66:605.
* Miller (1955), "Note on the bias of information estimates".
* Moddemeijer (1989), Signal Process. 16:233 (histogram entropy/MI and their bias).
* Darbellay & Vajda (1999), IEEE Trans. Inf. Theory 45:1315 (adaptive partitions).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from infometer.core.data import Variable, check_choice, check_int, encode_columns
from infometer.core.registry import Raw, register
from infometer.estimators.discrete import kernels
from infometer.estimators.discrete.counting import counts

__all__ = ["bin_column", "bins_per_column", "NUMPY_RULES"]

NUMPY_RULES = ("fd", "sturges", "scott", "sqrt", "rice", "doane")
#: Largest ``bins=`` accepted (the edges of one column are allocated: 8 MB here).
MAX_BINS = 1_000_000
#: MI/CMI at or above this fraction of the binned ceiling min(H(x|z), H(y|z)) is flagged.
SATURATION = 0.9
STRATEGIES = ("width", "frequency")
CORRECTIONS = ("miller_madow", "none")

_TERMS = {
    1: [(1.0, (0,))],
    2: [(1.0, (0,)), (1.0, (1,)), (-1.0, (0, 1))],
    3: [(1.0, (0, 2)), (1.0, (1, 2)), (-1.0, (0, 1, 2)), (-1.0, (2,))],
}


def bins_per_column(col: np.ndarray, bins: int | str, n_dims: int) -> int:
    """Number of bins for one column under rule ``bins`` (see the module docstring).

    Parameters
    ----------
    col
        The column's values.
    bins
        An integer, a rule name, or ``"auto"``.
    n_dims
        Total number of columns of the quantity (for the ``"auto"`` cap).

    Returns
    -------
    int
    """
    if not isinstance(bins, str):
        return int(bins)
    rule = "fd" if bins == "auto" else bins
    n = col.size
    span = float(col.max() - col.min())
    if rule in ("fd", "scott"):
        if rule == "fd":
            q75, q25 = np.percentile(col, [75, 25])
            width = 2.0 * float(q75 - q25) * n ** (-1.0 / 3.0)
        else:
            width = (24.0 * np.sqrt(np.pi) / n) ** (1.0 / 3.0) * float(np.std(col))
        # a zero spread (e.g. IQR of a column with a big atom) falls back to Sturges;
        # heavy tails cannot ask for more bins than samples
        # (span / width can overflow to inf when the spread is subnormal: cap before int())
        k = int(min(np.ceil(span / width), n)) if width > 0 else int(np.ceil(np.log2(n))) + 1
        k = min(k, n)
    else:
        k = len(np.histogram_bin_edges(col, bins=rule)) - 1
    if bins == "auto":
        cap = max(2, int(np.floor((col.size / 5.0) ** (1.0 / n_dims) + 1e-9)))
        k = min(k, cap)
    return max(1, k)


def bin_column(col: np.ndarray, k: int, strategy: str) -> tuple[np.ndarray, np.ndarray]:
    """Bin codes ``0..k'-1`` of each value and the bin widths (``k' <= k`` after merging
    equal-frequency edges that coincide because of ties).

    Parameters
    ----------
    col
        The column's values.
    k
        Number of bins.
    strategy
        ``"width"`` (equal width over [min, max]) or ``"frequency"`` (sample quantiles).

    Returns
    -------
    codes, widths : numpy.ndarray
    """
    lo, hi = float(col.min()), float(col.max())
    if strategy == "width":
        edges = np.linspace(lo, hi, k + 1) if hi > lo else np.array([lo, lo + 1.0])
    else:
        edges = np.unique(np.quantile(col, np.linspace(0.0, 1.0, k + 1)))
        if edges.size < 2:
            edges = np.array([lo, lo + 1.0])
    codes = np.searchsorted(edges, col, side="right") - 1
    # the maximum sits on the last edge, which closes the last bin
    codes[codes == edges.size - 1] = edges.size - 2
    return codes.astype(np.int64), np.diff(edges)


def _scaled(col: np.ndarray) -> tuple[np.ndarray, float]:
    """``col / 2**e`` with ``|values| <= 1``, and ``log(2**e)``.

    Dividing by a power of two is exact, so bin codes are those of the unscaled column,
    but ``max - min`` and the bin widths stay finite for data near the float limits.
    """
    top = float(np.max(np.abs(col))) if col.size else 0.0
    if top == 0.0 or not np.isfinite(top):
        return col, 0.0
    e = int(np.frexp(top)[1])
    return np.ldexp(col, -e), e * float(np.log(2.0))


def _ceiling_flag(value: float, hs: dict, n_vars: int, diag: dict, warns: list[str]) -> None:
    """Flag MI/CMI at the binned ceiling ``min(H(x|z), H(y|z))`` (a binned MI can never
    exceed the entropy of either binned side: ``y = x`` saturates there, whatever the
    true, here infinite, MI)."""
    if n_vars == 2:
        ceiling = min(hs[(0,)], hs[(1,)])
    else:
        ceiling = min(hs[(0, 2)], hs[(1, 2)]) - hs[(2,)]
    diag["ceiling"] = float(ceiling)
    if ceiling > 0 and value >= SATURATION * ceiling:
        diag["near_ceiling"] = True
        warns.append(
            f"histogram estimate {value:.3g} nats is at its ceiling, the entropy of the "
            f"binned variable ({ceiling:.3g} nats): one side is (nearly) a function of the "
            "other at this bin resolution, and the true value may be much larger"
        )


def _constant_columns(v: Variable) -> list[int]:
    """Indices of the columns of ``v`` that take one value only."""
    vals = v.values
    return [j for j in range(v.d) if vals[0, j] == vals[:, j].min() == vals[:, j].max()]


def _point_mass(v: Variable, const: list[int]) -> Raw:
    """Differential entropy of data with a constant column: -inf, whatever the constant
    (a point mass has no density; a finite histogram value would only reflect the width of
    the one bin, i.e. the constant's magnitude)."""
    msg = (
        f"histogram: {v.name} column(s) {const} are constant: a point mass has differential "
        "entropy -inf (whatever its value); for the discrete entropy of the values use "
        "discrete=True"
    )
    return Raw(
        value=-np.inf,
        diagnostics={"constant_columns": const, "point_mass": True},
        warnings=[msg],
    )


def _entropy(c: np.ndarray, correction: str) -> float:
    return kernels.miller_madow(c) if correction == "miller_madow" else kernels.plugin(c)


def _histogram(vs: Sequence[Variable], bins: int | str, strategy: str, correction: str) -> Raw:
    if isinstance(bins, str):
        check_choice(bins, "bins", ("auto", *NUMPY_RULES))
    else:
        bins = check_int(bins, "bins", min_value=1, max_value=MAX_BINS)
    check_choice(strategy, "strategy", STRATEGIES)
    check_choice(correction, "correction", CORRECTIONS)
    n = vs[0].n
    n_dims = sum(v.d for v in vs)
    if len(vs) == 1:
        const = _constant_columns(vs[0])
        if const:
            return _point_mass(vs[0], const)
    codes: list[list[np.ndarray]] = []
    logw_mean = 0.0
    per_col: list[int] = []
    warns_atoms: list[str] = []
    for v in vs:
        vc = []
        for j in range(v.d):
            # scaled by a power of two (exact) so that data spanning +-1e308 have a finite
            # range; the log of the scale is added back to the entropy below
            col, log_scale = _scaled(v.values[:, j])
            k = bins_per_column(col, bins, n_dims)
            c, w = bin_column(col, k, strategy)
            per_col.append(int(w.size))
            vc.append(c)
            if len(vs) == 1:
                vals, cnt = np.unique(col, return_counts=True)
                top = int(cnt.argmax())
                if cnt[top] >= max(10, 0.05 * n):
                    warns_atoms.append(
                        f"histogram: {v.name} takes the value {vals[top]:g} in "
                        f"{cnt[top] / n:.0%} of the samples (an atom): a distribution with "
                        "atoms has differential entropy -inf, and the finite histogram value "
                        "depends on the bins"
                    )
                logw_mean += float(np.log(w[c]).mean()) + log_scale
        codes.append(vc)
    group_codes = [encode_columns(vc, [int(c.max()) + 1 for c in vc]) for vc in codes]

    def h(idx: tuple[int, ...]) -> tuple[float, int]:
        cols = [group_codes[i] for i in idx]
        joint = cols[0] if len(cols) == 1 else encode_columns(cols)
        cnt = counts(joint)
        return _entropy(cnt, correction), int(cnt.size)

    total, occupied = 0.0, 0
    hs: dict[tuple[int, ...], float] = {}
    for sign, idx in _TERMS[len(vs)]:
        hv, m = h(idx)
        hs[idx] = hv
        total += sign * hv
        occupied = max(occupied, m)
    diag: dict = {
        "bins_per_column": per_col,
        "occupied_cells": occupied,
        "samples_per_occupied_cell": n / occupied,
    }
    warns: list[str] = list(warns_atoms)
    if len(vs) > 1:
        _ceiling_flag(total, hs, len(vs), diag, warns)
    if warns_atoms:
        diag["atoms"] = True
    if n / occupied < 2:
        warns.append(
            f"histogram: {n} samples in {occupied} occupied cells; the grid is too fine for "
            "the plug-in/Miller-Madow entropies (use fewer bins, or a kNN estimator)"
        )
    if len(vs) == 1:
        total += logw_mean
    return Raw(value=total, diagnostics=diag, warnings=warns)


@register(
    "histogram",
    ("entropy", "mutual_info", "cond_mutual_info"),
    kinds=("continuous",),
    family="binned",
    summary="Histogram (equal-width or equal-frequency bins) with Miller-Madow correction",
)
def histogram(
    *vs: Variable,
    bins: int | str = "auto",
    strategy: str = "width",
    correction: str = "miller_madow",
) -> Raw:
    """Histogram estimate of H (differential), MI or CMI.

    Parameters
    ----------
    bins
        Bins per column: an integer, a numpy rule name, or ``"auto"`` (FD capped at
        ``(n/5)^(1/D)`` for D columns in total).
    strategy
        ``"width"`` (equal-width bins over the data range) or ``"frequency"``
        (equal-count bins at the sample quantiles).
    correction
        ``"miller_madow"`` (add (m−1)/2n to each entropy term) or ``"none"`` (plug-in).
    """
    return _histogram(vs, bins, strategy, correction)


histogram.plugin_params = lambda params: {**params, "correction": "none"}  # type: ignore[attr-defined]
