"""Time-series quantities: transfer entropy and conditional transfer entropy."""

from . import transfer
from .transfer import embed, embed_arrays, transfer_entropy

__all__ = ["embed", "embed_arrays", "transfer_entropy", "transfer"]
