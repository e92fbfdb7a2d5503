"""Error bars and tests that work with any registered estimator."""

from .resample import error_bars, resample_values

__all__ = ["error_bars", "resample_values"]
