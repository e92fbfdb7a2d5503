"""LLVM intrinsics for the compiled kNN kernels (numba ``@intrinsic``s).

* :func:`popcount`, :func:`ctz`: one ``popcnt`` / ``tzcnt`` instruction on a uint64.
* :func:`prefetch`: a cache hint (``llvm.prefetch``) with no effect on results.
* :func:`block_dist`: the distances from a query to the ``BLOCK`` points of one block of a
  kd-tree leaf, as one LLVM vector of ``BLOCK`` doubles, and the mask of those within a
  bound.  numba vectorises the same loop written in Python, but with a run-time trip
  count: loop set-up and remainder code on every block cost more than the arithmetic
  (0.84x the kNN's CPU with this, 3x3 columns at N = 1e5, benchmarks/RESULTS.md).

The arithmetic is the one the Python loops did, in the same order (squares summed column
by column; maxima of absolute differences), so distances are bit-identical.

numba's on-disk cache keys a kernel on its own source file only: after editing this
module in a source checkout, delete the cache directory (``infometer.core._jit.cache_dir()``)
so that the kernels using it are compiled again (an install or upgrade rewrites every
file, which invalidates them all).
"""

from __future__ import annotations

from llvmlite import ir
from llvmlite.binding import llvm_version_info

# numba through ..jit only: it sets numba's cache directory before numba is first imported
from infometer.core._jit import nb

types = nb.types
intrinsic = nb.extending.intrinsic
cgutils = nb.core.cgutils

#: Points per block of a kd-tree leaf (the lanes of :func:`block_dist`).
BLOCK = 16


@intrinsic
def popcount(typingctx, x):
    """Number of set bits of a uint64 (one ``popcnt`` instruction)."""
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return sig, codegen


@intrinsic
def ctz(typingctx, x):
    """Index of the lowest set bit of a nonzero uint64."""
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 1))

    return sig, codegen


# the intrinsic's name carries its pointer type: opaque pointers from LLVM 15 on
_PREFETCH = "llvm.prefetch.p0" if llvm_version_info >= (15,) else "llvm.prefetch.p0i8"


@intrinsic
def prefetch(typingctx, arr, i):
    """Ask the CPU to bring ``arr[i]`` (a 1-D array) into cache (``llvm.prefetch``: a
    hint with no effect on results)."""
    sig = types.void(arr, i)

    def codegen(context, builder, signature, args):
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        ptr = builder.gep(ary.data, [args[1]])
        i8p = ir.IntType(8).as_pointer()
        fnty = ir.FunctionType(ir.VoidType(), [i8p, ir.IntType(32), ir.IntType(32), ir.IntType(32)])
        fn = builder.module.globals.get(_PREFETCH) or ir.Function(builder.module, fnty, _PREFETCH)
        i32 = ir.IntType(32)
        builder.call(fn, [builder.bitcast(ptr, i8p), i32(0), i32(3), i32(1)])
        return context.get_dummy_value()

    return sig, codegen


def _splat(builder, vt, value):
    """A vector of type ``vt`` with ``value`` in every lane."""
    i32 = ir.IntType(32)
    one = builder.insert_element(ir.Constant(vt, ir.Undefined), value, i32(0))
    zeros = ir.Constant(ir.VectorType(i32, vt.count), [0] * vt.count)
    return builder.shuffle_vector(one, ir.Constant(vt, ir.Undefined), zeros)


def _fabs(builder, vt):
    """The ``llvm.fabs`` intrinsic on vectors of type ``vt`` (declared once per module)."""
    name = f"llvm.fabs.v{vt.count}f64"
    return builder.module.globals.get(name) or ir.Function(
        builder.module, ir.FunctionType(vt, [vt]), name
    )


@intrinsic
def block_dist(typingctx, blocks, b, q, euclid, bound, out):
    """Distances from ``q`` (d,) to the points of block ``b`` of ``blocks``
    (number of blocks, d, BLOCK), C-contiguous: max-norm, or squared Euclidean when
    ``euclid``.  Writes them to ``out`` (BLOCK,) and returns the uint64 mask of the lanes
    whose distance is ``<= bound`` (bit j: lane j).

    Per lane: ``max_c |p_c - q_c|`` starting from 0, or ``sum_c (p_c - q_c)^2`` summed in
    column order starting from 0, exactly as the scalar code computes them.  The arrays
    must be C-contiguous float64 and ``blocks.shape[2] == BLOCK`` (the caller's layout,
    ``engine._search_layout``); other array types do not compile.
    """
    arrays = (blocks, q, out)
    if not all(isinstance(a, types.Array) and a.dtype == types.float64 for a in arrays):
        return None  # the IR below reads raw float64 memory
    if not all(a.layout == "C" for a in arrays) or (blocks.ndim, q.ndim, out.ndim) != (3, 1, 1):
        return None
    sig = types.uint64(blocks, b, q, euclid, bound, out)

    def codegen(context, builder, signature, args):
        bty, _, qty, _, _, oty = signature.args
        blk = context.make_array(bty)(context, builder, args[0])
        qa = context.make_array(qty)(context, builder, args[2])
        oa = context.make_array(oty)(context, builder, args[5])
        i64 = ir.IntType(64)
        vt = ir.VectorType(ir.DoubleType(), BLOCK)
        fabs = _fabs(builder, vt)
        d = builder.extract_value(blk.shape, 1)
        base = builder.mul(builder.mul(args[1], d), i64(BLOCK))
        acc = cgutils.alloca_once_value(builder, ir.Constant(vt, [0.0] * BLOCK))
        with cgutils.for_range(builder, d) as loop:
            c = loop.index
            ptr = builder.gep(blk.data, [builder.add(base, builder.mul(c, i64(BLOCK)))])
            v = builder.load(builder.bitcast(ptr, vt.as_pointer()), align=8)
            u = builder.fsub(v, _splat(builder, vt, builder.load(builder.gep(qa.data, [c]))))
            a = builder.load(acc)
            with builder.if_else(args[3]) as (sq, mx):
                with sq:
                    builder.store(builder.fadd(a, builder.fmul(u, u)), acc)
                with mx:
                    w = builder.call(fabs, [u])
                    builder.store(builder.select(builder.fcmp_ordered(">", w, a), w, a), acc)
        a = builder.load(acc)
        builder.store(a, builder.bitcast(oa.data, vt.as_pointer()), align=8)
        within = builder.fcmp_ordered("<=", a, _splat(builder, vt, args[4]))
        return builder.zext(builder.bitcast(within, ir.IntType(BLOCK)), i64)

    return sig, codegen


