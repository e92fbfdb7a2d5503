"""Information dynamics and network inference from time series.

* :func:`active_info_storage`, :func:`entropy_rate`: registered quantities derived from
  every MI / entropy estimator (``k="auto"``: greedy non-uniform or Ragwitz embedding).
* :func:`infer_network`: multivariate / bivariate transfer-entropy networks (IDTxl's
  algorithm) and PCMCI (Runge et al. 2019), with a tidy :class:`NetworkResult`.
* :mod:`~infometer.measures.dynamics.local`: local (pointwise) MI, CMI, TE and AIS.
* ``method="ordinal"`` transfer entropy (symbolic TE on ordinal patterns).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from infometer.core._lazy import attach

from . import ordinal, storage
from .storage import active_info_storage, entropy_rate

if TYPE_CHECKING:
    from . import simulate
    from .local import (
        LocalValues,
        local_active_info_storage,
        local_cond_mutual_info,
        local_mutual_info,
        local_transfer_entropy,
    )
    from .network import NetworkResult, infer_network

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
    "ordinal",
    "storage",
]

__getattr__, __dir__ = attach(
    __name__,
    {
        "LocalValues": ".local",
        "local_active_info_storage": ".local",
        "local_cond_mutual_info": ".local",
        "local_mutual_info": ".local",
        "local_transfer_entropy": ".local",
        "NetworkResult": ".network",
        "infer_network": ".network",
    },
    modules={"simulate": ".simulate"},
)
