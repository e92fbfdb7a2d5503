"""Image information maps and information-ordered traversals (after InfoScan, ICLR 2026).

* :func:`patch_entropy_map`: the Shannon entropy of each patch's quantised intensities,
  with any of the registered discrete entropy estimators.  A 16×16 patch has N = 256
  pixels; with C intensity bins the plug-in entropy is biased low by about (C − 1)/(2N)
  nats, so the default is ``miller_madow`` (plug-in + (m − 1)/(2N), m = occupied bins),
  which removes that first-order bias.  Exact-by-construction values (constant patch 0,
  two equal levels 1 bit, eight equal levels 3 bits) are the plug-in's; Miller–Madow adds
  its correction to them.
* :func:`local_variance_map`: intensity variance in a k×k neighbourhood (texture),
  averaged per patch.
* :func:`info_score`: ω₁·z(H) + ω₂·z(V) with z-normalised maps (InfoScan's ω = (0.6, 0.4)).
* :func:`info_ordered_walk`: a self-avoiding 4-neighbour walk over the patch grid that
  maximises Σ_t γ^(t−1) I(s_t) -- exact (enumeration) for small grids, greedy or beam
  search beyond -- and the fixed :func:`raster_order` and :func:`hilbert_order`.
* :func:`golden_section`: minimiser of a unimodal 1-D cost (InfoScan's patch-size search).

The paper's scoring of RGB patches (per channel or joint histogram) and its RL planner are
not published in detail; this module measures the information the score is built from and
plans exactly where that is feasible.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from infometer.core.data import check_choice, check_float, check_int
from infometer.core.estimate import unit_factor
from infometer.core.validation import check_budget, check_real_array

from ._common import as_float_matrix

__all__ = [
    "quantize",
    "patch_entropy_map",
    "local_variance_map",
    "patch_mean",
    "zscore",
    "info_score",
    "boundary_saliency",
    "Walk",
    "walk_value",
    "info_ordered_walk",
    "raster_order",
    "hilbert_order",
    "golden_section",
]


#: Largest ``bins=`` of an intensity map (16-bit images have 65,536 levels; estimators
#: such as NSB allocate per bin and per patch).
MAX_BINS = 65_536


def _image(img: Any) -> np.ndarray:
    a = check_real_array(img, "img", what="intensities")
    if a.ndim == 3:  # H x W x C: mean over channels
        a = a.mean(axis=2)
    if a.ndim != 2:
        raise ValueError(f"img must be 2-D (H, W) or 3-D (H, W, C), got shape {a.shape}")
    return a


def _patch(patch: int | tuple[int, int]) -> tuple[int, int]:
    if isinstance(patch, tuple):
        if len(patch) != 2:
            raise ValueError("patch must be an int or (height, width)")
        return check_int(patch[0], "patch height", min_value=1), check_int(
            patch[1], "patch width", min_value=1
        )
    p = check_int(patch, "patch", min_value=1)
    return p, p


def quantize(img: Any, bins: int, value_range: tuple[float, float] | None = None) -> np.ndarray:
    """Integer bin codes 0..bins−1 of an image's intensities (equal-width bins).

    ``value_range`` defaults to the image's min and max; values outside are clipped.
    """
    a = _image(img)
    bins = check_int(bins, "bins", min_value=1, max_value=MAX_BINS)
    if value_range is None:
        lo, hi = float(a.min()), float(a.max())
        if not hi > lo:  # a constant image: one bin
            return np.zeros(a.shape, dtype=np.int64)
    else:
        lo, hi = _value_range(value_range)
    with np.errstate(over="ignore"):
        scaled = (a - lo) / (hi - lo) * bins  # inf past the range: clipped below
    codes = np.floor(np.clip(scaled, 0, bins)).astype(np.int64)
    return np.clip(codes, 0, bins - 1)


def _value_range(value_range: Any) -> tuple[float, float]:
    """``(low, high)``: two finite real numbers with low < high (a reversed or NaN range
    gave an all-zero map)."""
    if not isinstance(value_range, tuple | list | np.ndarray) or len(value_range) != 2:
        raise TypeError(f"value_range must be a pair (low, high), got {value_range!r}")
    lo = check_float(value_range[0], "value_range low")
    hi = check_float(value_range[1], "value_range high")
    if not hi > lo:
        raise ValueError(f"value_range must have low < high, got ({lo:g}, {hi:g})")
    return lo, hi


def _grid(shape: tuple[int, int], ph: int, pw: int) -> tuple[int, int]:
    gh, gw = shape[0] // ph, shape[1] // pw
    if gh == 0 or gw == 0:
        raise ValueError(f"a {ph}x{pw} patch does not fit in an image of shape {shape}")
    return gh, gw


def _patches(a: np.ndarray, ph: int, pw: int) -> np.ndarray:
    """(gh, gw, ph*pw) view of the non-overlapping patches (edge remainders dropped)."""
    gh, gw = _grid(a.shape, ph, pw)
    a = a[: gh * ph, : gw * pw]
    return a.reshape(gh, ph, gw, pw).transpose(0, 2, 1, 3).reshape(gh, gw, ph * pw)


def patch_entropy_map(
    img: Any,
    patch: int | tuple[int, int] = 16,
    *,
    bins: int = 16,
    method: str = "miller_madow",
    value_range: tuple[float, float] | None = None,
    unit: str = "nats",
) -> np.ndarray:
    """Entropy of the quantised intensities in each non-overlapping patch.

    Parameters
    ----------
    img
        (H, W) grey or (H, W, C) colour image (channels are averaged).
    patch
        Patch side, or (height, width); rows/columns that do not fill a patch are dropped.
    bins
        Number of equal-width intensity bins C.
    method
        A registered discrete entropy estimator: ``plugin``, ``miller_madow`` (default),
        ``chao_shen``, ``grassberger``, ``shrinkage`` or ``nsb`` (the last two take the
        alphabet size C = ``bins``).
    value_range
        Intensity range of the bins (default: the image's min and max; pass the format's
        range, e.g. (0, 255), to compare images).
    unit
        Unit of the map.

    Returns
    -------
    numpy.ndarray
        (H // ph, W // pw) entropies.
    """
    from infometer.estimators.discrete.estimators import ENTROPY_KERNELS

    check_choice(method, "method", tuple(ENTROPY_KERNELS))
    ph, pw = _patch(patch)
    codes = quantize(img, bins, value_range)
    kernel, _ = ENTROPY_KERNELS[method]
    tiles = _patches(codes, ph, pw)
    gh, gw, _ = tiles.shape
    out = np.empty((gh, gw))
    lam = None
    for i in range(gh):
        for j in range(gw):
            c = np.bincount(tiles[i, j], minlength=bins)
            if method == "shrinkage":
                from infometer.estimators.discrete.kernels import shrinkage_lambda

                lam = shrinkage_lambda(c, float(bins))
            out[i, j] = kernel(c, float(bins), lam)[0]
    return out * unit_factor("nats", unit)


def local_variance_map(img: Any, size: int = 3) -> np.ndarray:
    """Intensity variance in the ``size``×``size`` neighbourhood of every pixel (reflected
    at the borders); a constant image gives 0."""
    from scipy.ndimage import uniform_filter

    a = _image(img)
    size = check_int(size, "size", min_value=1)
    a = a - a.mean()  # centring keeps E[x²] − E[x]² from cancelling catastrophically
    m = uniform_filter(a, size, mode="reflect")
    v = uniform_filter(a * a, size, mode="reflect") - m * m
    return np.maximum(v, 0.0)  # rounding can leave -1e-17 where the variance is 0


def patch_mean(values: np.ndarray, patch: int | tuple[int, int]) -> np.ndarray:
    """Mean of a per-pixel map over each non-overlapping patch."""
    ph, pw = _patch(patch)
    return _patches(np.asarray(values, dtype=np.float64), ph, pw).mean(axis=2)


def zscore(a: np.ndarray) -> np.ndarray:
    """(a − mean)/sd; a constant map gives zeros."""
    a = np.asarray(a, dtype=np.float64)
    sd = a.std()
    return np.zeros_like(a) if sd == 0 else (a - a.mean()) / sd


def info_score(
    img: Any,
    patch: int | tuple[int, int] = 16,
    *,
    weights: tuple[float, float] = (0.6, 0.4),
    bins: int = 16,
    method: str = "miller_madow",
    value_range: tuple[float, float] | None = None,
    var_size: int = 3,
) -> np.ndarray:
    """InfoScan's patch score ω₁·z(H) + ω₂·z(V): z-normalised patch entropy and patch mean
    of the local variance."""
    w1 = check_float(weights[0], "weights[0]")
    w2 = check_float(weights[1], "weights[1]")
    h = patch_entropy_map(
        img, patch, bins=bins, method=method, value_range=value_range, unit="bits"
    )
    v = patch_mean(local_variance_map(img, var_size), patch)
    return w1 * zscore(h) + w2 * zscore(v)


def boundary_saliency(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """I(S₁)·I(S₂) for horizontally (gh, gw−1) and vertically (gh−1, gw) adjacent patches."""
    s = as_float_matrix(scores, "scores")
    return s[:, :-1] * s[:, 1:], s[:-1, :] * s[1:, :]


# ================================================================== orders
def raster_order(h: int, w: int) -> np.ndarray:
    """Row-major cell order of an h×w grid, as flat indices."""
    return np.arange(check_int(h, "h", min_value=1) * check_int(w, "w", min_value=1))


def _d2xy(n: int, d: int) -> tuple[int, int]:
    x = y = 0
    s, t = 1, d
    while s < n:
        rx = 1 & (t // 2)
        ry = 1 & (t ^ rx)
        if ry == 0:
            if rx == 1:
                x, y = s - 1 - x, s - 1 - y
            x, y = y, x
        x += s * rx
        y += s * ry
        t //= 4
        s *= 2
    return x, y


def hilbert_order(h: int, w: int) -> np.ndarray:
    """Cells of an h×w grid in Hilbert-curve order (flat indices).

    The curve is drawn on the smallest 2^k × 2^k square that holds the grid and cells
    outside the grid are skipped, so on non-square or non-power-of-two grids consecutive
    cells are not always adjacent.
    """
    h, w = check_int(h, "h", min_value=1), check_int(w, "w", min_value=1)
    n = 1
    while n < max(h, w):
        n *= 2
    out = []
    for d in range(n * n):
        col, row = _d2xy(n, d)
        if row < h and col < w:
            out.append(row * w + col)
    return np.asarray(out, dtype=np.int64)


# =================================================================== walks
@dataclass(frozen=True)
class Walk:
    """An ordering of the grid cells and its discounted information value.

    ``order`` lists every cell (flat index); its first ``walk_length`` cells form a
    self-avoiding 4-neighbour walk, the rest (cells the walk could not reach without
    revisiting) follow by decreasing score, each a jump.  ``value`` is
    Σ_t γ^(t−1)·score(order[t]) over the walk part; ``total`` over the whole order.
    """

    order: np.ndarray
    value: float
    total: float
    walk_length: int
    method: str
    exact: bool


def walk_value(scores: Any, order: Sequence[int], gamma: float) -> float:
    """Σ_t γ^(t−1)·score(order[t]) for flat cell indices ``order``."""
    s = as_float_matrix(scores, "scores").ravel()
    o = np.asarray(order, dtype=np.int64)
    return float((s[o] * gamma ** np.arange(o.size)).sum())


def _neighbours(h: int, w: int) -> list[list[int]]:
    nb: list[list[int]] = []
    for c in range(h * w):
        r, q = divmod(c, w)
        nb.append(
            [
                rr * w + qq
                for rr, qq in ((r - 1, q), (r + 1, q), (r, q - 1), (r, q + 1))
                if 0 <= rr < h and 0 <= qq < w
            ]
        )
    return nb


def _exact(s: np.ndarray, nb, gamma: float, starts: list[int]) -> tuple[list[int], float]:
    """Best maximal self-avoiding walk by depth-first enumeration."""
    best: tuple[float, list[int]] = (-math.inf, [])
    visited = np.zeros(s.size, dtype=bool)

    def dfs(path: list[int], value: float, disc: float) -> None:
        nonlocal best
        cur = path[-1]
        moved = False
        for nxt in nb[cur]:
            if not visited[nxt]:
                moved = True
                visited[nxt] = True
                path.append(nxt)
                dfs(path, value + disc * s[nxt], disc * gamma)
                path.pop()
                visited[nxt] = False
        if not moved and value > best[0]:
            best = (value, list(path))

    for st in starts:
        visited[st] = True
        dfs([st], s[st], gamma)
        visited[st] = False
    return best[1], best[0]


def _beam(
    s: np.ndarray, nb, gamma: float, starts: list[int], width: int
) -> tuple[list[int], float]:
    """Beam search over self-avoiding walks (width 1 = greedy)."""
    beams = [(float(s[st]), [st], gamma) for st in starts]
    beams.sort(key=lambda b: -b[0])
    beams = beams[:width]
    done: list[tuple[float, list[int]]] = []
    while beams:
        cand = []
        for value, path, disc in beams:
            seen = set(path)
            ext = [c for c in nb[path[-1]] if c not in seen]
            if not ext:
                done.append((value, path))
                continue
            for c in ext:
                cand.append((value + disc * s[c], [*path, c], disc * gamma))
        cand.sort(key=lambda b: -b[0])
        beams = cand[:width]
    value, path = max(done, key=lambda b: b[0])
    return path, value


def info_ordered_walk(
    scores: Any,
    gamma: float = 0.9,
    *,
    start: int | tuple[int, int] | None = None,
    method: str = "auto",
    beam_width: int = 8,
    max_exact_cells: int = 16,
) -> Walk:
    """Information-ordered traversal of a patch-score grid.

    Parameters
    ----------
    scores
        (h, w) patch scores (e.g. :func:`info_score`).
    gamma
        Discount γ in (0, 1].
    start
        Start cell (flat index or (row, col)); ``None`` lets the planner choose.
    method
        ``"exact"`` (enumerate every maximal self-avoiding walk: the optimum, feasible
        up to about 16 cells), ``"beam"``, ``"greedy"`` (beam of width 1), or ``"auto"``
        (exact up to ``max_exact_cells`` cells, beam beyond).
    beam_width
        Width of the beam search.
    max_exact_cells
        Largest grid ``"auto"`` enumerates.

    Returns
    -------
    Walk
    """
    s2 = as_float_matrix(scores, "scores")
    h, w = s2.shape
    s = s2.ravel()
    g = check_float(gamma, "gamma", low=0.0, high=1.0, inclusive=(False, True))
    check_choice(method, "method", ("auto", "exact", "beam", "greedy"))
    max_exact_cells = check_int(max_exact_cells, "max_exact_cells", min_value=1)
    if method == "auto":
        method = "exact" if s.size <= max_exact_cells else "beam"
    elif method == "exact":  # every self-avoiding walk: exponential in the cells, so guarded
        check_budget(
            s.size,
            name=f"scores ({h} x {w})",
            limit=max_exact_cells,
            what="grid cells for method='exact' (time grows exponentially with them)",
            override="use method='beam', or raise max_exact_cells= if you mean it",
        )
    if start is None:
        starts = list(range(s.size))
    elif isinstance(start, tuple):
        r = check_int(start[0], "start row", min_value=0, max_value=h - 1)
        c = check_int(start[1], "start column", min_value=0, max_value=w - 1)
        starts = [r * w + c]
    else:
        starts = [check_int(start, "start", min_value=0, max_value=s.size - 1)]
    nb = _neighbours(h, w)
    if method == "exact":
        path, value = _exact(s, nb, g, starts)
    else:
        width = 1 if method == "greedy" else check_int(beam_width, "beam_width", min_value=1)
        path, value = _beam(s, nb, g, starts, width)
    rest = [c for c in np.argsort(-s, kind="stable") if c not in set(path)]
    order = np.asarray([*path, *rest], dtype=np.int64)
    return Walk(
        order=order,
        value=float(value),
        total=walk_value(s2, order, g),
        walk_length=len(path),
        method=method,
        exact=method == "exact",
    )


# ========================================================== golden section
def golden_section(
    f: Callable[[float], float],
    lo: float,
    hi: float,
    *,
    tol: float = 1e-8,
    max_iter: int = 200,
) -> float:
    """Minimiser of a unimodal ``f`` on [lo, hi] by golden-section search.

    >>> round(golden_section(lambda n: 4 / n + n, 0.5, 10), 6)
    2.0
    """
    a = check_float(lo, "lo")
    b = check_float(hi, "hi")
    if not b > a:
        raise ValueError(f"hi must be > lo, got lo={a}, hi={b}")
    tol = check_float(tol, "tol", low=0.0, inclusive=(False, True))
    inv = (math.sqrt(5.0) - 1.0) / 2.0
    c, d = b - inv * (b - a), a + inv * (b - a)
    fc, fd = f(c), f(d)
    for _ in range(check_int(max_iter, "max_iter", min_value=1)):
        if b - a <= tol:
            break
        if fc <= fd:
            b, d, fd = d, c, fc
            c = b - inv * (b - a)
            fc = f(c)
        else:
            a, c, fc = c, d, fd
            d = a + inv * (b - a)
            fd = f(d)
    return (a + b) / 2.0
