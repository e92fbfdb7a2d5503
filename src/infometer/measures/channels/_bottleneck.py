"""The information bottleneck (iterative and deterministic) on a given joint pmf."""

from __future__ import annotations

import itertools
import numbers
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from infometer.core.estimate import resolve_unit, unit_factor
from infometer.core.plot import finish, new_axes
from infometer.core.progress import progress_bar
from infometer.core.results import Result
from infometer.core.seeding import Seed, as_generator
from infometer.core.validation import (
    Interval,
    Many,
    Options,
    Size,
    check_memory,
    validate_params,
)

from ._ib import IBRun, iterate, joint_mi
from ._inputs import joint_table, tol_iter

#: Most random starts per slope, and most slopes of a curve.
MAX_INIT = 10_000
MAX_BETAS = 100_000

__all__ = ["InformationBottleneck", "IBCurve", "information_bottleneck", "ib_curve"]

METHODS = ("iterative", "deterministic")


@dataclass(frozen=True, eq=False, repr=False)
class InformationBottleneck(Result):
    """One solution of the IB at trade-off ``beta``.

    Attributes
    ----------
    encoder
        q(t | x), shape (n_x, n_clusters) (0/1 rows for the deterministic IB).
    i_xt, i_ty, h_t
        I(X;T), I(T;Y) and H(T) in ``unit``.
    objective
        ``I(X;T) - beta I(T;Y)`` (iterative) or ``H(T) - beta I(T;Y)`` (deterministic),
        in nats, the value the best of the ``n_init`` starts minimised.
    i_xy
        I(X;Y) in ``unit``: no T reaches more (data processing).
    """

    method: str
    beta: float
    encoder: np.ndarray = field(repr=False)
    i_xt: float
    i_ty: float
    h_t: float
    i_xy: float
    objective: float
    iterations: int
    converged: bool
    unit: str

    @property
    def clusters(self) -> np.ndarray:
        """The most likely cluster of each x (the hard assignment)."""
        return np.argmax(self.encoder, axis=1)

    def to_frame(self):
        """Tidy frame: one row per (x, t) with q(t | x)."""
        import pandas as pd

        nx, nt = self.encoder.shape
        return pd.DataFrame(
            {
                "x": np.repeat(np.arange(nx), nt),
                "t": np.tile(np.arange(nt), nx),
                "q_t_given_x": self.encoder.ravel(),
            }
        )

    def plot(self, ax=None, path=None):
        """Heat map of the encoder q(t | x); returns the Axes."""
        _, ax = new_axes(ax)
        im = ax.imshow(self.encoder.T, aspect="auto", cmap="viridis", vmin=0, vmax=1)
        ax.set_xlabel("x")
        ax.set_ylabel("cluster t")
        ax.set_title(
            f"{self.method} IB, beta={self.beta:.3g}: I(X;T)={self.i_xt:.3g}, "
            f"I(T;Y)={self.i_ty:.3g} {self.unit}",
            fontsize=9,
        )
        ax.figure.colorbar(im, ax=ax, label="q(t|x)")
        return finish(ax, path)


@dataclass(frozen=True, eq=False, repr=False)
class IBCurve(Result):
    """IB solutions over a range of ``beta`` (the information plane).

    Attributes
    ----------
    points
        One :class:`InformationBottleneck` per beta, in increasing beta.
    h_x, i_xy
        H(X) and I(X;Y) in ``unit`` (the plane's limits: I(X;T) <= H(X), I(T;Y) <= I(X;Y)).
    """

    points: tuple[InformationBottleneck, ...] = field(repr=False)
    h_x: float
    i_xy: float
    unit: str

    def to_frame(self):
        """Tidy frame: beta, I(X;T), I(T;Y), H(T), objective, method, unit."""
        import pandas as pd

        return pd.DataFrame(
            {
                "beta": [p.beta for p in self.points],
                "i_xt": [p.i_xt for p in self.points],
                "i_ty": [p.i_ty for p in self.points],
                "h_t": [p.h_t for p in self.points],
                "objective": [p.objective for p in self.points],
                "method": [p.method for p in self.points],
                "unit": self.unit,
            }
        )

    def plot(self, ax=None, path=None):
        """I(T;Y) against I(X;T) (or H(T) for the deterministic IB); returns the Axes."""
        _, ax = new_axes(ax)
        det = self.points[0].method == "deterministic"
        xs = [p.h_t if det else p.i_xt for p in self.points]
        ys = [p.i_ty for p in self.points]
        ax.plot(xs, ys, "o-", ms=3, color="tab:blue", label=f"{self.points[0].method} IB")
        ax.axhline(self.i_xy, ls="--", color="grey", lw=1, label="I(X;Y)")
        ax.axvline(self.h_x, ls=":", color="grey", lw=1, label="H(X)")
        ax.set_xlabel(f"{'H(T)' if det else 'I(X;T)'} [{self.unit}]")
        ax.set_ylabel(f"I(T;Y) [{self.unit}]")
        ax.set_xlim(left=0)
        ax.set_ylim(bottom=0)
        ax.legend(fontsize=8, loc="lower right")
        ax.set_title("information bottleneck curve", fontsize=10)
        return finish(ax, path)


