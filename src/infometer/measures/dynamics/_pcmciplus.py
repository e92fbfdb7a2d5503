"""PCMCI+ (Runge 2020) on an abstract conditional independence test.

The algorithm only sees a callable ``test(i, tau, j, Z) -> (value, p)`` for
X_i(t − tau) ⟂ X_j(t) | Z, where a node ``(k, lag)`` is X_k(t − lag) (lag ≥ 0), so the
same code runs on data (the CMI engines) and on a d-separation oracle (the exact test of
the tests).  Phases, as Tigramite's ``run_pcmciplus`` defines them:

1. (done by the caller: PC1) a superset of each target's lagged parents;
2. MCI skeleton: every remaining lagged link and every contemporaneous pair is tested
   with conditions S ⊂ the contemporaneous adjacencies of the target, of growing size
   (PC-stable: adjacencies fixed per size), always adding the lagged parents of the
   target and of the source shifted by the link's lag; a link is removed at the first
   S with p > alpha (S is its separating set);
3. collider orientation of the unshielded triples i(t−τ) – k(t) – j(t) by the majority
   rule: the triple is re-tested with every subset of the adjacencies of j (and of i when
   τ = 0); k in fewer than half of the separating subsets: collider, in more: not, in
   exactly half (or none separates): ambiguous; an edge oriented both ways is ``x-x``;
4. Meek's rules R1–R3 on the contemporaneous links, skipping ambiguous triples, with
   conflicts marked ``x-x``.

The graph is Tigramite's array: ``graph[i, j, tau]`` for X_i(t − tau) → X_j(t) is
``"-->"`` (lagged links always), and for tau = 0 ``"-->"`` / ``"<--"`` (with the mirror
entry ``graph[j, i, 0]``), ``"o-o"`` (unoriented), ``"x-x"`` (conflicting) or ``""``.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable

import numpy as np

from infometer.core.progress import progress_bar
from infometer.core.validation import check_budget

__all__ = ["pcmciplus_graph", "Test"]

Node = tuple[int, int]
Test = Callable[[int, int, int, tuple[Node, ...]], tuple[float, float]]


def _adjacencies(graph: np.ndarray, conflicts: bool = True) -> dict[int, list[Node]]:
    """{j: [(i, lag) with graph[i, j, lag] != ""]} (process-major, then lag)."""
    n = graph.shape[0]
    out = {}
    for j in range(n):
        mask = graph[:, j, :] != ""
        if not conflicts:
            mask &= graph[:, j, :] != "x-x"
        ii, gg = np.nonzero(mask)
        out[j] = [(int(i), int(g)) for i, g in zip(ii, gg, strict=True)]
    return out


def _contemp(graph: np.ndarray, conflicts: bool = True, sort_by=None) -> dict[int, list[Node]]:
    adj = _adjacencies(graph, conflicts)
    if sort_by is not None:  # strongest (smallest |statistic| over tests) first, stable
        for j in adj:
            have = set(adj[j])
            keys = [k for k in sort_by[j] if k in have]
            adj[j] = sorted(keys, key=lambda k: -abs(sort_by[j][k]))
    return {j: [a for a in adj[j] if a[1] == 0] for j in adj}


class _Tester:
    """The MCI test of a link given S, adding both ends' lagged parents."""

    def __init__(self, test: Test, parents: dict[int, list[Node]], alpha: float, py, px):
        self.test, self.parents, self.alpha = test, parents, alpha
        self.py, self.px = py, px

    def __call__(self, i: int, tau: int, j: int, s) -> tuple[float, float, bool]:
        z = list(s)
        z += [nd for nd in self.parents[j][: self.py] if nd != (i, tau) and nd not in z]
        z += [nd for nd in ((k, tau + g) for k, g in self.parents[i][: self.px]) if nd not in z]
        val, p = self.test(i, tau, j, tuple(z))
        return val, p, p > self.alpha


