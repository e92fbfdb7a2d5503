"""Higher-order search: a quantity of every multiplet of variables, ranked, with
significance from surrogates shared by all multiplets.

The Gaussian and Gaussian-copula estimators need only the scatter matrix of all columns:
the entropy of a multiplet is the log-determinant of its block, so all multiplets of one
size are evaluated at once by batched eigenvalue decompositions (no Python loop per
multiplet, no pass over the rows per multiplet).  Surrogates permute every column
independently (all dependence destroyed, the marginals kept); the same surrogates serve
every multiplet, which also gives a family-wise (max-statistic) p-value.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import combinations, islice
from math import comb
from typing import Any

import numpy as np

from ..validation import check_budget, check_choice, check_int
from . import kernels
from ._surrogates import independent_orders
from ._terms import terms

__all__ = ["multiplets", "MultipletResult", "MEASURES", "METHODS", "multiplet_values"]

MEASURES = (
    "o_information",
    "total_correlation",
    "dual_total_correlation",
    "s_information",
    "co_information",
)
METHODS = ("gaussian_copula", "gaussian")
#: Default most multiplets evaluated (each size's values are (count,) float64 arrays).
MAX_MULTIPLETS = 20_000_000
#: Bytes of block matrices built at once (multiplets x surrogates x size²).
CHUNK_BYTES = 32 * 2**20


def _chunks(d: int, s: int, size: int) -> Iterator[np.ndarray]:
    it = combinations(range(d), s)
    while True:
        block = list(islice(it, size))
        if not block:
            return
        yield np.array(block, dtype=np.intp).reshape(len(block), s)


def multiplet_values(
    scatter: np.ndarray, n: int, idx: np.ndarray, measure: str, bias_correct: bool = True
) -> np.ndarray:
    """``measure`` of each multiplet (rows of ``idx``, (m, s)) from the scatter matrix
    (d, d) or a stack (b, d, d); returns (m,) or (b, m) values in nats.

    Examples
    --------
    >>> import numpy as np
    >>> w = np.eye(3) * 100.0  # independent columns, 101 rows
    >>> multiplet_values(w, 101, np.array([[0, 1, 2]]), "total_correlation", False).round(12)
    array([0.])
    """
    s = idx.shape[1]
    out = 0.0
    for sub, c in terms(measure, s).items():
        cols = idx[:, sorted(sub)]
        out = out + c * kernels.gaussian_block_entropies(scatter, n, cols, bias_correct)
    return np.asarray(out)


@dataclass(frozen=True)
class MultipletResult:
    """Every multiplet's estimate, ranked.

    Attributes
    ----------
    frame
        DataFrame sorted by ``|value|`` (the most redundant and most synergistic first):
        ``multiplet`` (tuple of names), ``size``, ``value``, ``unit``, and with surrogates
        ``p_value`` (per multiplet), ``p_fwer`` (max-statistic over all multiplets of the
        same size) and ``q_value`` (Benjamini-Hochberg).
    measure, method, unit, n, n_surrogates, names
        What was computed.
    """

    frame: Any
    measure: str
    method: str
    unit: str
    n: int
    n_surrogates: int
    names: tuple[str, ...]
    diagnostics: dict = field(default_factory=dict, compare=False)

    def to_frame(self):
        """The ranked DataFrame."""
        return self.frame.copy()

    def top(self, k: int = 10):
        """The ``k`` lowest (most synergistic for O-information) and ``k`` highest rows."""
        f = self.frame.sort_values("value")
        return {
            "lowest": f.head(k).reset_index(drop=True),
            "highest": f.tail(k)[::-1].reset_index(drop=True),
        }

    def pair_matrix(self) -> np.ndarray:
        """Mean value of the multiplets that contain each pair of variables (d, d)."""
        d = len(self.names)
        tot = np.zeros((d, d))
        cnt = np.zeros((d, d))
        pos = {nm: i for i, nm in enumerate(self.names)}
        for mult, v in zip(self.frame["multiplet"], self.frame["value"], strict=True):
            ii = [pos[m] for m in mult]
            for a in ii:
                for b in ii:
                    if a != b:
                        tot[a, b] += v
                        cnt[a, b] += 1
        with np.errstate(invalid="ignore"):
            return np.where(cnt > 0, tot / np.where(cnt > 0, cnt, 1), np.nan)

    def plot(self, ax=None, path=None, *, kind: str = "bars", top: int = 20):
        """``kind="bars"``: the ``top`` multiplets by |value| (red < 0, blue > 0; a dot
        marks p_fwer < 0.05); ``"pairs"``: heat map of :meth:`pair_matrix`."""
        from ..plot import finish, new_axes

        kind = check_choice(kind, "kind", ("bars", "pairs"))
        if kind == "pairs":
            _, ax = new_axes(ax, figsize=(6.0, 5.0))
            mat = self.pair_matrix()
            lim = float(np.nanmax(np.abs(mat))) if np.isfinite(mat).any() else 1.0
            im = ax.imshow(mat, cmap="RdBu", vmin=-lim, vmax=lim)  # red < 0, as the bars
            ax.set_xticks(range(len(self.names)), self.names, rotation=90, fontsize=7)
            ax.set_yticks(range(len(self.names)), self.names, fontsize=7)
            ax.figure.colorbar(im, ax=ax, label=f"mean {self.measure} ({self.unit})")
            ax.set_title(f"{self.measure}: mean over multiplets holding each pair", fontsize=10)
            return finish(ax, path)
        f = self.frame.head(top)
        _, ax = new_axes(ax, figsize=(6.5, max(2.5, 0.28 * len(f) + 1.2)))
        y = np.arange(len(f))[::-1]
        vals = f["value"].to_numpy()
        ax.barh(y, vals, color=np.where(vals < 0, "tab:red", "tab:blue"))
        ax.set_yticks(y, [",".join(map(str, m)) for m in f["multiplet"]], fontsize=7)
        if "p_fwer" in f:
            sig = f["p_fwer"].to_numpy() < 0.05
            ax.plot(vals[sig], y[sig], "k.", label="p_fwer < 0.05")
            if sig.any():
                ax.legend(fontsize=7, loc="lower right")
        ax.axvline(0, color="k", lw=0.8)
        ax.set_xlabel(f"{self.measure} ({self.unit})")
        ax.set_title(
            f"top {len(f)} multiplets by |{self.measure}| ({self.method}, n={self.n})", fontsize=10
        )
        return finish(ax, path)


def _sizes(sizes: Any, d: int) -> tuple[int, int]:
    if isinstance(sizes, int | np.integer) and not isinstance(sizes, bool):
        lo = hi = int(sizes)
    else:
        try:
            lo, hi = (int(check_int(s, "sizes")) for s in sizes)
        except (TypeError, ValueError) as exc:
            raise TypeError(
                f"sizes must be an int or a pair (smallest, largest), got {sizes!r}"
            ) from exc
    if not 3 <= lo <= hi:
        raise ValueError(f"sizes must satisfy 3 <= smallest <= largest, got {(lo, hi)}")
    if hi > d:
        raise ValueError(f"sizes asks for multiplets of {hi} variables but X has {d} columns")
    return lo, hi


def multiplets(
    X: Any,
    *,
    measure: str = "o_information",
    sizes: int | tuple[int, int] = (3, 3),
    method: str = "gaussian_copula",
    n_surrogates: int = 0,
    unit: str | None = "nats",
    base: float | None = None,
    seed: int | None = 0,
    progress: bool | None = None,
    bias_correct: bool = True,
    max_multiplets: int = MAX_MULTIPLETS,
) -> MultipletResult:
    """``measure`` of every multiplet of ``sizes`` variables of ``X``, ranked.

    Parameters
    ----------
    X
        Continuous samples, one column per variable (array or DataFrame).
    measure
        ``o_information`` (default), ``total_correlation``, ``dual_total_correlation``,
        ``s_information`` or ``co_information``.
    sizes
        One size, or ``(smallest, largest)`` inclusive (at least 3).
    method
        ``gaussian_copula`` (default; as hoi's ``gc``) or ``gaussian``.
    n_surrogates
        Surrogate data sets (each column permuted independently, the same surrogates for
        every multiplet); 0: no p-values.
    unit, base, seed, progress
        The usual; ``seed`` drives the surrogates.
    bias_correct
        Wishart-unbiased log-determinants.
    max_multiplets
        Refuse a search with more multiplets (checked before anything is allocated).

    Returns
    -------
    MultipletResult

    Notes
    -----
    The surrogate p-values test the null that the variables of a multiplet are mutually
    independent (what permuting each column preserves: the marginals), not that the
    measure is 0: a multiplet with pairwise dependence only can be "significant" with
    Ω ≈ 0.  For an interval on one multiplet's value use e.g.
    ``im.o_information(X[:, cols], method="gaussian_copula", ci=0.95)``.

    Examples
    --------
    >>> import numpy as np, infometer as im
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=(500, 5)); x[:, 1] += x[:, 0]; x[:, 2] += x[:, 0]
    >>> r = im.multiplets(x, sizes=3)
    >>> r.frame.iloc[0]["multiplet"]  # the redundant triplet on top
    ('x0', 'x1', 'x2')
    """
    import pandas as pd

    from .._estimate import Estimate, resolve_unit
    from ..progress import progress_bar
    from .estimators import gaussian_scores, scatter_of
    from .measures import split_variables

    measure = check_choice(measure, "measure", MEASURES)
    method = check_choice(method, "method", METHODS)
    n_surrogates = check_int(n_surrogates, "n_surrogates", min_value=0)
    max_multiplets = check_int(max_multiplets, "max_multiplets", min_value=1)
    if not isinstance(bias_correct, bool):
        raise TypeError(f"bias_correct must be True or False, got {bias_correct!r}")
    u = resolve_unit(unit, base)
    vs = split_variables(X, discrete=False)
    if any(v.d != 1 for v in vs.values()):
        raise ValueError("X for multiplets must have one column per variable")
    names = tuple(vs)
    d = len(names)
    lo, hi = _sizes(sizes, d)
    count = sum(comb(d, s) for s in range(lo, hi + 1))
    check_budget(
        count,
        name="sizes",
        limit=max_multiplets,
        what=f"multiplets of {d} variables",
        override="pass max_multiplets=... to allow more",
    )
    check_budget(
        float(count) * (n_surrogates + 1),
        name="n_surrogates",
        limit=max(max_multiplets, 1) * 100,
        what="multiplet evaluations (multiplets x (surrogates + 1))",
    )
    cols = [v.columns[0].astype(np.float64, copy=False) for v in vs.values()]
    const = [nm for nm, c in zip(names, cols, strict=True) if c.min() == c.max()]
    if const:
        raise ValueError(f"X has constant columns {const}: drop them (no information)")
    a, _ = gaussian_scores(cols, method == "gaussian_copula")
    n = a.shape[0]
    if n < hi + 2:
        raise ValueError(f"X has {n} rows; multiplets of {hi} need at least {hi + 2}")
    w = scatter_of(a)
    rng = np.random.default_rng(seed)
    if n_surrogates:
        ws = np.empty((n_surrogates, d, d))
        for b in range(n_surrogates):
            orders = independent_orders(rng, n, d)
            ws[b] = scatter_of(np.column_stack([a[o, j] for j, o in enumerate(orders)]))
    rows_idx, rows_val, rows_p, rows_fwer = [], [], [], []
    with progress_bar(
        total=count, desc=f"{measure} multiplets", unit="multiplet", progress=progress
    ) as bar:
        for s in range(lo, hi + 1):
            per = max(1, CHUNK_BYTES // (8 * s * s * (n_surrogates + 1)))
            vals_s, null_max = [], np.zeros(n_surrogates)
            nulls_s = []
            for idx in _chunks(d, s, per):
                v = multiplet_values(w, n, idx, measure, bias_correct)
                rows_idx.append(idx)
                vals_s.append(v)
                if n_surrogates:
                    nv = np.abs(multiplet_values(ws, n, idx, measure, bias_correct))
                    null_max = np.maximum(null_max, np.nanmax(nv, axis=1))
                    nulls_s.append((nv >= np.abs(v)[None, :]).sum(0))
                bar.update(idx.shape[0])
            vals_s = np.concatenate(vals_s)
            rows_val.append(vals_s)
            if n_surrogates:
                rows_p.append((1.0 + np.concatenate(nulls_s)) / (n_surrogates + 1.0))
                rows_fwer.append(
                    (1.0 + (null_max[None, :] >= np.abs(vals_s)[:, None]).sum(1))
                    / (n_surrogates + 1.0)
                )
    vals = np.concatenate(rows_val)
    factor = Estimate(value=1.0, unit="nats").to(u).value
    frame = pd.DataFrame(
        {
            "multiplet": [tuple(names[i] for i in r) for idx in rows_idx for r in idx],
            "size": np.concatenate([np.full(len(i), i.shape[1]) for i in rows_idx]),
            "value": vals * factor,
            "unit": u,
        }
    )
    diag: dict = {"multiplets": int(count)}
    if np.isnan(vals).any():
        diag["singular_multiplets"] = int(np.isnan(vals).sum())
    if n_surrogates:
        from ..stats import multipletests

        p = np.concatenate(rows_p)
        frame["p_value"] = p
        frame["p_fwer"] = np.concatenate(rows_fwer)
        frame["q_value"] = multipletests(p, method="bh").p_adjusted
    order = np.argsort(-np.abs(np.nan_to_num(vals, nan=0.0)), kind="stable")
    frame = frame.iloc[order].reset_index(drop=True)
    frame.insert(0, "rank", np.arange(1, len(frame) + 1))
    return MultipletResult(
        frame=frame,
        measure=measure,
        method=method,
        unit=u,
        n=n,
        n_surrogates=n_surrogates,
        names=names,
        diagnostics=diag,
    )
