"""Local (pointwise) MI, CMI, transfer entropy and active information storage.

The local value of a sample is the term whose average is the estimate (Lizier 2014):

* plug-in (discrete): i(x;y) = log [n c(x,y) / (c(x) c(y))],
  i(x;y|z) = log [c(x,y,z) c(z) / (c(x,z) c(y,z))] from the sample's counts;
* Gaussian: i = log f(x,y) − log f(x) − log f(y) (CMI: + log f(z) − …) under the
  Gaussian fit, each log-det the estimator's own (ML, or Wishart-unbiased: a constant);
* KSG-1 / KSG-2 (MI) and Frenzel–Pompe (CMI): ψ(k) + ψ(N) − ψ(n_x+1) − ψ(n_y+1) and
  ψ(k) − ψ(n_xz+1) − ψ(n_yz+1) + ψ(n_z+1) per point.

The kernels belong to the families that own each estimator (``discrete``, ``parametric``,
``knn``: each registered function's ``local_values`` hook, see :mod:`infometer.core._local`);
``im.mutual_info``, ``im.cond_mutual_info``, ``im.transfer_entropy`` and
``im.active_info_storage`` return them with ``local=True``, whose mean is the estimate of
the same method and parameters.  The functions here are the same route under their own
names.  They keep one default of their own: ``method="gaussian"`` gives the
maximum-likelihood local values (``bias_correct=False``, as they always have) unless
``bias_correct`` is passed.
"""

from __future__ import annotations

from typing import Any

from infometer.core._local import LocalValues

__all__ = [
    "LocalValues",
    "LOCAL_METHODS",
    "local_mutual_info",
    "local_cond_mutual_info",
    "local_transfer_entropy",
    "local_active_info_storage",
]

#: Methods with local values, per quantity (``infometer.core.api.local_methods`` reads the
#: registry; a test keeps this table equal to it).
LOCAL_METHODS = {
    "mutual_info": ("gaussian", "gaussian_copula", "ksg1", "ksg2", "plugin"),
    "cond_mutual_info": ("frenzel_pompe", "gaussian", "gaussian_copula", "ksg1", "plugin"),
}


def _ml(method: str, params: dict[str, Any]) -> dict[str, Any]:
    """These functions' Gaussian default: the maximum-likelihood fit."""
    if method == "gaussian" and "bias_correct" not in params:
        return {**params, "bias_correct": False}
    return params


def _local(quantity: str, data: dict[str, Any], method: str, **kw: Any) -> LocalValues:
    from infometer.core.api import estimate

    params = _ml(method, kw.pop("params"))
    return estimate(quantity, data, method=method, local=True, **kw, **params)  # type: ignore[return-value]


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

    The same as ``im.mutual_info(x, y, local=True, ...)`` (Gaussian: ML fit by default).

    Parameters
    ----------
    x, y
        Paired samples.
    method
        ``"plugin"`` (discrete), ``"gaussian"``, ``"ksg1"``, ``"ksg2"`` or ``"auto"``.
    unit, seed, discrete
        As for :func:`infometer.mutual_info`.
    **params
        The estimator's parameters (kNN: ``k``, ``theiler``, ...).

    Returns
    -------
    LocalValues
        Their mean is the estimate (exactly, for each method).

    Examples
    --------
    >>> import numpy as np
    >>> from infometer.measures.dynamics import local_mutual_info
    >>> x = np.array([0, 0, 1, 1]); lv = local_mutual_info(x, x, method="plugin")
    >>> lv.values.round(3).tolist(), round(lv.mean, 3)
    ([0.693, 0.693, 0.693, 0.693], 0.693)
    """
    return _local(
        "mutual_info",
        {"x": x, "y": y},
        method,
        unit=unit,
        seed=seed,
        discrete=discrete,
        params=params,
    )


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

    The same as ``im.cond_mutual_info(x, y, z, local=True, ...)``.

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
    >>> from infometer.measures.dynamics import local_cond_mutual_info
    >>> z = np.array([0, 0, 1, 1]); x = np.array([0, 1, 0, 1])
    >>> round(local_cond_mutual_info(x, x, z, method="plugin").mean, 3)
    0.693
    """
    return _local(
        "cond_mutual_info",
        {"x": x, "y": y, "z": z},
        method,
        unit=unit,
        seed=seed,
        discrete=discrete,
        params=params,
    )


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

    The same as ``im.transfer_entropy(source, target, cond, local=True, ...)``.

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
    >>> from infometer.measures.dynamics import local_transfer_entropy
    >>> x = np.random.default_rng(0).integers(0, 2, 400); y = np.roll(x, 1)
    >>> round(local_transfer_entropy(x, y, method="plugin").mean, 2)   # log 2 = 0.69
    0.69
    """
    data = {"source": source, "target": target}
    if cond is not None:
        data["cond"] = cond
    lags = {"k": k, "l": l, "m": m, "tau": tau, "delay": delay}
    return _local(
        "transfer_entropy",
        data,
        method,
        unit=unit,
        seed=seed,
        discrete=discrete,
        params={**lags, **params},
    )


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
    n_permutations: int = 200,
    trials: int = 1,
    **params: Any,
) -> LocalValues:
    """Local active information storage a(t) = i(x_t; x_{t-1}^(k)) (Lizier et al. 2012).

    The same as ``im.active_info_storage(x, local=True, ...)``.

    Parameters
    ----------
    x
        The series.
    method
        ``"plugin"``, ``"gaussian"``, ``"ksg1"``, ``"ksg2"`` or ``"auto"``.
    k, tau, lags, max_lag, k_method, alpha, n_permutations, trials
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
    >>> from infometer.measures.dynamics import local_active_info_storage
    >>> x = np.arange(200) % 2     # period 2: the past fixes the present, log 2 each step
    >>> round(local_active_info_storage(x, method="plugin").mean, 3)
    0.693
    """
    own = {
        "k": k,
        "tau": tau,
        "lags": lags,
        "max_lag": max_lag,
        "k_method": k_method,
        "alpha": alpha,
        "n_permutations": n_permutations,
        "trials": trials,
    }
    return _local(
        "active_info_storage",
        {"x": x},
        method,
        unit=unit,
        seed=seed,
        discrete=discrete,
        params={**own, **params},
    )
