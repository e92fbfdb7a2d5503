"""The neighbour engine: exact k-th neighbour distances and exact range counts.

Everything the kNN estimators need reduces to two primitives on a point set
``P`` (n rows, d columns):

* :func:`kth_neighbours`: for every point, the distance to its k-th nearest *other*
  point (and the indices of its k neighbours), with the max-norm or the Euclidean norm;
  :func:`kth_distance_to` does the same against a second sample (KL divergence).
* :func:`count_within`: for every point i, the number of *other* points j with
  ``dist(p_j, p_i) <= r_i`` (max-norm).

Strict counts (``< r``, as KSG-1 and Frenzel-Pompe need) are non-strict counts at
``np.nextafter(r, 0)``: no float lies strictly between the two, so this is exact, not an
epsilon.  Distances are computed exactly as ``|a - b|`` per coordinate in float64 in
every kernel (and in the brute-force tests), so a boundary point is classified the
same way by the joint search and by the marginal counts.

Two backends compute the same exact answers:

* **compiled** (:mod:`infometer.estimators.knn._compiled`, numba kernels that release the GIL;
  queries
  are split into chunks that run on a few Python threads, see :func:`_run`), used from
  ``JIT_MIN_POINTS`` points, and for any size once it has been used in the process;
* **scipy** (``scipy.spatial.cKDTree`` and numpy) for smaller problems, so that a small
  call never waits for numba to compile (seconds, once per install) or load (about
  0.5 s per process), until the process has spent ``SWITCH_AFTER_S`` in it (then the
  compiled kernels pay for their loading).  Until the kernels have been compiled once
  into numba's cache (a marker file there says so), point sets up to
  ``COLD_MIN_POINTS`` stay on scipy: its time there is below the first compile's.
  ``BACKEND`` forces one of them.

The compiled backend:

* a kd-tree (median split on the widest coordinate, leaves of ``LEAFSIZE`` points,
  a bounding box per node) built once per point set.  A kNN query of a tree point starts
  in its own leaf and climbs towards the root, searching each ancestor's other subtree
  (depth first, nearer child first) only where its box is within the current k-th
  distance; leaves are scanned 16 points at a time from per-leaf column-major blocks,
  one LLVM vector operation per coordinate (:func:`_search_layout`, :func:`compiled._knn`,
  :func:`.intrinsics.block_dist`).  Ties at the
  k-th distance keep the lowest rows, so the tree's neighbour lists are the k nearest by
  (distance, row): they depend on the data only, not on the tree, the search order or
  the threads.
  Range counts add a whole node's size when its box lies inside the query ball and
  skip it when the box lies outside, so only boundary leaves are scanned;
* one-dimensional marginals use a sorted copy instead: exponential ("galloping")
  search from the point's own rank with the *exact* predicate ``|s_j - v| <= r``.
  Because ``s_j - v`` rounds monotonically in ``s_j``, the predicate is monotone along
  the sorted array and the boundary found is exact (a ``searchsorted(v + r)`` on the
  re-rounded sum ``v + r`` is not: it misplaces the boundary for about half the points);
* range counts on 2 to ``GRID_MAX_DIM`` columns use the rank grid of
  :mod:`infometer.estimators.knn._grid`: slabs of equal rank width per column, a summed-area table
  that counts the cells inside the query cube in ``2^d`` lookups, and the points of the
  one-slab-thick shell scanned from two cell-sorted layouts (:class:`RangeCounter` picks
  the structure; the grid is laid out when the radii are known, the per-column argsorts
  and sorted columns before, concurrently with the joint search);
* in high dimension, where a kd-tree prunes almost nothing, range counts (from
  ``BITSET_MIN_DIM`` columns) and max-norm kNN queries (from ``BITSET_KNN_MIN_DIM``
  columns) use the rank-space bitset index of :mod:`infometer.estimators.knn._bitset` (exact: per
  column, the exact interval of sorted positions within r, then integer logic on bitsets),
  for ``BITSET_MIN_POINTS`` to ``BITSET_MAX_POINTS`` points while its bitsets fit
  ``bitset.MAX_BYTES``; that module is imported only then, so low-dimensional and small
  problems never load or compile it;
* where even those visit nearly every point (tens of joint columns, up to a number of
  points that grows with the dimension: ``BRUTE_LIMITS``), the joint kNN and the marginal
  counts of KSG, Frenzel-Pompe and the multivariate KSG sums are one brute-force pass per
  query (:func:`knn_counts`, :mod:`infometer.estimators.knn._brute`): per-variable
  max-norm distances to every point in a buffer of O(n) per thread, the k nearest in
  (distance, row) order, then the counts with the tree path's ``<`` / ``<=`` rules, so
  the numbers are the tree path's bit for bit;
* every kernel is compiled once, for any dimension (the dimension is read from the data):
  one compile (cached on disk) serves all dimensions, so a new dimension costs nothing,
  and no kernel uses numba's ``parallel=True`` (its compile and cache load cost seconds);
* a large tree builds its root's two subtrees on two threads (:func:`_build_halves`),
  giving exactly the serial tree; :func:`start` builds several structures concurrently.

The scipy backend uses the same arithmetic: cKDTree's max-norm distances and range counts
are exact (``|a - b|`` per coordinate, ``<=`` comparisons; checked against brute force in
the tests), Euclidean distances of the neighbours found are recomputed as the compiled
kernel computes them, and one-column counts use the exact threshold search of
:func:`_count_sorted_np`.  Counts on two or more columns from ``RANKBITS_MIN_POINTS`` to a
few thousand points intersect the exact per-column rank intervals of that search as
bitsets (:mod:`infometer.estimators.knn._rankbits`), 2-12x cheaper than cKDTree's counts there.

Memory is O(n·d) (plus O(n·k) for neighbour indices); no pairwise matrices (the scipy
backend's rank bitsets take N²/8 bytes per column, capped at ``rankbits.MAX_BYTES``, the
compiled backend's bitset index ``(d - 1) * (n / B + 1) * n / 8`` bytes, capped at
``bitset.MAX_BYTES``; the brute force's buffer at most ``brute.BUFFER_BYTES`` per thread).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import TypeVar

import numpy as np

from infometer.core._cachedir import cache_dir
from infometer.core._threads import n_threads

from . import _rankbits as rankbits

__all__ = [
    "KDTree",
    "RangeCounter",
    "kth_neighbours",
    "kth_distance_to",
    "count_within",
    "start",
    "brute_chosen",
    "knn_counts",
    "LEAFSIZE",
    "uses_compiled",
]

T = TypeVar("T")

#: Points per kd-tree leaf (two scan blocks).  With the vector block scan, 32 takes 0.89x the
#: CPU of 16 for the 6-D kNN at N = 1e6, 0.85x at 10-D and 1.0x at 2-D (N = 1e5), and 0.74x
#: for a 3-column kd-tree range count (benchmarks/RESULTS.md, "Vector leaf scan").
LEAFSIZE = 32
#: Below this many queries the kernels run on one thread: starting threads costs more
#: (thread wake-up and join, ~10 ms on a busy 2-core machine) than it saves.
PARALLEL_MIN = 20_000
#: Chunks per thread in :func:`_run` (several, so a thread that finishes early takes more).
CHUNKS_PER_THREAD = 4
#: Range counts on 2 to this many columns and at least ``GRID_MIN_POINTS`` points use the
#: rank grid of :mod:`infometer.estimators.knn._grid`, otherwise the kd-tree: the crossovers
#: measured by ``benchmarks/peers/knn.py --counts`` (benchmarks/RESULTS.md).
GRID_MAX_DIM = 4
GRID_MIN_POINTS = 2000
#: Max-norm range counts on at least ``BITSET_MIN_DIM`` columns and kNN queries on at
#: least ``BITSET_KNN_MIN_DIM`` columns, on point sets of ``BITSET_MIN_POINTS`` to
#: ``BITSET_MAX_POINTS`` points, use the rank-space bitset index of
#: :mod:`infometer.estimators.knn._bitset` on the compiled backend (while its bitsets fit
#: ``bitset.MAX_BYTES``), otherwise the kd-tree: the crossovers measured by
#: ``benchmarks/dev/knn_stages.py --bitset`` (benchmarks/RESULTS.md).  Counts on 5-8 columns
#: cost 3-6x less CPU than on the tree from 5,000 to 200,000 points.  kNN (since the
#: candidate-superset search, 2026-12-01): 16 columns 0.33-0.41x the tree's CPU and 14
#: columns 0.38-0.63x (N = 2e4, 1e5), 12 columns 0.5x at 2e4 and 0.85x at 1e5 and 2e5,
#: 10 columns 0.75x at 2e4 but 1.27x at 1e5.  Above 200,000 points nothing was measured.
BITSET_MIN_DIM = 5
BITSET_KNN_MIN_DIM = 12
BITSET_MIN_POINTS = 5000
BITSET_MAX_POINTS = 200_000
#: ... from this many points only, until the bitset kernels have run once on this install
#: (a marker file in numba's cache, as for the other kernels): their first compile takes
#: 5-10 s, more than they save below this size.
BITSET_COLD_MIN_POINTS = 50_000
#: Joint max-norm kNN plus marginal counts (KSG, Frenzel-Pompe, the KSG sums of
#: multivariate measures) go to the brute force of :mod:`infometer.estimators.knn._brute`
#: (one pass over all points per query: O(n^2 d) time, O(n) memory per thread) on the
#: compiled backend for point sets of ``n`` points in ``d`` joint columns with ``n`` up to
#: the limit of the last row of this table whose first entry is <= ``d``: the second entry
#: where the kd-tree path would run on kd-trees, sorted columns and grids alone, the third
#: where it would use the bitset index (:func:`brute_chosen`).  Crossovers of KSG-1's
#: whole search-and-count stage, one thread (``benchmarks/dev/knn_brute.py``,
#: benchmarks/RESULTS.md "Brute force in high dimension"): brute force / kd-tree path CPU
#: 0.59 at 6 columns and 1,500 points, 1.13 at 2,000; 8 columns 0.91 at 2,000, 1.08 at
#: 3,000; 10 columns 0.42 at 5,000, 0.95 at 15,000, 1.10 at 20,000; 12 columns 0.83 at
#: 20,000, 1.12 at 30,000; 16 columns 0.29 at 5,000, 0.58 at 45,000; 24 columns 0.24 at
#: 30,000.  Against the bitset index (warm): 10 columns 0.98 at 5,000; 12-16 columns
#: 0.88-0.94 at 5,000, 1.12-1.17 at 7,000; 24 columns 0.83 at 5,000, 1.08 at 7,000; 32
#: columns 0.83 at 7,000, 1.23 at 10,000; 50 and 100 columns 0.65-0.87 at 7,000 and
#: 0.83-1.08 at 10,000 (two runs).  Frenzel-Pompe (x, y, z of d/3 columns each): 12
#: columns 0.49 at 5,000 and 1.07 at 20,000 (0.93 at 5,000 against the bitset index), 24
#: columns 0.22 at 20,000 (0.71 at 5,000 against the bitset index).  Above 50,000 points
#: the bitset index is used even on a cold install.
BRUTE_LIMITS = (
    (6, 1_500, 1_500),
    (8, 2_500, 2_500),
    (10, 12_000, 5_000),
    (12, 18_000, 6_000),
    (16, 50_000, 6_000),
    (24, 50_000, 6_500),
    (32, 50_000, 9_000),
    (50, 50_000, 10_000),
)
#: ... on several threads from this many coordinate differences (queries x points x
#: columns, about 0.1 ns each): a brute-force query costs far more than a tree query.
BRUTE_PARALLEL_WORK = 200_000_000
#: ``"auto"`` (the rule above), ``"always"`` or ``"never"``: for tests and benchmarks.
BRUTE = "auto"
#: Point sets of at least this many points use the compiled backend (it is loaded, or
#: compiled once per install, on first use); smaller ones use scipy unless the compiled
#: backend is already loaded in this process (then it is faster at every size).
JIT_MIN_POINTS = 5000
#: ... and once a process has spent this many seconds in the scipy backend, it switches to
#: the compiled one for good (loading numba's cache costs about 0.5 s, a first compile
#: about 5 s): repeated small problems (permutation tests, resampling) then run at the
#: compiled speed.
SWITCH_AFTER_S = 1.0
#: ... or this many, while the kernels have never been compiled on this install.
COLD_SWITCH_AFTER_S = 5.0
#: ``"auto"`` (the rules above), ``"compiled"`` or ``"scipy"``: for tests and benchmarks.
BACKEND = "auto"
#: Leaf size of the scipy backend's trees for range counts (larger leaves count faster).
SCIPY_COUNT_LEAFSIZE = 64
#: From this many queries the scipy backend queries on all threads (cKDTree ``workers``).
SCIPY_PARALLEL_MIN = 1000
#: The scipy backend counts on 2 or more columns with the rank-interval bitsets of
#: :mod:`infometer.estimators.knn._rankbits` from this many points (while they fit its memory cap):
#: 2-12x less CPU than cKDTree counts at 500-8,000 points (more columns, larger gain),
#: 0.6-0.7x at 250, slower below (``benchmarks/peers/knn.py --cells none --rankbits``).
RANKBITS_MIN_POINTS = 250
_scipy_seconds = 0.0


#: Until this install has compiled the kernels once (numba's first compile takes several
#: seconds), point sets below these sizes stay on scipy whose cost is below that:
#: ``COLD_MIN_POINTS`` up to ``COLD_LOW_DIM`` columns, ``COLD_MIN_POINTS_HIGH_DIM`` above.
#: Each structure decides by its own column count (a KSG 3x3 joint tree has 6 columns).
#: Measured 2026-12-01, a whole KSG-1 call: 2x2 at 50,000 points 0.7 s on scipy against
#: 5.9 s with its first compile (0.6 s once compiled; load 2-2.6); 3x3 at 20,000 / 50,000
#: / 100,000 0.7 / 1.7 / 4.4 s on scipy against 3.8 s (20,000) and 6.9 s (50,000) with the
#: first compile (idle); 8x8 at 8,000 0.9 s on scipy (rank bitsets) but 6.8 s at 15,000
#: (beyond their memory cap: cKDTree counts) against a first compile of ~3.1 s.
COLD_MIN_POINTS = 100_000
COLD_LOW_DIM = 6
COLD_MIN_POINTS_HIGH_DIM = 8_000
_cached: bool | None = None  # whether the marker below exists (looked up once)


def _marker() -> str:
    """A file that says this install's kernels have been compiled into numba's cache:
    in that cache directory, named after the numba version and the kernels' sources."""
    import hashlib
    from importlib import metadata

    here = os.path.dirname(os.path.abspath(__file__))
    stamp = [metadata.version("numba")]
    for name in ("_compiled.py", "_grid.py", "_bitset.py", "_brute.py"):
        st = os.stat(os.path.join(here, name))
        stamp.append(f"{name}:{st.st_mtime_ns}:{st.st_size}")
    key = hashlib.sha1("|".join(stamp).encode()).hexdigest()[:16]
    return os.path.join(os.environ.get("NUMBA_CACHE_DIR") or cache_dir(), f"infometer-knn-{key}")


