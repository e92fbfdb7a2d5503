"""Binned (histogram) estimators of entropy, MI and CMI for continuous data."""

from . import histogram
from .histogram import bin_column, bins_per_column

__all__ = ["histogram", "bin_column", "bins_per_column"]
