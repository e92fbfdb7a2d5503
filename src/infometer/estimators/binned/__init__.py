"""Binned (histogram) estimators of entropy, MI and CMI for continuous data."""

from ._histogram import bin_column, bins_per_column

__all__ = ["bin_column", "bins_per_column"]
