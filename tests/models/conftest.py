"""Shared settings for the model tests: one torch and one BLAS thread per test worker (the
suite runs on 2 shared cores; more threads per worker thrash)."""

from __future__ import annotations

import sys

import pytest


@pytest.fixture(autouse=True, scope="module")
def _one_thread():
    from threadpoolctl import threadpool_limits

    torch = sys.modules.get("torch")  # set only if the test module uses torch
    old = torch.get_num_threads() if torch is not None else None
    if torch is not None:
        torch.set_num_threads(1)
    with threadpool_limits(limits=1, user_api="blas"):
        yield
    if torch is not None:
        torch.set_num_threads(old)
