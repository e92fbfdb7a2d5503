"""The compiled primal–dual iteration of the BROJA dual (numba; the program, its formulas
and the certificate are in :mod:`._broja`).

The cells of the polytope are stored by column: column ``j`` (one ``(s1, s2)`` pair with a
cell) owns cells ``ptr[j]:ptr[j + 1]``; cell ``u`` reads the dual variables ``x[il[u]]``
(its ``λ(s1, t)``) and ``x[iv[u]]`` (its ``ν(s2, t)``; ``iv[u] == nf``, one past the
free variables, for the ``ν`` fixed at 0 by the gauge).  Every loop is over cells or
columns, so one iteration costs the cells times the column length plus one Cholesky
factorisation of the ``nf × nf`` Newton matrix.  Imported on first use (``lazy_module``):
registering the family must not load numba.
"""

from __future__ import annotations

import math

import numpy as np

from infometer.core._jit import nb

__all__ = ["solve_dual"]

#: Most attempts to factorise the (unit-diagonal) Newton matrix with a diagonal shift,
#: 1e-14 then ×100 each, when it is numerically singular.
_REG_TRIES = 8
#: Stagnation: stop when the least ``max(Σ z s, residual)`` so far has not fallen by 10%
#: for this many iterations and is below ``_STALL_BELOW`` (rounding, not the method, limits
#: it then); that best iterate is returned.
_STALL, _STALL_BELOW = 5, 1e-10


@nb.njit(cache=True)
def _columns(x, ptr, il, iv, f, r):
    """``f[j] = log Σ_t exp(λ(s1,t) + ν(s2,t))`` over column j's cells and ``r`` the
    softmax, ``q(t | s1, s2)`` of the recovered primal (overflow-safe: shifted by the
    column's largest exponent)."""
    for j in range(len(ptr) - 1):
        top = -np.inf
        for u in range(ptr[j], ptr[j + 1]):
            w = x[il[u]] + x[iv[u]]
            r[u] = w
            top = max(top, w)
        total = 0.0
        for u in range(ptr[j], ptr[j + 1]):
            e = math.exp(r[u] - top)
            r[u] = e
            total += e
        f[j] = top + math.log(total)
        for u in range(ptr[j], ptr[j + 1]):
            r[u] /= total


@nb.njit(cache=True)
def _marginals(v, ptr, il, iv, weight, out):
    """``out = Σ_j weight[j] r_j`` placed on the variables: row ``λ(s1, t)`` sums its
    cells over s2, row ``ν(s2, t)`` over s1 (``Gᵀ``-times-vector of the constraints'
    gradients; ``out[nf]`` collects the fixed ν and is ignored)."""
    out[:] = 0.0
    for j in range(len(ptr) - 1):
        for u in range(ptr[j], ptr[j + 1]):
            val = weight[j] * v[u]
            out[il[u]] += val
            out[iv[u]] += val


@nb.njit(cache=True)
def _along(d, ptr, il, iv, r, out):
    """``out[j] = Σ_t r_j(t) (dλ(s1,t) + dν(s2,t))``: the change of ``log Z_j`` along d
    (``d[nf] == 0``)."""
    for j in range(len(ptr) - 1):
        acc = 0.0
        for u in range(ptr[j], ptr[j + 1]):
            acc += r[u] * (d[il[u]] + d[iv[u]])
        out[j] = acc


@nb.njit(cache=True)
def _newton_matrix(ptr, il, iv, r, z, s, nf):
    """``Σ_j z_j ∇²F_j + (z_j / s_j) ∇F_j ∇F_jᵀ`` on the free variables: per column the
    block ``z_j diag(r_j) + (z_j / s_j - z_j) r_j r_jᵀ``, placed on its λ(s1,·), ν(s2,·)
    rows and columns."""
    k = np.zeros((nf + 1, nf + 1))
    for j in range(len(ptr) - 1):
        kap = z[j] / s[j] - z[j]
        for u in range(ptr[j], ptr[j + 1]):
            a, b, ru = il[u], iv[u], r[u]
            for v in range(ptr[j], ptr[j + 1]):
                val = kap * ru * r[v]
                if u == v:
                    val += z[j] * ru
                a2, b2 = il[v], iv[v]
                k[a, a2] += val
                k[a, b2] += val
                k[b, a2] += val
                k[b, b2] += val
    return k[:nf, :nf].copy()