@intrinsic
def block_maxdists(typingctx, blocks, b, q, bounds, dist, t, bound):
    """Per-variable max-norm distances from ``q`` (d,) to the ``BLOCK`` points of block
    ``b`` of ``blocks`` (number of blocks, d, BLOCK), for the brute-force search of
    :mod:`infometer.estimators.knn._brute`.

    Variable v is the columns ``bounds[v] .. bounds[v + 1] - 1`` (``bounds`` (nv + 1,)
    int64).  Writes ``max_{c in v} |p_c - q_c|`` (from 0, as the scalar code) of lane l
    to ``dist[t, v, b * BLOCK + l]`` (``dist`` (m, nv, number of blocks * BLOCK)) and
    returns the uint64 mask of the lanes whose joint distance (the maximum over the
    variables) is strictly below ``bound``.  All arrays C-contiguous.
    """
    floats = (blocks, q, dist)
    if not all(isinstance(a, types.Array) and a.dtype == types.float64 for a in floats):
        return None
    if not (isinstance(bounds, types.Array) and bounds.dtype == types.int64):
        return None
    arrays = (*floats, bounds)
    if not all(a.layout == "C" for a in arrays):
        return None
    if (blocks.ndim, q.ndim, bounds.ndim, dist.ndim) != (3, 1, 1, 3):
        return None
    sig = types.uint64(blocks, b, q, bounds, dist, t, bound)

    def codegen(context, builder, signature, args):
        bty, _, qty, nty, dty, _, _ = signature.args
        blk = context.make_array(bty)(context, builder, args[0])
        qa = context.make_array(qty)(context, builder, args[2])
        na = context.make_array(nty)(context, builder, args[3])
        da = context.make_array(dty)(context, builder, args[4])
        i64 = ir.IntType(64)
        vt = ir.VectorType(ir.DoubleType(), BLOCK)
        fabs = _fabs(builder, vt)
        zero = ir.Constant(vt, [0.0] * BLOCK)
        d = builder.extract_value(blk.shape, 1)
        nv = builder.extract_value(da.shape, 1)
        npad = builder.extract_value(da.shape, 2)
        base = builder.mul(builder.mul(args[1], d), i64(BLOCK))
        lane0 = builder.mul(args[1], i64(BLOCK))
        row0 = builder.mul(args[5], nv)
        joint = cgutils.alloca_once_value(builder, zero)
        acc = cgutils.alloca_once_value(builder, zero)
        acc2 = cgutils.alloca_once_value(builder, zero)

        def fold(c, into):  # into = max(into, |p_c - q_c|)
            ptr = builder.gep(blk.data, [builder.add(base, builder.mul(c, i64(BLOCK)))])
            x = builder.load(builder.bitcast(ptr, vt.as_pointer()), align=8)
            qc = builder.load(builder.gep(qa.data, [c]))
            w = builder.call(fabs, [builder.fsub(x, _splat(builder, vt, qc))])
            a = builder.load(into)
            builder.store(builder.select(builder.fcmp_ordered(">", w, a), w, a), into)

        with cgutils.for_range(builder, nv) as vloop:
            v = vloop.index
            c0 = builder.load(builder.gep(na.data, [v]))
            c1 = builder.load(builder.gep(na.data, [builder.add(v, i64(1))]))
            builder.store(zero, acc)
            builder.store(zero, acc2)
            # two columns per step into two accumulators: two chains of maxima, so the
            # latency of one max does not bound the loop (max is exact: same result)
            half = builder.ashr(builder.sub(c1, c0), i64(1))
            with cgutils.for_range(builder, half) as cloop:
                c = builder.add(c0, builder.shl(cloop.index, i64(1)))
                fold(c, acc)
                fold(builder.add(c, i64(1)), acc2)
            odd = builder.icmp_signed("<", builder.add(c0, builder.shl(half, i64(1))), c1)
            with builder.if_then(odd):
                fold(builder.sub(c1, i64(1)), acc)
            a, a2 = builder.load(acc), builder.load(acc2)
            a = builder.select(builder.fcmp_ordered(">", a2, a), a2, a)
            off = builder.add(builder.mul(builder.add(row0, v), npad), lane0)
            builder.store(a, builder.bitcast(builder.gep(da.data, [off]), vt.as_pointer()), align=8)
            j = builder.load(joint)
            builder.store(builder.select(builder.fcmp_ordered(">", a, j), a, j), joint)
        j = builder.load(joint)
        below = builder.fcmp_ordered("<", j, _splat(builder, vt, args[6]))
        return builder.zext(builder.bitcast(below, ir.IntType(BLOCK)), i64)

    return sig, codegen
