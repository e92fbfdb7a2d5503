"""Information-bottleneck kernels on a joint pmf p(x, y) (numpy in, numpy out).

* iterative IB (Tishby, Pereira & Bialek 1999): minimise ``I(X;T) - beta I(T;Y)`` over
  soft encoders q(t|x) by the self-consistent equations
  ``q(t|x) ∝ q(t) exp(-beta KL[p(y|x) ‖ q(y|t)])``;
* deterministic IB (Strouse & Schwab 2017): minimise ``H(T) - beta I(T;Y)`` over hard
  encoders ``t = f(x)`` by ``f(x) = argmax_t [log q(t) - beta KL[p(y|x) ‖ q(y|t)]]``.

Both are local searches; the callers run several seeded starts and keep the best value of
the objective.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["IBRun", "ib_terms", "iterate"]


@dataclass(frozen=True)
class IBRun:
    encoder: np.ndarray  # q(t | x), shape (nx, nt)
    i_xt: float
    i_ty: float
    h_t: float
    objective: float
    iterations: int
    converged: bool


def _xlogx(a: np.ndarray) -> np.ndarray:
    from scipy.special import xlogy

    return xlogy(a, a)


def ib_terms(pxy: np.ndarray, enc: np.ndarray) -> tuple[float, float, float]:
    """``(I(X;T), I(T;Y), H(T))`` in nats of the encoder ``enc = q(t|x)``."""
    px = pxy.sum(1)
    pxt = px[:, None] * enc
    pt = pxt.sum(0)
    pty = enc.T @ pxy
    h_t = float(-_xlogx(pt).sum())
    h_t_given_x = float(-_xlogx(enc).sum(1) @ px)
    py = pxy.sum(0)
    i_ty = float(_xlogx(pty).sum() - _xlogx(pt).sum() - _xlogx(py).sum())
    return max(h_t - h_t_given_x, 0.0), max(i_ty, 0.0), max(h_t, 0.0)


def joint_mi(pxy: np.ndarray) -> float:
    """I(X;Y) in nats of a joint pmf: ``ib_terms(pxy, I)[1]`` without the nx x nx identity
    encoder (the same sums, so the same bits)."""
    i = float(_xlogx(pxy).sum() - _xlogx(pxy.sum(1)).sum() - _xlogx(pxy.sum(0)).sum())
    return max(i, 0.0)


def _kl_rows(py_x: np.ndarray, logpy_x: np.ndarray, py_t: np.ndarray) -> np.ndarray:
    """KL[p(y|x) ‖ q(y|t)] for all (x, t), shape (nx, nt); inf where q misses p's support."""
    with np.errstate(divide="ignore"):
        logq = np.log(py_t)  # (nt, ny)
    neg = py_x @ logq.T  # sum_y p(y|x) log q(y|t), -inf if support missed
    own = (py_x * logpy_x).sum(1)
    with np.errstate(invalid="ignore"):
        out = own[:, None] - neg
    return np.where(np.isnan(out), np.inf, out)


def iterate(
    pxy: np.ndarray,
    enc0: np.ndarray,
    beta: float,
    *,
    deterministic: bool,
    tol: float,
    max_iter: int,
) -> IBRun:
    """Run the IB (or DIB) updates from the encoder ``enc0`` until it stops changing."""
    px = pxy.sum(1)
    keep = px > 0
    py_x = np.zeros_like(pxy)
    py_x[keep] = pxy[keep] / px[keep, None]
    logpy_x = np.log(np.where(py_x > 0, py_x, 1.0))
    enc = enc0.copy()
    it, converged = 0, False
    for it in range(1, max_iter + 1):  # noqa: B007 (it is reported)
        pt = px @ enc
        pty = enc.T @ pxy
        alive = pt > 0
        py_t = np.full_like(pty, 1.0 / pxy.shape[1])
        py_t[alive] = pty[alive] / pt[alive, None]
        kl = _kl_rows(py_x, logpy_x, py_t)
        with np.errstate(divide="ignore"):
            logits = np.log(pt)[None, :] - beta * kl
        if deterministic:
            new = np.zeros_like(enc)
            new[np.arange(enc.shape[0]), np.argmax(logits, axis=1)] = 1.0
        else:
            m = logits.max(axis=1, keepdims=True)
            w = np.exp(logits - m)
            new = w / w.sum(axis=1, keepdims=True)
        delta = float(np.abs(new - enc).max())
        enc = new
        if delta <= tol:
            converged = True
            break
    i_xt, i_ty, h_t = ib_terms(pxy, enc)
    obj = (h_t if deterministic else i_xt) - beta * i_ty
    return IBRun(enc, i_xt, i_ty, h_t, obj, it, converged)
