"""Parametric estimators: Gaussian (log-det) and Gaussian copula (GCMI)."""

from ._gaussian import copula_normalize, gaussian_entropy, gaussian_entropy_terms, gaussian_kl

__all__ = [
    "copula_normalize",
    "gaussian_entropy",
    "gaussian_entropy_terms",
    "gaussian_kl",
]
