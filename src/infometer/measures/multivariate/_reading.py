"""Which reading ``method="auto"`` gives a table in the functions whose continuous default
is Gaussian or Gaussian-copula (TC, DTC, O-, S-, co-information and its gradient,
``multiplets``, ``pid``, ``pid_pairs``): counts of symbols, or a Gaussian model of numbers.

The one signal is the kind of each :class:`~infometer.core.data.Variable` (integers, booleans,
strings, categoricals: discrete; floats: continuous; ``discrete=`` overrides), with the
flag ``as_variable`` sets on float columns taking few distinct values (the same flag the kNN
family's ``auto`` reads).  A Gaussian model of such columns measures their linear (or rank)
dependence only: on XOR bits it reads 0 where there is 1 bit of synergy.  So:

* every variable discrete: the discrete reading (entropies of counts);
* every variable continuous, no flagged float column: the Gaussian(-copula) reading;
* flagged float columns (unless the caller passed ``discrete=False``, a stated choice) and
  tables mixing discrete and continuous variables: a ``ValueError`` that names the choices
  (``discrete=True``, ``discrete=False`` or an explicit method), never a silent number.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from infometer.core.data import Variable

__all__ = ["flagged_floats", "table_reading", "levels_note"]


def flagged_floats(v: Variable) -> list[int]:
    """Non-constant float columns of ``v`` that take few distinct values (``as_variable``'s
    flag), unless ``discrete=False`` was passed for them."""
    if v.diagnostics.get("discrete_override") is False:
        return []
    few = v.diagnostics.get("few_distinct_float_columns") or []
    return [j for j in few if v.columns[j].min() != v.columns[j].max()]  # constants: no info


def levels_note(v: Variable, cols: list[int]) -> str:
    """``"x0 takes 2 distinct values (0.0, 1.0)"`` for the first flagged column."""
    c = v.columns[cols[0]]
    u = np.unique(c[: min(c.shape[0], 100_000)])
    shown = ", ".join(f"{float(a):g}" for a in u[:5]) + (", ..." if u.size > 5 else "")
    where = v.name if v.d == 1 else f"{v.name} column {cols[0]}"
    return f"{where} takes {u.size} distinct values ({shown})"


def table_reading(
    variables: Mapping[str, Variable], *, what: str, discrete_use: str, continuous_use: str
) -> tuple[str, str]:
    """``("discrete" | "continuous", reason)`` for ``method="auto"``, or a ``ValueError``.

    Parameters
    ----------
    variables
        The validated variables (sources and target alike).
    what
        The function, for messages (``"o_information"``, ``"pid_pairs"``...).
    discrete_use, continuous_use
        What each reading computes, for the reason and the error message, e.g.
        ``"Miller-Madow entropies of the symbols"``, ``"method='gaussian_copula'"``.

    Examples
    --------
    >>> import numpy as np
    >>> from infometer.core.data import as_variable
    >>> v = {"a": as_variable(np.arange(40) % 2, "a"), "b": as_variable(np.arange(40) % 3, "b")}
    >>> table_reading(v, what="f", discrete_use="counts", continuous_use="copula")[0]
    'discrete'
    """
    kinds = {nm: v.kind for nm, v in variables.items()}
    disc = [nm for nm, k in kinds.items() if k == "discrete"]
    cont = [nm for nm, k in kinds.items() if k != "discrete"]
    if not cont:
        return "discrete", f"every variable is discrete (symbols): {discrete_use}"
    mixed = [nm for nm, k in kinds.items() if k == "mixed"]
    if mixed:
        raise ValueError(
            f"{what}: {_names(mixed)} made of discrete and continuous columns; "
            "method='auto' does not mix a count-based and a Gaussian reading in one number: "
            f"pass discrete=True to read every column as symbols ({discrete_use}; bin "
            "continuous columns first), or discrete=False to read every column as numbers "
            f"({continuous_use})"
        )
    if disc:
        raise ValueError(
            f"{what}: {_names(disc)} discrete (integers, booleans, strings or categories) and "
            f"{_names(cont)} continuous; method='auto' does not mix a count-based and a "
            "Gaussian reading in one number: pass discrete=True to read every column as "
            f"symbols ({discrete_use}; bin continuous columns first), or discrete=False to "
            f"read every column as numbers ({continuous_use})"
        )
    flagged = {nm: flagged_floats(v) for nm, v in variables.items()}
    flagged = {nm: c for nm, c in flagged.items() if c}
    if flagged:
        nm, cols = next(iter(flagged.items()))
        raise ValueError(
            f"{what}: {levels_note(variables[nm], cols)}"
            + (f" (and {len(flagged) - 1} more variables)" if len(flagged) > 1 else "")
            + "; a Gaussian reading of such columns sees only their linear dependence "
            "(on binary XOR data it reads 0 for 1 bit of synergy): pass discrete=True to "
            f"read them as symbols ({discrete_use}), or discrete=False (or "
            f"{continuous_use}) to keep the Gaussian reading of the numbers"
        )
    return "continuous", f"every variable is continuous: {continuous_use}"


def _names(names: list[str]) -> str:
    shown = ", ".join(repr(n) for n in names[:6]) + (", ..." if len(names) > 6 else "")
    return f"{shown} {'is' if len(names) == 1 else 'are'}"
