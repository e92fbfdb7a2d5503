"""Ordinal-pattern histograms unrolled for each order m = 2..8 (generated code).

The same algorithm as ``_kernels.ordinal_histogram`` (digit updates along each residue
class of the delay), with the loops over the m positions written out, which lets the
compiler keep the digits in registers: about twice as fast at 10^6 samples.  Regenerate
with ``python -m infometer.measures.complexity._ordinal_unrolled`` (prints this module) after
changing the generator ``_source`` below; tests check every order against the generic
kernel.
"""

# ruff: noqa: E501

from __future__ import annotations

import numpy as np

from infometer.core.jit import nb


@nb.njit(cache=True, nogil=True)
def hist2(x: np.ndarray, tau: int) -> np.ndarray:  # pragma: no cover
    n = x.size - 1 * tau
    out = np.zeros(2, np.int64)
    for r in range(min(tau, n)):
        t = r
        d0 = np.int64(x[t + 1 * tau] < x[t + 0 * tau])
        d1 = 0
        while True:
            out[(d0) * 1 + d1] += 1
            t += tau
            if t >= n:
                break
            new = x[t + 1 * tau]
            d0 = d1 + np.int64(new < x[t + 0 * tau])
            d1 = 0
    return out


@nb.njit(cache=True, nogil=True)
def hist3(x: np.ndarray, tau: int) -> np.ndarray:  # pragma: no cover
    n = x.size - 2 * tau
    out = np.zeros(6, np.int64)
    for r in range(min(tau, n)):
        t = r
        d0 = np.int64(x[t + 1 * tau] < x[t + 0 * tau]) + np.int64(x[t + 2 * tau] < x[t + 0 * tau])
        d1 = np.int64(x[t + 2 * tau] < x[t + 1 * tau])
        d2 = 0
        while True:
            out[((d0) * 2 + d1) * 1 + d2] += 1
            t += tau
            if t >= n:
                break
            new = x[t + 2 * tau]
            d0 = d1 + np.int64(new < x[t + 0 * tau])
            d1 = d2 + np.int64(new < x[t + 1 * tau])
            d2 = 0
    return out


@nb.njit(cache=True, nogil=True)
def hist4(x: np.ndarray, tau: int) -> np.ndarray:  # pragma: no cover
    n = x.size - 3 * tau
    out = np.zeros(24, np.int64)
    for r in range(min(tau, n)):
        t = r
        d0 = (
            np.int64(x[t + 1 * tau] < x[t + 0 * tau])
            + np.int64(x[t + 2 * tau] < x[t + 0 * tau])
            + np.int64(x[t + 3 * tau] < x[t + 0 * tau])
        )
        d1 = np.int64(x[t + 2 * tau] < x[t + 1 * tau]) + np.int64(x[t + 3 * tau] < x[t + 1 * tau])
        d2 = np.int64(x[t + 3 * tau] < x[t + 2 * tau])
        d3 = 0
        while True:
            out[(((d0) * 3 + d1) * 2 + d2) * 1 + d3] += 1
            t += tau
            if t >= n:
                break
            new = x[t + 3 * tau]
            d0 = d1 + np.int64(new < x[t + 0 * tau])
            d1 = d2 + np.int64(new < x[t + 1 * tau])
            d2 = d3 + np.int64(new < x[t + 2 * tau])
            d3 = 0
    return out


@nb.njit(cache=True, nogil=True)
def hist5(x: np.ndarray, tau: int) -> np.ndarray:  # pragma: no cover
    n = x.size - 4 * tau
    out = np.zeros(120, np.int64)
    for r in range(min(tau, n)):
        t = r
        d0 = (
            np.int64(x[t + 1 * tau] < x[t + 0 * tau])
            + np.int64(x[t + 2 * tau] < x[t + 0 * tau])
            + np.int64(x[t + 3 * tau] < x[t + 0 * tau])
            + np.int64(x[t + 4 * tau] < x[t + 0 * tau])
        )
        d1 = (
            np.int64(x[t + 2 * tau] < x[t + 1 * tau])
            + np.int64(x[t + 3 * tau] < x[t + 1 * tau])
            + np.int64(x[t + 4 * tau] < x[t + 1 * tau])
        )
        d2 = np.int64(x[t + 3 * tau] < x[t + 2 * tau]) + np.int64(x[t + 4 * tau] < x[t + 2 * tau])
        d3 = np.int64(x[t + 4 * tau] < x[t + 3 * tau])
        d4 = 0
        while True:
            out[((((d0) * 4 + d1) * 3 + d2) * 2 + d3) * 1 + d4] += 1
            t += tau
            if t >= n:
                break
            new = x[t + 4 * tau]
            d0 = d1 + np.int64(new < x[t + 0 * tau])
            d1 = d2 + np.int64(new < x[t + 1 * tau])
            d2 = d3 + np.int64(new < x[t + 2 * tau])
            d3 = d4 + np.int64(new < x[t + 3 * tau])
            d4 = 0
    return out


