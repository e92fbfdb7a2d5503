"""Shared settings for the neural-family tests: tiny critics, one torch thread."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

#: A small critic trained briefly: ~1-3 s per fit on one loaded core.
TINY = {"hidden": 64, "depth": 2, "batch_size": 128, "lr": 2e-3, "steps": 400, "patience": 4}


@pytest.fixture(autouse=True, scope="session")
def _one_torch_thread():
    # the suite runs on 2 shared cores with 2 workers: more intra-op threads thrash
    old = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(old)
