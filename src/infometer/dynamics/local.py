"""Local (pointwise) MI, CMI, transfer entropy and active information storage.

The local value of a sample is the term whose average is the estimate (Lizier 2014):

* plug-in (discrete): i(x;y) = log [n c(x,y) / (c(x) c(y))],
  i(x;y|z) = log [c(x,y,z) c(z) / (c(x,z) c(y,z))] from the sample's counts: the mean is
  exactly the plug-in estimate;
* Gaussian: i = log f(x,y) − log f(x) − log f(y) (CMI: + log f(z) − …) under the
  maximum-likelihood Gaussian fit: the mean is exactly the ML estimate (``gaussian``
  with ``bias_correct=False``; the default Wishart-corrected value differs by O(d²/n));
* KSG-1 (MI) and Frenzel–Pompe (CMI): ψ(k) + ψ(N) − ψ(n_x+1) − ψ(n_y+1) and
  ψ(k) − ψ(n_xz+1) − ψ(n_yz+1) + ψ(n_z+1) per point, using the kNN family's own
  preparation, neighbour search and range counts: the mean is exactly ``ksg1``.

TE and AIS are local CMI / MI of their embeddings (the times of the present samples are
kept in :attr:`LocalValues.times`).  These kernels live here rather than as a ``local=``
option of the core MI / CMI estimators, so that no core family changes; they call the
core's counting and kNN kernels, not copies of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._estimate import Estimate
from ..data import Variable, as_variables

__all__ = [
    "LocalValues",
    "LOCAL_METHODS",
    "local_mutual_info",
    "local_cond_mutual_info",
    "local_transfer_entropy",
    "local_active_info_storage",
]

#: Methods with local values, per quantity.
LOCAL_METHODS = {
    "mutual_info": ("plugin", "gaussian", "ksg1"),
    "cond_mutual_info": ("plugin", "gaussian", "ksg1", "frenzel_pompe"),
}


@dataclass(frozen=True)
class LocalValues:
    """Local values of one quantity, one per sample (row of the embedding).

    Attributes
    ----------
    values
        The local values in ``unit``; their mean is the estimate.
    quantity, method, unit
        What was computed, by which estimator, in which unit.
    times
        For TE and AIS: the time index of the present sample of each value.
    diagnostics
        Facts from the estimator (e.g. mean neighbour counts).
    """

    values: np.ndarray
    quantity: str
    method: str
    unit: str = "nats"
    times: np.ndarray | None = None
    diagnostics: dict[str, Any] = field(default_factory=dict)

    @property
    def mean(self) -> float:
        """The average of the local values: the estimate."""
        return float(np.mean(self.values))

    def estimate(self) -> Estimate:
        """The average as an :class:`~infometer.estimate.Estimate`."""
        from ..uncertainty import make_estimate

        return make_estimate(
            self.mean * _scale(self.unit),
            quantity=self.quantity,
            method=self.method,
            unit=self.unit,
            n=int(self.values.size),
            params={"local": True},
            diagnostics=dict(self.diagnostics),
        )

    def to_frame(self):
        """Tidy DataFrame: ``time`` (or ``row``) and ``local`` value."""
        import pandas as pd

        idx = self.times if self.times is not None else np.arange(self.values.size)
        name = "time" if self.times is not None else "row"
        return pd.DataFrame({name: idx, "local": self.values})

    def plot(self, ax=None, path=None):
        """Local values against time (or row), with their mean."""
        from ..plot import finish, new_axes

        _, ax = new_axes(ax, figsize=(7.0, 3.0))
        idx = self.times if self.times is not None else np.arange(self.values.size)
        ax.plot(idx, self.values, lw=0.6, color="#3b75af")
        ax.axhline(self.mean, color="#c0392b", lw=1.0, label=f"mean {self.mean:.3g} {self.unit}")
        ax.axhline(0.0, color="black", lw=0.5)
        ax.set_xlabel("time" if self.times is not None else "row")
        ax.set_ylabel(f"local {self.quantity} ({self.unit})")
        ax.set_title(f"local {self.quantity} [{self.method}]", fontsize=10)
        ax.legend(fontsize=8, loc="upper right")
        return finish(ax, path)

    def __len__(self) -> int:
        return int(self.values.size)


def _scale(unit: str) -> float:
    """Nats per ``unit``."""
    return {"nats": 1.0, "bits": float(np.log(2.0)), "hartleys": float(np.log(10.0))}[unit]


def _check_unit(unit: str | None) -> str:
    unit = "nats" if unit is None else unit
    if unit not in ("nats", "bits", "hartleys"):
        raise ValueError(f"unit must be 'nats', 'bits' or 'hartleys', got {unit!r}")
    return unit


# ------------------------------------------------------------------ kernels (nats)
def _row_counts(codes: np.ndarray) -> np.ndarray:
    _, inv, cnt = np.unique(codes, return_inverse=True, return_counts=True)
    return cnt[inv.reshape(-1)].astype(np.float64)


def plugin_local(x: Variable, y: Variable, z: Variable | None = None) -> np.ndarray:
    """Local plug-in MI / CMI of discrete variables (nats)."""
    from ..discrete.counting import joint_codes

    n = x.n
    if z is None:
        cxy = _row_counts(joint_codes(x, y))
        return np.log(n * cxy / (_row_counts(x.codes) * _row_counts(y.codes)))
    cxyz = _row_counts(joint_codes(x, y, z))
    cz = _row_counts(z.codes)
    cxz = _row_counts(joint_codes(x, z))
    cyz = _row_counts(joint_codes(y, z))
    return np.log(cxyz * cz / (cxz * cyz))


def _gauss_logpdf(a: np.ndarray, cols: list[int]) -> np.ndarray:
    """log density of the ML Gaussian fit of the columns ``cols`` of centred ``a``."""
    if not cols:
        return np.zeros(a.shape[0])
    b = a[:, cols]
    cov = b.T @ b / b.shape[0]
    sign, ld = np.linalg.slogdet(cov)
    if sign <= 0:
        raise ValueError("the sample covariance is singular (constant or collinear columns)")
    sol = np.linalg.solve(cov, b.T).T
    quad = np.einsum("ij,ij->i", b, sol)
    return -0.5 * (len(cols) * np.log(2 * np.pi) + ld + quad)


def gaussian_local(x: Variable, y: Variable, z: Variable | None = None) -> np.ndarray:
    """Local MI / CMI under the maximum-likelihood Gaussian fit (nats)."""
    blocks = [x.values, y.values] + ([] if z is None else [z.values])
    a = np.column_stack(blocks).astype(np.float64)
    sd = a.std(axis=0)
    if np.any(sd == 0):
        raise ValueError("a column is constant: its Gaussian local values are undefined")
    a = (a - a.mean(axis=0)) / sd
    ix = list(range(x.d))
    iy = list(range(x.d, x.d + y.d))
    iz = list(range(x.d + y.d, a.shape[1]))

    def lp(idx: list[int]) -> np.ndarray:
        return _gauss_logpdf(a, idx)

    return lp(ix + iy + iz) + lp(iz) - lp(ix + iz) - lp(iy + iz)


def knn_local(
    x: Variable,
    y: Variable,
    z: Variable | None = None,
    *,
    k: int = 3,
    seed: int | None = 0,
    standardize: bool = True,
    jitter: str = "auto",
    jitter_scale: float = 1e-10,
    theiler: int = 0,
) -> tuple[np.ndarray, dict]:
    """Local KSG-1 MI (z None) or Frenzel–Pompe CMI, with the kNN family's own preparation
    (standardising, tie jitter), neighbour search and counts (nats)."""
    from scipy.special import digamma

    from ..knn import kernels as kk
    from ..knn.estimators import _check, _check_theiler, _prep

    vs = {"x": x, "y": y} if z is None else {"x": x, "y": y, "z": z}
    n = x.n
    k = _check(n, k, standardize, jitter, jitter_scale)
    theiler = _check_theiler(theiler, n, k)
    p = _prep(vs, standardize, jitter, jitter_scale, seed)
    bx, by = p.blocks[:2]
    if bx.shape[1] == 0 or by.shape[1] == 0:
        return np.zeros(n), {"exact_zero": "a variable is constant"}
    empty = np.empty((n, 0))
    if z is None:
        joint = np.hstack([bx, by])
        tree, cx, cy = kk._structures(joint, bx, by, head=True)
        eps, _ = kk.neighbours(joint, k, theiler, tree())
        nx, ny = kk._counts((bx, eps, cx), (by, eps, cy), theiler=theiler, strict=True)
        psi_n = digamma(kk._count(empty, eps, theiler, True) + 1) if theiler else digamma(n)
        vals = digamma(k) + psi_n - digamma(nx + 1) - digamma(ny + 1)
        return vals, {"mean_n_x": float(np.mean(nx)), "mean_n_y": float(np.mean(ny))}
    bz = p.blocks[2]
    joint, xz, yz = np.hstack([bx, by, bz]), np.hstack([bx, bz]), np.hstack([by, bz])
    tree, cxz, cyz, cz = kk._structures(joint, xz, yz, bz)
    eps, _ = kk.neighbours(joint, k, theiler, tree())
    nxz, nyz = kk._counts((xz, eps, cxz), (yz, eps, cyz), theiler=theiler, strict=True)
    nz = kk._count(bz, eps, theiler, True, cz())
    vals = digamma(k) - digamma(nxz + 1) - digamma(nyz + 1) + digamma(nz + 1)
    return vals, {"mean_n_xz": float(np.mean(nxz)), "mean_n_yz": float(np.mean(nyz))}


def _method(method: str, quantity: str, vs: dict[str, Variable]) -> str:
    from .. import registry
    from ..registry import AutoContext

    if method == "auto":
        method = registry.choose_auto(AutoContext(quantity, vs))[0]
    if not isinstance(method, str) or method not in LOCAL_METHODS[quantity]:
        raise ValueError(
            f"local values of {quantity} are available for methods "
            f"{list(LOCAL_METHODS[quantity])}, got {method!r}"
        )
    return method


def _local(
    quantity: str, vs: dict[str, Variable], method: str, params: dict[str, Any]
) -> tuple[np.ndarray, str, dict]:
    method = _method(method, quantity, vs)
    x, y, z = vs["x"], vs["y"], vs.get("z")
    kinds = {v.kind for v in vs.values()}
    if method == "plugin":
        if kinds != {"discrete"}:
            raise ValueError(
                "method 'plugin' needs discrete data; pass discrete=True or use another"
            )
        if params:
            raise TypeError(f"method 'plugin' takes no parameters, got {sorted(params)}")
        return plugin_local(x, y, z), method, {}
    if kinds != {"continuous"}:
        raise ValueError(f"method {method!r} needs continuous data, got {sorted(kinds)}")
    if method == "gaussian":
        if params:
            raise TypeError(f"local Gaussian values take no parameters, got {sorted(params)}")
        return gaussian_local(x, y, z), method, {"bias_correct": False}
    allowed = {"k", "seed", "standardize", "jitter", "jitter_scale", "theiler"}
    bad = sorted(set(params) - allowed)
    if bad:
        raise TypeError(
            f"method {method!r} has no parameter {bad}; its parameters: {sorted(allowed)}"
        )
    vals, diag = knn_local(x, y, z, **params)
    return vals, method, diag


def _renamed(params: dict[str, Any], prefix: str) -> dict[str, Any]:
    """TE's / AIS's ``cmi_k`` / ``mi_k`` (a kNN neighbour count) is the kernel's ``k``."""
    return {(p[len(prefix) :] if p == f"{prefix}k" else p): v for p, v in params.items()}


