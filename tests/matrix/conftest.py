"""One BLAS thread for the eigendecompositions: on 2 shared cores two OpenBLAS threads per
test worker spin against each other (a 400×400 eigvalsh took 0.5 s instead of 0.04 s)."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True, scope="module")
def _one_blas_thread():
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        yield