@nb.njit(cache=True)
def _factor(k):
    """Cholesky factor of ``D k D``, ``D = diag(k)^-1/2`` (unit diagonal), and D.  Where
    that is numerically singular (a direction the optimum leaves free), of ``D k D + δI``
    with the smallest δ of 1e-14, 1e-12, ... that factorises (returned; 0 when none was
    needed, -1 when none of ``_REG_TRIES`` did)."""
    n = k.shape[0]
    d = np.empty(n)
    for i in range(n):
        d[i] = 1.0 / math.sqrt(k[i, i]) if k[i, i] > 0.0 else 1.0
    scaled = np.empty((n, n))
    for i in range(n):
        for j in range(n):
            scaled[i, j] = k[i, j] * d[i] * d[j]
    shift = 0.0
    low = np.zeros((n, n))
    for _ in range(_REG_TRIES + 1):
        ok = True
        try:
            low = np.linalg.cholesky(scaled)
        except Exception:  # noqa: BLE001 (numba catches LinAlgError only as Exception)
            ok = False
        if ok:
            return low, d, shift
        step = 1e-14 if shift == 0.0 else shift * 99.0
        shift += step
        for i in range(n):
            scaled[i, i] += step
    return low, d, -1.0


@nb.njit(cache=True)
def _cho_solve(low, d, b, out):
    """``out[:n] = k⁻¹ b`` from ``L Lᵀ = D k D`` (forward and back substitution);
    ``out[n] = 0``."""
    n = len(b)
    for i in range(n):
        acc = b[i] * d[i]
        for k in range(i):
            acc -= low[i, k] * out[k]
        out[i] = acc / low[i, i]
    for i in range(n - 1, -1, -1):
        acc = out[i]
        for k in range(i + 1, n):
            acc -= low[k, i] * out[k]
        out[i] = acc / low[i, i]
    for i in range(n):
        out[i] *= d[i]
    out[n] = 0.0


@nb.njit(cache=True)
def _max_step(v, dv):
    """Largest step ≤ 1 keeping ``v + α dv ≥ 0``."""
    a = 1.0
    for i in range(len(v)):
        if dv[i] < 0.0:
            a = min(a, -v[i] / dv[i])
    return a


