"""Public functions: total correlation, dual total correlation, O-, S- and co-information,
gradient O-information, each from a table of samples (one column, or column group, per
variable) through the registry, so that ``ci=`` uses the shared resampling."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from infometer.core.api import run
from infometer.core.data import Variable, as_variable, as_variables, check_int
from infometer.core.estimate import Estimate
from infometer.core.plot import finish, new_axes
from infometer.core.results import Result
from infometer.core.seeding import Seed, resolve_seed

from ._estimators import MAX_KNN_WORK, check_knn_work, knn_work
from ._terms import check_count

__all__ = [
    "split_variables",
    "total_correlation",
    "dual_total_correlation",
    "o_information",
    "s_information",
    "co_information",
    "gradient_o_information",
    "GradientOInformation",
]


def _sub(v: Variable, cols: Sequence[int], name: str) -> Variable:
    return Variable(
        columns=tuple(v.columns[j] for j in cols),
        kinds=tuple(v.kinds[j] for j in cols),
        cardinalities=tuple(v.cardinalities[j] for j in cols),
        name=name,
        labels=None if v.labels is None else tuple(v.labels[j] for j in cols),
        diagnostics={},
        symbols=None if v.symbols is None else tuple(v.symbols[j] for j in cols),
    )


#: Fewest rows any multivariate measure reads: on one row every column is constant, so
#: every quantity would be 0 whatever the variables (the methods have their own, larger
#: minimums: d + 2 rows for the Gaussian ones on d columns, k + 2 for kNN).
MIN_ROWS = 2


def _check_rows(n: int, name: str) -> None:
    if n < MIN_ROWS:
        raise ValueError(
            f"{name} has {n} row{'s' if n != 1 else ''}: on one row every column is constant, "
            f"so no dependence can be measured; the multivariate measures need at least {MIN_ROWS} "
            "rows (the Gaussian methods d + 2 for d columns, kNN k + 2)"
        )


def split_variables(
    X: Any,
    *,
    groups: Sequence[Sequence[int | str]] | None = None,
    discrete: bool | None = None,
    name: str = "X",
) -> dict[str, Variable]:
    """Validate the table ``X`` once and split it into one :class:`Variable` per variable.

    Parameters
    ----------
    X
        Samples in rows; a 2-D array, a pandas/polars DataFrame, or a dict
        ``{name: samples}`` (each value one variable, possibly with several columns).
    groups
        Columns of each variable (indices or, for a DataFrame, labels); default: every
        column is its own variable.  Every column must be in at most one group.
    discrete
        As in :func:`infometer.entropy`.
    name
        The argument's name in the caller's signature, for error messages.

    Returns
    -------
    dict
        Variable name -> Variable, in order.

    Examples
    --------
    >>> import numpy as np
    >>> vs = split_variables(np.zeros((5, 3), int) + np.arange(3), groups=[[0, 1], [2]])
    >>> [v.d for v in vs.values()]
    [2, 1]
    """
    if isinstance(X, dict):
        if groups is not None:
            raise ValueError("groups is for a table X; a dict X already names each variable")
        if not X:
            raise ValueError(
                f"{name} is an empty dict: pass one entry (name: samples) per variable"
            )

        vs = as_variables({str(k): v for k, v in X.items()}, discrete=discrete)
        _check_rows(next(iter(vs.values())).n, name)
        return vs
    v = as_variable(X, name, discrete=discrete)
    _check_rows(v.n, name)
    if v.d == 1:
        raise ValueError(
            f"{name} has one column; pass a table with one column (or column group) per variable"
        )
    labels = v.labels
    if groups is None:
        cols = [[j] for j in range(v.d)]
    else:
        if isinstance(groups, str | bytes) or not isinstance(groups, Sequence):
            raise TypeError(f"groups must be a list of column lists, got {type(groups).__name__}")
        cols = []
        for g in groups:
            if isinstance(g, str | int | np.integer):
                g = [g]
            idx = []
            for c in g:
                if isinstance(c, str):
                    if labels is None or c not in labels:
                        raise ValueError(f"groups names column {c!r}, which X does not have")
                    idx.append(labels.index(c))
                else:
                    j = check_int(c, "groups")
                    if not -v.d <= j < v.d:
                        raise ValueError(f"groups names column {j}, but X has {v.d} columns")
                    idx.append(j % v.d)
            if not idx:
                raise ValueError("groups has an empty group")
            cols.append(idx)
        flat = [j for g in cols for j in g]
        if len(set(flat)) != len(flat):
            raise ValueError("groups must not share columns (each column in one variable)")
    out = {}
    for i, g in enumerate(cols):
        if labels is not None:
            name = "+".join(str(labels[j]) for j in g)
        else:
            name = f"x{g[0]}" if len(g) == 1 else f"x{i}"
        if name in out:
            name = f"{name}_{i}"
        out[name] = _sub(v, g, name)
    out = {k: Variable(**{**w.__dict__, "diagnostics": {}}) for k, w in out.items()}
    flagged = set(v.diagnostics.get("few_distinct_float_columns") or [])
    for w, g in zip(out.values(), cols, strict=True):  # floats with few distinct values
        few = [i for i, j in enumerate(g) if j in flagged]
        if few:
            w.diagnostics["few_distinct_float_columns"] = few
        if "discrete_override" in v.diagnostics:
            w.diagnostics["discrete_override"] = v.diagnostics["discrete_override"]
    return out


def _run(
    quantity: str,
    X: Any,
    groups,
    method: str,
    unit,
    base,
    ci,
    seed,
    discrete,
    params: dict,
) -> Estimate:

    variables = split_variables(X, groups=groups, discrete=discrete)
    check_count(quantity, len(variables))
    return run(
        quantity, variables, method=method, unit=unit, base=base, ci=ci, seed=seed, params=params
    )


_DOC = """
    Parameters
    ----------
    X
        Samples in rows: a 2-D array or DataFrame (one column per variable unless
        ``groups`` says otherwise), or a dict ``{name: samples}`` of variables.
    groups
        Columns of each variable (lists of indices or labels); default one per column.
    method
        ``"auto"`` (discrete: Miller-Madow or NSB entropies by the samples per joint
        symbol; continuous: ``"gaussian_copula"``), a discrete entropy method
        (``plugin``, ``miller_madow``, ``chao_shen``, ``grassberger``, ``shrinkage``,
        ``nsb``), ``"gaussian"``, ``"gaussian_copula"`` or ``"ksg"``.
    unit, base
        Unit of the result (default nats).
    ci
        Confidence level of an interval (the shared resampling); ``None``: none.
    seed
        Seed for jitter and resampling. An int >= 0 (the same int gives the same numbers), a
        numpy.random.Generator (drawn from as it is) or None (fresh entropy from the operating
        system).
    discrete
        ``True``: every column is symbols; ``False``: numbers; ``None``: by dtype.
    **params
        The estimator's own parameters (``bias_correct``, ``k``, ``alphabet_size``...).

    Returns
    -------
    Estimate