@nb.njit(cache=True, nogil=True)
def hist6(x: np.ndarray, tau: int) -> np.ndarray:  # pragma: no cover
    n = x.size - 5 * tau
    out = np.zeros(720, np.int64)
    for r in range(min(tau, n)):
        t = r
        d0 = (
            np.int64(x[t + 1 * tau] < x[t + 0 * tau])
            + np.int64(x[t + 2 * tau] < x[t + 0 * tau])
            + np.int64(x[t + 3 * tau] < x[t + 0 * tau])
            + np.int64(x[t + 4 * tau] < x[t + 0 * tau])
            + np.int64(x[t + 5 * tau] < x[t + 0 * tau])
        )
        d1 = (
            np.int64(x[t + 2 * tau] < x[t + 1 * tau])
            + np.int64(x[t + 3 * tau] < x[t + 1 * tau])
            + np.int64(x[t + 4 * tau] < x[t + 1 * tau])
            + np.int64(x[t + 5 * tau] < x[t + 1 * tau])
        )
        d2 = (
            np.int64(x[t + 3 * tau] < x[t + 2 * tau])
            + np.int64(x[t + 4 * tau] < x[t + 2 * tau])
            + np.int64(x[t + 5 * tau] < x[t + 2 * tau])
        )
        d3 = np.int64(x[t + 4 * tau] < x[t + 3 * tau]) + np.int64(x[t + 5 * tau] < x[t + 3 * tau])
        d4 = np.int64(x[t + 5 * tau] < x[t + 4 * tau])
        d5 = 0
        while True:
            out[(((((d0) * 5 + d1) * 4 + d2) * 3 + d3) * 2 + d4) * 1 + d5] += 1
            t += tau
            if t >= n:
                break
            new = x[t + 5 * tau]
            d0 = d1 + np.int64(new < x[t + 0 * tau])
            d1 = d2 + np.int64(new < x[t + 1 * tau])
            d2 = d3 + np.int64(new < x[t + 2 * tau])
            d3 = d4 + np.int64(new < x[t + 3 * tau])
            d4 = d5 + np.int64(new < x[t + 4 * tau])
            d5 = 0
    return out


@nb.njit(cache=True, nogil=True)
def hist7(x: np.ndarray, tau: int) -> np.ndarray:  # pragma: no cover
    n = x.size - 6 * tau
    out = np.zeros(5040, np.int64)
    for r in range(min(tau, n)):
        t = r
        d0 = (
            np.int64(x[t + 1 * tau] < x[t + 0 * tau])
            + np.int64(x[t + 2 * tau] < x[t + 0 * tau])
            + np.int64(x[t + 3 * tau] < x[t + 0 * tau])
            + np.int64(x[t + 4 * tau] < x[t + 0 * tau])
            + np.int64(x[t + 5 * tau] < x[t + 0 * tau])
            + np.int64(x[t + 6 * tau] < x[t + 0 * tau])
        )
        d1 = (
            np.int64(x[t + 2 * tau] < x[t + 1 * tau])
            + np.int64(x[t + 3 * tau] < x[t + 1 * tau])
            + np.int64(x[t + 4 * tau] < x[t + 1 * tau])
            + np.int64(x[t + 5 * tau] < x[t + 1 * tau])
            + np.int64(x[t + 6 * tau] < x[t + 1 * tau])
        )
        d2 = (
            np.int64(x[t + 3 * tau] < x[t + 2 * tau])
            + np.int64(x[t + 4 * tau] < x[t + 2 * tau])
            + np.int64(x[t + 5 * tau] < x[t + 2 * tau])
            + np.int64(x[t + 6 * tau] < x[t + 2 * tau])
        )
        d3 = (
            np.int64(x[t + 4 * tau] < x[t + 3 * tau])
            + np.int64(x[t + 5 * tau] < x[t + 3 * tau])
            + np.int64(x[t + 6 * tau] < x[t + 3 * tau])
        )
        d4 = np.int64(x[t + 5 * tau] < x[t + 4 * tau]) + np.int64(x[t + 6 * tau] < x[t + 4 * tau])
        d5 = np.int64(x[t + 6 * tau] < x[t + 5 * tau])
        d6 = 0
        while True:
            out[((((((d0) * 6 + d1) * 5 + d2) * 4 + d3) * 3 + d4) * 2 + d5) * 1 + d6] += 1
            t += tau
            if t >= n:
                break
            new = x[t + 6 * tau]
            d0 = d1 + np.int64(new < x[t + 0 * tau])
            d1 = d2 + np.int64(new < x[t + 1 * tau])
            d2 = d3 + np.int64(new < x[t + 2 * tau])
            d3 = d4 + np.int64(new < x[t + 3 * tau])
            d4 = d5 + np.int64(new < x[t + 4 * tau])
            d5 = d6 + np.int64(new < x[t + 5 * tau])
            d6 = 0
    return out


