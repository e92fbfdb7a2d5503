"""Entropy-regularised Koopman learning: ridge operator, entropy and InfoNCE terms, sign."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from infometer.estimators.matrix import von_neumann_entropy  # noqa: E402
from infometer.systems.models.koopman import (  # noqa: E402
    fit_koopman,
    infonce_time,
    ridge_koopman,
    von_neumann_entropy_torch,
)
from infometer.systems.models.synthetic import linear_system, lorenz63, pendulum  # noqa: E402


def test_ridge_fit_recovers_a_linear_system():
    rng = np.random.default_rng(0)
    q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    a = 0.95 * q  # stable rotation-like dynamics
    traj = linear_system(a, n_traj=40, steps=20, seed=1)
    z = torch.as_tensor(traj[:, :-1], dtype=torch.float64)
    zn = torch.as_tensor(traj[:, 1:], dtype=torch.float64)
    k = ridge_koopman(z, zn, ridge=0.1).numpy()
    # noiseless data: K = (ZᵀZ + rI)⁻¹ ZᵀZ Aᵀ exactly; the ridge shrinks it by at most
    # r / λ_min(ZᵀZ) relative (760 pairs of unit-scale states: λ_min ~ 100s)
    zz = traj[:, :-1].reshape(-1, 3)
    g = zz.T @ zz
    np.testing.assert_allclose(k, np.linalg.solve(g + 0.1 * np.eye(3), g @ a.T), atol=1e-10)
    assert np.abs(k - a.T).max() < 0.1 / np.linalg.eigvalsh(g).min() * 2
    np.testing.assert_allclose(ridge_koopman(z, zn, ridge=0.0).numpy(), a.T, atol=1e-10)


def test_torch_entropy_matches_numpy_and_has_finite_gradients():
    rng = np.random.default_rng(1)
    z = rng.normal(size=(300, 5)) * [3, 2, 1, 0.5, 0.1]
    zt = torch.tensor(z, requires_grad=True)
    s = von_neumann_entropy_torch(zt)
    # the 1e-8 ridge shifts eigenvalues by ~1e-8 / tr: far below 1e-6
    assert float(s.detach()) == pytest.approx(von_neumann_entropy(z).value, abs=1e-6)
    (g,) = torch.autograd.grad(s, zt)
    assert torch.isfinite(g).all()
    collapsed = torch.tensor(np.outer(rng.normal(size=100), np.ones(4)), requires_grad=True)
    s0 = von_neumann_entropy_torch(collapsed)
    assert float(s0.detach()) < 1e-5
    (g0,) = torch.autograd.grad(s0, collapsed)
    assert torch.isfinite(g0).all()


def test_infonce_known_answer_and_bounds():
    # identical latents: every similarity is equal, so for an interior anchor the positive
    # share is 2k / (T − 1) and the loss is log((T − 1) / 2k)
    t, k = 12, 3
    z = torch.ones(4, t, 5)
    assert float(infonce_time(z, k, 0.1)) == pytest.approx(np.log((t - 1) / (2 * k)), abs=1e-6)
    r = torch.randn(8, t, 5, generator=torch.Generator().manual_seed(0))
    loss = float(infonce_time(r, k, 0.5))
    assert 0.0 <= loss  # positives are a subset of the candidates
    with pytest.raises(ValueError, match="longer than 2k"):
        infonce_time(torch.ones(2, 6, 3), 3)


def test_entropy_weight_raises_latent_entropy():
    # The sign: −γ S_vN in the minimised loss must push the latent entropy *up* (the released
    # trainer's +β S_vN pushes it down).  Tiny run, same seed; measured S = 0.77 (γ = 0) vs
    # 1.9 (γ = 0.3) nats here, so a 0.3 nat margin is safe.
    traj = pendulum(32, 24, seed=0)
    kw = {"latent_dim": 6, "hidden": 16, "seq_len": 8, "epochs": 15, "batch_size": 16}
    plain = fit_koopman(traj, entropy_weight=0.0, seed=0, **kw)
    ent = fit_koopman(traj, entropy_weight=0.3, seed=0, **kw)
    assert ent.history[-1]["entropy"] > plain.history[-1]["entropy"] + 0.3
    assert ent.latent_entropy(traj).value > plain.latent_entropy(traj).value + 0.3
    assert ent.effective_rank(traj) > plain.effective_rank(traj)
    with_nce = fit_koopman(traj, infonce_weight=1.0, rollout=2, seed=0, **{**kw, "epochs": 2})
    assert with_nce.history[-1]["infonce"] > 0
    # prediction interface
    pred = ent.predict(traj[:, 0], 5)
    assert pred.shape == (32, 6, 3)
    np.testing.assert_allclose(pred[:, 0], traj[:, 0], atol=1e-12)
    df = ent.nrmse(traj, horizons=(1, 5))
    assert list(df.horizon) == [1, 5] and (df.nrmse > 0).all()


def test_simulators():
    p = pendulum(8, 200, dt=0.05, seed=2)
    np.testing.assert_allclose(p[..., 0] ** 2 + p[..., 1] ** 2, 1.0, atol=1e-12)
    energy = 0.5 * p[..., 2] ** 2 + (1 - p[..., 0])
    # RK4 with h = 0.0125 conserves energy to O(h^4) per unit time: drift < 1e-6 here
    assert np.abs(energy - energy[:, :1]).max() < 1e-6
    assert energy.max() < 2.0  # oscillating, not rotating
    lz = lorenz63(4, 100, seed=3)
    assert np.isfinite(lz).all() and lz.shape == (4, 100, 3)
    assert 0 < lz[..., 2].min() and lz[..., 2].max() < 60 and np.abs(lz[..., 0]).max() < 25


def test_bad_input():
    with pytest.raises(ValueError, match="3-D"):
        fit_koopman(np.zeros((10, 3)))
    with pytest.raises(ValueError, match="seq_len must be <= 5"):
        fit_koopman(np.zeros((4, 5, 2)), seq_len=8)
    with pytest.raises(ValueError, match="seq_len must exceed 2k"):
        fit_koopman(pendulum(4, 10), seq_len=6, infonce_weight=1.0)
    with pytest.raises(ValueError, match="NaN"):
        fit_koopman(np.full((4, 10, 2), np.nan))
    with pytest.raises(ValueError, match="entropy_weight must be >= 0"):
        fit_koopman(pendulum(4, 10), seq_len=4, entropy_weight=-1.0)