"""


def _public(quantity: str, formula: str, example: str) -> Callable[..., Estimate]:
    def f(
        X: Any,
        *,
        groups: Sequence[Sequence[int | str]] | None = None,
        method: str = "auto",
        unit: str | None = "nats",
        base: float | None = None,
        ci: float | None = None,
        seed: Seed = 0,
        discrete: bool | None = None,
        **params: Any,
    ) -> Estimate:
        return _run(quantity, X, groups, method, unit, base, ci, seed, discrete, params)

    f.__name__ = f.__qualname__ = quantity
    f.__doc__ = formula + "\n" + _DOC + "\n    Examples\n    --------\n" + example
    return f


_XOR = """    >>> import numpy as np, infometer as im
    >>> x = np.array([[0, 0, 0], [0, 1, 1], [1, 0, 1], [1, 1, 0]] * 4)  # z = x xor y
"""

total_correlation = _public(
    "total_correlation",
    """Total correlation (multi-information) ``TC = Σ_i H(X_i) - H(X_1..X_n)`` (Watanabe
    1960): the KL divergence from the product of the marginals, >= 0.""",
    _XOR
    + """    >>> round(im.total_correlation(x, method="plugin", unit="bits").value, 6)
    1.0
""",
)
dual_total_correlation = _public(
    "dual_total_correlation",
    """Dual total correlation (binding information)
    ``DTC = H(X) - Σ_i H(X_i | X_{-i}) = Σ_i H(X_{-i}) - (n - 1) H(X)`` (Han 1978), >= 0.""",
    _XOR
    + """    >>> round(im.dual_total_correlation(x, method="plugin", unit="bits").value, 6)
    2.0
""",
)
o_information = _public(
    "o_information",
    """O-information ``Ω = TC - DTC`` (Rosas et al. 2019): > 0 redundancy-dominated,
    < 0 synergy-dominated; needs at least 3 variables (Ω = 0 for two).""",
    _XOR
    + """    >>> round(im.o_information(x, method="plugin", unit="bits").value, 6)
    -1.0
""",
)
s_information = _public(
    "s_information",
    """S-information ``Σ = TC + DTC = Σ_i I(X_i; X_{-i})`` (Rosas et al. 2019), >= 0.""",
    _XOR
    + """    >>> round(im.s_information(x, method="plugin", unit="bits").value, 6)
    3.0