def _result(vals, quantity, method, unit, times=None, diag=None) -> LocalValues:
    unit = _check_unit(unit)
    return LocalValues(
        values=np.asarray(vals, dtype=np.float64) / _scale(unit),
        quantity=quantity,
        method=method,
        unit=unit,
        times=times,
        diagnostics=dict(diag or {}),
    )


def local_mutual_info(
    x: Any,
    y: Any,
    *,
    method: str = "auto",
    unit: str | None = "nats",
    seed: int | None = 0,
    discrete: bool | None = None,
    **params: Any,
) -> LocalValues:
    """Local (pointwise) mutual information i(x_t; y_t) of paired samples.

    Parameters
    ----------
    x, y
        Paired samples.
    method
        ``"plugin"`` (discrete), ``"gaussian"`` (ML fit), ``"ksg1"`` or ``"auto"``.
    unit, seed, discrete
        As for :func:`infometer.mutual_info`.
    **params
        kNN parameters (``k``, ``theiler``, ...).

    Returns
    -------
    LocalValues
        Their mean is the estimate (exactly, for each method).

    Examples
    --------
    >>> import numpy as np
    >>> from infometer.dynamics import local_mutual_info
    >>> x = np.array([0, 0, 1, 1]); lv = local_mutual_info(x, x, method="plugin")
    >>> lv.values.round(3).tolist(), round(lv.mean, 3)
    ([0.693, 0.693, 0.693, 0.693], 0.693)
    """
    vs = as_variables({"x": x, "y": y}, discrete=discrete)
    if "seed" not in params and method in ("ksg1", "auto"):
        params = {**params, "seed": seed}
    vals, m, diag = _local("mutual_info", vs, method, _drop_seed(method, vs, params))
    return _result(vals, "mutual_info", m, unit, diag=diag)


