"""Ground truth for multivariate information and partial information decomposition.

**O-/S-information, total and dual total correlation** of three variables X₁, X₂, X₃:

* Gaussian, from the covariance Σ (closed forms):
  ``TC = ½ [Σᵢ log Σᵢᵢ − log det Σ]``,
  ``DTC = ½ [log det Σ + Σᵢ log (Σ⁻¹)ᵢᵢ]`` (since ``h(Xᵢ | X₋ᵢ) = ½ log(2πe / (Σ⁻¹)ᵢᵢ)``),
  ``O = TC − DTC``, ``S = TC + DTC`` (Rosas et al. 2019);
* logic gates on fair bits: XOR (X₃ = X₁ ⊕ X₂: TC = log 2, DTC = 2 log 2, O = −log 2),
  COPY (X₁ = X₂ = X₃: TC = 2 log 2, DTC = log 2, O = log 2), and XOR with the output flipped
  with probability ε (TC = log 2 − h(ε), DTC = 2 log 2 − 2h(ε)).

**PID** of two sources and a target (``pid_atom``; atoms ``{0}{1}`` redundancy, ``{0}`` and
``{1}`` unique, ``{01}`` synergy), the literature values of the gates (Williams & Beer 2010;
Bertschinger et al. 2014; Griffith & Koch 2014) on fair independent input bits:

============ ============================ ===============================================
gate         MMI (= I_min here)           BROJA
============ ============================ ===============================================
XOR          syn = log 2                   syn = log 2
AND          red = h(¼) − ½ log 2,          the same (red 0.311 bits, syn 0.5 bits)
             syn = ½ log 2
COPY (T=S₁S₂) red = log 2, syn = log 2         unique = log 2 each, red = syn = 0
RDN (S₁=S₂=T) red = log 2                     red = log 2
============ ============================ ===============================================

and jointly Gaussian sources with a scalar target, where the MMI atoms are closed forms
(red = min(I₁, I₂), syn = I₁₂ − max(I₁, I₂)) and the Gaussian BROJA PID equals the MMI one
(Barrett 2015).
"""

from __future__ import annotations

import math

import numpy as np

from .base import Task, register_task
from .closed_forms import gaussian_mutual_info

__all__ = [
    "gaussian_multivariate",
    "gaussian_multivariate_task",
    "gate_multivariate_task",
    "gate_pid_task",
    "gaussian_pid_atoms",
    "gaussian_pid_task",
    "GATE_PID",
]

LOG2 = math.log(2.0)
QUANTITIES = ("total_correlation", "dual_total_correlation", "o_information", "s_information")
_SHORT = {
    "total_correlation": "tc",
    "dual_total_correlation": "dtc",
    "o_information": "oinfo",
    "s_information": "sinfo",
}


def _hb(p: float) -> float:
    return -(p * math.log(p) + (1 - p) * math.log(1 - p)) if 0 < p < 1 else 0.0


def gaussian_multivariate(cov: np.ndarray) -> dict[str, float]:
    """TC, DTC, O- and S-information (nats) of a Gaussian with scalar variables.

    Examples
    --------
    >>> import numpy as np
    >>> v = gaussian_multivariate(np.eye(3))
    >>> [round(v[q], 12) for q in QUANTITIES]
    [0.0, 0.0, 0.0, 0.0]
    """
    c = np.asarray(cov, dtype=np.float64)
    logdet = float(np.linalg.slogdet(c)[1])
    tc = 0.5 * (float(np.log(np.diag(c)).sum()) - logdet)
    dtc = 0.5 * (logdet + float(np.log(np.diag(np.linalg.inv(c))).sum()))
    return {
        "total_correlation": tc,
        "dual_total_correlation": dtc,
        "o_information": tc - dtc,
        "s_information": tc + dtc,
    }


