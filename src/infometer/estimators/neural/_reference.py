"""The reference data set of a neural bound's bias check (no torch).

A critic trained on a few hundred rows can be far off, in either direction: a held-out
bound of an over-fitted critic falls below the truth, spurious structure lifts it.  The
check trains the same estimator, with the same settings and on as many rows, on a
reference whose MI is known, and reports ``estimate on the reference − its MI``:

* ``"gaussian_reference"`` (every column continuous, a non-singular correlation
  matrix): ``n`` rows drawn from the Gaussian with the correlation matrix of the user's
  columns, whose MI (CMI) is the closed form ``½ log det`` of that matrix.  It has the
  user's size, dimensions and linear dependence, so it shows the bias at the user's
  level of MI (an under-estimate of 1 nat at ``n = 300`` as well as noise around 0).
* ``"shuffled_pairs"`` (otherwise: discrete or mixed columns, singular correlation,
  e.g. a deterministic layer ``T = f(X)``): the user's rows with ``y`` permuted, whose
  MI (and CMI given ``z``) is 0.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from infometer.core.data import Variable, as_variables, scaled_moments
from infometer.core.seeding import derive

__all__ = ["REFERENCES", "reference_data"]

REFERENCES = ("gaussian_reference", "shuffled_pairs")
#: Smallest eigenvalue of the correlation matrix, relative to the largest, for the
#: Gaussian reference (below it the matrix is treated as singular: MI unbounded).
_MIN_EIGEN = 1e-8


def _words(kind: str) -> str:
    if kind == "gaussian_reference":
        return "a Gaussian sample with the same rows, columns and correlation matrix"
    return "the same rows with y shuffled"


def reference_data(
    variables: dict[str, Variable], seed: int
) -> tuple[str, dict[str, Variable], float, str]:
    """``(method, reference variables, their exact MI in nats, the reference in words)``.

    Examples
    --------
    >>> import numpy as np
    >>> from infometer.core.data import as_variables
    >>> rng = np.random.default_rng(0)
    >>> v = as_variables({"x": rng.normal(size=(500, 2)), "y": rng.normal(size=(500, 1))})
    >>> kind, ref, truth, _ = reference_data(v, seed=1)
    >>> kind, ref["x"].n, 0 <= truth < 0.02
    ('gaussian_reference', 500, True)
    """
    roles = list(variables)
    n = variables[roles[0]].n
    rng = derive(int(seed), 0x5EED)  # the reference data: its own stream of the call's seed
    if all(k == "continuous" for v in variables.values() for k in v.kinds):
        cols = np.column_stack([v.values for v in variables.values()])
        corr = _correlation(cols)
        if corr is not None:
            dims = [variables[r].d for r in roles]
            sample = rng.multivariate_normal(np.zeros(len(corr)), corr, size=n, method="cholesky")
            parts = np.split(sample, np.cumsum(dims)[:-1], axis=1)
            ref = as_variables(dict(zip(roles, parts, strict=True)), discrete=False)
            truth = _gaussian_truth(corr, dims)
            return "gaussian_reference", ref, truth, _words("gaussian_reference")
    perm = rng.permutation(n)
    ref = {r: (v.select(perm) if r == "y" else v) for r, v in variables.items()}
    return "shuffled_pairs", ref, 0.0, _words("shuffled_pairs")


def _correlation(cols: np.ndarray) -> np.ndarray | None:
    """The correlation matrix of the columns, or None when it is (nearly) singular."""
    n, d = cols.shape
    if n <= d + 1:
        return None
    scale, mean, sd = scaled_moments(cols)
    if not np.all(sd > 0):
        return None
    with np.errstate(under="ignore"):
        z = (cols * scale - mean) / sd
    corr = (z.T @ z) / n
    corr = 0.5 * (corr + corr.T)
    np.fill_diagonal(corr, 1.0)
    eig = np.linalg.eigvalsh(corr)
    if not np.all(np.isfinite(eig)) or eig[0] <= _MIN_EIGEN * eig[-1]:
        return None
    return corr


def _gaussian_truth(corr: np.ndarray, dims: list[int]) -> float:
    """I(X;Y) (two blocks) or I(X;Y|Z) (three) of the Gaussian with correlation ``corr``,
    whose blocks have ``dims`` columns in that order: sums of ``½ log det`` of the blocks
    (the closed forms of ``infometer.measures.truth``, which sits a layer above)."""
    edges = np.cumsum([0, *dims])
    blocks = [np.arange(a, b) for a, b in zip(edges[:-1], edges[1:], strict=True)]

    def half_logdet(*parts: np.ndarray) -> float:
        idx = np.concatenate(parts)
        return 0.5 * float(np.linalg.slogdet(corr[np.ix_(idx, idx)])[1])

    if len(dims) == 2:
        x, y = blocks
        return max(half_logdet(x) + half_logdet(y) - half_logdet(x, y), 0.0)  # no -1e-16
    x, y, z = blocks
    return max(half_logdet(x, z) + half_logdet(y, z) - half_logdet(z) - half_logdet(x, y, z), 0.0)


def describe(kind: str, truth: float, value: float) -> dict[str, Any]:
    """``diagnostics["bias_check_reference"]``: what the check was made on."""
    return {"reference": _words(kind), "true_value": truth, "estimate": value}