def _drop_seed(method: str, vs: dict[str, Variable], params: dict[str, Any]) -> dict[str, Any]:
    """The seed is a kNN parameter only."""
    if method in ("ksg1", "frenzel_pompe"):
        return params
    if method == "auto" and all(v.kind == "continuous" for v in vs.values()):
        from .. import registry
        from ..registry import AutoContext

        q = "cond_mutual_info" if "z" in vs else "mutual_info"
        if registry.choose_auto(AutoContext(q, vs))[0] in ("ksg1", "frenzel_pompe"):
            return params
    return {k: v for k, v in params.items() if k != "seed"}


def local_cond_mutual_info(
    x: Any,
    y: Any,
    z: Any,
    *,
    method: str = "auto",
    unit: str | None = "nats",
    seed: int | None = 0,
    discrete: bool | None = None,
    **params: Any,
) -> LocalValues:
    """Local conditional mutual information i(x_t; y_t | z_t).

    Parameters
    ----------
    x, y, z
        Paired samples.
    method
        ``"plugin"``, ``"gaussian"``, ``"ksg1"`` / ``"frenzel_pompe"`` or ``"auto"``.
    unit, seed, discrete, **params
        As for :func:`local_mutual_info`.

    Returns
    -------
    LocalValues

    Examples
    --------
    >>> import numpy as np
    >>> from infometer.dynamics import local_cond_mutual_info
    >>> z = np.array([0, 0, 1, 1]); x = np.array([0, 1, 0, 1])
    >>> round(local_cond_mutual_info(x, x, z, method="plugin").mean, 3)
    0.693
    """
    vs = as_variables({"x": x, "y": y, "z": z}, discrete=discrete)
    params = {**params, "seed": seed} if "seed" not in params else params
    vals, m, diag = _local("cond_mutual_info", vs, method, _drop_seed(method, vs, params))
    return _result(vals, "cond_mutual_info", m, unit, diag=diag)


