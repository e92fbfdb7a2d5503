"""Partial information decomposition: ``im.pid(sources, target, measure=...)``.

From a pmf (:func:`infometer.measures.exact.pid`), from discrete samples (the decomposition of the
empirical pmf, ``method="plugin"``), and from continuous samples (``method="gaussian"``:
MMI from Gaussian mutual informations, the Gaussian PID of Barrett 2015, which equals the
Gaussian BROJA PID for a univariate target; ``measure="broja"`` with a vector target
minimises the union information over Gaussian distributions, the ~G-PID of Venkatesh et
al. 2023, NeurIPS; see :mod:`._gaussian_broja`).  Each atom is also the registered quantity
``pid_atom`` so that ``ci=`` uses the shared resampling.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from infometer.core import registry
from infometer.core._warnings import warn_user
from infometer.core.api import run
from infometer.core.data import Variable, as_variable, check_choice, check_same_length
from infometer.core.estimate import Estimate, resolve_unit
from infometer.core.plot import finish, new_axes
from infometer.core.registry import AutoRule, Raw, register, register_auto
from infometer.core.results import Result
from infometer.core.seeding import Seed, resolve_seed
from infometer.core.uncertainty import make_estimate
from infometer.core.validation import check_budget, check_pmf

from . import _kernels as kernels
from . import _pid
from ._estimators import _columns, gaussian_scores, scatter_of
from ._gaussian_broja import union_information
from ._measures import split_variables
from ._reading import table_reading

__all__ = ["pid", "PIDResult", "pid_of_pmf", "CONTINUOUS_MEASURES"]

QUANTITY = "pid_atom"
registry.QUANTITY_ROLES.setdefault(QUANTITY, ("s1", "s2", "target"))
#: Measures defined for continuous data here: MMI (Gaussian mutual informations) and BROJA
#: (scalar target: equal to MMI, Barrett 2015; vector target: the union information
#: minimised over Gaussian distributions, Venkatesh et al. 2023, NeurIPS).
CONTINUOUS_MEASURES = ("mmi", "broja")
#: Largest joint table of the sources and target built from discrete samples.
MAX_TABLE_CELLS = 1 << 22


def _kind_of(a: _pid.Antichain, m: int) -> str:
    if len(a) == m and all(len(s) == 1 for s in a):
        return "redundancy"
    if len(a) == 1 and len(a[0]) == m:
        return "synergy"
    if len(a) == 1 and len(a[0]) == 1:
        return "unique"
    return "mixed"


@dataclass(frozen=True, eq=False, repr=False)
class PIDResult(Result):
    """A partial information decomposition.

    Attributes
    ----------
    measure
        The redundancy measure (``imin``, ``mmi``, ``broja``, ``ccs``, ``dep``, ``isx``).
    method
        ``exact`` (a pmf), ``plugin`` (discrete samples) or ``gaussian``.
    sources, target
        Names.
    labels
        Atom labels ``{0}{1}`` (source numbers), in lattice order.
    atoms
        One :class:`Estimate` per atom.
    mutual_info
        I(S_1..S_m; T), the sum of the atoms.
    diagnostics
        Identity residuals, solver facts, the redundancy of each lattice node.
    """

    measure: str
    method: str
    sources: tuple[str, ...]
    target: str
    labels: tuple[str, ...]
    atoms: tuple[Estimate, ...]
    mutual_info: Estimate
    diagnostics: dict = field(default_factory=dict, compare=False)

    def __getitem__(self, label: str) -> Estimate:
        return self.atoms[self.labels.index(label)]

    @property
    def redundancy(self) -> Estimate:
        """The bottom atom ``{0}{1}...``: information every source carries."""
        return self.atoms[0]

    @property
    def synergy(self) -> Estimate:
        """The top atom ``{01...}``: information only the sources together carry."""
        return self.atoms[-1]

    @property
    def unique(self) -> tuple[Estimate, ...]:
        """``{i}`` for each source: information only source i carries."""
        return tuple(self["{" + str(i) + "}"] for i in range(len(self.sources)))

    def to_frame(self):
        """Tidy DataFrame: atom, atom_names, kind, value, unit, stderr, ci_low, ci_high."""
        import pandas as pd

        m = len(self.sources)
        nodes = {_pid.label(a): a for a in _pid.lattice(m)}
        return pd.DataFrame(
            [
                {
                    "atom": lab,
                    "atom_names": _pid.label(nodes[lab], self.sources),
                    "kind": _kind_of(nodes[lab], m),
                    "value": e.value,
                    "unit": e.unit,
                    "stderr": e.stderr,
                    "ci_low": None if e.ci is None else e.ci[0],
                    "ci_high": None if e.ci is None else e.ci[1],
                    "measure": self.measure,
                    "method": self.method,
                }
                for lab, e in zip(self.labels, self.atoms, strict=True)
            ]
        )

    def plot(self, ax=None, path=None):
        """Horizontal bars of the atoms, coloured by kind (legend: redundancy, unique,
        synergy), each with its value written beside it (an atom of 0 has no bar to see),
        and intervals when computed."""
        from matplotlib.patches import Patch

        m = len(self.sources)
        _, ax = new_axes(ax, figsize=(7.0, max(3.0, 0.42 * len(self.atoms) + 1.6)))
        nodes = {_pid.label(a): a for a in _pid.lattice(m)}
        names = [_pid.label(nodes[lab], self.sources) for lab in self.labels]
        vals = np.array([e.value for e in self.atoms])
        colors = {"redundancy": "tab:blue", "unique": "tab:green", "synergy": "tab:red"}
        kinds = [_kind_of(nodes[lab], m) for lab in self.labels]
        y = np.arange(len(vals))[::-1]
        ax.barh(y, vals, color=[colors.get(k, "tab:gray") for k in kinds])
        if all(e.ci is not None for e in self.atoms):
            lo = vals - np.array([e.ci[0] for e in self.atoms])
            hi = np.array([e.ci[1] for e in self.atoms]) - vals
            ax.errorbar(vals, y, xerr=[lo, hi], fmt="none", color="k")
        unit = self.mutual_info.unit
        span = max(float(np.abs(vals).max()), 1e-12)
        decimals = max(0, 2 - int(np.floor(np.log10(span))))  # 3 digits of the largest atom
        for yi, v in zip(y, vals, strict=True):  # the value, also where the bar is empty
            text = f"{v:.{decimals}f}"
            ax.text(
                max(v, 0.0) + 0.01 * span,
                yi,
                "0" if float(text) == 0 else text,
                va="center",
                ha="left",
                fontsize=10,
            )
        ax.set_xlim(min(0.0, vals.min()) - 0.05 * span, max(0.0, vals.max()) + 0.18 * span)
        ax.set_yticks(y, names, fontsize=10)
        ax.axvline(0, color="k", lw=0.8)
        ax.set_xlabel(f"atom value ({unit})", fontsize=10)
        shown = [k for k in ("redundancy", "unique", "synergy") if k in kinds]
        ax.legend(
            handles=[Patch(color=colors[k], label=k) for k in shown],
            loc="upper center",
            bbox_to_anchor=(0.5, -0.22),
            ncol=len(shown),
            fontsize=9,
            frameon=False,
        )
        ax.set_title(
            f"PID ({self.measure}) of I({', '.join(self.sources)}; {self.target}) = "
            f"{self.mutual_info.value:#.3g} {unit}",
            fontsize=11,
        )
        return finish(ax, path)


def _shown_name(target: Any, role: str) -> str:
    """The target's own name (a pandas Series' ``name``) for titles, else its role."""
    name = getattr(target, "name", None)
    return name if isinstance(name, str) and name else role


# ------------------------------------------------------------------ kernels on data
def table_of(vs: Sequence[Variable]) -> np.ndarray:
    """Empirical joint pmf of discrete variables (one axis per variable, joint symbols of
    each variable's columns), checked against ``MAX_TABLE_CELLS`` before allocating."""
    codes = []
    for v in vs:
        c = v.codes
        _, inv = np.unique(c, return_inverse=True)
        codes.append(inv.reshape(-1))
    shape = tuple(int(c.max()) + 1 for c in codes)
    check_budget(
        float(np.prod(np.asarray(shape, dtype=float))),
        name="sources",
        limit=MAX_TABLE_CELLS,
        what="cells of the joint table of the sources and the target",
    )
    t = np.zeros(shape)
    np.add.at(t, tuple(codes), 1.0)
    return t / t.sum()


def _gaussian_atoms(
    vs: Sequence[Variable], measure: str, bias_correct: bool | None
) -> tuple[dict, dict]:

    if measure not in CONTINUOUS_MEASURES:
        raise ValueError(
            f"measure {measure!r} is not defined for continuous data here; for continuous "
            f"sources and target use measure='mmi' or 'broja' (Gaussian), or discretise the "
            f"data for {measure}"
        )
    m = len(vs) - 1
    if measure == "broja" and m != 2:
        raise ValueError(
            f"measure 'broja' is defined for exactly 2 sources, got {m}; for more use 'mmi'"
        )
    cols, groups, notes = _columns(vs)
    n = vs[0].n
    if n < len(cols) + 2:
        raise ValueError(f"method 'gaussian' needs at least {len(cols) + 2} rows, got {n}")
    if not groups[m]:
        raise ValueError("the target is constant: there is no information to decompose")
    vector_broja = measure == "broja" and len(groups[m]) > 1
    if vector_broja and bias_correct:
        raise ValueError(
            "bias_correct=True: the union information of a vector target's Gaussian BROJA "
            "PID is optimised on the sample covariance, and no bias correction of the "
            "optimum is implemented; pass bias_correct=False (or None)"
        )
    if bias_correct is None:
        bias_correct = not vector_broja
    w = scatter_of(gaussian_scores(cols, False)[0])

    def mi(a: frozenset) -> float:
        t = {frozenset({0}): 1.0, frozenset({1}): 1.0, frozenset({0, 1}): -1.0}
        g = [[c for i in sorted(a) for c in groups[i]], groups[m]]
        val = kernels.gaussian_entropy_sum(w, n, g, t, bias_correct)
        if not np.isfinite(val):
            raise ValueError("the covariance of the sources and target is singular")
        return val

    diag: dict = {"notes": notes, "bias_correct": bias_correct}
    if not vector_broja:  # MMI; for a scalar target also the Gaussian BROJA PID
        atoms, red = _pid.mmi_from_mutual_info(m, mi)
        if measure == "broja":
            diag["broja"] = "scalar target: the Gaussian BROJA PID is the MMI PID (Barrett 2015)"
    else:
        nodes = _pid.lattice(2)
        i0, i1, i01 = mi(frozenset({0})), mi(frozenset({1})), mi(frozenset({0, 1}))
        if not groups[0] or not groups[1]:
            ui, info = max(i0, i1), {"iterations": 0, "converged": True}
        else:
            ui, info = union_information(w / n, groups[0], groups[1], groups[m])
        # rounding: the optimum lies in [max(I0, I1), I01] exactly
        ui = min(max(ui, i0, i1), i01)
        red = {nodes[0]: i0 + i1 - ui, nodes[1]: i0, nodes[2]: i1, nodes[3]: i01}
        atoms = _pid.mobius(nodes, red)
        diag.update(union_information=ui, broja_optimiser=info)
        if not info["converged"]:
            notes.append(
                "the Gaussian BROJA optimisation did not converge "
                f"({info['iterations']} steps); the atoms may be off"
            )
    diag["redundancy"] = {_pid.label(a): v for a, v in red.items()}
    return atoms, diag


def _atoms(vs: Sequence[Variable], measure: str, method: str, bias_correct: bool | None = None):
    measure = check_choice(measure, "measure", _pid.MEASURES)
    m = len(vs) - 1
    if m < 2:
        raise ValueError(f"sources must hold at least 2 variables, got {m}")
    if m > _pid.MAX_SOURCES:
        raise ValueError(
            f"sources has {m} variables; the full lattice is built for at most "
            f"{_pid.MAX_SOURCES} ({len(_pid.lattice(_pid.MAX_SOURCES))} atoms)"
        )
    if method == "gaussian":
        return _gaussian_atoms(vs, measure, bias_correct)
    return _pid.decompose(table_of(vs), measure)


def _raw(vs: Sequence[Variable], measure: str, atom: str, method: str, **kw) -> Raw:
    atoms, diag = _atoms(vs, measure, method, **kw)
    labels = [_pid.label(a) for a in atoms]
    if atom not in labels:
        raise ValueError(f"atom must be one of {labels}, got {atom!r}")
    value = atoms[dict(zip(labels, atoms, strict=True))[atom]]
    return Raw(
        value=float(value),
        diagnostics={
            "atoms": {lab: float(v) for lab, v in zip(labels, atoms.values(), strict=True)}
        },
        warnings=list(diag.get("notes", [])),
    )


@register(
    "plugin",
    QUANTITY,
    kinds=("discrete",),
    family="multivariate",
    summary="one PID atom of the empirical pmf (imin, mmi, broja, ccs, dep, isx)",
)
def pid_atom_plugin(*vs: Variable, measure: str = "mmi", atom: str = "{0}{1}") -> Raw:
    """One atom of the PID of the empirical joint pmf (last variable: the target)."""
    return _raw(vs, measure, atom, "plugin")


@register(
    "gaussian",
    QUANTITY,
    kinds=("continuous",),
    family="multivariate",
    summary="one MMI or BROJA PID atom from Gaussian (log-det) mutual informations",
)
def pid_atom_gaussian(
    *vs: Variable, measure: str = "mmi", atom: str = "{0}{1}", bias_correct: bool | None = None
) -> Raw:
    """One atom of the Gaussian MMI or BROJA PID of continuous sources and target
    (``bias_correct=None``: Wishart-corrected mutual informations, except for the
    optimised BROJA PID of a vector target, which is plug-in)."""
    if bias_correct is not None and not isinstance(bias_correct, bool):
        raise TypeError(f"bias_correct must be True, False or None, got {bias_correct!r}")
    return _raw(vs, measure, atom, "gaussian", bias_correct=bias_correct)


pid_atom_gaussian.plugin_params = lambda p: {**p, "bias_correct": False}  # type: ignore[attr-defined]

register_auto(
    AutoRule(
        QUANTITY,
        100,
        lambda c: c.kinds == {"discrete"},
        "plugin",
        "discrete data: the PID of the empirical pmf",
    )
)
register_auto(
    AutoRule(
        QUANTITY,
        200,
        lambda c: c.kinds == {"continuous"},
        "gaussian",
        "continuous data: Gaussian mutual informations (MMI)",
    )
)


# ------------------------------------------------------------------------ public
def _result(
    atoms: dict,
    diag: dict,
    measure: str,
    method: str,
    sources,
    target,
    unit,
    base,
    n: int | None = None,
    estimates: Sequence[Estimate] | None = None,
) -> PIDResult:

    u = resolve_unit(unit, base)
    labels = tuple(_pid.label(a) for a in atoms)
    if estimates is None:
        estimates = [
            make_estimate(
                float(v),
                quantity=QUANTITY,
                method=method,
                n=n,
                params={"measure": measure, "atom": lab},
            )
            for lab, v in zip(labels, atoms.values(), strict=True)
        ]
    total = float(sum(atoms.values()))
    vals = dict(zip(labels, atoms.values(), strict=True))
    m = len(sources)
    # the identities of every PID: the atoms below {i} sum to I(S_i; T) (R + U_i for two
    # sources); all atoms sum to I(S; T) (the top node's redundancy)
    red = diag.get("redundancy", {})
    resid = {}
    if red:
        top = "{" + "".join(str(i) for i in range(m)) + "}"
        resid["sum_atoms_minus_mi"] = total - red[top]
        for i in range(m):
            node = next(a for a in _pid.lattice(m) if _pid.label(a) == "{" + str(i) + "}")
            below = sum(vals[_pid.label(b)] for b in _pid.lattice(m) if _pid.leq(b, node))
            resid[f"below_{{{i}}}_minus_mi"] = below - red["{" + str(i) + "}"]
        worst = max(abs(v) for v in resid.values())
        if worst > 1e-9:
            raise RuntimeError(f"PID identities fail by {worst:.3g} nats: {resid}")
    mi = make_estimate(total, quantity="mutual_info", method=method, n=n)
    notes = list(diag.get("notes", []))
    if notes:
        for note in notes:
            warn_user(note)
    if u != "nats":
        estimates = [e.to(u) for e in estimates]
        mi = mi.to(u)
    return PIDResult(
        measure=measure,
        method=method,
        sources=tuple(sources),
        target=target,
        labels=labels,
        atoms=tuple(estimates),
        mutual_info=mi,
        diagnostics={
            **{k: v for k, v in diag.items() if k != "notes"},
            "identities": resid,
            **({"warnings": notes} if notes else {}),
        },
    )


def pid_of_pmf(
    p: Any,
    *,
    measure: str = "broja",
    unit: str | None = "nats",
    base: float | None = None,
    name: str = "p",
) -> PIDResult:
    """PID of a joint pmf with the sources on the first axes and the target on the last.

    Examples
    --------
    >>> import numpy as np
    >>> p = np.zeros((2, 2, 2)); p[0, 0, 0] = p[1, 1, 1] = 0.5  # RDN
    >>> round(pid_of_pmf(p, measure="imin", unit="bits").redundancy.value, 9)
    1.0
    """
    a = check_pmf(p, name)
    measure = check_choice(measure, "measure", _pid.MEASURES)
    if a.ndim < 3:
        raise ValueError(
            f"{name} is {a.ndim}-D; a PID needs at least 2 source axes and the target axis"
        )
    if a.ndim - 1 > _pid.MAX_SOURCES:
        raise ValueError(f"{name} has {a.ndim - 1} source axes; at most {_pid.MAX_SOURCES}")
    atoms, diag = _pid.decompose(a, measure)
    names = tuple(f"s{i}" for i in range(a.ndim - 1))
    return _result(atoms, diag, measure, "exact", names, "t", unit, base)


def pid(
    sources: Any,
    target: Any,
    *,
    measure: str | None = None,
    method: str = "auto",
    unit: str | None = "nats",
    base: float | None = None,
    ci: float | None = None,
    seed: Seed = 0,
    discrete: bool | None = None,
    groups: Sequence[Sequence[int | str]] | None = None,
    **params: Any,
) -> PIDResult:
    """Partial information decomposition of I(sources; target).

    Parameters
    ----------
    sources
        A table with one column per source (or column groups, ``groups=``), or a dict
        ``{name: samples}``; at least 2 sources, at most 4 (the full lattice: 18 atoms for
        3 sources, 166 for 4).
    target
        Samples of the target (rows paired with the sources).
    measure
        ``imin`` (Williams-Beer), ``mmi``, ``broja``, ``ccs``, ``dep`` (2 sources),
        ``isx`` (SxPID); default ``broja`` for two discrete sources, ``isx`` for more,
        ``mmi`` for continuous data (``mmi`` and ``broja`` are the measures defined
        there: see the table in docs/multivariate.md).
    method
        ``auto`` (every variable discrete: ``plugin``; every variable continuous:
        ``gaussian``; a mix of the two kinds, or float columns with few distinct values
        such as 0.0/1.0, is refused naming ``discrete=True`` / ``discrete=False``),
        ``plugin`` (discrete: the PID of the empirical pmf) or ``gaussian``.
    unit, base, ci, discrete
        As in :func:`infometer.mutual_info`; ``ci=`` bootstraps each atom.
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).
    **params
        ``bias_correct`` for ``gaussian`` (``None``: Wishart-corrected mutual
        informations, plug-in for the optimised BROJA PID of a vector target).

    Returns
    -------
    PIDResult

    Examples
    --------
    >>> import numpy as np, infometer as im
    >>> s = np.array([[0, 0], [0, 1], [1, 0], [1, 1]] * 8)
    >>> r = im.pid(s, s[:, 0] & s[:, 1], measure="imin", unit="bits")  # AND
    >>> round(r.redundancy.value, 4), round(r.synergy.value, 4)
    (0.3113, 0.5)
    """

    src = split_variables(sources, groups=groups, discrete=discrete, name="sources")
    tname = "target"
    while tname in src:
        tname = "_" + tname
    tv = as_variable(target, tname, discrete=discrete)
    check_same_length(*src.values(), tv)
    for nm, v in src.items():
        if v.d == tv.d and all(
            np.array_equal(a, b) for a, b in zip(v.columns, tv.columns, strict=True)
        ):
            raise ValueError(f"target is among the sources (it equals source {nm!r})")
    variables = {**src, tname: tv}
    if len(src) < 2:
        raise ValueError(f"sources must hold at least 2 variables, got {len(src)}")
    if not isinstance(method, str):
        raise TypeError(f"method must be a string, got {type(method).__name__}")
    method = method.lower()
    auto_reason = None
    if method == "auto":
        reading, auto_reason = table_reading(
            variables,
            what="pid",
            discrete_use="method='plugin', the PID of the empirical pmf",
            continuous_use="method='gaussian'",
        )
        method = "plugin" if reading == "discrete" else "gaussian"
    if measure is None:
        measure = "mmi" if method == "gaussian" else ("broja" if len(src) == 2 else "isx")
    measure = check_choice(measure, "measure", _pid.MEASURES)
    if method == "gaussian" and measure not in CONTINUOUS_MEASURES:
        raise ValueError(
            f"measure {measure!r} is not defined for continuous data here (defined: "
            f"{', '.join(CONTINUOUS_MEASURES)}); discretise the data to use {measure}"
        )
    params = {**params, "measure": measure}
    if method not in ("plugin", "gaussian"):
        registry.get(QUANTITY, method)  # unknown names: the registry's error
        raise ValueError(f"method must be 'auto', 'plugin' or 'gaussian', got {method!r}")
    spec = registry.get(QUANTITY, method)
    for nm, v in variables.items():
        if v.kind not in spec.kinds:
            raise ValueError(
                f"method {method!r} takes {'/'.join(sorted(spec.kinds))} data but {nm} is "
                f"{v.kind}; pass discrete=True to treat numbers as symbols"
            )
    extra = {k: v for k, v in params.items() if k != "measure"}
    spec.check_params({**extra, "measure": measure})
    atoms, diag = _atoms(list(variables.values()), measure, method, **extra)
    estimates = None
    if ci is not None:
        seed = resolve_seed(seed)  # every atom's interval from the same bootstrap rows
        estimates = [
            run(
                QUANTITY,
                variables,
                method=method,
                ci=ci,
                seed=seed,
                params={**params, "atom": _pid.label(a)},
            )
            for a in atoms
        ]
    if auto_reason is not None:
        diag["auto_reason"] = auto_reason
    return _result(
        atoms,
        diag,
        measure,
        method,
        tuple(src),
        _shown_name(target, tname),
        unit,
        base,
        n=tv.n,
        estimates=estimates,
    )
