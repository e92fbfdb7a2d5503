"""Is the 6-D kNN of KSG at its floor?  A per-leaf batched search against the engine's
per-query search, and the leaf scans a query needs even when its answer is known.

    python benchmarks/dev/knn_batched.py --d 3 --n 1e5,1e6 --rounds 3
    python benchmarks/dev/knn_batched.py --d 3 --n 1e5 --leafsize 8,16,32

Data as in ``knn_stages.py``: x ~ N(0, I_d), y = 0.6 x + 0.8 noise, seed 0; the search is
the joint max-norm kNN of (x, y) (2d columns, k = 3) on the engine's kd-tree
(:class:`infometer.estimators.knn.engine.KDTree`, its search layout and leaf size).

* **engine**: ``KDTree.knn_self`` (:func:`infometer.estimators.knn._compiled._knn`): each query
  starts
  in its own leaf and climbs, scanning the leaves whose box is within its current k-th
  distance.
* **batched**: the queries of one subtree (the largest of at most 32 points: one leaf at the
  engine's leaf size) search together, on a tree of ``--leafsize`` points per leaf.  The tree
  is walked once per group with the union of their cubes (the group's box widened by the
  largest current k-th distance), and at each leaf reached one vector test per coordinate
  (32 lanes) finds
  the queries whose own cube meets the leaf's box; only those scan it, with the engine's
  block scan (:func:`infometer.estimators.knn._intrinsics.block_dist`) and its tie rule, so both
  give
  the same distances and indices (checked).
* **exact bound**: the batched search again, each query's bound set to its final k-th
  distance from the start: the leaf scans it counts are those no search order can avoid on
  this tree (every leaf whose box is within the k-th distance).

Prints, per N and leaf size: per query the leaf scans of the batched search with and without
the exact bound (and the batched walk's leaves and nodes per group); then wall and CPU (all
threads) min of ``--rounds`` interleaved runs of each search, their ratio to the engine's,
and the 1-minute load of each run.  The batched search is
an experiment kept here as the evidence in benchmarks/RESULTS.md; the engine does not use it.
"""

from __future__ import annotations

import argparse
import os
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from llvmlite import ir

from infometer.core.jit import nb
from infometer.estimators.knn import engine
from infometer.estimators.knn._intrinsics import BLOCK, _splat, block_dist, ctz

GROUP = 32  # queries per batch: lanes of box_mask (at most 64, the mask's bits)
_STACK = 256


@nb.extending.intrinsic
def box_mask(typingctx, qs, cbox, pb, side, bound, euclid):
    """Mask of the ``GROUP`` queries ``qs`` (d, GROUP) whose distance to the box of child
    ``side`` of pair ``pb`` of ``cbox`` (pairs, d, 4) is ``<= bound[j]`` (max-norm, or
    squared Euclidean when ``euclid``); one ``<GROUP x double>`` vector per coordinate."""
    sig = nb.types.uint64(qs, cbox, pb, side, bound, euclid)

    def codegen(context, builder, signature, args):
        qty, cty, _, _, wty, _ = signature.args
        qarr = context.make_array(qty)(context, builder, args[0])
        carr = context.make_array(cty)(context, builder, args[1])
        warr = context.make_array(wty)(context, builder, args[4])
        i64 = ir.IntType(64)
        vt = ir.VectorType(ir.DoubleType(), GROUP)
        d = builder.extract_value(carr.shape, 1)
        cbase = builder.mul(builder.mul(args[2], d), i64(4))
        zero = ir.Constant(vt, [0.0] * GROUP)
        acc = nb.core.cgutils.alloca_once_value(builder, zero)
        with nb.core.cgutils.for_range(builder, d) as loop:
            c = loop.index
            ptr = builder.gep(qarr.data, [builder.mul(c, i64(GROUP))])
            v = builder.load(builder.bitcast(ptr, vt.as_pointer()), align=8)
            off = builder.add(builder.add(cbase, builder.mul(c, i64(4))), args[3])
            lo = builder.load(builder.gep(carr.data, [off]))
            hi = builder.load(builder.gep(carr.data, [builder.add(off, i64(2))]))
            t0 = builder.fsub(_splat(builder, vt, lo), v)
            t1 = builder.fsub(v, _splat(builder, vt, hi))
            t = builder.select(builder.fcmp_ordered(">", t0, t1), t0, t1)
            a = builder.load(acc)
            with builder.if_else(args[5]) as (sq, mx):
                with sq:
                    tp = builder.select(builder.fcmp_ordered(">", t, zero), t, zero)
                    builder.store(builder.fadd(a, builder.fmul(tp, tp)), acc)
                with mx:
                    builder.store(builder.select(builder.fcmp_ordered(">", t, a), t, a), acc)
        w = builder.load(builder.bitcast(warr.data, vt.as_pointer()), align=8)
        within = builder.fcmp_ordered("<=", builder.load(acc), w)
        return builder.zext(builder.bitcast(within, ir.IntType(GROUP)), i64)

    return sig, codegen