def kernels_cached() -> bool:
    """Whether the compiled kernels are known to be in numba's cache (a new process then
    loads them in about half a second instead of compiling them)."""
    global _cached
    if _cached is None:
        try:
            _cached = os.path.exists(_marker())
        except (OSError, ValueError):  # numba missing, or an odd file system
            _cached = False
    return _cached


def _note_cached() -> None:
    """Record (once per process) that the compiled kernels have run, so are cached."""
    global _cached
    if _cached:
        return
    _cached = True
    try:
        with open(_marker(), "a"):
            pass
    except (OSError, ValueError):  # a read-only cache: nothing is recorded
        pass


def uses_compiled(n: int, d: int = 1) -> bool:
    """Whether a point set of ``n`` points in ``d`` dimensions goes to the compiled backend."""
    if BACKEND != "auto":
        return BACKEND == "compiled"
    if "infometer.estimators.knn._compiled" in sys.modules:
        return True
    cached = kernels_cached()
    # switching costs a load (cached) or a first compile (several seconds, once)
    if _scipy_seconds >= (SWITCH_AFTER_S if cached else COLD_SWITCH_AFTER_S):
        return True
    if n < JIT_MIN_POINTS:
        return False
    return cached or n >= (COLD_MIN_POINTS if d <= COLD_LOW_DIM else COLD_MIN_POINTS_HIGH_DIM)


