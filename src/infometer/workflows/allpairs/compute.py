"""Plan the all-pairs job and evaluate one block of pairs (what every backend runs).

The columns that take part are cut into *groups* of ``block_size`` columns; a *block* is a
pair of groups ``(g, h)`` with ``g <= h`` and holds the pairs ``(a, b)``, ``a < b``, with
``a`` in ``g`` and ``b`` in ``h``.  A group is prepared once (:func:`prepare_group`: ranks,
standardised and jittered values, sorted orders and slabs for KSG, copula scores) and
reused by every block that needs it; a block (:func:`evaluate_block`) returns its values
and, when a test is asked for, how many permutation nulls reached each value.

Each pair is estimated with the method :func:`infometer.mutual_info` would use for it
(``method="auto"`` asks the registry's rules with the two columns' kinds) or the one
given, through one of three routes:

* ``ksg``: KSG-1 between two continuous columns, compiled all-pairs kernel
  (:func:`.kernels.ksg_block`), the same value as ``method="ksg1"`` on that pair;
* ``copula``: Gaussian copula, one matrix product per block (partial correlations given
  a continuous ``given``), the same value as ``method="gaussian_copula"``;
* ``call``: any other registered estimator, called on the pair's validated variables.

Pairs with a constant column are exactly 0 and never estimated.
"""

from __future__ import annotations

import uuid
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from infometer.core import registry
from infometer.core.data import Variable
from infometer.core.results import Result
from infometer.core.seeding import derive, derive_seed

from . import kernels

__all__ = [
    "ALIASES",
    "Config",
    "Group",
    "BlockResult",
    "canonical_method",
    "signature",
    "prepare_group",
    "evaluate_block",
    "blocks",
    "permutations",
]

#: Short names accepted for ``method=``.
ALIASES = {"ksg": "ksg1", "copula": "gaussian_copula", "gcmi": "gaussian_copula"}

CONSTANT = "constant"


def canonical_method(method: str) -> str:
    if not isinstance(method, str):
        raise TypeError(f"method must be a string, got {type(method).__name__}")
    m = method.lower()
    return ALIASES.get(m, m)


def tie_class(v: Variable) -> str:
    """A continuous column's ties as the ``auto`` rules see them: ``""`` (none), ``"few"``
    (few distinct values: GKOV's point masses) or ``"fine"`` (a rounding lattice, which
    ``auto`` dequantises); from the one detector, :attr:`Variable.ties`."""
    from infometer.estimators.knn import _ties

    found = _ties.tied({"x": v})
    if not found:
        return ""
    return "few" if _ties.any_few({"x": v}) else "fine"


def signature(v: Variable) -> tuple[str, bool, str]:
    """What the ``auto`` rules look at for one column: kind, few-distinct flag, tie class."""
    few = bool(v.diagnostics.get("few_distinct_float_columns"))
    return (v.kind, few, tie_class(v) if v.kind != "discrete" else "")


@dataclass
class Config:
    """Everything a block needs besides its columns (small, picklable).

    ``resolved`` maps pairs of column signatures to ``(method, reason)``; pairs of two
    discrete columns under ``auto`` are resolved per pair (the rule depends on counts).
    """

    quantity: str
    method: str
    params: dict[str, Any]
    n: int
    seed: int
    ranks: bool
    n_permutations: int
    null: str
    z: Variable | None
    resolved: dict[tuple, tuple[str, str]]
    slabs: int
    n_neighbors: int = 5
    #: per column: may its pairs use the shared null (tie-free continuous, rank statistic)
    shared: np.ndarray | None = None
    token: str = field(default_factory=lambda: uuid.uuid4().hex)

    def resolve(self, va: Variable, vb: Variable) -> tuple[str, str]:
        key = (signature(va), signature(vb))
        if key in self.resolved:
            return self.resolved[key]
        vs = {"x": va, "y": vb} if self.z is None else {"x": va, "y": vb, "z": self.z}
        if self.method == "auto":
            return registry.choose_auto(registry.AutoContext(self.quantity, vs))
        return self.method, "given"

    def spec_params(self, name: str) -> tuple[registry.EstimatorSpec, dict[str, Any]]:
        """The spec of ``name`` and its full parameters (user's, seed, defaults).

        Under ``auto`` a kNN estimator dequantises tied (rounded) columns, as the auto
        rules of :func:`infometer.mutual_info` do (a no-op on tie-free columns), unless
        the user set ``dequantize``.
        """
        spec = registry.get(self.quantity, name)
        given = {k: v for k, v in self.params.items() if k in spec.params}
        if "seed" in spec.params:
            given.setdefault("seed", self.seed)
        if self.method == "auto" and "dequantize" in spec.params:
            given.setdefault("dequantize", True)
        return spec, spec.check_params(given)

    def route(self, name: str, va: Variable, vb: Variable) -> str:
        if not (va.is_continuous and vb.is_continuous):
            return "call"
        _, full = self.spec_params(name)
        if (
            name == "ksg1"
            and self.z is None
            and full.get("theiler", 0) == 0
            and isinstance(full.get("k"), int | np.integer)
            and 1 <= full["k"] <= kernels.MAX_K
            and full["k"] < self.n
        ):
            return "ksg"
        if name == "gaussian_copula" and (self.z is None or self.z.is_continuous):
            return "copula"
        return "call"