@nb.njit(cache=True, nogil=True)
def batched(
    blocks,
    lblk,
    lo_a,
    hi_a,
    child,
    parent,
    cbox,
    leaf_of,
    groups,
    k,
    euclid,
    perm,
    cap,
    out_d,
    out_i,
    stats,
):
    """kNN of the tree's own points, ``GROUP`` queries at a time: ``groups`` (g, 3) rows
    ``(leaf, first, last)`` are the tree positions ``first..last-1`` of a leaf.  ``cap``
    (by tree position) caps each query's bound (``inf``: none).  ``stats`` += (leaves
    reached, leaf scans, inner nodes opened)."""
    dim = blocks.shape[1]
    qa = np.empty((GROUP, dim))  # the queries, row by row (block_dist) ...
    qs = np.zeros((dim, GROUP))  # ... and column by column (box_mask)
    hd = np.empty((GROUP, k))
    hp = np.empty((GROUP, k), np.int64)
    worst = np.full(GROUP, -1.0)  # lanes past the group's end never pass
    wrow = np.empty(GROUP, np.int64)
    gmin = np.empty(dim)
    gmax = np.empty(dim)
    stack = np.empty(_STACK, np.int64)
    sdist = np.empty(_STACK)
    tmp = np.empty(BLOCK)
    one = np.uint64(1)
    big = np.int64(1) << 62
    n_leaves = n_scans = n_inner = 0  # local counts: no shared cache line in the loops
    for g in range(groups.shape[0]):
        node, first, last = groups[g, 0], groups[g, 1], groups[g, 2]
        m = last - first
        for j in range(GROUP):
            worst[j] = -1.0
        for j in range(m):
            leaf = leaf_of[first + j]
            t = first + j - lo_a[leaf]
            for c in range(dim):
                v = blocks[lblk[leaf] + t // BLOCK, c, t % BLOCK]
                qa[j, c] = v
                qs[c, j] = v
            for a in range(k):
                hd[j, a] = np.inf
                hp[j, a] = big
            worst[j] = cap[first + j]
            wrow[j] = big
        rg = 0.0
        for c in range(dim):
            gmin[c] = np.inf
            gmax[c] = -np.inf
            for j in range(m):
                gmin[c] = min(gmin[c], qs[c, j])
                gmax[c] = max(gmax[c], qs[c, j])
        for j in range(m):
            rg = max(rg, worst[j])
        nd = node  # the group's own subtree first, then the climb (as the engine's search)
        cur = node
        sp = 0
        while True:
            c0 = child[nd]
            while c0 >= 0:  # descend: nearer child (to the group's box) first
                n_inner += 1
                pb = (c0 - 1) >> 1
                d0 = 0.0
                d1 = 0.0
                for c in range(dim):
                    t0 = max(cbox[pb, c, 0] - gmax[c], gmin[c] - cbox[pb, c, 2])
                    t1 = max(cbox[pb, c, 1] - gmax[c], gmin[c] - cbox[pb, c, 3])
                    if euclid:
                        d0 += max(t0, 0.0) ** 2
                        d1 += max(t1, 0.0) ** 2
                    else:
                        d0 = max(d0, t0)
                        d1 = max(d1, t1)
                second = d1 < d0
                stack[sp] = c0 + 1 - second
                sdist[sp] = d0 if second else d1
                sp += sdist[sp] <= rg
                if (d1 if second else d0) > rg:
                    nd = -1
                    break
                nd = c0 + second
                c0 = child[nd]
            if nd >= 0:
                n_leaves += 1
                if nd == 0:  # the root is a leaf: no box stored, every query scans it
                    cand = (one << np.uint64(m)) - one
                else:
                    p = parent[nd]
                    cand = box_mask(qs, cbox, (child[p] - 1) >> 1, nd - child[p], worst, euclid)
                lo, hi = lo_a[nd], hi_a[nd]
                while cand:
                    j = np.int64(ctz(cand))
                    cand &= cand - one
                    n_scans += 1
                    w = worst[j]
                    wr = wrow[j]
                    b = lblk[nd]
                    for b0 in range(lo, hi, BLOCK):
                        near = block_dist(blocks, b, qa[j], euclid, w, tmp)
                        near &= (one << np.uint64(min(BLOCK, hi - b0))) - one
                        b += 1
                        while near:
                            jj = np.int64(ctz(near))
                            near &= near - one
                            dd = tmp[jj]
                            t = b0 + jj
                            if dd > w or t == first + j:
                                continue
                            row = perm[t]
                            if dd == w and row > wr:
                                continue
                            a = k - 1
                            while a > 0 and (
                                hd[j, a - 1] > dd or (hd[j, a - 1] == dd and hp[j, a - 1] > row)
                            ):
                                hd[j, a] = hd[j, a - 1]
                                hp[j, a] = hp[j, a - 1]
                                a -= 1
                            hd[j, a] = dd
                            hp[j, a] = row
                            w = min(hd[j, k - 1], cap[first + j])
                            wr = hp[j, k - 1]
                    worst[j] = w
                    wrow[j] = wr
                rg = 0.0
                for j in range(m):
                    rg = max(rg, worst[j])
            nd = -1
            while sp > 0:
                sp -= 1
                if sdist[sp] <= rg:
                    nd = stack[sp]
                    break
            while nd < 0 and cur != 0:  # climb: the sibling of the next ancestor
                par = parent[cur]
                s = child[par]
                side = np.int64(s == cur)
                cur = par
                pb = (s - 1) >> 1
                bd = 0.0
                for c in range(dim):
                    t0 = max(cbox[pb, c, side] - gmax[c], gmin[c] - cbox[pb, c, 2 + side], 0.0)
                    bd = bd + t0 * t0 if euclid else max(bd, t0)
                if bd <= rg:
                    nd = s + side
            if nd < 0:
                break
        for j in range(m):
            row = perm[first + j]
            for a in range(k):
                out_d[row, a] = np.sqrt(hd[j, a]) if euclid else hd[j, a]
                out_i[row, a] = hp[j, a]
    stats[0] += n_leaves
    stats[1] += n_scans
    stats[2] += n_inner


def groups_of(tree: engine.KDTree) -> np.ndarray:
    """(node, first, last): the largest subtrees of at most ``GROUP`` points, their tree
    positions (a leaf of more points, identical ones, in pieces of ``GROUP``)."""
    _, _, lo, hi, child, parent, _ = tree._search_arrays()
    size = hi - lo
    top = (size <= GROUP) & ((parent < 0) | (size[np.maximum(parent, 0)] > GROUP))
    rows = []
    for nd in np.flatnonzero(top | ((child < 0) & (size > GROUP))):
        for a in range(lo[nd], hi[nd], GROUP):
            rows.append((nd, a, min(a + GROUP, hi[nd])))
    return np.asarray(rows, np.int64)


def run_batched(tree: engine.KDTree, k: int, groups: np.ndarray, cap=None, threads=None):
    """Distances, indices and summed stats of the batched search (groups split over threads)."""
    blocks, lblk, lo, hi, child, parent, cbox = tree._search_arrays()
    cap = np.full(tree.n, np.inf) if cap is None else cap
    d = np.empty((tree.n, k))
    i = np.empty((tree.n, k), np.int64)
    threads = threads or engine.n_threads()
    cuts = np.linspace(0, len(groups), 4 * threads + 1).astype(np.int64)
    stats = np.zeros((len(cuts) - 1, 3), np.int64)
    args = (blocks, lblk, lo, hi, child, parent, cbox)

    def part(p: int) -> None:
        g = groups[cuts[p] : cuts[p + 1]]
        batched(*args, tree._leaf_of, g, k, False, tree.perm, cap, d, i, stats[p])

    with ThreadPoolExecutor(max_workers=threads) as pool:
        list(pool.map(part, range(len(cuts) - 1)))
    return d, i, stats.sum(axis=0)


def timed(f):
    w, c = time.perf_counter(), time.process_time()
    out = f()
    return out, time.perf_counter() - w, time.process_time() - c


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--d", type=int, default=3, help="columns of x and of y")
    ap.add_argument("--n", default="1e5,1e6")
    ap.add_argument("--k", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument(
        "--leafsize", default=str(engine.LEAFSIZE), help="leaf sizes of the batched search's trees"
    )
    a = ap.parse_args()
    sizes = [int(v) for v in a.leafsize.split(",")]
    for n in [int(float(v)) for v in a.n.split(",")]:
        rng = np.random.default_rng(0)
        x = rng.standard_normal((n, a.d))
        joint = np.hstack([x, 0.6 * x + 0.8 * rng.standard_normal((n, a.d))])
        tree = engine.KDTree(joint, metric="max")
        d0, i0 = tree.knn_self(a.k)  # compiles (not timed)
        jobs = {"engine": lambda tree=tree: tree.knn_self(a.k)}
        for size in sizes:
            t = engine.KDTree(joint, leafsize=size, metric="max")
            groups = groups_of(t)
            d1, i1, st = run_batched(t, a.k, groups)
            cap = d0[t.perm, a.k - 1].copy()  # each query's final k-th distance, tree order
            d2, i2, sx = run_batched(t, a.k, groups, cap=cap)
            for dd, ii in ((d1, i1), (d2, i2)):
                if not (np.array_equal(d0, dd) and np.array_equal(i0, ii)):
                    raise SystemExit("the batched search differs from the engine's")
            g = len(groups)
            print(
                f"d={2 * a.d} N={n:.0e} k={a.k}, batched, leaves of <= {size}: {st[0] / g:.0f} "
                f"leaves and {st[2] / g:.0f} inner nodes per group of <= {GROUP} queries, "
                f"{st[1] / n:.2f} leaf scans per query; with each query's exact k-th distance "
                f"from the start {sx[1] / n:.2f} ({sx[0] / g:.0f} leaves per group)",
                flush=True,
            )
            jobs[f"batched {size}"] = lambda t=t, groups=groups: run_batched(t, a.k, groups)
        runs: dict[str, list] = {name: [] for name in jobs}
        for _ in range(a.rounds):
            for name, f in jobs.items():
                _, w, c = timed(f)
                runs[name].append((w, c, os.getloadavg()[0]))
        ew, ec = (min(r[q] for r in runs["engine"]) for q in (0, 1))
        for name, v in runs.items():
            w, c = (min(r[q] for r in v) for q in (0, 1))
            print(
                f"  {name}: {w:.3f} s wall / {c:.3f} s CPU (min of {a.rounds}, interleaved), "
                f"{w / ew:.2f}x wall, {c / ec:.2f}x CPU of the engine; load "
                + ", ".join(f"{r[2]:.1f}" for r in v),
                flush=True,
            )


if __name__ == "__main__":
    main()