@contextmanager
def _scipy_timer():
    """Add the time spent in a scipy-backend query to the process total."""
    global _scipy_seconds
    t = time.perf_counter()
    try:
        yield
    finally:
        _scipy_seconds += time.perf_counter() - t


def _kernels():
    """The compiled kernels (importing them imports numba)."""
    from . import _compiled as compiled

    return compiled


_bitset_cached: bool | None = None  # whether the bitset kernels' marker exists


def _bitset_shift(n: int, d: int, min_dim: int) -> int:
    """The block shift of the bitset index of ``n`` points in ``d`` columns if the rules
    above choose that index (compiled backend assumed), else -1."""
    if d < max(min_dim, 2) or not BITSET_MIN_POINTS <= n <= BITSET_MAX_POINTS:
        return -1
    if n < BITSET_COLD_MIN_POINTS and not _bitset_warm():
        return -1
    from . import _bitset as bitset

    return bitset.block_shift(n, d)


def _bitset_index(points: np.ndarray, min_dim: int):
    """The bitset index of ``points`` if the rules above choose it (else ``None``)."""
    shift = _bitset_shift(*points.shape, min_dim)
    if shift < 0:
        return None
    from . import _bitset as bitset

    return bitset.Index(points, shift)


def shares_knn_index(n: int, d_joint: int, d_head: int) -> bool:
    """Whether counts on the first ``d_head`` columns of a ``d_joint``-column point set
    use the bitset index of the joint max-norm kNN (:class:`RangeCounter` with ``joint=``)
    instead of building their own: both structures are bitset indexes by the rules above."""
    if not (uses_compiled(n, d_joint) and uses_compiled(n, d_head)):
        return False
    if d_head <= GRID_MAX_DIM or d_head < BITSET_MIN_DIM:
        return False
    return _bitset_shift(n, d_joint, BITSET_KNN_MIN_DIM) >= 0