def _skeleton(
    graph, tester, tau_min, tau_max, max_conds_dim, p_matrix, val_matrix, max_tests=10**6
):
    n = graph.shape[0]
    adj = _contemp(graph)
    val_min = {
        j: {
            (int(i), int(g)): np.inf for i, g in zip(*np.nonzero(graph[:, j, :] != ""), strict=True)
        }
        for j in range(n)
    }
    sepsets: dict[tuple[Node, int], list[Node]] = {}
    touched = graph != ""
    tested, removed, t0 = 0, 1, time.monotonic()
    p_matrix[touched] = 0.0

    def remaining(dim):
        return [
            (i, j, g)
            for i, j in itertools.product(range(n), range(n))
            for g in range(tau_min, tau_max + 1)
            if graph[i, j, g] != "" and len([a for a in adj[j] if a != (i, g)]) >= dim
        ]

    dim = 0
    while (max_conds_dim is None or dim <= max_conds_dim) and (pairs := remaining(dim)):
        if dim >= 2 and not removed:  # the last level removed no link: pruning has stalled
            _check_stalled(pairs, adj, dim, max_conds_dim, max_tests, tested, time.monotonic() - t0)
        check_budget(
            sum(math.comb(len([a for a in adj[j] if a != (i, g)]), dim) for i, j, g in pairs),
            name=f"contemporaneous condition sets of size {dim}",
            limit=max_tests,
            what="skeleton tests at one size (at most)",
            override="limit the condition size with max_conds_dim=, or use a smaller alpha",
        )
        removed = 0
        for i, j, g in pairs:
            if graph[i, j, g] == "":
                continue  # a contemporaneous pair removed from the other side
            for s in itertools.combinations([a for a in adj[j] if a != (i, g)], dim):
                val, p, indep = tester(i, g, j, s)
                tested += 1
                val_min[j][(i, g)] = min(abs(val), val_min[j][(i, g)])
                if p >= p_matrix[i, j, g]:
                    p_matrix[i, j, g], val_matrix[i, j, g] = p, val
                if indep:
                    removed += 1
                    if g == 0:
                        graph[i, j, 0] = graph[j, i, 0] = ""
                        sepsets[((i, 0), j)] = sepsets[((j, 0), i)] = list(s)
                    else:
                        graph[i, j, g] = ""
                        sepsets[((i, g), j)] = list(s)
                    break
        dim += 1
        adj = _contemp(graph, sort_by=val_min)
    # contemporaneous entries: the larger p-value of the two directions (and its value)
    for i in range(n):
        for j in range(i + 1, n):
            if touched[i, j, 0]:
                a, b = (i, j) if p_matrix[i, j, 0] >= p_matrix[j, i, 0] else (j, i)
                p_matrix[b, a, 0], val_matrix[b, a, 0] = p_matrix[a, b, 0], val_matrix[a, b, 0]
    return sepsets


def _check_stalled(pairs, adj, dim, max_conds_dim, max_tests, tested, seconds) -> None:
    """Refuse a skeleton whose last level removed no link when its remaining levels
    could still need more than ``max_tests`` tests: the contemporaneous graph is dense
    (near-collinear series: each link stays dependent whatever is conditioned on) and the
    condition subsets grow as 2^(neighbours); said with the time the tests took so far."""
    top = None if max_conds_dim is None else max_conds_dim
    left = 0
    for i, j, g in pairs:
        a = len([x for x in adj[j] if x != (i, g)])
        hi = a if top is None else min(a, top)
        left += sum(math.comb(a, d) for d in range(dim, hi + 1))
    per = seconds / max(tested, 1)
    check_budget(
        left,
        name="data (method='pcmciplus')",
        limit=max_tests,
        what=f"more skeleton tests if, as at condition size {dim - 1}, no link is removed "
        f"(about {left * per / 60:.3g} min at the {per * 1e3:.2g} ms a test took here; "
        "the contemporaneous graph is dense: near-collinear series)",
        override="limit the condition size with max_conds_dim=, drop redundant series, or "
        "use method='pcmci' (lagged links only)",
    )


def _unshielded(graph) -> list[tuple[Node, int, int]]:
    """Triples i(t−τ) o-o/--> k(t) o-o j(t) with i(t−τ) not adjacent to j(t)."""
    adj = _adjacencies(graph, conflicts=False)
    out = []
    for j in range(graph.shape[0]):
        for k, gk in adj[j]:
            if gk == 0 and graph[k, j, 0] == "o-o":
                for i, gi in adj[k]:
                    if (
                        (i, gi) != (j, 0)
                        and graph[i, j, gi] == ""
                        and graph[i, k, gi] in ("o-o", "-->")
                    ):
                        out.append(((i, gi), k, j))
    return out


