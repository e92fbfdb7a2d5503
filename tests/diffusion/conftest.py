"""Shared helpers for the diffusion tests: an exact ("oracle") denoiser for small pmfs.

The oracle computes the true conditional law of every masked token given the visible
ones by enumerating the state space, so estimates made with it differ from the exact
value only by Monte Carlo error: this tests the estimator identities, not training.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

torch = pytest.importorskip("torch")


class OracleDenoiser(torch.nn.Module):
    def __init__(self, pmf: np.ndarray, vocab: int, length: int) -> None:
        super().__init__()
        states = np.array(list(itertools.product(range(vocab), repeat=length)), dtype=np.int64)
        self.register_buffer("states", torch.as_tensor(states))
        self.register_buffer("p", torch.as_tensor(pmf.ravel(), dtype=torch.float64))
        onehot = torch.nn.functional.one_hot(self.states, vocab).double()  # (S, D, V)
        self.register_buffer("onehot", onehot.reshape(len(states), -1))
        self.vocab, self.length = vocab, length

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        visible = z < self.vocab  # (B, D)
        agree = (self.states[None] == z[:, None, :]) | ~visible[:, None, :]  # (B, S, D)
        w = agree.all(-1).double() * self.p[None]  # (B, S)
        marg = (w @ self.onehot).reshape(z.shape[0], self.length, self.vocab)
        return torch.log(marg.clamp_min(1e-300)).float()


def sample(pmf: np.ndarray, vocab: int, length: int, n: int, rng) -> np.ndarray:
    states = np.array(list(itertools.product(range(vocab), repeat=length)), dtype=np.int64)
    return states[rng.choice(len(states), size=n, p=pmf.ravel())]


@pytest.fixture
def oracle():
    """Build an InfoSEDD object whose denoiser is the exact conditional of ``pmf``."""
    from infometer.estimators.diffusion.infosedd import InfoSEDD
    from infometer.estimators.diffusion.tokens import Tokens

    def make(pmf, vocab, length, mode="entropy", holdout_rows=None, **kw):
        m = InfoSEDD(mode, **kw)
        dummy = np.zeros((2, length), dtype=np.int64)
        m._setup(Tokens(dummy, np.full(length, vocab)))
        m.ema_net = OracleDenoiser(np.asarray(pmf), vocab, length)
        m.net = m.ema_net
        m.holdout_tokens = holdout_rows
        return m

    return make


@pytest.fixture(autouse=True, scope="session")
def _one_torch_thread():
    # the suite runs on 2 shared cores: two intra-op threads per test thrash (4x slower)
    old = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(old)