def local_transfer_entropy(
    source: Any,
    target: Any,
    cond: Any = None,
    *,
    k: int = 1,
    l: int = 1,
    m: int = 1,
    tau: int = 1,
    delay: int = 1,
    method: str = "auto",
    unit: str | None = "nats",
    seed: int | None = 0,
    discrete: bool | None = None,
    **params: Any,
) -> LocalValues:
    """Local transfer entropy te(t) = i(y_{t+1}; x_t^(l) | y_t^(k)[, z]) (Lizier et al. 2008).

    Parameters
    ----------
    source, target, cond
        Series as for :func:`infometer.transfer_entropy`.
    k, l, m, tau, delay
        History lengths and delays as for :func:`infometer.transfer_entropy`.
    method
        ``"plugin"``, ``"gaussian"``, ``"ksg1"`` / ``"frenzel_pompe"`` or ``"auto"``.
    unit, seed, discrete, **params
        As for :func:`local_mutual_info` (the kNN neighbour count is ``cmi_k``, as for
        :func:`infometer.transfer_entropy`).

    Returns
    -------
    LocalValues
        ``times``: the index of the target sample y_{t+1} each value predicts.

    Examples
    --------
    >>> import numpy as np
    >>> from infometer.dynamics import local_transfer_entropy
    >>> x = np.random.default_rng(0).integers(0, 2, 400); y = np.roll(x, 1)
    >>> round(local_transfer_entropy(x, y, method="plugin").mean, 2)   # log 2 = 0.69
    0.69
    """
    from ..timeseries.transfer import _lag_rows, embed

    data = {"source": source, "target": target}
    if cond is not None:
        data["cond"] = cond
    vs = as_variables(data, discrete=discrete)
    e = embed(vs["source"], vs["target"], vs.get("cond"), k=k, l=l, m=m, tau=tau, delay=delay)
    times = _lag_rows(vs["target"].n, k, l, None if cond is None else m, tau, delay) + 1
    params = _renamed(params, "cmi_")
    params = {**params, "seed": seed} if "seed" not in params else params
    vals, meth, diag = _local("cond_mutual_info", e, method, _drop_seed(method, e, params))
    return _result(vals, "transfer_entropy", meth, unit, times=times, diag=diag)