def _gauss_sampler(cov: np.ndarray, roles: tuple[str, ...]):
    chol = np.linalg.cholesky(cov)

    def sampler(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        a = rng.standard_normal((n, cov.shape[0])) @ chol.T
        return {r: a[:, [i]] for i, r in enumerate(roles)}

    return sampler


def gaussian_multivariate_task(name: str, cov: np.ndarray, quantity: str, what: str) -> Task:
    """One multivariate quantity of three jointly Gaussian scalars (roles x, y, z)."""
    c = np.asarray(cov, dtype=np.float64)
    return Task(
        name=f"{name}-{_SHORT[quantity]}",
        quantity=quantity,
        sampler=_gauss_sampler(c, ("x", "y", "z")),
        truth=gaussian_multivariate(c)[quantity],
        dims=(1, 1, 1),
        family=f"{_SHORT[quantity]}-gauss",
        tags=frozenset({"multivariate"}),
        description=f"{quantity} of three Gaussians ({what})",
        extra={"cov": c.tolist()},
    )


def _gate_values(gate: str, eps: float = 0.0) -> dict[str, float]:
    if gate == "xor":
        h = _hb(eps)
        tc, dtc = LOG2 - h, 2 * LOG2 - 2 * h
    elif gate == "copy":
        tc, dtc = 2 * LOG2, LOG2
    else:
        raise ValueError(f"gate must be 'xor' or 'copy', got {gate!r}")
    return {
        "total_correlation": tc,
        "dual_total_correlation": dtc,
        "o_information": tc - dtc,
        "s_information": tc + dtc,
    }


def gate_multivariate_task(gate: str, quantity: str, eps: float = 0.0) -> Task:
    """One multivariate quantity of three bits: ``xor`` (output flipped w.p. ``eps``) or
    ``copy`` (three equal bits)."""

    def sampler(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        a = rng.integers(0, 2, size=(n, 1))
        if gate == "copy":
            return {"x": a, "y": a.copy(), "z": a.copy()}
        b = rng.integers(0, 2, size=(n, 1))
        c = a ^ b ^ (rng.random((n, 1)) < eps).astype(a.dtype)
        return {"x": a, "y": b, "z": c}

    tag = f"{gate}3" if not eps else f"{gate}3-noisy{eps:g}"
    return Task(
        name=f"{tag}-{_SHORT[quantity]}",
        quantity=quantity,
        sampler=sampler,
        truth=_gate_values(gate, eps)[quantity],
        dims=(1, 1, 1),
        family=f"{_SHORT[quantity]}-gates",
        tags=frozenset({"multivariate"}),
        discrete=True,
        description=f"{quantity} of three bits: "
        + ("x3 = x1 XOR x2" if gate == "xor" else "x1 = x2 = x3")
        + (f", flipped w.p. {eps:g}" if eps else ""),
    )


_ATOM_NAME = {"{0}{1}": "red", "{0}": "unq0", "{1}": "unq1", "{01}": "syn"}
H14 = _hb(0.25)
#: gate -> measure -> atom -> value (nats), the literature values (module docstring)
GATE_PID: dict[str, dict[str, dict[str, float]]] = {
    "xor": {m: {"{0}{1}": 0.0, "{0}": 0.0, "{1}": 0.0, "{01}": LOG2} for m in ("mmi", "broja")},
    "and": {
        m: {"{0}{1}": H14 - 0.5 * LOG2, "{0}": 0.0, "{1}": 0.0, "{01}": 0.5 * LOG2}
        for m in ("mmi", "broja")
    },
    "copy": {
        "mmi": {"{0}{1}": LOG2, "{0}": 0.0, "{1}": 0.0, "{01}": LOG2},
        "broja": {"{0}{1}": 0.0, "{0}": LOG2, "{1}": LOG2, "{01}": 0.0},
    },
    "rdn": {m: {"{0}{1}": LOG2, "{0}": 0.0, "{1}": 0.0, "{01}": 0.0} for m in ("mmi", "broja")},
}


def _gate_sampler(gate: str):
    def sampler(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        a = rng.integers(0, 2, size=(n, 1))
        b = a.copy() if gate == "rdn" else rng.integers(0, 2, size=(n, 1))
        t = {"xor": a ^ b, "and": a & b, "copy": 2 * a + b, "rdn": a.copy()}[gate]
        return {"s1": a, "s2": b, "target": t}

    return sampler


def gate_pid_task(gate: str, measure: str, atom: str) -> Task:
    """One PID atom of a logic gate on fair bits (roles ``s1``, ``s2``, ``target``)."""
    return Task(
        name=f"pid-{gate}-{measure}-{_ATOM_NAME[atom]}",
        quantity="pid_atom",
        sampler=_gate_sampler(gate),
        truth=GATE_PID[gate][measure][atom],
        dims=(1, 1, 1),
        family=f"pid-gates-{measure}",
        tags=frozenset({"pid"}),
        discrete=True,
        description=f"{measure.upper()} PID of the {gate.upper()} gate, atom {atom}",
        params={"measure": measure, "atom": atom},
    )


def gaussian_pid_atoms(cov: np.ndarray) -> dict[str, float]:
    """MMI PID atoms (nats) of Gaussian scalar sources (coordinates 0, 1) and target (2).

    Examples
    --------
    >>> import numpy as np
    >>> a = gaussian_pid_atoms(np.array([[1, 0, .5], [0, 1, .5], [.5, .5, 1]]))
    >>> round(a["{0}"], 12), round(a["{1}"], 12)
    (0.0, 0.0)
    """
    c = np.asarray(cov, dtype=np.float64)
    i1 = gaussian_mutual_info(c[np.ix_([0, 2], [0, 2])], 1)
    i2 = gaussian_mutual_info(c[np.ix_([1, 2], [1, 2])], 1)
    i12 = gaussian_mutual_info(c, 2)
    red = min(i1, i2)
    return {"{0}{1}": red, "{0}": i1 - red, "{1}": i2 - red, "{01}": i12 - max(i1, i2)}


def gaussian_pid_task(name: str, cov: np.ndarray, measure: str, atom: str, what: str) -> Task:
    """One Gaussian PID atom (MMI, or BROJA, equal to MMI for a scalar target)."""
    c = np.asarray(cov, dtype=np.float64)
    return Task(
        name=f"{name}-{measure}-{_ATOM_NAME[atom]}",
        quantity="pid_atom",
        sampler=_gauss_sampler(c, ("s1", "s2", "target")),
        truth=gaussian_pid_atoms(c)[atom],
        dims=(1, 1, 1),
        family="pid-gauss",
        tags=frozenset({"pid"}),
        description=f"Gaussian {measure.upper()} PID ({what}), atom {atom}",
        extra={"cov": c.tolist()},
        params={"measure": measure, "atom": atom},
    )


def _register() -> None:
    redundant = np.full((3, 3), 0.6) + 0.4 * np.eye(3)  # a shared latent: O > 0
    # x3 = x1 + x2 + noise with independent x1, x2: synergy, O < 0
    synergistic = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0], [1.0, 1.0, 2.5]])
    for q in QUANTITIES:
        register_task(gaussian_multivariate_task("gauss3-redundant", redundant, q, "shared latent"))
        register_task(
            gaussian_multivariate_task("gauss3-synergistic", synergistic, q, "x3 = x1 + x2 + e")
        )
        register_task(gate_multivariate_task("xor", q))
        register_task(gate_multivariate_task("copy", q))
        register_task(gate_multivariate_task("xor", q, eps=0.1))
    for gate, atoms in (
        ("xor", ("{01}", "{0}{1}")),
        ("and", ("{0}{1}", "{01}")),
        ("copy", ("{0}{1}", "{0}", "{01}")),
        ("rdn", ("{0}{1}",)),
    ):
        for measure in ("mmi", "broja"):
            for atom in atoms:
                register_task(gate_pid_task(gate, measure, atom))
    # sources with correlation 0.3 driving a scalar target of unequal weights
    s = np.array([[1.0, 0.3], [0.3, 1.0]])
    w = np.array([0.8, 0.4])
    cov = np.zeros((3, 3))
    cov[:2, :2] = s
    cov[:2, 2] = cov[2, :2] = s @ w
    cov[2, 2] = w @ s @ w + 0.5
    what = "T = .8 S1 + .4 S2 + e"
    for measure in ("mmi", "broja"):
        for atom in ("{0}{1}", "{0}", "{01}"):
            register_task(gaussian_pid_task("pid-gauss", cov, measure, atom, what))


_register()
