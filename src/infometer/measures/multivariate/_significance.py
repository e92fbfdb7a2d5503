"""Permutation test of a multivariate quantity against mutual independence:
``im.multivariate_test(X, measure="o_information", n_permutations=199)``.

Null: the variables (columns, or column groups) are mutually independent.  Each
permuted data set permutes every variable's rows independently (or in blocks of
``block`` rows for serial data), which keeps the marginals and destroys every dependence;
the statistic is recomputed by the same registered estimator with the same parameters.
p-value ``(1 + #{null at least as extreme}) / (1 + B)`` (Phipson & Smyth 2010), as
:func:`infometer.independence_test`.  "At least as extreme" is ``≥`` for the
non-negative quantities (TC, DTC, S-information: dependence only raises them) and
``|null| ≥ |statistic|`` for the signed ones (O-, co-information, gradient
O-information: redundancy and synergy both move them away from 0).
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from infometer.core import registry
from infometer.core.api import run
from infometer.core.estimate import _fmt, resolve_unit, unit_factor
from infometer.core.plot import finish, new_axes
from infometer.core.progress import check_progress
from infometer.core.seeding import Seed, as_generator, resolve_seed
from infometer.core.validation import (
    Flag,
    Interval,
    Options,
    Size,
    check_choice,
    check_int,
    validate_params,
)
from infometer.measures.stats import nulls
from infometer.measures.stats._independence import IndependenceTest
from infometer.measures.stats.nulls import MAX_PERMUTATIONS

from ._measures import split_variables
from ._terms import check_count

__all__ = ["multivariate_test", "MultivariateTest", "TEST_MEASURES"]

#: measure name -> registered quantity
TEST_MEASURES = {
    "total_correlation": "total_correlation",
    "dual_total_correlation": "dual_total_correlation",
    "o_information": "o_information",
    "s_information": "s_information",
    "co_information": "co_information",
    "gradient_o_information": "o_information_gradient",
    "o_information_gradient": "o_information_gradient",
}
_NONNEGATIVE = ("total_correlation", "dual_total_correlation", "s_information")
ALTERNATIVES = ("auto", "two-sided", "greater", "less")


@dataclass(frozen=True, eq=False)
class MultivariateTest(IndependenceTest):
    """Result of :func:`multivariate_test` (an :class:`IndependenceTest`, so
    :func:`infometer.multipletests` takes it, ``"maxstat"`` included).

    Attributes
    ----------
    statistic, p_value, n_permutations, scheme, null
        As :class:`IndependenceTest`; ``null`` holds the signed null values.
    alternative
        ``"greater"``, ``"less"`` or ``"two-sided"`` (``|null| ≥ |statistic|``).
    """

    alternative: str = "greater"

    def to_frame(self):
        """One-row tidy DataFrame: quantity, value, unit, method, n, p_value, ..."""
        import pandas as pd

        s, ns = self.statistic, self.null_summary
        return pd.DataFrame(
            [
                {
                    "quantity": s.quantity,
                    "value": s.value,
                    "unit": s.unit,
                    "method": s.method,
                    "n": s.n,
                    "p_value": self.p_value,
                    "alternative": self.alternative,
                    "n_permutations": self.n_permutations,
                    "scheme": self.scheme,
                    "null_mean": ns["mean"],
                    "null_sd": ns["sd"],
                }
            ]
        )

    def plot(self, ax=None, path=None):
        """Histogram of the permutation null with the observed statistic (and, for a
        two-sided test, its mirror image: the other edge of "as extreme")."""
        _, ax = new_axes(ax)
        s = self.statistic
        null = self.null
        ax.hist(null, bins=min(50, max(10, self.n_permutations // 10)), color="0.6")
        lo, hi = float(null.min()), float(null.max())
        pad = 0.15 * max(hi - lo, 1e-300)
        marks = [(s.value, "-", 2.0, f"observed {s.value:.3g} {s.unit}")]
        if self.alternative == "two-sided" and s.value != 0:
            marks.append((-s.value, "--", 1.0, "mirror image (two-sided)"))
        far = [v for v, *_ in marks if not lo - 3 * pad <= v <= hi + 3 * pad]
        if far:  # the null would be a sliver: zoom on it, point at what lies outside
            ax.set_xlim(lo - 3 * pad, hi + 3 * pad)
        sd = float(np.std(null, ddof=1)) if null.size > 1 else 0.0
        for k, (v, ls, lw, label) in enumerate(marks):
            if v in far:
                edge = hi + 3 * pad if v > hi else lo - 3 * pad
                far_by = f"{abs(v - null.mean()) / sd:.0f} null sd away" if sd > 0 else "off scale"
                ax.annotate(
                    f"{label}: {far_by}",
                    xy=(edge, 0.8 - 0.15 * k),
                    xycoords=("data", "axes fraction"),
                    xytext=(-25 if v > hi else 25, 0),
                    textcoords="offset points",
                    ha="right" if v > hi else "left",
                    va="center",
                    fontsize=8,
                    color="tab:red",
                    arrowprops={"arrowstyle": "->", "color": "tab:red"},
                )
            else:
                ax.axvline(v, color="tab:red", lw=lw, ls=ls, label=label)
        ax.set_xlabel(f"{s.quantity} ({s.unit}) under mutual independence")
        ax.set_ylabel("permuted data sets")
        ax.set_title(
            f"{s.quantity} [{s.method}, n={s.n}]: p = {self.p_value:.3g} ({self.alternative}, "
            f"B = {self.n_permutations})",
            fontsize=10,
        )
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=8)
        return finish(ax, path)

    def __repr__(self) -> str:
        s = self.statistic
        ns = self.null_summary
        return (
            f"MultivariateTest({s.quantity} = {_fmt(s.value)} {s.unit} [{s.method}, "
            f"n={s.n}], p = {self.p_value:.4g} ({self.alternative}); "
            f"{self.n_permutations} × {self.scheme}; null mean {_fmt(ns['mean'])} ± "
            f"{_fmt(ns['sd'])})"
        )

    __str__ = __repr__


def scheme_name(block: int | None) -> str:
    """How the permuted data sets were made, in words."""
    base = "each variable permuted independently"
    return base if block is None else f"{base} in blocks of {block} rows"


@validate_params(
    {
        "measure": [Options(*TEST_MEASURES)],
        "n_permutations": [Size(1, limit=MAX_PERMUTATIONS, what="permutations")],
        "alternative": [Options(*ALTERNATIVES)],
        "block": [Interval(numbers.Integral, 1), None],
        "discrete": [Flag(), None],
        "progress": [Flag(), None],
    }
)
def multivariate_test(
    X: Any,
    *,
    measure: str = "o_information",
    method: str = "auto",
    n_permutations: int = 199,
    alternative: str = "auto",
    block: int | None = None,
    groups: Sequence[Sequence[int | str]] | None = None,
    unit: str | None = "nats",
    base: float | None = None,
    seed: Seed = 0,
    discrete: bool | None = None,
    progress: bool | None = None,
    **params: Any,
) -> MultivariateTest:
    """Permutation test of a multivariate quantity against mutual independence.

    Parameters
    ----------
    X
        Samples in rows: a table (one column per variable unless ``groups`` says
        otherwise) or a dict ``{name: samples}``, as :func:`infometer.o_information`.
    measure
        ``o_information`` (default), ``total_correlation``, ``dual_total_correlation``,
        ``s_information``, ``co_information`` or ``gradient_o_information`` (pass
        ``index=`` for the variable).
    method
        Any estimator of the quantity (``"auto"`` as :func:`infometer.o_information`).
    n_permutations
        Number of permuted data sets B; the smallest reachable p-value is 1/(B+1).
    alternative
        ``"auto"``: ``"greater"`` for TC, DTC and S-information, ``"two-sided"``
        (``|null| ≥ |statistic|``) for the signed quantities; or ``"less"`` (e.g. "is
        Ω more synergistic than under independence").
    block
        Serial data: permute blocks of ``block`` consecutive rows of each variable
        (keeps each variable's autocorrelation within blocks), as
        :func:`infometer.independence_test`.
    groups, unit, base, discrete
        As :func:`infometer.o_information`; ``seed`` drives the permutations (and the
        estimator, if it is random): same seed, same p-value.
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).
    progress
        Progress bar; ``None``: shown when the run is expected to take over 5 s.
    **params
        The estimator's own parameters (``k``, ``bias_correct``, ``index``...).

    Returns
    -------
    MultivariateTest

    Examples
    --------
    >>> import numpy as np, infometer as im
    >>> rng = np.random.default_rng(0)
    >>> x = rng.integers(0, 2, size=(200, 2)); x = np.column_stack([x, x[:, 0] ^ x[:, 1]])
    >>> t = im.multivariate_test(x, measure="o_information", n_permutations=99)
    >>> t.statistic.value < 0, t.p_value  # XOR: synergy, far outside the null
    (True, 0.01)
    """
    measure = check_choice(measure, "measure", tuple(TEST_MEASURES))
    quantity = TEST_MEASURES[measure]
    n_permutations = nulls.check_n_permutations(n_permutations)
    alternative = check_choice(alternative, "alternative", ALTERNATIVES)
    if alternative == "auto":
        alternative = "greater" if quantity in _NONNEGATIVE else "two-sided"
    if block is not None:
        block = check_int(block, "block", min_value=1)
    progress = check_progress(progress)
    resolve_unit(unit, base)  # bad units fail before any work
    variables = split_variables(X, groups=groups, discrete=discrete)
    check_count(quantity, len(variables))
    seed = resolve_seed(seed)  # one root for the statistic, the permutations and the null
    stat = run(quantity, variables, method=method, unit="nats", seed=seed, params=params)
    spec = registry.get(quantity, stat.method)
    run_params = {p: v for p, v in stat.params.items() if p in spec.params}
    vs = list(variables.values())
    n = vs[0].n
    if block is not None and block >= n:
        raise ValueError(f"block={block} must be smaller than the {n} rows of X")
    rng = as_generator(seed)

    def one(b: int, params: dict[str, Any]) -> float:
        orders = nulls.independent_orders(rng, n, len(vs), block)
        perm = [v.select(o) for v, o in zip(vs, orders, strict=True)]
        return spec.func(*perm, **params).value

    null = nulls.permutation_null(
        one, n_permutations, run_params, seed, f"{measure} permutations", progress, measure
    )
    p = nulls.p_value(stat.value, null, alternative)
    out = stat.to(resolve_unit(unit, base))
    f = unit_factor("nats", out.unit)
    return MultivariateTest(
        statistic=out,
        p_value=p,
        n_permutations=n_permutations,
        scheme=scheme_name(block),
        null=null * f,
        alternative=alternative,
    )