def _colliders(graph, sepsets, tester, conflict_resolution: bool, max_subsets: int = 2**14):
    """Majority-rule collider orientation; returns the ambiguous triples."""
    triples = _unshielded(graph)
    adj = _contemp(graph)
    v_structures, ambiguous = [], []
    for (i, tau), k, j in triples:
        pool = [a for a in adj[j] if a != (i, tau)]
        wide = max(len(adj[j]), len(adj[i]) if tau == 0 else 0)
        check_budget(
            2**wide,
            name=f"a node with {wide} contemporaneous neighbours",
            limit=max_subsets,
            what="condition subsets of one triple in PCMCI+'s majority collider rule",
            override="use fewer series, a smaller alpha, or method='pcmci' (lagged links)",
        )
        subsets = [c for r in range(len(pool) + 1) for c in itertools.combinations(pool, r)]
        if tau == 0:
            pool_i = [a for a in adj[i] if a != (j, 0)]
            subsets += [
                c for r in range(len(pool_i) + 1) for c in itertools.combinations(pool_i, r)
            ]
        uniq: list[frozenset] = []
        for c in subsets:
            if frozenset(c) not in uniq:
                uniq.append(frozenset(c))
        seps = [s for s in uniq if tester(i, tau, j, tuple(sorted(s)))[2]]
        key = ((i, tau), j)
        if not seps:
            ambiguous.append(((i, tau), k, j))
            continue
        frac = sum((k, 0) in s for s in seps) / len(seps)
        if frac == 0.5:
            ambiguous.append(((i, tau), k, j))
        elif frac < 0.5:
            v_structures.append(((i, tau), k, j))
            sepsets[key] = [a for a in sepsets.get(key, []) if a != (k, 0)]
        else:
            sepsets[key] = sepsets.get(key, []) + (
                [] if (k, 0) in sepsets.get(key, []) else [(k, 0)]
            )
    oriented: list[tuple[int, int]] = []
    for (i, tau), k, j in v_structures:
        _orient(graph, j, k, oriented, conflict_resolution)
        if tau == 0:
            _orient(graph, i, k, oriented, conflict_resolution)
    return ambiguous


def _orient(graph, a: int, b: int, oriented: list, conflict_resolution: bool) -> None:
    """Orient a(t) → b(t) unless a(t) – b(t) was oriented before; a reversal is a conflict."""
    if (a, b) not in oriented and (b, a) not in oriented:
        graph[a, b, 0], graph[b, a, 0] = "-->", "<--"
        oriented.append((a, b))
    if conflict_resolution and (b, a) in oriented:
        graph[a, b, 0] = graph[b, a, 0] = "x-x"


def _rules(graph, ambiguous, conflict_resolution: bool) -> None:
    """Meek's R1–R3 on the contemporaneous links until none applies (in place)."""
    n = graph.shape[0]
    oriented: list[tuple[int, int]] = []
    amb = set(ambiguous)
    while True:
        found = False
        adj = _adjacencies(graph, conflicts=False)
        r1 = [
            ((i, gi), k, j)
            for j in range(n)
            for k, gk in adj[j]
            if gk == 0 and graph[j, k, 0] == "o-o"
            for i, gi in adj[k]
            if (i, gi) != (j, 0) and graph[i, j, gi] == "" and graph[i, k, gi] == "-->"
        ]
        for t in r1:  # i --> k o-o j, i not adjacent to j: k --> j
            if t not in amb:
                found = True
                _orient(graph, t[1], t[2], oriented, conflict_resolution)
        con = _contemp(graph, conflicts=False)
        r2 = [
            ((i, 0), k, j)
            for j in range(n)
            for k, _ in con[j]
            if graph[k, j, 0] == "-->"
            for i, _ in con[k]
            if graph[i, k, 0] == "-->" and i != j and graph[i, j, 0] == "o-o"
        ]
        for t in r2:  # i --> k --> j and i o-o j: i --> j
            if t not in amb:
                found = True
                _orient(graph, t[0][0], t[2], oriented, conflict_resolution)
        con = _contemp(graph, conflicts=False)
        r3 = [
            (((i, 0), k, j), ((i, 0), l, j))
            for j in range(n)
            for i, _ in con[j]
            if graph[j, i, 0] == "o-o"
            for k, _ in con[j]
            for l, _ in con[j]
            if k != l
            and i not in (k, l)
            and graph[k, j, 0] == "-->"
            and graph[l, j, 0] == "-->"
            and graph[k, i, 0] == "o-o"
            and graph[l, i, 0] == "o-o"
            and graph[k, l, 0] == ""
        ]
        for a, b in r3:  # i o-o k --> j, i o-o l --> j, k, l not adjacent, i o-o j: i --> j
            if a not in amb and b not in amb:
                found = True
                _orient(graph, a[0][0], a[2], oriented, conflict_resolution)
        if not found:
            return