@nb.njit(cache=True)
def solve_dual(ptr, il, iv, c, x0, z0, tol_gap, tol_res, max_iter, stride):
    """Primal–dual interior-point (Mehrotra predictor–corrector) solution of
    ``max c·x  s.t.  F_j(x) = log Σ_{t∈j} exp(λ(s1,t) + ν(s2,t)) ≤ 0`` from ``x0`` (with
    ``F(x0) < 0``) and multipliers ``z0 > 0``.

    Newton on ``Σ_j z_j ∇F_j = c``, ``F_j + s_j = 0``, ``z_j s_j = σμ`` with slacks
    ``s > 0`` and multipliers ``z > 0`` (fraction-to-the-boundary steps, at most
    ``stride`` nats of change in any exponent); stops when ``Σ z s ≤ tol_gap`` and both
    residuals are below ``tol_res``, when rounding stalls them (``_STALL``), or after
    ``max_iter`` iterations.  Returns x, z, s, F(x), r (each cell's ``exp(w - F)``), the
    iterations, ``Σ z s``, the largest residual and the largest diagonal shift used (-1: a
    factorisation failed; the iterate before it is returned).
    """
    nf, m, nc = len(c), len(ptr) - 1, len(il)
    x = np.zeros(nf + 1)
    x[:nf] = x0
    z = z0.copy()
    f, r = np.empty(m), np.empty(nc)
    _columns(x, ptr, il, iv, f, r)
    s = -f
    g, dx = np.empty(nf + 1), np.empty(nf + 1)
    rd, rp, ds, dz = np.empty(nf), np.empty(m), np.empty(m), np.empty(m)
    target, weight = np.empty(m), np.empty(m)
    it, gap, res, worst_shift = 0, 0.0, 0.0, 0.0
    # the iterate returned: the one with the least max(Σ z s, residual); `since`: the
    # iterations since that fell by 10%
    best_x, best_z, best_s = x.copy(), z.copy(), s.copy()
    best, best_gap, best_res, since = np.inf, 0.0, 0.0, 0
    while True:
        _marginals(r, ptr, il, iv, z, g)  # the recovered q's marginals
        res, gap = 0.0, 0.0
        for i in range(nf):
            rd[i] = g[i] - c[i]
            res = max(res, abs(rd[i]))
        for j in range(m):
            rp[j] = f[j] + s[j]
            res = max(res, abs(rp[j]))
            gap += z[j] * s[j]
        now = max(gap, res)
        since = 0 if now < 0.9 * best else since + 1
        if now < best:
            best, best_gap, best_res = now, gap, res
            best_x[:], best_z[:], best_s[:] = x, z, s
        if (gap <= tol_gap and res <= tol_res) or it >= max_iter:
            break
        if since >= _STALL and best < _STALL_BELOW:
            break
        mu = gap / m
        low, scale, shift = _factor(_newton_matrix(ptr, il, iv, r, z, s, nf))
        if shift < 0.0:
            worst_shift = -1.0
            break
        worst_shift = max(worst_shift, shift)
        # predictor (target 0), then the corrector aimed at σμ with Mehrotra's
        # second-order term; the complementarity target never falls below a tenth of the
        # residual (else z s collapses before the marginals are met) nor below a tenth of
        # the tolerance (past it the Newton matrix is singular to rounding)
        for k in range(2):
            for j in range(m):
                weight[j] = (target[j] + z[j] * rp[j]) / s[j] if k else z[j] * rp[j] / s[j]
            _marginals(r, ptr, il, iv, weight, g)
            for i in range(nf):
                g[i] = c[i] - g[i]
            _cho_solve(low, scale, g[:nf], dx)
            _along(dx, ptr, il, iv, r, ds)
            for j in range(m):
                ds[j] = -rp[j] - ds[j]
                aim = target[j] if k else 0.0
                dz[j] = (aim - z[j] * s[j] - z[j] * ds[j]) / s[j]
            a = min(_max_step(z, dz), _max_step(s, ds))
            if k == 0:
                after = 0.0
                for j in range(m):
                    after += (z[j] + a * dz[j]) * (s[j] + a * ds[j])
                sigma = min(1.0, (after / gap) ** 3)
                floor = max(sigma * mu, 0.1 * tol_gap / m)
                if res > tol_res:
                    floor = max(floor, min(mu, 0.1 * res))
                for j in range(m):
                    target[j] = floor - dz[j] * ds[j]
        # no exponent moves more than `stride` nats in a step: log Σ exp is then within
        # stride²/2 of the linearisation the step trusts (far from the optimum the
        # direction can ask for tens of nats along a direction the optimum leaves loose)
        big = 0.0
        for u in range(nc):
            big = max(big, abs(dx[il[u]] + dx[iv[u]]))
        step = min(1.0, max(0.99, 1.0 - mu) * a, stride / max(big, 1e-300))
        for i in range(nf):
            x[i] += step * dx[i]
        for j in range(m):
            z[j] += step * dz[j]
            s[j] += step * ds[j]
        _columns(x, ptr, il, iv, f, r)
        it += 1
    _columns(best_x, ptr, il, iv, f, r)
    return best_x[:nf].copy(), best_z, best_s, f, r, it, best_gap, best_res, worst_shift