def _joint(pxy: Any) -> np.ndarray:
    return joint_table(pxy, "pxy")


def _starts(nx: int, nt: int, rng: np.random.Generator, n_init: int, det: bool):
    """The seeded random starts, one at a time (never all ``n_init`` encoders at once)."""
    for _ in range(n_init):
        if det:
            e = np.zeros((nx, nt))
            e[np.arange(nx), rng.integers(0, nt, nx)] = 1.0
        else:
            e = rng.dirichlet(np.ones(nt), size=nx)
        yield e


def _solve(pxy, beta, nt, det, tol, max_iter, starts) -> IBRun:
    best = None
    for e in starts:
        run = iterate(pxy, e, beta, deterministic=det, tol=tol, max_iter=max_iter)
        if best is None or run.objective < best.objective - 1e-12:
            best = run
    return best


def _wrap(run: IBRun, method: str, beta: float, i_xy: float, u: str) -> InformationBottleneck:
    f = unit_factor("nats", u)
    return InformationBottleneck(
        method=method,
        beta=beta,
        encoder=run.encoder,
        i_xt=run.i_xt * f,
        i_ty=run.i_ty * f,
        h_t=run.h_t * f,
        i_xy=i_xy * f,
        objective=run.objective,
        iterations=run.iterations,
        converged=run.converged,
        unit=u,
    )


def _common(pxy, n_clusters, method, n_init, seed, tol, max_iter):
    p = _joint(pxy)
    nx, ny = p.shape
    nt = nx if n_clusters is None else n_clusters
    # an iteration keeps about six (x, t) arrays (encoder, logits, KL rows, update)
    check_memory(
        6.0 * nx * nt * 8,
        what=f"{nx} x {nt} encoder and its working arrays",
        name="n_clusters",
        override="pass fewer n_clusters (at most the number of x symbols is ever needed)",
    )
    tol, max_iter = tol_iter(tol, max_iter)
    return p, method, nt, n_init, as_generator(seed), tol, max_iter, joint_mi(p)


#: The parameters :func:`information_bottleneck` and :func:`ib_curve` share.
_IB_PARAMS = {
    "n_clusters": [Interval(numbers.Integral, 1), None],
    "method": [Options(*METHODS)],
    "n_init": [Size(1, limit=MAX_INIT, what="random starts per slope")],
    "tol": [Interval(numbers.Real, 0, None, closed="neither")],
    "max_iter": [Interval(numbers.Integral, 1)],
}