def _bitset_warm() -> bool:
    """Whether the bitset kernels are loaded in this process or known to be cached."""
    global _bitset_cached
    if "infometer.estimators.knn._bitset" in sys.modules:
        return True
    if _bitset_cached is None:
        try:
            _bitset_cached = os.path.exists(_marker() + "-bitset")
        except (OSError, ValueError):  # numba missing, or an odd file system
            _bitset_cached = False
    return _bitset_cached


def _run_bitset(kernel: Callable[..., None], m: int, *args) -> None:
    """:func:`_run` for a bitset kernel, then record that the bitset kernels are cached."""
    global _bitset_cached
    _run(kernel, m, *args)
    if not _bitset_cached:
        _bitset_cached = True
        try:
            with open(_marker() + "-bitset", "a"):
                pass
        except (OSError, ValueError):  # a read-only cache: nothing is recorded
            pass


def _build_tree(work: np.ndarray, leafsize: int) -> tuple:
    """A kd-tree of ``work`` (permuted in place): ``(perm, data, leaf_of, lo, hi, child,
    bmin, bmax)``, ``data`` being ``work`` in tree order (see :func:`_build`)."""
    n, d = work.shape
    max_nodes = 4 * (n // leafsize + 1) + 3
    idx = np.empty(n, np.int64)
    leaf_of = np.empty(n, np.int64)
    lo_a = np.empty(max_nodes, np.int64)
    hi_a = np.empty(max_nodes, np.int64)
    child = np.empty(max_nodes, np.int64)
    bmin = np.empty((max_nodes, d))
    bmax = np.empty((max_nodes, d))
    m = _kernels()._build(work, leafsize, idx, leaf_of, lo_a, hi_a, child, bmin, bmax)
    return idx, work, leaf_of, lo_a[:m], hi_a[:m], child[:m], bmin[:m], bmax[:m]


def _build_halves(pts: np.ndarray, leafsize: int) -> tuple:
    """The tree of :func:`_build` with the two subtrees of the root built on two threads.

    The root split is the one :func:`_build` makes (same box, same widest coordinate, same
    quickselect), and each half is built by :func:`_build` itself, so the tree (point
    order, boxes, leaves) is the same as a serial build; only the node numbering differs.
    Results never depend on the thread count.
    """
    work = np.array(pts, dtype=np.float64, order="C", copy=True)
    n, d = work.shape
    rmin, rmax = work.min(axis=0), work.max(axis=0)
    ext = rmax - rmin
    dim = int(np.argmax(ext))  # the first widest coordinate, as in _build
    if n <= leafsize or ext[dim] <= 0.0:
        return _build_tree(work, leafsize)
    idx = np.arange(n)
    mid = n // 2
    # numpy integers: a Python 0 would be typed as a literal, a second compilation
    _kernels()._select(work, idx, np.int64(dim), np.int64(0), np.int64(n), np.int64(mid))
    with ThreadPoolExecutor(max_workers=1) as pool:
        left_future = pool.submit(_build_tree, work[:mid], leafsize)
        right = _build_tree(work[mid:], leafsize)
        left = left_future.result()
    n_left, n_right = len(left[3]), len(right[3])
    # node ids: root 0, the two subtree roots 1 and 2 (siblings are adjacent), then the
    # other nodes of the left subtree, then those of the right one
    remap = [
        np.concatenate([[1], 2 + np.arange(1, n_left)]),
        np.concatenate([[2], 1 + n_left + np.arange(1, n_right)]),
    ]
    total = 1 + n_left + n_right
    lo_a = np.empty(total, np.int64)
    hi_a = np.empty(total, np.int64)
    child = np.empty(total, np.int64)
    bmin = np.empty((total, d))
    bmax = np.empty((total, d))
    lo_a[0], hi_a[0], child[0], bmin[0], bmax[0] = 0, n, 1, rmin, rmax
    leaf_of = []
    for part, ids, offset in ((left, remap[0], 0), (right, remap[1], mid)):
        _, _, p_leaf, p_lo, p_hi, p_child, p_bmin, p_bmax = part
        lo_a[ids], hi_a[ids] = p_lo + offset, p_hi + offset
        child[ids] = np.where(p_child >= 0, ids[np.maximum(p_child, 0)], -1)
        bmin[ids], bmax[ids] = p_bmin, p_bmax
        leaf_of.append(ids[p_leaf])
    perm = np.concatenate([idx[:mid][left[0]], idx[mid:][right[0]]])
    return perm, work, np.concatenate(leaf_of), lo_a, hi_a, child, bmin, bmax


def _search_layout(data, leaf_of, lo_a, hi_a, child, bmin, bmax) -> tuple:
    """The kNN kernel's view of a built tree: ``(blocks, lblk, lo, hi, child, parent, cbox)``.

    ``blocks`` (number of blocks, d, BLOCK): each leaf's points in tree order, cut into
    blocks of ``BLOCK`` points stored column-major (padding lanes are +inf), so that a leaf
    scan reads one contiguous piece of memory and vectorises; ``lblk``: the first block of
    each leaf.  ``cbox[(child[p] - 1) >> 1]`` (d, 4): the boxes of node p's two children
    side by side (left children have odd numbers in both builds: children are made in
    pairs after the root).  ``parent``: each node's parent (-1 for the root).
    """
    from ._compiled import BLOCK

    n, d = data.shape
    leaves = np.flatnonzero(child < 0)
    n_blocks = (hi_a[leaves] - lo_a[leaves] + BLOCK - 1) // BLOCK
    lblk = np.full(len(child), -1, np.int64)
    lblk[leaves] = np.cumsum(n_blocks) - n_blocks
    blocks = np.full((int(n_blocks.sum()), d, BLOCK), np.inf)
    off = np.arange(n) - lo_a[leaf_of]  # position within its leaf
    first = lblk[leaf_of]
    blocks[first + off // BLOCK, :, off % BLOCK] = data
    inner = np.flatnonzero(child >= 0)
    left = child[inner]
    if np.any(left % 2 != 1):  # pragma: no cover - the builds number children this way
        raise AssertionError("kd-tree: a left child with an even number")
    parent = np.full(len(child), -1, np.int64)
    parent[left] = inner
    parent[left + 1] = inner
    cbox = np.empty((max((len(child) - 1) // 2, 1), d, 4))
    pair = (left - 1) >> 1
    cbox[pair, :, 0], cbox[pair, :, 1] = bmin[left], bmin[left + 1]
    cbox[pair, :, 2], cbox[pair, :, 3] = bmax[left], bmax[left + 1]
    return blocks, lblk, lo_a, hi_a, child, parent, cbox


# ------------------------------------------------------------------- wrappers
def _workers(m: int, parallel_min: int | None = None) -> int:
    """Threads for ``m`` queries: one below ``parallel_min`` (default ``PARALLEL_MIN``)."""
    return n_threads() if m >= (PARALLEL_MIN if parallel_min is None else parallel_min) else 1


def _scipy_workers(m: int) -> int:
    """cKDTree threads for ``m`` queries (its threads are cheap: from 1,000 queries)."""
    return n_threads() if m >= SCIPY_PARALLEL_MIN else 1


#: Most queries one compiled call handles: between calls the interpreter runs pending
#: signal handlers, so Ctrl-C stops a long search within one chunk instead of at its end.
MAX_QUERIES_PER_CALL = 4096


def _run(kernel: Callable[..., None], m: int, *args, parallel_min: int | None = None) -> None:
    """``kernel(*args, lo, hi)`` over the queries ``0..m-1``, on several threads from
    ``parallel_min`` (default ``PARALLEL_MIN``) queries, in ranges of at most
    :data:`MAX_QUERIES_PER_CALL`.

    Each query writes only its own outputs, so the result does not depend on how the
    range is cut or on the thread count.  The kernels release the GIL.  On Ctrl-C the
    ranges not started are dropped and the call raises ``KeyboardInterrupt`` once the
    running ones end.
    """
    threads = _workers(m, parallel_min)
    if threads <= 1:
        for a in range(0, m, MAX_QUERIES_PER_CALL):
            kernel(*args, a, min(a + MAX_QUERIES_PER_CALL, m))
        _note_cached()
        return
    parts = max(threads * CHUNKS_PER_THREAD, -(-m // MAX_QUERIES_PER_CALL))
    cuts = np.linspace(0, m, parts + 1).astype(np.int64).tolist()
    pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="infometer-knn")
    try:
        jobs = [pool.submit(kernel, *args, a, b) for a, b in zip(cuts[:-1], cuts[1:], strict=True)]
        for j in jobs:
            j.result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    _note_cached()


def _euclidean(points: np.ndarray, queries: np.ndarray, idx: np.ndarray) -> tuple:
    """Distances from each query to its listed neighbours, computed as the compiled kernel
    does (squared differences summed column by column, then one square root), sorted.

    The scipy backend finds the neighbours; this makes their distances bit-identical to
    the compiled backend's (cKDTree sums the squares in another order).
    """
    s = np.zeros(idx.shape)
    for c in range(points.shape[1]):
        u = points[idx, c] - queries[:, c : c + 1]
        s += u * u
    order = np.argsort(s, axis=1, kind="stable")
    return np.sqrt(np.take_along_axis(s, order, 1)), np.take_along_axis(idx, order, 1)


class KDTree:
    """A kd-tree over ``points`` (n, d) for exact kNN queries and max-norm range counts.

    Parameters
    ----------
    points
        Float array (n, d); a 1-D array is one column.
    leafsize
        Points per leaf.
    metric
        ``"max"`` when max-norm kNN queries (:meth:`knn_self`) will follow: what answers
        them (in high dimension the bitset index, else the kd-tree's search layout) is
        then made here, otherwise on the first such query.
    """

    def __init__(
        self, points: np.ndarray, leafsize: int = LEAFSIZE, metric: str | None = None
    ) -> None:
        pts = np.ascontiguousarray(np.asarray(points, dtype=np.float64))
        if pts.ndim == 1:
            pts = pts.reshape(-1, 1)
        self.n, self.d = pts.shape
        self.compiled = uses_compiled(self.n, self.d)
        if not self.compiled:
            from scipy.spatial import cKDTree

            self.points = pts
            self._ck = cKDTree(pts, leafsize=leafsize)
            return
        if self.n >= PARALLEL_MIN and n_threads() > 1:
            built = _build_halves(pts, leafsize)
        else:
            built = _build_tree(pts.copy(), leafsize)
        self.perm, self.data, self._leaf_of = built[:3]  # tree position -> row; rows in tree order
        self._lo, self._hi, self._child, self._bmin, self._bmax = built[3:]
        self._search: tuple | None = None
        self._points = pts
        if metric == "max" and self._bitset() is None:
            self._search_arrays()  # here, on the thread that builds the tree (see start())

    _points: np.ndarray | None = None  # the points (compiled backend)
    _index = None  # their bitset index, once _bitset has decided
    _index_ready = False
    #: bitset kNN: the number of cubes tried per query in the last :meth:`knn_self`
    tries: np.ndarray | None = None

    def _bitset(self):
        """The bitset index for max-norm kNN (``None`` where the kd-tree is used)."""
        if not self._index_ready and self._points is not None:
            self._index = _bitset_index(self._points, BITSET_KNN_MIN_DIM)
            self._index_ready = True
        return self._index

    def _nodes(self) -> tuple:
        return (self.data, self._lo, self._hi, self._child, self._bmin, self._bmax)

    def _search_arrays(self) -> tuple:
        """What the kNN kernel reads (made on the first query; range counts do not need it):
        see :func:`_search_layout` and :func:`compiled._knn`."""
        if getattr(self, "_search", None) is None:
            nodes = self._nodes()[1:]
            self._search = _search_layout(self.data, self._leaf_of, *nodes)
        return self._search

    def knn_self(self, k: int, metric: str = "max") -> tuple[np.ndarray, np.ndarray]:
        """Distances (n, k) and original indices (n, k) of each point's k nearest others."""
        if not self.compiled:
            p = 2 if metric == "euclidean" else np.inf
            with _scipy_timer():
                d, i = self._ck.query(self.points, k=k + 1, p=p, workers=_scipy_workers(self.n))
            # drop the point itself: first unless k + 1 or more points coincide with it
            me = i == np.arange(self.n)[:, None]
            drop = np.where(me.any(axis=1), me.argmax(axis=1), k)
            keep = np.ones(i.shape, bool)
            keep[np.arange(self.n), drop] = False
            d, i = d[keep].reshape(self.n, k), i[keep].reshape(self.n, k)
            if metric == "euclidean":
                d, i = _euclidean(self.points, self.points, i)
            return d, i
        d = np.empty((self.n, k))
        i = np.empty((self.n, k), np.int64)
        bits = self._bitset() if metric == "max" and k < self.n else None
        if bits is not None:
            # queries in tree order (close points in turn: each query's radius guess is
            # its predecessor's k-th distance), as bits of the index
            bit = np.empty(self.n, np.int64)
            bit[bits.order0] = np.arange(self.n)
            queries = np.ascontiguousarray(bit[self.perm])
            self.tries = np.empty(self.n, np.int64)
            _run_bitset(bits.knn, self.n, k, queries, d, i, self.tries)
            return d, i
        args = (self.data, np.arange(self.n), self._leaf_of, k, metric == "euclidean")
        _run(_kernels()._knn, self.n, *self._search_arrays(), *args, self.perm, self.perm, d, i)
        return d, i

    def knn(self, queries: np.ndarray, k: int, metric: str = "max") -> np.ndarray:
        """Distances (m, k) from each query row to its k nearest points of the tree."""
        q = np.ascontiguousarray(np.asarray(queries, dtype=np.float64).reshape(-1, self.d))
        m = q.shape[0]
        if not self.compiled:
            p = 2 if metric == "euclidean" else np.inf
            with _scipy_timer():
                d, i = self._ck.query(q, k=k, p=p, workers=_scipy_workers(m))
            d, i = d.reshape(m, k), i.reshape(m, k)
            return _euclidean(self.points, q, i)[0] if metric == "euclidean" else d
        d = np.empty((m, k))
        i = np.empty((m, k), np.int64)
        none = np.full(m, -1)
        args = (q, none, none, k, metric == "euclidean", np.arange(m))
        _run(_kernels()._knn, m, *self._search_arrays(), *args, self.perm, d, i)
        return d

    def count_self(self, radii: np.ndarray) -> np.ndarray:
        """For each point i, the number of *other* points within max-norm distance <= radii[i].

        A negative radius gives -1 (not even the point itself).
        """
        if not self.compiled:
            r = np.asarray(radii, dtype=np.float64)
            w = _scipy_workers(self.n)
            with _scipy_timer():
                c = self._ck.query_ball_point(
                    self.points, r, p=np.inf, return_length=True, workers=w
                )
            return np.asarray(c, np.int64) - 1
        r = np.ascontiguousarray(np.asarray(radii, dtype=np.float64)[self.perm])
        c = np.empty(self.n, np.int64)
        _run(_kernels()._count, self.n, *self._nodes(), self.data, r, c)
        out = np.empty(self.n, np.int64)
        out[self.perm] = c - 1  # the point itself is always within r >= 0
        return out


def kth_neighbours(
    points: np.ndarray, k: int, metric: str = "max"
) -> tuple[np.ndarray, np.ndarray]:
    """Distance to the k-th nearest other point and the indices (n, k) of the k nearest.

    Parameters
    ----------
    points
        (n, d) float array.
    k
        Neighbour order, ``1 <= k < n``.
    metric
        ``"max"`` (Chebyshev) or ``"euclidean"``.
    """
    d, i = KDTree(points, metric=metric).knn_self(k, metric)
    return d[:, k - 1].copy(), i


def kth_distance_to(
    ref: np.ndarray, queries: np.ndarray, k: int, metric: str = "max"
) -> np.ndarray:
    """Distance from each query row to its k-th nearest row of ``ref`` (no self exclusion)."""
    return KDTree(ref).knn(queries, k, metric)[:, k - 1].copy()


def _rank_intervals(s: np.ndarray, r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For sorted ``s`` and radii ``r`` (in that order): the sorted positions ``lo[p] <= j <
    hi[p]`` are exactly those with ``|s_j - s_p| <= r_p`` (empty, ``p..p``, for a negative
    or NaN ``r_p``).

    The numpy twin of the compiled ``_rank_bounds``.  ``searchsorted(s, s_p + r_p)`` alone
    is not exact: it compares with the re-rounded sum ``fl(s_p + r_p)`` and misplaces the
    boundary for about half the points.  The exact predicate ``fl(s_j - s_p) <= r_p`` is
    monotone in ``s_j`` (rounding is monotone), so the passing positions are one interval;
    starting from that guess, each boundary moves over whole runs of equal values (one
    ``searchsorted`` per step, as equal values pass or fail together) until the value just
    inside passes and the one just outside fails: usually zero or one step.
    """
    n = s.shape[0]
    pos = np.arange(n)
    ok = r >= 0.0  # a negative or NaN radius: empty
    rr = np.where(ok, r, 0.0)
    hi = np.searchsorted(s, s + rr, "right")  # > p: fl(s_p + r) >= s_p
    lo = np.searchsorted(s, s - rr, "left")  # <= p
    while True:  # up while the value at hi passes
        t = np.flatnonzero(hi < n)
        t = t[s[hi[t]] - s[t] <= rr[t]]
        if not t.size:
            break
        hi[t] = np.searchsorted(s, s[hi[t]], "right")
    while True:  # down while the value below hi fails (s_p itself passes: stops at p + 1)
        t = np.flatnonzero(s[hi - 1] - s > rr)
        if not t.size:
            break
        hi[t] = np.searchsorted(s, s[hi[t] - 1], "left")
    while True:  # down while the value below lo passes
        t = np.flatnonzero(lo > 0)
        t = t[s[t] - s[lo[t] - 1] <= rr[t]]
        if not t.size:
            break
        lo[t] = np.searchsorted(s, s[lo[t] - 1], "left")
    while True:  # up while the value at lo fails
        t = np.flatnonzero(s - s[lo] > rr)
        if not t.size:
            break
        lo[t] = np.searchsorted(s, s[lo[t]], "right")
    neg = np.flatnonzero(~ok)
    lo[neg] = hi[neg] = pos[neg]
    return lo, hi


def _count_sorted_np(s: np.ndarray, r: np.ndarray) -> np.ndarray:
    """For sorted ``s`` and radii ``r >= 0``: ``#{j != p : |s_j - s_p| <= r_p}`` for each p.

    Exact without a compiled loop: the intervals of :func:`_rank_intervals`.  A
    ``searchsorted`` on the rounded ``v + r`` alone misplaces the boundary.
    """
    lo, hi = _rank_intervals(s, r)
    return hi - lo - 1


class RangeCounter:
    """Exact self range counts on one point set (max-norm): ``count(radii)[i]`` is the
    number of other points j with ``max|p_j - p_i| <= radii[i]``.

    One column: a sorted copy with galloping search (compiled) or threshold search (scipy
    backend).  Two to ``GRID_MAX_DIM`` columns and at least ``GRID_MIN_POINTS`` points on
    the compiled backend: a rank grid (:mod:`infometer.estimators.knn._grid`, laid out when the
    radii are known, since its slab count depends on them; the argsorts and sorted columns
    it needs are made here).  More columns on the compiled backend: the bitset index of
    :mod:`infometer.estimators.knn._bitset` where the ``BITSET_*`` rules choose it.  Two or more
    columns and ``RANKBITS_MIN_POINTS`` points up to
    :func:`rankbits.fits` on the scipy backend: intersections of exact per-column rank
    intervals (:mod:`infometer.estimators.knn._rankbits`).  Otherwise a kd-tree.
    Construction (sorting, tree building) is separate from counting, so that it can run on
    another thread while the joint neighbour search runs (see :func:`start`).
    """

    def __init__(self, points: np.ndarray, joint: KDTree | None = None) -> None:
        pts = np.ascontiguousarray(np.asarray(points, dtype=np.float64))
        if pts.ndim == 1:
            pts = pts.reshape(-1, 1)
        self.n, self.d = pts.shape
        self._points = pts
        self._tree: KDTree | None = None
        self._bits = False  # scipy backend: rank-interval bitsets (rankbits)
        self._index = None  # compiled backend: the bitset index (bitset)
        self.compiled = uses_compiled(self.n, self.d)
        if self.d > GRID_MAX_DIM and self.compiled:
            shared = self._shared(joint)
            self._index = shared if shared is not None else _bitset_index(pts, BITSET_MIN_DIM)
        if self._index is not None:
            pass
        elif self.d == 1:
            self._order = np.argsort(pts[:, 0])
            self._sorted = np.ascontiguousarray(pts[self._order, 0])
        elif self.d <= GRID_MAX_DIM and self.n >= GRID_MIN_POINTS and self.compiled:
            self._ranks = np.stack([np.argsort(pts[:, k]) for k in range(self.d)])
            self._cols = [pts[rk, k] for k, rk in enumerate(self._ranks)]
        elif not self.compiled and self.n >= RANKBITS_MIN_POINTS and rankbits.fits(self.n):
            self._bits = True
        else:
            self._tree = KDTree(pts, LEAFSIZE if self.compiled else SCIPY_COUNT_LEAFSIZE)

    def _shared(self, joint: KDTree | None):
        """The head of ``joint``'s bitset index when ``joint``'s points begin with these
        columns and :func:`shares_knn_index` says the index is shared (else ``None``)."""
        if joint is None or not shares_knn_index(self.n, joint.d, self.d):
            return None
        index = joint._bitset()
        if index is None or joint.n != self.n or joint.d < self.d:
            return None
        if not np.array_equal(joint._points[:, : self.d], self._points):
            return None
        return index.head(self.d)

    def count(self, radii: np.ndarray, *, strict: bool = False) -> np.ndarray:
        """Counts within ``radii`` (``strict=True``: strictly closer, exactly); 0 for a
        negative or NaN radius on every structure (nothing is within it)."""
        r = np.asarray(radii, dtype=np.float64)
        if strict:
            r = np.where(r > 0, np.nextafter(r, 0), -1.0)  # nothing is at distance < 0
        if self._tree is not None:
            out = self._tree.count_self(r)
        elif self._bits:
            with _scipy_timer():
                out = rankbits.counts(self._points, r, _rank_intervals)
        else:
            order = self._order if self.d == 1 else None
            if self._index is not None:
                order = self._index.order0
                c = np.empty(self.n, np.int64)
                _run_bitset(self._index.count, self.n, np.ascontiguousarray(r[order]), c)
            elif self.d == 1 and not self.compiled:
                rs = r[order]
                with _scipy_timer():
                    c = _count_sorted_np(self._sorted, np.maximum(rs, 0.0))
                c[rs < 0] = 0
            elif self.d == 1:
                c = np.empty(self.n, np.int64)
                rs = np.ascontiguousarray(r[order])
                _run(_kernels()._count_sorted, self.n, self._sorted, rs, c)
            else:
                from . import _grid as grid

                g = grid.build(self._points, self._ranks, self._cols, r)
                order = g.order
                c = np.empty(self.n, np.int64)
                _run(grid.count, self.n, *g.args(), np.ascontiguousarray(r[order]), c)
            out = np.empty_like(c)
            out[order] = c
        out[~(r >= 0)] = 0  # the tree and rank bitsets give -1 there (not even the point)
        return out


def count_within(points: np.ndarray, radii: np.ndarray, *, strict: bool = False) -> np.ndarray:
    """For each point i, the number of other points j with ``max|p_j - p_i| <= radii[i]``
    (0 for a negative or NaN radius).

    ``strict=True`` counts ``< radii[i]`` instead (exactly, via ``np.nextafter(r, 0)``).
    """
    return RangeCounter(points).count(radii, strict=strict)


def brute_chosen(n: int, d: int) -> bool:
    """Whether the joint kNN and the marginal counts of ``n`` points in ``d`` joint columns
    go to the brute force of :func:`knn_counts` (``BRUTE_LIMITS``; compiled backend).

    Decided from the sizes alone, before anything is allocated: brute force costs
    O(n^2 d) time and O(n) memory per thread, and is chosen only up to the measured
    crossover with the path that would run otherwise.
    """
    if BRUTE == "never" or d < 1:
        return False
    if BRUTE == "auto":
        rows = [r for r in BRUTE_LIMITS if r[0] <= d]
        if not rows:
            return False
        _, tree_limit, bitset_limit = rows[-1]
        if n > max(tree_limit, bitset_limit):
            return False
        if n > min(tree_limit, bitset_limit):
            limit = bitset_limit if _bitset_shift(n, d, BITSET_MIN_DIM) >= 0 else tree_limit
            if n > limit:
                return False
    return uses_compiled(n, d)


def knn_counts(
    blocks: list[np.ndarray],
    spaces: list[list[int]],
    k: int,
    *,
    theiler: int = 0,
    ksg2: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """Joint max-norm k-th neighbour distances and marginal counts by brute force.

    Parameters
    ----------
    blocks
        The variables, (n, d_v) float arrays with at least one column each; the joint
        space is all their columns.
    spaces
        Each a list of variables (indices into ``blocks``) whose columns form a marginal
        space to count in.
    k
        Neighbour order, ``1 <= k``, with at least k rows outside each row's window.
    theiler
        Rows with ``0 < |i - j| <= theiler`` are never neighbours and never counted.
    ksg2
        ``False``: count the rows strictly closer than the joint k-th distance ``eps``
        (KSG-1, Frenzel-Pompe); ``True``: the rows within (``<=``) the largest distance in
        the space among the k neighbours (KSG-2).

    Returns
    -------
    eps, counts
        ``eps`` (n,) and ``counts`` (number of spaces, n): exactly what the kd-tree path
        gives (the k nearest in (distance, row) order, the same ``<`` / ``<=`` rules).
    """
    from . import _brute as brute

    pts = np.ascontiguousarray(np.hstack(blocks), dtype=np.float64)
    n = pts.shape[0]
    widths = [b.shape[1] for b in blocks]
    if min(widths) < 1:
        raise ValueError("knn_counts: every variable needs at least one column")
    bounds = np.concatenate([[0], np.cumsum(widths)]).astype(np.int64)
    member = np.zeros((len(spaces), len(blocks)), np.uint8)
    for s, vs in enumerate(spaces):
        member[s, vs] = 1
    eps = np.empty(n)
    counts = np.empty((len(spaces), n), np.int64)
    group = brute.group_size(n, len(blocks))
    args = (pts, brute.layout(pts), bounds, member, k, theiler, ksg2, group, eps, counts)
    # a query costs n * d: threads pay for their start from far fewer queries than usual
    _run(brute.knn_counts, n, *args, parallel_min=-(-BRUTE_PARALLEL_WORK // (n * pts.shape[1])))
    return eps, counts


def start(n: int, *makers: Callable[[], T]) -> list[Callable[[], T]]:
    """Start building each structure (tree, counter) on its own thread; one getter each.

    Tree builds are single-threaded and release the GIL, so on a multi-core machine the
    marginal structures of KSG or Frenzel-Pompe are built while the joint tree is built
    and searched, instead of one after another.  Below ``PARALLEL_MIN`` points, or when the
    thread policy allows one thread (``n_threads()``: ``INFOMETER_NUM_THREADS`` /
    ``NUMBA_NUM_THREADS``), nothing is started: each getter builds its structure when
    called.
    """
    if n < PARALLEL_MIN or len(makers) < 2 or n_threads() < 2:
        return list(makers)
    pool = ThreadPoolExecutor(max_workers=len(makers), thread_name_prefix="infometer-build")
    futures = [pool.submit(m) for m in makers]
    pool.shutdown(wait=False)
    return [f.result for f in futures]
