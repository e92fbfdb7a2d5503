"""Discrete estimators: counting kernel, entropy kernels and their registered estimators."""

from . import estimators, kernels
from .counting import count_histogram, counts, joint_codes

__all__ = ["counts", "joint_codes", "count_histogram", "kernels", "estimators"]
