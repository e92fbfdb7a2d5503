"""Parametric estimators: Gaussian (log-det) and Gaussian copula (GCMI)."""

from . import gaussian
from .gaussian import copula_normalize, gaussian_entropy, gaussian_entropy_terms, gaussian_kl

__all__ = [
    "gaussian",
    "copula_normalize",
    "gaussian_entropy",
    "gaussian_entropy_terms",
    "gaussian_kl",
]
