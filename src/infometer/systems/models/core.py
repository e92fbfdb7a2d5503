"""The core space of a classifier's Fisher information (numpy only).

For logits z and p = softmax(z), the Fisher information of the categorical distribution in
logit coordinates is the *core matrix* ``I(z) = diag(p) − ppᵀ``; the Fisher information of
the whole model is its pull-back ``F = Σ_x J_xᵀ I(z_x) J_x`` with ``J_x = ∂z/∂θ``.

Facts used by :mod:`infometer.systems.models.fisher` (Sun, "Deterministic bounds and random
estimates
of metric tensors on neuromanifolds", ICLR 2026):

* ``I`` annihilates the all-ones vector, so its smallest eigenvalue is 0;
* ``tr I = 1 − ‖p‖²``; the largest eigenvalue satisfies ``max_i p_i(1 − p_i) ≤ λ_C ≤ 1 − ‖p‖²``;
* ``λ_C v_C v_Cᵀ ⪯ I ⪯ diag(p)``, hence ``F_LR ⪯ F ⪯ F_DG`` after pull-back;
* ``I = A Aᵀ`` with ``A = diag(√p) − p √pᵀ`` (because Σp = 1): the factor behind the
  unbiased Hutchinson estimator.

For independent sigmoid outputs (multi-label), the core matrix is ``diag(σ(z)(1 − σ(z)))``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from infometer.core.validation import check_probability_vector

__all__ = [
    "core_matrix",
    "core_factor",
    "core_spectrum",
    "top_eigen_bounds",
    "BOUNDS",
]

#: ``None``: the core matrix; ``"upper"``: diag(p); ``"lower"``: λ_C v_C v_Cᵀ.
BOUNDS = (None, "upper", "lower")


def _probs(p: Any) -> np.ndarray:
    a = np.asarray(p, dtype=np.float64)
    if a.ndim != 1 or a.size < 2:
        raise ValueError(f"p must be a 1-D probability vector with >= 2 entries, got {a.shape}")
    # the shared check, at 1e-6 (class priors or a softmax of float32 logits); used as given
    check_probability_vector(a, "p", atol=1e-6)
    return a


def core_matrix(p: Any, bound: str | None = None) -> np.ndarray:
    """``diag(p) − ppᵀ`` (``bound=None``), ``diag(p)`` (``"upper"``) or ``λ_C v_C v_Cᵀ``
    (``"lower"``)."""
    a = _probs(p)
    full = np.diag(a) - np.outer(a, a)
    if bound is None:
        return full
    if bound == "upper":
        return np.diag(a)
    if bound == "lower":
        lam, vec = np.linalg.eigh(full)
        return lam[-1] * np.outer(vec[:, -1], vec[:, -1])
    raise ValueError(f"bound must be one of {list(BOUNDS)}, got {bound!r}")


def core_factor(p: Any, bound: str | None = None) -> np.ndarray:
    """A factor ``A`` with ``A Aᵀ = core_matrix(p, bound)``: ``diag(√p) − p√pᵀ``,
    ``diag(√p)`` or ``√λ_C v_C`` (one column)."""
    a = _probs(p)
    s = np.sqrt(a)
    if bound is None:
        return np.diag(s) - np.outer(a, s)
    if bound == "upper":
        return np.diag(s)
    if bound == "lower":
        lam, vec = np.linalg.eigh(np.diag(a) - np.outer(a, a))
        return np.sqrt(max(lam[-1], 0.0)) * vec[:, -1:]
    raise ValueError(f"bound must be one of {list(BOUNDS)}, got {bound!r}")


def core_spectrum(p: Any) -> np.ndarray:
    """Eigenvalues of ``diag(p) − ppᵀ`` in ascending order (the first is 0 up to rounding)."""
    return np.linalg.eigvalsh(core_matrix(p))


def top_eigen_bounds(p: Any) -> tuple[float, float]:
    """``(max_i p_i(1 − p_i), 1 − ‖p‖²)``: bounds on the largest core eigenvalue λ_C."""
    a = _probs(p)
    return float(np.max(a * (1.0 - a))), float(1.0 - a @ a)
