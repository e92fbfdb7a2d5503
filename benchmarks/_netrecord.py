"""Record the conditional-independence tests a network search makes (benchmarks only).

``with recording() as rec: im.infer_network(x, cmi="gaussian", ...)`` patches, for the
duration of the block only, the module globals and class attributes that
``infometer.measures.dynamics._algorithms`` calls (``_engine``, ``include``, ``prune``,
``omnibus``, ``sequential_maxstat``, ``ci_test``, ``LinkTests._gram_test``, the
permutation-pool draw of ``_select``) and the :class:`GaussianEngine` methods, with
wrappers that call the original and write down what it was asked and what it answered.
Nothing in ``src/`` changes and nothing is patched outside the block, so a normal run pays
nothing for the recorder.  Runs in this process only (``n_jobs=1``).

What is recorded, as plain data a numpy program can replay (``benchmarks/_floors.py``,
``network_floor``):

* ``rec.data``: the (T, n) array the search saw; ``rec.engines[k]``: one per lag matrix
  the search built, ``(target, items, max_lag)`` with ``items`` the (process, lag)
  columns and rows ``t = max_lag .. T - 1``;
* ``rec.pools[k]``: each permutation table the search drew, as ``(state, n, count)``: the
  generator's state just before ``rng.permuted`` (so a replay draws the same table);
* ``rec.steps``: every test in order, a :class:`Step`: its kind (``"max"`` a greedy
  inclusion step of mTE, tested by the maximum statistic over the remaining candidates;
  ``"min"`` a pruning step, minimum statistic; ``"omnibus"``; ``"stepdown"`` the
  sequential maximum statistic; ``"parcorr"`` one partial-correlation t test of PCMCI's
  PC1 / MCI or of PCMCI+), its engine, candidate columns, conditioning columns (one list
  per candidate), the permutation table and count, and the library's statistics (values,
  surrogates, p-values).
"""

from __future__ import annotations

import contextlib
import copy
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from infometer.measures.dynamics import _algorithms as A
from infometer.measures.stats import nulls
from infometer.measures.timeseries import _engine as E
from infometer.measures.timeseries import _select as S

__all__ = ["Recording", "Step", "recording"]


@dataclass
class Step:
    """One test of the search (see the module docstring for ``kind``)."""

    kind: str
    engine: int
    cands: list[int]  # column indices into the engine's items
    conds: list[list[int]]  # one conditioning list per candidate
    pool: int | None = None
    n_perm: int = 0
    values: list[float] = field(default_factory=list)
    null: np.ndarray | None = None  # (n_perm, len(cands)) surrogate statistics
    p: list[float] = field(default_factory=list)


