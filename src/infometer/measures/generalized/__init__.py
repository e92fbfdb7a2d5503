"""Generalised entropies: Rényi and Tsallis entropies, Rényi / Jensen divergences, Rényi MI.

Estimators are registered quantities (``renyi_entropy``, ``tsallis_entropy``,
``renyi_divergence``, ``jensen_shannon_divergence``, ``jensen_renyi_divergence``,
``renyi_mutual_info``); the functions below are thin wrappers of
:func:`infometer.core.api.estimate`.  Exact values of pmfs are in :mod:`infometer.measures.exact`,
closed forms of continuous families in :mod:`infometer.measures.generalized.closed_forms`.
"""

from __future__ import annotations

from typing import Any

from infometer.core.api import quantity_function
from infometer.core.seeding import Seed

from . import estimators as _estimators  # noqa: F401  (registers the quantities)
from .closed_forms import (
    exponential_renyi_entropy,
    gaussian_renyi_entropy,
    renyi_to_tsallis,
    uniform_renyi_entropy,
)

__all__ = [
    "renyi_entropy",
    "tsallis_entropy",
    "renyi_divergence",
    "jensen_shannon_divergence",
    "jensen_renyi_divergence",
    "renyi_mutual_info",
    "gaussian_renyi_entropy",
    "uniform_renyi_entropy",
    "exponential_renyi_entropy",
    "renyi_to_tsallis",
]


@quantity_function("renyi_entropy", ("x",))
def renyi_entropy(
    x: Any,
    order: float = 2.0,
    *,
    method: str = "auto",
    unit: str | None = "nats",
    base: float | None = None,
    ci: float | None = None,
    seed: Seed = 0,
    discrete: bool | None = None,
    **params: Any,
):
    """Rényi entropy ``H_a(X) = log(sum p^a) / (1 - a)`` (``log int f^a / (1 - a)``) from samples.

    Methods: ``plugin`` and ``unbiased`` (integer ``order >= 2``: the unbiased
    falling-factorial estimate of ``sum p^a``) for discrete data, ``lps``
    (Leonenko–Pronzato–Savani kNN, ``0 < order < k + 1``; ``k``, ``metric``) for continuous.

    Parameters
    ----------
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).

    Examples
    --------
    >>> import infometer as im
    >>> round(im.renyi_entropy([0, 1, 2, 3] * 25, order=2).value, 6)  # log 4
    1.386294
    """


@quantity_function("tsallis_entropy", ("x",))
def tsallis_entropy(
    x: Any,
    order: float = 2.0,
    *,
    method: str = "auto",
    unit: str | None = "nats",
    base: float | None = None,
    ci: float | None = None,
    seed: Seed = 0,
    discrete: bool | None = None,
    **params: Any,
):
    """Tsallis entropy ``S_q = (1 - sum p^q) / (q - 1)`` (``q = order > 0``) from samples.

    Same methods as :func:`renyi_entropy` (``S_q = (1 - exp((1 - q) H_q)) / (q - 1)``).

    Parameters
    ----------
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).

    Examples
    --------
    >>> import infometer as im
    >>> im.tsallis_entropy([0, 1] * 50, order=2).value  # 1 - 2 * 0.25
    0.5
    """


@quantity_function("renyi_divergence", ("p", "q"), paired=False)
def renyi_divergence(
    p: Any,
    q: Any,
    order: float = 2.0,
    *,
    method: str = "auto",
    unit: str | None = "nats",
    base: float | None = None,
    ci: float | None = None,
    seed: Seed = 0,
    discrete: bool | None = None,
    **params: Any,
):
    """Rényi divergence ``D_a(P ‖ Q)`` from two independent samples (plug-in, discrete).

    Parameters
    ----------
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).

    Examples
    --------
    >>> import infometer as im
    >>> im.renyi_divergence([0, 1] * 10, [0, 1] * 10, order=2).value
    0.0
    """


@quantity_function("jensen_shannon_divergence", ("p", "q"), paired=False)
def jensen_shannon_divergence(
    p: Any,
    q: Any,
    *,
    method: str = "auto",
    unit: str | None = "nats",
    base: float | None = None,
    ci: float | None = None,
    seed: Seed = 0,
    discrete: bool | None = None,
    **params: Any,
):
    """Jensen–Shannon divergence of P and Q from two samples (plug-in or kNN).

    Discrete ``plugin`` uses weights ``weights=`` (default ½, ½); continuous
    ``kozachenko_leonenko`` uses the sample-size weights ``n_p/N, n_q/N``.

    Parameters
    ----------
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).

    Examples
    --------
    >>> import infometer as im
    >>> im.jensen_shannon_divergence([0] * 10, [1] * 10, unit="bits").value
    1.0
    """


@quantity_function("jensen_renyi_divergence", ("p", "q"), paired=False)
def jensen_renyi_divergence(
    p: Any,
    q: Any,
    order: float = 2.0,
    *,
    method: str = "auto",
    unit: str | None = "nats",
    base: float | None = None,
    ci: float | None = None,
    seed: Seed = 0,
    discrete: bool | None = None,
    **params: Any,
):
    """Jensen–Rényi divergence ``H_a(M) - w_p H_a(P) - w_q H_a(Q)`` from two samples.

    Parameters
    ----------
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).

    Examples
    --------
    >>> import infometer as im
    >>> round(im.jensen_renyi_divergence([0] * 10, [1] * 10, order=2).value, 6)
    0.693147
    """


@quantity_function("renyi_mutual_info", ("x", "y"))
def renyi_mutual_info(
    x: Any,
    y: Any,
    order: float = 2.0,
    *,
    method: str = "auto",
    unit: str | None = "nats",
    base: float | None = None,
    ci: float | None = None,
    seed: Seed = 0,
    discrete: bool | None = None,
    **params: Any,
):
    """Rényi MI defined as ``D_a(P_XY ‖ P_X ⊗ P_Y)`` (plug-in; Shannon MI at a = 1).

    Other definitions (Sibson's ``min_Q D_a(P_XY ‖ P_X ⊗ Q)``, Arimoto's) differ for
    ``a != 1``; this is the divergence-from-independence one.

    Parameters
    ----------
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).

    Examples
    --------
    >>> import infometer as im
    >>> round(im.renyi_mutual_info([0, 1] * 20, [0, 1] * 20, order=2).value, 6)  # log 2
    0.693147
    """