@nb.njit(cache=True, nogil=True)
def hist8(x: np.ndarray, tau: int) -> np.ndarray:  # pragma: no cover
    n = x.size - 7 * tau
    out = np.zeros(40320, np.int64)
    for r in range(min(tau, n)):
        t = r
        d0 = (
            np.int64(x[t + 1 * tau] < x[t + 0 * tau])
            + np.int64(x[t + 2 * tau] < x[t + 0 * tau])
            + np.int64(x[t + 3 * tau] < x[t + 0 * tau])
            + np.int64(x[t + 4 * tau] < x[t + 0 * tau])
            + np.int64(x[t + 5 * tau] < x[t + 0 * tau])
            + np.int64(x[t + 6 * tau] < x[t + 0 * tau])
            + np.int64(x[t + 7 * tau] < x[t + 0 * tau])
        )
        d1 = (
            np.int64(x[t + 2 * tau] < x[t + 1 * tau])
            + np.int64(x[t + 3 * tau] < x[t + 1 * tau])
            + np.int64(x[t + 4 * tau] < x[t + 1 * tau])
            + np.int64(x[t + 5 * tau] < x[t + 1 * tau])
            + np.int64(x[t + 6 * tau] < x[t + 1 * tau])
            + np.int64(x[t + 7 * tau] < x[t + 1 * tau])
        )
        d2 = (
            np.int64(x[t + 3 * tau] < x[t + 2 * tau])
            + np.int64(x[t + 4 * tau] < x[t + 2 * tau])
            + np.int64(x[t + 5 * tau] < x[t + 2 * tau])
            + np.int64(x[t + 6 * tau] < x[t + 2 * tau])
            + np.int64(x[t + 7 * tau] < x[t + 2 * tau])
        )
        d3 = (
            np.int64(x[t + 4 * tau] < x[t + 3 * tau])
            + np.int64(x[t + 5 * tau] < x[t + 3 * tau])
            + np.int64(x[t + 6 * tau] < x[t + 3 * tau])
            + np.int64(x[t + 7 * tau] < x[t + 3 * tau])
        )
        d4 = (
            np.int64(x[t + 5 * tau] < x[t + 4 * tau])
            + np.int64(x[t + 6 * tau] < x[t + 4 * tau])
            + np.int64(x[t + 7 * tau] < x[t + 4 * tau])
        )
        d5 = np.int64(x[t + 6 * tau] < x[t + 5 * tau]) + np.int64(x[t + 7 * tau] < x[t + 5 * tau])
        d6 = np.int64(x[t + 7 * tau] < x[t + 6 * tau])
        d7 = 0
        while True:
            out[
                (((((((d0) * 7 + d1) * 6 + d2) * 5 + d3) * 4 + d4) * 3 + d5) * 2 + d6) * 1 + d7
            ] += 1
            t += tau
            if t >= n:
                break
            new = x[t + 7 * tau]
            d0 = d1 + np.int64(new < x[t + 0 * tau])
            d1 = d2 + np.int64(new < x[t + 1 * tau])
            d2 = d3 + np.int64(new < x[t + 2 * tau])
            d3 = d4 + np.int64(new < x[t + 3 * tau])
            d4 = d5 + np.int64(new < x[t + 4 * tau])
            d5 = d6 + np.int64(new < x[t + 5 * tau])
            d6 = d7 + np.int64(new < x[t + 6 * tau])
            d7 = 0
    return out


HIST = {2: hist2, 3: hist3, 4: hist4, 5: hist5, 6: hist6, 7: hist7, 8: hist8}


import math  # noqa: E402


def _source(m: int) -> str:
    L = [
        "@nb.njit(cache=True, nogil=True)",
        f"def hist{m}(x: np.ndarray, tau: int) -> np.ndarray:  # pragma: no cover",
        f"    n = x.size - {m - 1} * tau",
        f"    out = np.zeros({math.factorial(m)}, np.int64)",
        "    for r in range(min(tau, n)):",
        "        t = r",
    ]
    for i in range(m):
        terms = (
            " + ".join(f"np.int64(x[t + {j} * tau] < x[t + {i} * tau])" for j in range(i + 1, m))
            or "0"
        )
        L.append(f"        d{i} = {terms}")
    L.append("        while True:")
    code = "d0"
    for i in range(1, m):
        code = f"({code}) * {m - i} + d{i}"
    L.append(f"            out[{code}] += 1")
    L += [
        "            t += tau",
        "            if t >= n:",
        "                break",
        f"            new = x[t + {m - 1} * tau]",
    ]
    for i in range(m - 1):
        L.append(f"            d{i} = d{i + 1} + np.int64(new < x[t + {i} * tau])")
    L.append(f"            d{m - 1} = 0")
    L.append("    return out")
    return "\n".join(L)


if __name__ == "__main__":  # pragma: no cover
    print("\n\n\n".join(_source(m) for m in range(2, 9)))