def column_seed(seed: int, label: str) -> int:
    """A column's own jitter seed: the same for a label whatever the other columns are."""
    return derive_seed(seed, label)


# ------------------------------------------------------------------- permutations
_PERMS: dict[tuple, np.ndarray] = {}


def permutations(cfg: Config) -> np.ndarray:
    """The B row orders of the null (the same for every pair and every block).

    Unconditional: plain permutations (applied to the second column of a pair).
    Given a discrete ``z``: permutations within its strata; given a continuous ``z``:
    local conditional permutations (Runge 2018) (applied to the first column).
    """
    key = (cfg.token, cfg.n_permutations)
    if key in _PERMS:
        return _PERMS[key]
    from infometer.measures.stats import nulls

    rng = derive(cfg.seed, 0x5EED)
    b, n = cfg.n_permutations, cfg.n
    if b == 0:
        out = np.empty((0, n), np.int64)
    elif cfg.z is None:
        out = np.stack([nulls.permutation(rng, n) for _ in range(b)]).astype(np.int64)
    else:
        draw, _ = nulls.conditional_sampler(cfg.z, cfg.n_neighbors)
        out = np.stack([draw(rng) for _ in range(b)]).astype(np.int64)
    if len(_PERMS) > 8:
        _PERMS.clear()
    _PERMS[key] = out
    return out


# ------------------------------------------------------------------------ groups
@dataclass
class Group:
    """Prepared columns of one group."""

    cols: np.ndarray  # global indices of the columns (into the kept columns)
    variables: list[Variable]
    constant: np.ndarray  # bool per column
    sigs: list[tuple]  # signature of each column
    ksg: dict[str, np.ndarray] | None = None  # column_arrays of the continuous columns
    ksg_row: np.ndarray | None = None  # local column -> row of ksg arrays (-1: none)
    cop: np.ndarray | None = None  # copula scores (rows), residualised on z if given
    cop_raw: np.ndarray | None = None  # scores before residualisation (conditional nulls)
    cop_row: np.ndarray | None = None  # local column -> row of cop (-1: none)
    messages: Counter = field(default_factory=Counter)


def _rank_variable(v: Variable) -> Variable:
    from scipy.stats import rankdata

    r = rankdata(v.columns[0], method="average")
    return Variable(
        columns=(np.asarray(r, dtype=np.float64),),
        kinds=v.kinds,
        cardinalities=v.cardinalities,
        name=v.name,
        labels=v.labels,
        diagnostics=v.diagnostics,
        symbols=v.symbols,
    )


def _z_basis(z: Variable) -> np.ndarray:
    """Orthonormal basis (n, dz) of the centred copula scores of ``z``."""
    from infometer.estimators.parametric import copula_normalize

    s = copula_normalize(z.values)
    s = s - s.mean(axis=0)
    q, _ = np.linalg.qr(s)
    return q