def pcmciplus_graph(
    n: int,
    test: Test,
    lagged_parents: dict[int, list[Node]],
    *,
    tau_min: int,
    tau_max: int,
    alpha: float,
    max_conds_dim: int | None = None,
    max_conds_py: int | None = None,
    max_conds_px: int | None = None,
    conflict_resolution: bool = True,
    p_lagged: np.ndarray | None = None,
    val_lagged: np.ndarray | None = None,
    max_subsets: int = 2**14,
    progress: bool | None = None,
) -> dict:
    """Phases 2–4 of PCMCI+ given the PC1 lagged parents (strongest first).

    Parameters
    ----------
    n
        Number of processes.
    test
        ``test(i, tau, j, Z) -> (value, p)`` for X_i(t − tau) ⟂ X_j(t) | Z.
    lagged_parents
        ``{j: [(i, lag), ...]}`` with lag ≥ 1: the PC1 superset of each target's lagged
        parents, sorted strongest first (the MCI conditions use the first
        ``max_conds_py`` / ``max_conds_px``).
    tau_min, tau_max
        Lags of the links tested (tau_min = 0: contemporaneous links too).
    alpha
        Level of every test (Tigramite's ``pc_alpha``): independent when p > alpha.
    max_conds_dim, max_conds_py, max_conds_px
        Largest contemporaneous condition set of the skeleton; number of the target's /
        the source's lagged parents added to every test (None: all).
    conflict_resolution
        Mark a link that two orientations contradict as ``"x-x"`` (True, Tigramite's
        default) or keep the first orientation.
    p_lagged, val_lagged
        (n, n, tau_max + 1) PC1 p-values / values of the lagged links it removed.
    max_subsets
        Refuse a collider test with more condition subsets than this (before testing).
    progress
        Progress bar over the three phases.

    Returns
    -------
    dict
        ``graph`` (string array), ``p_matrix`` and ``val_matrix`` (the largest p-value of
        each link's tests and its value), ``sepsets``, ``ambiguous_triples``.
    """
    graph = np.full((n, n, tau_max + 1), "", dtype="<U3")
    for j in range(n):
        for i, g in lagged_parents[j]:
            if tau_min <= g <= tau_max:
                graph[i, j, g] = "-->"
    if tau_min == 0:
        graph[:, :, 0] = "o-o"
        graph[np.arange(n), np.arange(n), 0] = ""
    p_matrix = np.ones((n, n, tau_max + 1)) if p_lagged is None else p_lagged.copy()
    val_matrix = np.zeros((n, n, tau_max + 1)) if val_lagged is None else val_lagged.copy()
    if tau_min == 0:
        p_matrix[:, :, 0], val_matrix[:, :, 0] = 1.0, 0.0

    tester = _Tester(test, lagged_parents, alpha, max_conds_py, max_conds_px)
    with progress_bar(
        total=3, desc="PCMCI+ skeleton, colliders, rules", unit="phase", progress=progress
    ) as bar:
        sepsets = _skeleton(graph, tester, tau_min, tau_max, max_conds_dim, p_matrix, val_matrix)
        bar.update(1)
        ambiguous = _colliders(graph, sepsets, tester, conflict_resolution, max_subsets)
        bar.update(1)
        _rules(graph, ambiguous, conflict_resolution)
        bar.update(1)
    return {
        "graph": graph,
        "p_matrix": p_matrix,
        "val_matrix": val_matrix,
        "sepsets": sepsets,
        "ambiguous_triples": ambiguous,
    }
