"""Information dynamics and network inference from time series.

* :func:`active_info_storage`, :func:`entropy_rate`: registered quantities derived from
  every MI / entropy estimator (``k="auto"``: greedy non-uniform or Ragwitz embedding).
* :func:`infer_network`: multivariate / bivariate transfer-entropy networks (IDTxl's
  algorithm) and PCMCI (Runge et al. 2019), with a tidy :class:`NetworkResult`.
* :mod:`~infometer.measures.dynamics.local`: local (pointwise) MI, CMI, TE and AIS.
* ``method="ordinal"`` transfer entropy (symbolic TE on ordinal patterns).
"""

from __future__ import annotations

import importlib
from typing import Any

from . import ordinal, storage
from .storage import active_info_storage, entropy_rate

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

_LAZY = {
    "infer_network": (".network", "infer_network"),
    "NetworkResult": (".network", "NetworkResult"),
    "local_mutual_info": (".local", "local_mutual_info"),
    "local_cond_mutual_info": (".local", "local_cond_mutual_info"),
    "local_transfer_entropy": (".local", "local_transfer_entropy"),
    "local_active_info_storage": (".local", "local_active_info_storage"),
    "LocalValues": (".local", "LocalValues"),
    "simulate": (".simulate", None),
}


def __getattr__(name: str) -> Any:
    try:
        module, attr = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    value = importlib.import_module(module, __name__)
    return value if attr is None else getattr(value, attr)
