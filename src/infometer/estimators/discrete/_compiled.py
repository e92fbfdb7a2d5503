"""Compiled counting kernel of the discrete family (numba; imported only for large inputs).

One pass over the rows fills the dense joint count table of up to three code columns:
the reference a caller would write, ``np.bincount(a * kb + b)``, makes four passes (two
arithmetic passes, and bincount's own range scan before it counts).
"""

from __future__ import annotations

from infometer.core.jit import nb


@nb.njit(cache=True, nogil=True)
def joint_table(a, b, c, n_vars, kb, kc, lo, hi, out):
    """Add 1 to ``out[(a_i * kb + b_i) * kc + c_i]`` for rows ``lo..hi-1`` (fewer terms for
    fewer columns); codes must already be known to lie in ``0..k-1``.

    With one column, two tables are filled alternately (``out`` has twice the cells):
    consecutive rows rarely wait for each other's increment.
    """
    if n_vars == 1:
        m = out.shape[0] // 2
        i = lo
        while i + 1 < hi:
            out[a[i]] += 1
            out[m + a[i + 1]] += 1
            i += 2
        if i < hi:
            out[a[i]] += 1
    elif n_vars == 2:
        for i in range(lo, hi):
            out[a[i] * kb + b[i]] += 1
    else:
        for i in range(lo, hi):
            out[(a[i] * kb + b[i]) * kc + c[i]] += 1
