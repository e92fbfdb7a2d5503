"""CMI engines for network inference and embedding selection (pure numpy in, numpy out).

An engine holds one target column ``y`` (N rows) and a matrix of candidate columns
(N × C: lagged copies of the processes) and answers, for column index lists,

* ``single(cands, cond)``: I(c; y | cond) for each candidate c separately,
* ``single_surrogates(cands, cond, perms)``: the same with the candidate's rows
  permuted by each of the S permutations ``perms`` (a :class:`~._select.Perms`),
  shape (S, len(cands)),
* ``joint(xs, cond)`` and ``joint_surrogates(xs, cond, perms)``: I(xs; y | cond) with
  xs taken together (omnibus tests), the rows of xs permuted jointly.

Permuting the candidate's rows while y and the conditioning set keep theirs is IDTxl's
surrogate ("permute the source in time"); one set of permutations serves every
candidate of a step (the max statistic over candidates is then taken per permutation).

:class:`GaussianEngine` computes everything in closed form: with Q an orthonormal basis
of the centred conditioning columns, r_y = y − QQᵀy and, for a column x, the partial
correlation ρ = r_yᵀx / (‖r_y‖ ‖x − QQᵀx‖) (r_y ⟂ Q, so r_yᵀ r_x = r_yᵀ x), and
I = −½ log(1 − ρ²) (maximum likelihood, as JIDT's Gaussian estimator).  A permuted
candidate x∘p needs only the gathered rows [r_y, Q][p⁻¹] times x: one (1 + d_z) × N by
N × C product per permutation for all candidates.

:class:`RegistryEngine` calls any registered CMI (and MI, for an empty conditioning set)
estimator on :class:`~infometer.core.data.Variable` s built from the columns.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from infometer.core import registry
from infometer.core.data import Variable
from infometer.core.seeding import derive, resolve_seed
from infometer.measures.stats import nulls

from ._select import Perms

__all__ = ["GaussianEngine", "DiscreteEngine", "RegistryEngine", "make_engine", "MI_FOR_CMI"]

#: MI method used when a CMI method's conditioning set is empty (same name otherwise).
MI_FOR_CMI = {"frenzel_pompe": "ksg1"}
#: Permutations processed per batched product (bounds the gathered copy to S·N·(1+d_z)).
_CHUNK = 16


def _cmi_from_r2(r2: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore"):
        return -0.5 * np.log1p(-np.clip(r2, 0.0, 1.0))


class GaussianEngine:
    """Closed-form Gaussian CMI of one target against candidate columns.

    Parameters
    ----------
    y
        Target column, shape (N,).
    cols
        Candidate columns, shape (N, C).
    """

    name = "gaussian"
    analytic = True

    def __init__(self, y: np.ndarray, cols: np.ndarray) -> None:
        y = np.asarray(y, dtype=np.float64)
        cols = np.asarray(cols, dtype=np.float64)
        yc = y - y.mean()
        sy = np.sqrt(yc @ yc)
        cc = cols - cols.mean(axis=0)
        sc = np.sqrt(np.einsum("ij,ij->j", cc, cc))
        # unit-norm centred columns: partial correlations are scale free
        self.y = yc / np.where(sy > 0, sy, 1.0)
        self.cols = cc / np.where(sc > 0, sc, 1.0)
        self.n = y.shape[0]
        self._basis: dict[tuple[int, ...], np.ndarray] = {}

    # -- conditioning basis
    def basis(self, cond: list[int] | tuple[int, ...]) -> np.ndarray:
        key = tuple(sorted(cond))
        q = self._basis.get(key)
        if q is None:
            if key:
                q, r = np.linalg.qr(self.cols[:, list(key)])
                keep = np.abs(np.diag(r)) > 1e-10 * max(1.0, float(np.abs(np.diag(r)).max()))
                q = q[:, keep]
            else:
                q = np.zeros((self.n, 0))
            if len(self._basis) > 256:
                self._basis.clear()
            self._basis[key] = q
        return q

    def _resid_y(self, q: np.ndarray) -> np.ndarray:
        return self.y - q @ (q.T @ self.y)

    def single(self, cands: list[int], cond: list[int]) -> np.ndarray:
        q = self.basis(cond)
        ry = self._resid_y(q)
        x = self.cols[:, cands]
        qx = q.T @ x
        den = (ry @ ry) * (np.einsum("ij,ij->j", x, x) - np.einsum("ij,ij->j", qx, qx))
        num = ry @ x
        with np.errstate(divide="ignore", invalid="ignore"):
            r2 = np.where(den > 1e-300, num * num / den, 0.0)
        return _cmi_from_r2(r2)

    def partial_corr(self, cand: int, cond: list[int]) -> float:
        q = self.basis(cond)
        ry = self._resid_y(q)
        x = self.cols[:, cand]
        rx = x - q @ (q.T @ x)
        den = np.sqrt((ry @ ry) * (rx @ rx))
        return float(ry @ rx / den) if den > 1e-300 else 0.0

    def single_surrogates(self, cands: list[int], cond: list[int], perms: Perms) -> np.ndarray:
        q = self.basis(cond)
        ry = self._resid_y(q)
        at = np.vstack([ry[None, :], q.T])  # (1 + dz, N): rows of [r_y, Q] as columns
        x = self.cols[:, cands]
        xx = np.einsum("ij,ij->j", x, x)
        yy = ry @ ry
        out = np.empty((len(perms), len(cands)))
        inv = perms.inv
        k = at.shape[0]
        for s0 in range(0, len(perms), _CHUNK):
            part = inv[s0 : s0 + _CHUNK]
            s = part.shape[0]
            # [r_y, Q] at rows p^-1 for s permutations, one GEMM; np.take returns C order
            # (at[:, part] does not, and its reshape was a copy)
            g = np.take(at, part, axis=1).reshape(k * s, self.n)
            m = (g @ x).reshape(k, s, len(cands))
            num = m[0]
            den = yy * (xx[None, :] - np.einsum("ksc,ksc->sc", m[1:], m[1:]))
            with np.errstate(divide="ignore", invalid="ignore"):
                out[s0 : s0 + s] = _cmi_from_r2(np.where(den > 1e-300, num * num / den, 0.0))
        return out

    def _joint_r2(self, x: np.ndarray, q: np.ndarray, ry: np.ndarray) -> float:
        rx = x - q @ (q.T @ x)
        b = rx.T @ ry
        g = rx.T @ rx
        try:
            sol = np.linalg.solve(g, b)
        except np.linalg.LinAlgError:
            sol = np.linalg.lstsq(g, b, rcond=None)[0]
        yy = ry @ ry
        return float(b @ sol / yy) if yy > 1e-300 else 0.0

    def joint(self, xs: list[int], cond: list[int]) -> float:
        q = self.basis(cond)
        ry = self._resid_y(q)
        return float(_cmi_from_r2(np.array(self._joint_r2(self.cols[:, xs], q, ry))))

    def joint_surrogates(self, xs: list[int], cond: list[int], perms: Perms) -> np.ndarray:
        q = self.basis(cond)
        ry = self._resid_y(q)
        x = self.cols[:, xs]
        r2 = np.array([self._joint_r2(x[p], q, ry) for p in perms.p])
        return _cmi_from_r2(r2)


def _dense(codes: np.ndarray) -> tuple[np.ndarray, int]:
    """Codes 0..K-1 of the distinct values of ``codes`` and K."""
    u, inv = np.unique(codes, return_inverse=True)
    return inv.reshape(-1).astype(np.int64), int(u.size)


def _entropy_rows(codes: np.ndarray, k: int) -> np.ndarray:
    """Plug-in entropy (nats) of each row of ``codes`` (S × N, values 0..k-1)."""
    s, n = codes.shape
    flat = codes + (np.arange(s, dtype=np.int64) * k)[:, None]
    c = np.bincount(flat.ravel(), minlength=s * k).reshape(s, k).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):  # sum p log(1/p): no term < 0
        return np.where(c > 0, c / n * np.log(n / c), 0.0).sum(axis=1)


class DiscreteEngine:
    """Plug-in CMI of symbol columns from joint counts, batched over permutations.

    I(x; y | z) = H(x,z) + H(y,z) − H(x,y,z) − H(z) with plug-in entropies; the terms
    without x are computed once per conditioning set, and each permutation of x costs one
    ``bincount`` of the (x, z) and (x, y, z) codes.  Equal to the registry's ``plugin``
    CMI / MI (tested).
    """

    name = "plugin"
    analytic = False

    def __init__(self, y: np.ndarray, cols: np.ndarray) -> None:
        self.n = int(len(y))
        self.y, self.ky = _dense(np.asarray(y))
        cols = np.asarray(cols)
        dense = [_dense(cols[:, j]) for j in range(cols.shape[1])]
        self.cols = (
            np.column_stack([d[0] for d in dense]) if dense else np.zeros((self.n, 0), np.int64)
        )
        self.card = [d[1] for d in dense]
        self._cond: dict[tuple[int, ...], tuple] = {}

    def _code(self, idx: list[int]) -> tuple[np.ndarray, int]:
        code, k = np.zeros(self.n, np.int64), 1
        for j in idx:
            code, k = _dense(code * self.card[j] + self.cols[:, j])
        return code, k

    def _z(self, cond: list[int]) -> tuple:
        key = tuple(sorted(cond))
        hit = self._cond.get(key)
        if hit is None:
            z, kz = self._code(list(key))
            yz, kyz = _dense(self.y * kz + z)
            hz = float(_entropy_rows(z[None, :], kz)[0])
            hyz = float(_entropy_rows(yz[None, :], kyz)[0])
            if len(self._cond) > 256:
                self._cond.clear()
            hit = self._cond[key] = (z, kz, yz, kyz, hz, hyz)
        return hit

    def _cmi_rows(self, xs: np.ndarray, kx: int, cond: list[int]) -> np.ndarray:
        z, kz, yz, kyz, hz, hyz = self._z(cond)
        hxz = _entropy_rows(xs * kz + z[None, :], kx * kz)
        hxyz = _entropy_rows(xs * kyz + yz[None, :], kx * kyz)
        return hxz + hyz - hxyz - hz

    def single(self, cands: list[int], cond: list[int]) -> np.ndarray:
        return np.array(
            [float(self._cmi_rows(self.cols[None, :, c], self.card[c], cond)[0]) for c in cands]
        )

    def _surrogates(self, x: np.ndarray, kx: int, cond: list[int], perms: Perms) -> np.ndarray:
        out = np.empty(len(perms))
        for s0 in range(0, len(perms), _CHUNK):
            part = perms.p[s0 : s0 + _CHUNK]
            out[s0 : s0 + part.shape[0]] = self._cmi_rows(x[part], kx, cond)
        return out

    def single_surrogates(self, cands: list[int], cond: list[int], perms: Perms) -> np.ndarray:
        return np.column_stack(
            [self._surrogates(self.cols[:, c], self.card[c], cond, perms) for c in cands]
        )

    def joint(self, xs: list[int], cond: list[int]) -> float:
        x, kx = self._code(list(xs))
        return float(self._cmi_rows(x[None, :], kx, cond)[0])

    def joint_surrogates(self, xs: list[int], cond: list[int], perms: Perms) -> np.ndarray:
        x, kx = self._code(list(xs))
        return self._surrogates(x, kx, cond, perms)


class RegistryEngine:
    """Any registered CMI estimator (and the MI estimator of the same name when the
    conditioning set is empty) on the engine's columns.

    Parameters
    ----------
    y, cols
        As for :class:`GaussianEngine`.
    method
        A registered ``cond_mutual_info`` method.
    discrete
        Whether the columns are integer symbols.
    params
        The estimator's own parameters.
    """

    analytic = False

    def __init__(
        self,
        y: np.ndarray,
        cols: np.ndarray,
        method: str,
        discrete: bool,
        params: dict[str, Any] | None = None,
        seed: int | None = 0,
        null: str = "permutation",
        n_neighbors: int = 5,
    ) -> None:

        self.null = null
        self.n_neighbors = n_neighbors
        self._local: dict[tuple[int, ...], np.ndarray] = {}

        self.name = method
        self.cmi_spec = registry.get("cond_mutual_info", method)
        mi_name = MI_FOR_CMI.get(method, method)
        self.mi_spec = registry.get("mutual_info", mi_name)
        self.params = dict(params or {})
        self.seed = resolve_seed(seed)
        self.discrete = discrete
        self.n = len(y)
        if discrete:
            y = np.asarray(y, dtype=np.int64)
            cols = np.asarray(cols, dtype=np.int64)
        else:
            y = np.asarray(y, dtype=np.float64)
            cols = np.asarray(cols, dtype=np.float64)
        self.y = y
        self.cols = cols
        self._card = None
        if discrete:
            self._card = [int(c.max()) + 1 if c.size else 1 for c in cols.T]
            self._ycard = int(y.max()) + 1 if y.size else 1

    def _var(self, cols: list[np.ndarray], cards: list[int | None], name: str) -> Variable:
        kind = "discrete" if self.discrete else "continuous"
        return Variable(
            columns=tuple(cols),
            kinds=(kind,) * len(cols),
            cardinalities=tuple(cards) if self.discrete else (None,) * len(cols),
            name=name,
        )

    def _block(self, idx: list[int], rows: np.ndarray | None, name: str) -> Variable:
        cols = [self.cols[:, i] if rows is None else self.cols[rows, i] for i in idx]
        cards = [self._card[i] for i in idx] if self.discrete else [None] * len(idx)
        return self._var(cols, cards, name)

    def _call(self, x: Variable, cond: list[int]) -> float:
        yv = self._var([self.y], [getattr(self, "_ycard", None)], "y")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if cond:
                spec = self.cmi_spec
                args = (x, yv, self._block(cond, None, "z"))
            else:
                spec = self.mi_spec
                args = (x, yv)
            params = {k: v for k, v in self.params.items() if k in spec.params}
            if "seed" in spec.params:
                params["seed"] = self.seed
            return float(spec.func(*args, **params).value)

    def single(self, cands: list[int], cond: list[int]) -> np.ndarray:
        return np.array([self._call(self._block([c], None, "x"), cond) for c in cands])

    def _perms_for(self, cond: list[int], perms: Perms) -> np.ndarray:
        """``perms``, or with ``null="local"`` as many local permutations within
        neighbourhoods of the conditioning set (Runge 2018; strata of equal symbols for
        discrete data), which keep the candidate's dependence on the conditions."""
        if self.null != "local" or not cond:
            return perms.p
        key = tuple(sorted(cond))
        have = self._local.get(key)
        if have is None or have.shape[0] < len(perms):
            rng = derive(self.seed, len(key), *key)
            z = self._block(list(key), None, "z")
            draw, _ = nulls.conditional_sampler(z, self.n_neighbors)
            have = np.stack([draw(rng) for _ in range(len(perms))])
            if len(self._local) > 64:
                self._local.clear()
            self._local[key] = have
        return have[: len(perms)]

    def single_surrogates(self, cands: list[int], cond: list[int], perms: Perms) -> np.ndarray:
        out = np.empty((len(perms), len(cands)))
        for s, p in enumerate(self._perms_for(cond, perms)):
            for j, c in enumerate(cands):
                out[s, j] = self._call(self._block([c], p, "x"), cond)
        return out

    def joint(self, xs: list[int], cond: list[int]) -> float:
        return self._call(self._block(list(xs), None, "x"), cond)

    def joint_surrogates(self, xs: list[int], cond: list[int], perms: Perms) -> np.ndarray:
        rows = self._perms_for(cond, perms)
        return np.array([self._call(self._block(list(xs), p, "x"), cond) for p in rows])


def make_engine(
    y: np.ndarray,
    cols: np.ndarray,
    method: str,
    discrete: bool,
    params: dict[str, Any] | None = None,
    seed: int | None = 0,
    null: str = "permutation",
) -> GaussianEngine | RegistryEngine:
    """The engine for CMI ``method``: ``"gaussian"`` the closed-form batched one (its
    surrogates are always plain permutations, exact in the Gaussian limit), ``"plugin"``
    on symbols the batched count one, any other the registry's estimator."""
    if method == "gaussian" and not discrete and not params:
        return GaussianEngine(y, cols)
    if method == "plugin" and discrete and not params and null == "permutation":
        return DiscreteEngine(y, cols)
    return RegistryEngine(y, cols, method, discrete, params, seed, null)