def _residual_unit(s: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Rows of ``s`` minus their projection on ``q``'s columns, scaled to unit norm."""
    r = s - (s @ q) @ q.T
    norm = np.sqrt(np.einsum("ij,ij->i", r, r))
    ok = norm > 0
    r[ok] /= norm[ok, None]
    r[~ok] = 0.0
    return r


def is_constant(v: Variable) -> bool:
    c = v.columns[0]
    return bool(c[0] == c.min() == c.max())


def prepare_group(cfg: Config, cols: np.ndarray, variables: list[Variable]) -> Group:
    """Per-column work done once per group and reused by every block of it."""
    from infometer.estimators.knn.prep import prepare

    if cfg.ranks:
        variables = [_rank_variable(v) if v.is_continuous else v for v in variables]
    const = np.array([is_constant(v) for v in variables])
    sigs = [signature(v) for v in variables]
    g = Group(cols=np.asarray(cols, np.int64), variables=variables, constant=const, sigs=sigs)
    routes: dict[tuple, str] = {}
    for sg, v in zip(sigs, variables, strict=True):
        if sg not in routes and v.is_continuous:
            routes[sg] = cfg.route(cfg.resolve(v, v)[0], v, v)
    for route in set(routes.values()):
        cont = np.array(
            [i for i, v in enumerate(variables) if not const[i] and routes.get(sigs[i]) == route],
            np.int64,
        )
        if cont.size == 0 or route == "call":
            continue
        rows = np.full(len(variables), -1, np.int64)
        rows[cont] = np.arange(cont.size)
        if route == "ksg":
            _, full = cfg.spec_params("ksg1")
            vals, tied = [], 0
            for i in cont:
                v = variables[i]
                p = prepare(
                    {"x": v.values},
                    standardize=bool(full["standardize"]),
                    jitter=full["jitter"],
                    jitter_scale=float(full["jitter_scale"]),
                    seed=None if full["seed"] is None else column_seed(full["seed"], v.name),
                    dequantize=bool(full["dequantize"]),
                )
                vals.append(p.blocks[0][:, 0])
                tied += bool(p.diagnostics.get("jittered_columns"))
            g.ksg, g.ksg_row = kernels.column_arrays(np.vstack(vals), cfg.slabs), rows
            if tied:
                g.messages[
                    "columns with tied values (as in rounded data) got a tiny seeded jitter "
                    f"({full['jitter_scale']:g} x sd) before KSG, which does not undo the "
                    "rounding and biases the estimate; pass dequantize=True to spread each "
                    "value uniformly over its rounding step (what method='auto' does), or "
                    "discrete=True if they are counts or categories"
                ] += tied
        else:
            raw, _ = kernels.copula_scores(np.vstack([variables[i].columns[0] for i in cont]))
            g.cop_row = rows
            if cfg.z is None:
                g.cop = raw
            else:
                g.cop_raw = raw
                g.cop = _residual_unit(raw, _z_basis(cfg.z))
    return g


# ------------------------------------------------------------------------ blocks
def blocks(n_groups: int) -> list[tuple[int, int]]:
    """Every block ``(g, h)``, ``g <= h``, in row-major order."""
    return [(g, h) for g in range(n_groups) for h in range(g, n_groups)]


@dataclass(eq=False, repr=False)
class BlockResult(Result):
    """Values of one block; ``null_ge`` is -1 where no pair null was computed."""

    key: tuple[int, int]
    a: np.ndarray
    b: np.ndarray
    value: np.ndarray
    null_ge: np.ndarray
    code: np.ndarray  # int16: index of each pair's method in ``methods``
    methods: list[str]
    messages: dict[str, int] = field(default_factory=dict)


def _pairs(ga: Group, gb: Group, same: bool) -> tuple[np.ndarray, np.ndarray]:
    na, nb = len(ga.variables), len(gb.variables)
    if same:
        ia, ib = np.triu_indices(na, 1)
    else:
        ia, ib = (x.ravel() for x in np.meshgrid(np.arange(na), np.arange(nb), indexing="ij"))
    return ia.astype(np.int64), ib.astype(np.int64)


def evaluate_block(cfg: Config, ga: Group, gb: Group, key: tuple[int, int]) -> BlockResult:
    """Values (nats) of every pair of block ``key`` and, where needed, pair-null counts.

    Pairs of two columns with ``cfg.shared`` set get no pair null (the shared one serves).
    Methods and routes are resolved once per pair of column signatures (per pair only for
    two discrete columns under ``auto``, whose rule looks at their counts).
    """
    same = key[0] == key[1]
    ia, ib = _pairs(ga, gb, same)
    m = ia.size
    value = np.full(m, np.nan)
    null_ge = np.full(m, -1, np.int64)
    code = np.zeros(m, np.int16)
    methods = [CONSTANT]
    msgs: Counter = Counter(ga.messages if same else {})  # a group's own notes: once
    perms = permutations(cfg) if cfg.n_permutations else None
    const = ga.constant[ia] | gb.constant[ib]
    value[const] = 0.0
    if cfg.n_permutations:
        null_ge[const] = cfg.n_permutations
    sh = cfg.shared
    shared = np.zeros(m, bool) if sh is None else sh[ga.cols[ia]] & sh[gb.cols[ib]]
    wants = cfg.n_permutations > 0 and (cfg.null == "pair")
    wants = np.full(m, wants) | ((cfg.n_permutations > 0) & ~shared)
    codes_a = {s: c for c, s in enumerate(sorted(set(ga.sigs) | set(gb.sigs)))}
    sa = np.array([codes_a[s] for s in ga.sigs], np.int64)[ia]
    sb = np.array([codes_a[s] for s in gb.sigs], np.int64)[ib]
    sig_of = {c: s for s, c in codes_a.items()}
    by_route: dict[tuple[str, str], list[np.ndarray]] = {}
    for ca, cb in set(zip(sa[~const].tolist(), sb[~const].tolist(), strict=True)):
        sel = np.flatnonzero((sa == ca) & (sb == cb) & ~const)
        va, vb = ga.variables[ia[sel[0]]], gb.variables[ib[sel[0]]]
        if sig_of[ca][0] == "discrete" and sig_of[cb][0] == "discrete" and cfg.method == "auto":
            for t in sel:  # the discrete auto rule depends on each pair's counts
                name, _ = cfg.resolve(ga.variables[ia[t]], gb.variables[ib[t]])
                by_route.setdefault(("call", name), []).append(np.array([t]))
            continue
        name, _ = cfg.resolve(va, vb)
        by_route.setdefault((cfg.route(name, va, vb), name), []).append(sel)
    for (route, name), parts in by_route.items():
        sel = np.concatenate(parts)
        if name not in methods:
            methods.append(name)
        code[sel] = methods.index(name)
        if route == "ksg":
            _ksg(cfg, ga, gb, ia, ib, sel, wants[sel], perms, value, null_ge)
        elif route == "copula":
            _copula(cfg, ga, gb, ia, ib, sel, wants[sel], perms, value, null_ge)
        else:
            _call(cfg, name, ga, gb, ia, ib, sel, wants[sel], perms, value, null_ge, msgs)
    return BlockResult(
        key=key,
        a=ga.cols[ia],
        b=gb.cols[ib],
        value=value,
        null_ge=null_ge,
        code=code,
        methods=methods,
        messages=dict(msgs),
    )


def _ksg(cfg, ga, gb, ia, ib, sel, wants, perms, value, null_ge) -> None:
    _, full = cfg.spec_params("ksg1")
    k = int(full["k"])
    a = ga.ksg_row[ia[sel]]
    b = gb.ksg_row[ib[sel]]
    if ga is gb:
        arrays = ga.ksg
    else:  # stack the two groups' arrays so one call sees both
        arrays = {key: np.concatenate([ga.ksg[key], gb.ksg[key]]) for key in ga.ksg}
        b = b + ga.ksg["v"].shape[0]
    for flag in (False, True):
        part = wants == flag
        if not part.any():
            continue
        vals, ge = kernels.ksg_block(arrays, a[part], b[part], k, perms if flag else None)
        value[sel[part]] = vals
        if flag:
            null_ge[sel[part]] = ge


def _copula(cfg, ga, gb, ia, ib, sel, wants, perms, value, null_ge) -> None:
    _, full = cfg.spec_params("gaussian_copula")
    dz = 0 if cfg.z is None else cfg.z.d
    bias = kernels.copula_bias(cfg.n, dz) if full["bias_correct"] else 0.0
    a = ga.cop_row[ia[sel]]
    b = gb.cop_row[ib[sel]]
    ua, ub = np.unique(a), np.unique(b)
    r = ga.cop[ua] @ gb.cop[ub].T  # one matrix product for the block
    obs = r[np.searchsorted(ua, a), np.searchsorted(ub, b)]
    value[sel] = kernels.copula_mutual_info(obs, bias)
    if not wants.any():
        return
    w = np.flatnonzero(wants)
    ge = np.zeros(w.size, np.int64)
    q = None if cfg.z is None else _z_basis(cfg.z)
    for t in range(perms.shape[0]):
        if cfg.z is None:  # permute the second column
            null_r = np.einsum("ij,ij->i", ga.cop[a[w]], gb.cop[b[w]][:, perms[t]])
        else:  # permute the first column within z, then residualise again
            xa = _residual_unit(ga.cop_raw[a[w]][:, perms[t]], q)
            null_r = np.einsum("ij,ij->i", xa, gb.cop[b[w]])
        ge += kernels.copula_mutual_info(null_r, bias) >= value[sel[w]]
    null_ge[sel[w]] = ge


def _call(cfg, name, ga, gb, ia, ib, sel, wants, perms, value, null_ge, msgs) -> None:
    import warnings

    spec, full = cfg.spec_params(name)
    z = () if cfg.z is None else (cfg.z,)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for t, want in zip(sel, wants, strict=True):
            va, vb = ga.variables[ia[t]], gb.variables[ib[t]]
            raw = spec.func(va, vb, *z, **full)
            value[t] = raw.value
            for w in raw.warnings:
                msgs[w.replace(va.name, "x").replace(vb.name, "y")] += 1
            if want:
                ge = 0
                for p in perms:
                    if cfg.z is None:
                        null = spec.func(va, vb.select(p), *z, **full).value
                    else:
                        null = spec.func(va.select(p), vb, *z, **full).value
                    ge += null >= raw.value
                null_ge[t] = ge