@dataclass
class Recording:
    data: np.ndarray | None = None
    engines: list[tuple[int, list[tuple[int, int]], int]] = field(default_factory=list)
    pools: list[tuple[dict, int, int]] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    kind: list[str] = field(default_factory=list)  # stack of the running phase

    def summary(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for s in self.steps:
            out[s.kind] = out.get(s.kind, 0) + 1
        out["surrogate statistics"] = sum(s.n_perm * len(s.cands) for s in self.steps)
        return out


def _eid(eng: Any) -> int:
    return eng.__dict__["_rec_engine"]


def _pool_id(perms: Any) -> int:
    while "_rec_pool" not in perms.__dict__:
        perms = perms._parent
    return perms.__dict__["_rec_pool"]


@contextlib.contextmanager
def recording():
    """Record every test of the network searches run inside the block (Gaussian CMI)."""
    rec = Recording()
    G = E.GaussianEngine
    orig = {
        "_engine": A._engine,
        "include": A.include,
        "prune": A.prune,
        "omnibus": A.omnibus,
        "sequential_maxstat": A.sequential_maxstat,
        "ci_test": A.ci_test,
        "permutations": S.permutations,
        "_gram_test": A.LinkTests._gram_test,
        "single": G.single,
        "single_surrogates": G.single_surrogates,
        "joint": G.joint,
        "joint_surrogates": G.joint_surrogates,
    }

    def engine(payload, items, max_lag):
        eng = orig["_engine"](payload, items, max_lag)
        if not isinstance(eng, G):
            raise TypeError("the recorder replays Gaussian searches only (cmi='gaussian')")
        if rec.data is None:
            rec.data = payload["data"]
        if payload["settings"]["trials"] != 1:
            raise ValueError("the recorder replays single-trial data only")
        eng._rec_engine = len(rec.engines)
        rec.engines.append((int(payload["target"]), [tuple(map(int, it)) for it in items], max_lag))
        return eng

    def permutations(rng, n, count):
        state = copy.deepcopy(rng.bit_generator.state)
        perms = orig["permutations"](rng, n, count)
        perms._rec_pool = len(rec.pools)
        rec.pools.append((state, n, count))
        return perms

    def phase(name, kind):
        def run(*args, **kw):
            rec.kind.append(kind)
            try:
                return orig[name](*args, **kw)
            finally:
                rec.kind.pop()

        return run

    def single(self, cands, cond):
        out = orig["single"](self, cands, cond)
        kind = rec.kind[-1]
        last = rec.steps[-1] if rec.steps else None
        if kind == "max" or last is None or last.null is not None or last.kind != kind:
            rec.steps.append(Step(kind, _eid(self), [], []))
        st = rec.steps[-1]
        st.cands += list(cands)
        st.conds += [list(cond)] * len(cands)
        st.values += [float(v) for v in out]
        return out

    def single_surrogates(self, cands, cond, perms):
        out = orig["single_surrogates"](self, cands, cond, perms)
        st = rec.steps[-1]
        st.pool, st.n_perm = _pool_id(perms), len(perms)
        st.null = out if st.null is None else np.column_stack([st.null, out])
        if st.null.shape[1] == len(st.cands):  # complete: the library's p-value(s)
            v = np.asarray(st.values)
            if st.kind == "max":
                st.p = [nulls.p_value(float(v.max()), st.null.max(axis=1))]
            elif st.kind == "min":
                st.p = [nulls.p_value(float(v.min()), st.null.min(axis=1))]
            else:
                st.p = [float(q) for q in nulls.stepdown_maxstat(v, st.null)]
        return out

    def joint(self, xs, cond):
        out = orig["joint"](self, xs, cond)
        rec.steps.append(Step("omnibus", _eid(self), list(xs), [list(cond)], values=[out]))
        return out

    def joint_surrogates(self, xs, cond, perms):
        out = orig["joint_surrogates"](self, xs, cond, perms)
        st = rec.steps[-1]
        st.pool, st.n_perm, st.null = _pool_id(perms), len(perms), out[:, None]
        st.p = [nulls.p_value(st.values[0], out)]
        return out

    def _parcorr(eng, cand, cond, out):
        rec.steps.append(
            Step("parcorr", _eid(eng), [cand], [list(cond)], values=[out[0]], p=[out[1]])
        )

    def ci_test(eng, cand, cond, n_permutations, rng):
        out = orig["ci_test"](eng, cand, cond, n_permutations, rng)
        _parcorr(eng, cand, cond, out)
        return out

    def gram_test(self, eng, gram, cand, cond):
        out = orig["_gram_test"](self, eng, gram, cand, cond)
        if out is not None:
            _parcorr(eng, cand, cond, out)
        return out

    patches = [
        (A, "_engine", engine),
        (A, "include", phase("include", "max")),
        (A, "prune", phase("prune", "min")),
        (A, "omnibus", phase("omnibus", "omnibus")),
        (A, "sequential_maxstat", phase("sequential_maxstat", "stepdown")),
        (A, "ci_test", ci_test),
        (S, "permutations", permutations),
        (A.LinkTests, "_gram_test", gram_test),
        (G, "single", single),
        (G, "single_surrogates", single_surrogates),
        (G, "joint", joint),
        (G, "joint_surrogates", joint_surrogates),
    ]
    for obj, name, new in patches:
        setattr(obj, name, new)
    try:
        yield rec
    finally:
        for obj, name, _ in patches:
            setattr(obj, name, orig[name])


def compare(rec: Recording, replay: list, levels: tuple[float, ...]) -> dict[str, Any]:
    """The replay's statistics against the library's: largest |difference| of the values,
    of the surrogates and of the p-values, and the tests whose decision (p <= level) differs
    at any of ``levels``."""
    dv = dn = dp = 0.0
    flips = 0
    for st, (vals, null, p) in zip(rec.steps, replay, strict=True):
        dv = max(dv, float(np.max(np.abs(np.subtract(vals, st.values)))))
        if null is not None:
            dn = max(dn, float(np.max(np.abs(null - st.null))))
        dp = max(dp, float(np.max(np.abs(np.subtract(p, st.p)))))
        a, b = np.asarray(p), np.asarray(st.p)
        flips += int(any(np.any((a <= lv) != (b <= lv)) for lv in levels))
    return {
        "tests": len(rec.steps),
        "max |d value|": dv,
        "max |d surrogate|": dn,
        "max |d p|": dp,
        "decisions differing": flips,
    }