def local_active_info_storage(
    x: Any,
    *,
    method: str = "auto",
    unit: str | None = "nats",
    seed: int | None = 0,
    discrete: bool | None = None,
    k: int | str = 1,
    tau: int = 1,
    lags: list[int] | None = None,
    max_lag: int = 5,
    k_method: str = "greedy",
    alpha: float = 0.05,
    n_perm: int = 200,
    trials: int = 1,
    **params: Any,
) -> LocalValues:
    """Local active information storage a(t) = i(x_t; x_{t-1}^(k)) (Lizier et al. 2012).

    Parameters
    ----------
    x
        The series.
    method
        ``"plugin"``, ``"gaussian"``, ``"ksg1"`` or ``"auto"``.
    k, tau, lags, max_lag, k_method, alpha, n_perm, trials
        The history, as for :func:`infometer.active_info_storage` (``k="auto"`` too).
    unit, seed, discrete, **params
        As for :func:`local_mutual_info` (the kNN neighbour count is ``mi_k``).

    Returns
    -------
    LocalValues
        ``times``: the index of each present sample x_t; ``diagnostics["lags"]``.

    Examples
    --------
    >>> import numpy as np
    >>> from infometer.dynamics import local_active_info_storage
    >>> x = np.arange(200) % 2     # period 2: the past fixes the present, log 2 each step
    >>> round(local_active_info_storage(x, method="plugin").mean, 3)
    0.693
    """
    from ._embed import present_rows
    from ._history import _history, _rows

    v = as_variables({"x": x}, discrete=discrete)["x"]
    own = {
        "k": k,
        "tau": tau,
        "lags": lags,
        "max_lag": max_lag,
        "k_method": k_method,
        "alpha": alpha,
        "n_perm": n_perm,
        "trials": trials,
        "seed": seed,
    }
    name = method if method != "auto" else _method("auto", "mutual_info", {"x": v, "y": v})
    chosen, diag, _ = _history(v, own, name)
    past, present = _rows(v, chosen, trials)
    vs = {"x": past, "y": present}
    params = _renamed(params, "mi_")
    params = {**params, "seed": seed} if "seed" not in params else params
    vals, meth, kd = _local("mutual_info", vs, name, _drop_seed(name, vs, params))
    times = present_rows(v.n, max(chosen), trials)
    return _result(
        vals, "active_info_storage", meth, unit, times=times, diag={**kd, **diag, "lags": chosen}
    )