@validate_params({**_IB_PARAMS, "beta": [Interval(numbers.Real, 0, None, closed="neither")]})
def information_bottleneck(
    pxy: Any,
    *,
    beta: float,
    n_clusters: int | None = None,
    method: str = "iterative",
    n_init: int = 20,
    unit: str | None = "nats",
    base: float | None = None,
    seed: Seed = 0,
    tol: float = 1e-10,
    max_iter: int = 5000,
) -> InformationBottleneck:
    """Compress X into T keeping information about Y: the IB of a joint pmf at ``beta``.

    ``method="iterative"`` minimises ``I(X;T) - beta I(T;Y)`` over soft encoders
    (Tishby, Pereira & Bialek 1999); ``"deterministic"`` minimises ``H(T) - beta I(T;Y)``
    over hard ones (Strouse & Schwab 2017).  Both updates are local searches: the best of
    ``n_init`` seeded random starts is returned.

    Parameters
    ----------
    pxy
        Joint pmf, X on axis 0 and Y (the relevance variable) on axis 1.
    beta
        Trade-off (> 0): large beta keeps more about Y.
    n_clusters
        Number of values of T (default: the number of values of X).
    method
        ``"iterative"`` or ``"deterministic"``.
    n_init
        Random starts.
    unit, base
        Unit of I(X;T), I(T;Y), H(T) (default nats).
    seed
        Seed of the random starts. An int >= 0 (the same int gives the same numbers), a
        numpy.random.Generator (drawn from as it is) or None (fresh entropy from the operating
        system).
    tol, max_iter
        Stop when no q(t|x) moves by more than ``tol``, or after ``max_iter`` updates.

    Returns
    -------
    InformationBottleneck

    Examples
    --------
    >>> import numpy as np, infometer as im
    >>> pxy = np.array([[0.225, 0.025], [0.225, 0.025], [0.025, 0.225], [0.025, 0.225]])
    >>> ib = im.exact.information_bottleneck(pxy, beta=20, n_clusters=2)
    >>> ib.clusters.tolist() in ([0, 0, 1, 1], [1, 1, 0, 0])
    True
    """
    p, method, nt, n_init, rng, tol, max_iter, i_xy = _common(
        pxy, n_clusters, method, n_init, seed, tol, max_iter
    )
    det = method == "deterministic"
    run = _solve(p, beta, nt, det, tol, max_iter, _starts(p.shape[0], nt, rng, n_init, det))
    return _wrap(run, method, beta, i_xy, resolve_unit(unit, base))


@validate_params(
    {
        **_IB_PARAMS,
        "betas": [
            Many(
                Interval(numbers.Real, 0, None, closed="neither"),
                limit=MAX_BETAS,
                what="slopes (betas)",
            ),
            None,
        ],
    }
)
def ib_curve(
    pxy: Any,
    *,
    betas: Any = None,
    n_clusters: int | None = None,
    method: str = "iterative",
    n_init: int = 10,
    unit: str | None = "nats",
    base: float | None = None,
    seed: Seed = 0,
    progress: bool | None = None,
    tol: float = 1e-10,
    max_iter: int = 5000,
) -> IBCurve:
    """The IB curve: :func:`information_bottleneck` over increasing ``betas``.

    Each beta keeps the best of ``n_init`` random starts and of a warm start from the
    previous beta's encoder (so the curve does not fall back to worse local optima).

    Parameters
    ----------
    pxy
        Joint pmf, X on axis 0 and Y on axis 1.
    betas
        Trade-offs (> 0); default 40 log-spaced values in [0.1, 100].
    n_clusters, method, n_init, unit, base, tol, max_iter
        As in :func:`information_bottleneck`.
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).
    progress
        Show a progress bar (None: the shared default).

    Returns
    -------
    IBCurve

    Examples
    --------
    >>> import numpy as np, infometer as im
    >>> pxy = np.array([[0.3, 0.05], [0.05, 0.3], [0.15, 0.15]])
    >>> curve = im.exact.ib_curve(pxy, betas=[0.5, 5, 50], n_init=3)
    >>> len(curve.to_frame())
    3
    """
    p, method, nt, n_init, rng, tol, max_iter, i_xy = _common(
        pxy, n_clusters, method, n_init, seed, tol, max_iter
    )
    if betas is None:
        bs = np.geomspace(0.1, 100.0, 40)
    else:
        bs = np.sort(np.asarray(betas, dtype=np.float64))

    u = resolve_unit(unit, base)
    det = method == "deterministic"
    pts, prev = [], None
    for b in progress_bar(bs, desc="information bottleneck", unit="beta", progress=progress):
        starts = _starts(p.shape[0], nt, rng, n_init, det)
        if prev is not None:
            starts = itertools.chain(starts, [prev])
        run = _solve(p, float(b), nt, det, tol, max_iter, starts)
        prev = run.encoder
        pts.append(_wrap(run, method, float(b), i_xy, u))
    from scipy.special import xlogy

    px = p.sum(1)
    h_x = float(-xlogy(px, px).sum()) * unit_factor("nats", u)
    return IBCurve(tuple(pts), h_x, i_xy * unit_factor("nats", u), u)
