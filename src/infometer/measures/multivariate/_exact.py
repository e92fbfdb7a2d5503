"""Exact multivariate quantities of a joint pmf (one axis per variable)."""

from __future__ import annotations

from typing import Any

import numpy as np

from infometer.core.validation import check_pmf

from . import kernels
from ._terms import check_count, terms

__all__ = ["joint_pmf", "pmf_quantity"]


def joint_pmf(p: Any, quantity: str, name: str = "p") -> np.ndarray:
    """Validate a joint pmf (one axis per variable) with enough axes for ``quantity``."""
    a = check_pmf(p, name)
    if a.ndim < 2:
        raise ValueError(
            f"{name} is {a.ndim}-D; a joint pmf of n variables has one axis per variable "
            f"({quantity} needs at least 2)"
        )
    try:
        check_count(quantity, a.ndim)
    except ValueError as exc:
        raise ValueError(
            str(exc).replace("X has", f"{name} has", 1).replace("variable(s)", "axes (variables)")
        ) from None
    return a


def pmf_quantity(p: Any, quantity: str, index: int | None = None, name: str = "p") -> float:
    """``quantity`` (a key of ``_terms.MIN_VARIABLES``) of the joint pmf ``p``, in nats.

    Examples
    --------
    >>> import numpy as np
    >>> p = np.zeros((2, 2, 2)); p[0, 0, 0] = p[1, 1, 1] = 0.5  # three copies of a bit
    >>> round(float(pmf_quantity(p, "o_information") / np.log(2)), 12)
    1.0
    """
    a = joint_pmf(p, quantity, name)
    return kernels.pmf_entropy_sum(a, terms(quantity, a.ndim, index))
