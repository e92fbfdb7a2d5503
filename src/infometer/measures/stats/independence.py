"""Permutation tests of independence (MI) and conditional independence (CMI).

* X ⟂ Y: the rows of x are permuted (all of them, or whole blocks of ``block`` rows
  for time series, which keeps the autocorrelation inside each block).
* X ⟂ Y | Z, Z discrete: x is permuted within each stratum of Z (an exact
  conditional permutation).
* X ⟂ Y | Z, Z continuous or mixed: local conditional permutation (Runge 2018): each
  row takes the x of one of the ``n_neighbors`` nearest rows in Z (max-norm on
  rank-standardised columns), drawn so that rows are reused as little as possible.
  This keeps the X–Z dependence that a plain permutation would destroy, so the null
  is right even when Z strongly drives both X and Y.

The p-value is ``(1 + #{null ≥ observed}) / (1 + B)`` (Phipson & Smyth 2010), never 0.

References
----------
* Runge (2018), AISTATS, "Conditional independence testing based on a nearest-neighbor
  estimator of conditional mutual information".
* Phipson & Smyth (2010), Stat. Appl. Genet. Mol. Biol. 9:39.
* Benjamini & Hochberg (1995), JRSS B 57:289; Westfall & Young (1993), *Resampling-Based
  Multiple Testing* (max-statistic); Holm (1979), Scand. J. Stat. 6:65.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from infometer.core import registry
from infometer.core.data import as_variables, check_float, check_int
from infometer.core.estimate import Estimate, _fmt, unit_factor
from infometer.core.results import Result
from infometer.core.seeding import Seed, as_generator, resolve_seed
from infometer.measures.stats import nulls

__all__ = ["IndependenceTest", "independence_test"]


@dataclass(frozen=True, eq=False)
class IndependenceTest(Result):
    """Result of :func:`independence_test`.

    Attributes
    ----------
    statistic
        The MI / CMI estimate on the data (an :class:`Estimate`).
    p_value
        ``(1 + #{null ≥ statistic}) / (1 + n_permutations)``.
    n_permutations
        Number of permuted data sets B.
    scheme
        How the null data were made (e.g. ``"local conditional permutation, k=5"``).
    null
        The statistic on each permuted data set, in ``statistic.unit``.
    """

    statistic: Estimate
    p_value: float
    n_permutations: int
    scheme: str
    null: np.ndarray = field(repr=False)

    @property
    def method(self) -> str:
        """Estimator that computed the statistic."""
        return self.statistic.method

    @property
    def null_summary(self) -> dict[str, float]:
        """Mean, sd and upper quantiles of the null distribution (statistic's unit)."""
        q = np.quantile(self.null, [0.5, 0.95, 0.99])
        return {
            "mean": float(np.mean(self.null)),
            "sd": float(np.std(self.null, ddof=1)),
            "median": float(q[0]),
            "q95": float(q[1]),
            "q99": float(q[2]),
        }

    def rejects(self, alpha: float = 0.05) -> bool:
        """Whether independence is rejected at level ``alpha``."""
        return self.p_value <= check_float(alpha, "alpha", low=0.0, high=1.0)

    def _dict_fields(self) -> dict[str, Any]:
        """``to_dict``'s fields: the null values are summarised, not listed."""
        out = {k: v for k, v in self._fields().items() if k != "null"}
        out["null_summary"] = self.null_summary
        return out

    def __repr__(self) -> str:
        s = self.statistic
        q = "I(x;y|z)" if s.quantity == "cond_mutual_info" else "I(x;y)"
        ns = self.null_summary
        return (
            f"IndependenceTest({q} = {_fmt(s.value)} {s.unit} [{s.method}, n={s.n}], "
            f"p = {self.p_value:.4g}; {self.n_permutations} × {self.scheme}; null mean "
            f"{_fmt(ns['mean'])} ± {_fmt(ns['sd'])}, 95% quantile {_fmt(ns['q95'])})"
        )

    __str__ = __repr__


def independence_test(
    x: Any,
    y: Any,
    z: Any = None,
    *,
    method: str = "auto",
    n_permutations: int = 199,
    seed: Seed = 0,
    unit: str = "nats",
    discrete: bool | None = None,
    block: int | None = None,
    n_neighbors: int = 5,
    progress: bool | None = None,
    **params: Any,
) -> IndependenceTest:
    """Permutation test of X ⟂ Y (MI) or X ⟂ Y | Z (CMI) with any registered estimator.

    Parameters
    ----------
    x, y, z
        Paired samples; ``z`` (optional) is conditioned on.
    method
        MI / CMI estimator (``"auto"`` picks as :func:`infometer.mutual_info` does).
    n_permutations
        Number of permuted data sets B; the smallest reachable p-value is 1/(B+1).
    seed
        Seed of the permutations (and of the estimator, if it is random). The same seed and n give
        the same permutations of x, which :func:`multipletests`'s ``"maxstat"`` needs for exact
        family-wise control. An int >= 0 (the same int gives the same numbers), a
        numpy.random.Generator (drawn from as it is) or None (fresh entropy from the operating
        system).
    unit
        Unit of the statistic and the null values.
    discrete
        As for :func:`infometer.mutual_info`.
    block
        Time series: permute blocks of ``block`` consecutive rows of x instead of single
        rows (unconditional test only).
    n_neighbors
        Size of the Z-neighbourhoods of the local conditional permutation (Runge 2018
        suggests 5–10; small values keep X–Z dependence best).
    progress
        Show a progress bar; ``None`` shows one when the run is expected to take over
        5 seconds and stderr is a terminal.
    **params
        The estimator's own parameters.

    Returns
    -------
    IndependenceTest
    """
    n_permutations = nulls.check_n_permutations(n_permutations)
    n_neighbors = check_int(n_neighbors, "n_neighbors", min_value=2)
    if block is not None:
        block = check_int(block, "block", min_value=1)
        if z is not None:
            raise ValueError(
                "block permutation is for the unconditional test; pass z=None or block=None"
            )
    if progress is not None and not isinstance(progress, bool):
        raise TypeError(f"progress must be True, False or None, got {progress!r}")
    seed = resolve_seed(seed)  # one root for the statistic, the permutations and the null
    from infometer.core.api import run

    data = {"x": x, "y": y} if z is None else {"x": x, "y": y, "z": z}
    variables = as_variables(data, discrete=discrete)
    quantity = "mutual_info" if z is None else "cond_mutual_info"
    stat = run(quantity, variables, method=method, unit="nats", seed=seed, params=params)
    spec = registry.get(quantity, stat.method)
    run_params = {p: v for p, v in stat.params.items() if p in spec.params}
    xv = variables["x"]
    n = xv.n
    rng = as_generator(seed)

    if z is None:
        scheme = "permutation" if block is None else f"block permutation, block={block}"

        def draw() -> np.ndarray:
            return (
                nulls.permutation(rng, n)
                if block is None
                else nulls.block_permutation(rng, n, block)
            )
    else:
        draw_z, scheme = nulls.conditional_sampler(variables["z"], n_neighbors)

        def draw() -> np.ndarray:
            return draw_z(rng)

    rest = [v for name, v in variables.items() if name != "x"]

    def one(b: int, params: dict[str, Any]) -> float:
        return spec.func(xv.select(draw()), *rest, **params).value

    null = nulls.permutation_null(one, n_permutations, run_params, seed, "permutations", progress)
    p = nulls.p_value(stat.value, null)
    f = unit_factor("nats", stat.to(unit).unit)
    return IndependenceTest(
        statistic=stat.to(unit),
        p_value=float(p),
        n_permutations=n_permutations,
        scheme=scheme,
        null=null * f,
    )