""",
)
co_information = _public(
    "co_information",
    """Co-information ``I(X_1;...;X_n) = -Σ_{S ≠ ∅} (-1)^{|S|} H(X_S)`` (Bell 2003).

    Sign convention: ``I(X;Y;Z) = I(X;Y) - I(X;Y|Z)``, positive for redundancy (three
    copies of a bit: +1 bit) and negative for synergy (XOR: -1 bit).  McGill's
    interaction information as used by Jakulin & Bratko has the opposite sign for odd n.""",
    _XOR
    + """    >>> round(im.co_information(x, method="plugin", unit="bits").value, 6)
    -1.0
""",
)


@dataclass(frozen=True, eq=False, repr=False)
class GradientOInformation(Result):
    """Each variable's contribution ``∂_i Ω = Ω(X) - Ω(X_{-i})`` (Scagliarini et al. 2023).

    Attributes
    ----------
    names
        Variable names, in order.
    estimates
        One :class:`Estimate` per variable.
    """

    names: tuple[str, ...]
    estimates: tuple[Estimate, ...]

    def to_frame(self):
        """Tidy DataFrame: variable, value, unit, stderr, ci_low, ci_high, method."""
        import pandas as pd

        return pd.DataFrame(
            [
                {
                    "variable": nm,
                    "value": e.value,
                    "unit": e.unit,
                    "stderr": e.stderr,
                    "ci_low": None if e.ci is None else e.ci[0],
                    "ci_high": None if e.ci is None else e.ci[1],
                    "method": e.method,
                }
                for nm, e in zip(self.names, self.estimates, strict=True)
            ]
        )

    def plot(self, ax=None, path=None):
        """Bar chart of the contributions (red: synergy, blue: redundancy)."""
        _, ax = new_axes(ax)
        vals = np.array([e.value for e in self.estimates])
        colors = np.where(vals < 0, "tab:red", "tab:blue")
        ax.bar(range(len(vals)), vals, color=colors)
        if all(e.ci is not None for e in self.estimates):
            lo = vals - np.array([e.ci[0] for e in self.estimates])
            hi = np.array([e.ci[1] for e in self.estimates]) - vals
            ax.errorbar(range(len(vals)), vals, yerr=[lo, hi], fmt="none", color="k")
        ax.axhline(0, color="k", lw=0.8)
        ax.set_xticks(range(len(vals)), self.names, rotation=45, ha="right")
        unit = self.estimates[0].unit if self.estimates else "nats"
        ax.set_ylabel(f"gradient O-information ({unit})")
        ax.set_title("Ω(X) - Ω(X without variable): < 0 synergy, > 0 redundancy")
        return finish(ax, path)


def gradient_o_information(
    X: Any,
    *,
    groups: Sequence[Sequence[int | str]] | None = None,
    method: str = "auto",
    unit: str | None = "nats",
    base: float | None = None,
    ci: float | None = None,
    seed: Seed = 0,
    discrete: bool | None = None,
    **params: Any,
) -> GradientOInformation:
    """Gradient O-information: each variable's contribution ``Ω(X) - Ω(X_{-i})``.

    Scagliarini, Marinazzo, Guo, Stramaglia & Rosas (2023).  Negative: the variable
    joins the others synergistically; positive: redundantly.

    Parameters
    ----------
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).
    """
    variables = split_variables(X, groups=groups, discrete=discrete)
    check_count("o_information_gradient", len(variables))
    if "index" in params:
        raise TypeError("index is chosen by gradient_o_information itself (one per variable)")
    if method == "ksg":  # d estimates: their work together, before the first one runs
        dims = [v.d for v in variables.values()]
        n = next(iter(variables.values())).n
        work = len(dims) * knn_work("o_information_gradient", dims, n)
        check_knn_work(
            work, params.get("max_work", MAX_KNN_WORK), f" ({len(dims)} O-information pairs)"
        )
    seed = resolve_seed(seed)  # every variable's gradient from the same root
    out = []
    for i in range(len(variables)):
        out.append(
            run(
                "o_information_gradient",
                variables,
                method=method,
                unit=unit,
                base=base,
                ci=ci,
                seed=seed,
                params={**params, "index": i},
            )
        )
    return GradientOInformation(names=tuple(variables), estimates=tuple(out))


gradient_o_information.__doc__ = (
    (gradient_o_information.__doc__ or "")
    + _DOC.replace(
        "    Returns\n    -------\n    Estimate\n",
        "    Returns\n    -------\n    GradientOInformation\n",
    )
    + (
        "\n    Examples\n    --------\n"
        + _XOR
        + """    >>> g = im.gradient_o_information(x, method="plugin", unit="bits")
    >>> [round(e.value, 6) for e in g.estimates]
    [-1.0, -1.0, -1.0]
"""
    )
)
