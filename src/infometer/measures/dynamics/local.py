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
from infometer.core.api import quantity_function
from infometer.core.seeding import Seed

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


#: What these functions add to their call of :func:`infometer.core.api.estimate`.
_LOCAL = {"local": True}


def _ml(data: dict[str, Any], options: dict[str, Any]) -> tuple[dict, dict]:
    """These functions' Gaussian default: the maximum-likelihood fit."""
    if options["method"] == "gaussian" and "bias_correct" not in options:
        options = {**options, "bias_correct": False}
    return data, options


@quantity_function("mutual_info", ("x", "y"), fixed=_LOCAL, prepare=_ml)
def local_mutual_info(
    x: Any,
    y: Any,
    *,
    method: str = "auto",
    unit: str | None = "nats",
    seed: Seed = 0,
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
    unit, discrete
        As for :func:`infometer.mutual_info`.
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).
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


@quantity_function("cond_mutual_info", ("x", "y", "z"), fixed=_LOCAL, prepare=_ml)
def local_cond_mutual_info(
    x: Any,
    y: Any,
    z: Any,
    *,
    method: str = "auto",
    unit: str | None = "nats",
    seed: Seed = 0,
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
    unit, discrete, **params
        As for :func:`local_mutual_info`.
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).

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


@quantity_function("transfer_entropy", ("source", "target", "cond"), fixed=_LOCAL, prepare=_ml)
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
    seed: Seed = 0,
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
    unit, discrete, **params
        As for :func:`local_mutual_info` (the kNN neighbour count is ``cmi_k``, as for
        :func:`infometer.transfer_entropy`).
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).

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


@quantity_function("active_info_storage", ("x",), fixed=_LOCAL, prepare=_ml)
def local_active_info_storage(
    x: Any,
    *,
    method: str = "auto",
    unit: str | None = "nats",
    seed: Seed = 0,
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
    unit, discrete, **params
        As for :func:`local_mutual_info` (the kNN neighbour count is ``mi_k``).
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).

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
