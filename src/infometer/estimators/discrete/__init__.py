"""Discrete estimators: counting kernel, entropy kernels and their registered estimators."""

from . import _estimators  # noqa: F401  (registers the estimators)
from ._counting import count_histogram, counts, joint_codes

__all__ = ["counts", "joint_codes", "count_histogram"]
