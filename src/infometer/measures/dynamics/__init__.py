"""Information dynamics and network inference from time series.

* :func:`active_info_storage`, :func:`entropy_rate`: registered quantities derived from
  every MI / entropy estimator (``k="auto"``: greedy non-uniform or Ragwitz embedding).
* :func:`infer_network`: multivariate / bivariate transfer-entropy networks (IDTxl's
  algorithm) and PCMCI (Runge et al. 2019), with a tidy :class:`NetworkResult`.
* :mod:`~infometer.measures.dynamics._local`: local (pointwise) MI, CMI, TE and AIS.
* ``method="ordinal"`` transfer entropy (symbolic TE on ordinal patterns).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from infometer.core._lazy import attach

from . import _ordinal  # noqa: F401  (registers method="ordinal" of transfer_entropy)
from ._storage import active_info_storage, entropy_rate

if TYPE_CHECKING:
    from . import simulate
    from ._local import (
        LocalValues,
        local_active_info_storage,
        local_cond_mutual_info,
        local_mutual_info,
        local_transfer_entropy,
    )
    from ._network import NetworkResult, infer_network

__all__ = [
    "active_info_storage",
    "entropy_rate",
    "infer_network",
    "NetworkResult",
    "local_mutual_info",
    "local_cond_mutual_info",
    "local_transfer_entropy",
    "local_active_info_storage",
    "LocalValues",
    "simulate",
]

__getattr__, __dir__ = attach(
    __name__,
    {
        "LocalValues": "._local",
        "local_active_info_storage": "._local",
        "local_cond_mutual_info": "._local",
        "local_mutual_info": "._local",
        "local_transfer_entropy": "._local",
        "NetworkResult": "._network",
        "infer_network": "._network",
    },
    modules={"simulate": ".simulate"},
)
