"""Entropy-regularised Koopman autoencoders ("Information shapes Koopman representation").

An MLP encoder maps states ``x_t`` to latents ``z_t``; a linear Koopman operator ``K``
advances them (``ẑ_{t+1} = z_t K``, row vectors) and an MLP decoder maps latents back.
Per batch of trajectory windows ``K`` is the ridge least-squares fit
``K = (Σ Z_tᵀ Z_t + r I)⁻¹ Σ Z_tᵀ Z_{t+1}`` over all consecutive pairs (detached), and the
minimised loss is

    MSE(dec(z_t K), x_{t+1}) + λ MSE(dec(z_t), x_t) + a · InfoNCE − γ · S_vN(Z),

on states standardised per coordinate (so the weights mean the same for every system),

with ``S_vN(Z) = −Σ λ_i log λ_i`` over the eigenvalues of the normalised latent covariance
``Σ_Z / tr Σ_Z`` (range ``[0, log H]``).  Subtracting ``γ S_vN`` *maximises* the entropy,
which keeps latent modes from collapsing, as the paper intends.  The released trainer
(InformationKoopman, commit 32f52a1) adds ``+β S_vN`` to its minimised loss, which lowers the
entropy: a sign slip not copied here.

The InfoNCE term is the code's multi-positive form over time: for an anchor ``z_n``
(cosine-normalised, temperature τ) the positives are ``z_{n±i}``, ``1 ≤ i ≤ k``, and the
negatives every other step of the same window; anchors ``n ∈ [k, T−k)``.  It lower-bounds
the information between nearby latents (at most ``log(T − 1)``), the ``α log I(z_{t−n}; z_t)``
term of the paper's objective.

After training, ``K`` is refitted on all training pairs; multi-step predictions are
``dec(z_0 K^k)``.

Departure from the released code: one pooled ridge fit per batch instead of the mean of
per-sequence fits (better conditioned when the window is shorter than the latent width).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from infometer.core._torch import torch
from infometer.core.data import check_float, check_int
from infometer.core.estimate import Estimate
from infometer.core.seeding import Seed, as_generator, resolve_seed
from infometer.core.training import optimizer, run_epochs

__all__ = [
    "ridge_koopman",
    "infonce_time",
    "von_neumann_entropy_torch",
    "KoopmanAE",
    "KoopmanModel",
    "fit_koopman",
]

nn = torch.nn
F = torch.nn.functional


def ridge_koopman(z: torch.Tensor, z_next: torch.Tensor, ridge: float = 0.1) -> torch.Tensor:
    """Ridge least squares ``K = (ZᵀZ + r I)⁻¹ Zᵀ Z'`` so that ``z_next ≈ z K`` (rows)."""
    h = z.shape[-1]
    zz = z.reshape(-1, h)
    zn = z_next.reshape(-1, h)
    gram = zz.T @ zz + ridge * torch.eye(h, dtype=z.dtype, device=z.device)
    return torch.linalg.solve(gram, zz.T @ zn)


def infonce_time(z: torch.Tensor, k: int = 3, tau: float = 0.1) -> torch.Tensor:
    """Multi-positive InfoNCE loss over time steps of windows ``z`` (B, T, H); needs T > 2k."""
    b, t, _ = z.shape
    if t <= 2 * k:
        raise ValueError(f"InfoNCE needs windows longer than 2k = {2 * k} steps, got {t}")
    zn = F.normalize(z, dim=-1)
    s = zn @ zn.transpose(1, 2) / tau
    idx = torch.arange(t, device=z.device)
    dist = (idx[:, None] - idx[None, :]).abs()
    neg_inf = torch.finfo(s.dtype).min
    others = s.masked_fill(dist == 0, neg_inf)
    pos = s.masked_fill((dist == 0) | (dist > k), neg_inf)
    ratio = torch.logsumexp(pos, -1) - torch.logsumexp(others, -1)
    return -ratio[:, k : t - k].mean()


def von_neumann_entropy_torch(z: torch.Tensor, eps: float = 1e-8) -> torch.Tensor:
    """Differentiable von Neumann entropy of the normalised covariance of rows ``z`` (N, H)."""
    zc = z - z.mean(0, keepdim=True)
    cov = zc.T @ zc / max(z.shape[0] - 1, 1)
    cov = cov + eps * torch.eye(cov.shape[0], dtype=z.dtype, device=z.device)
    lam = torch.linalg.eigvalsh(cov / torch.trace(cov)).clamp_min(1e-12)
    return -(lam * torch.log(lam)).sum()


def _mlp(d_in: int, hidden: int, d_out: int, depth: int) -> nn.Sequential:
    layers: list[nn.Module] = []
    d = d_in
    for _ in range(depth):
        layers += [nn.Linear(d, hidden), nn.GELU()]
        d = hidden
    layers.append(nn.Linear(d, d_out))
    return nn.Sequential(*layers)


class KoopmanAE(nn.Module):
    """MLP encoder / decoder around a linear latent operator (held in the buffer ``K``)."""

    def __init__(self, state_dim: int, latent_dim: int = 16, hidden: int = 64, depth: int = 2):
        super().__init__()
        self.encoder = _mlp(state_dim, hidden, latent_dim, depth)
        self.decoder = _mlp(latent_dim, hidden, state_dim, depth)
        self.register_buffer("K", torch.eye(latent_dim))
        self.register_buffer("mean", torch.zeros(state_dim))
        self.register_buffer("std", torch.ones(state_dim))

    def encode(self, x: torch.Tensor) -> torch.Tensor:
        return self.encoder((x - self.mean) / self.std)

    def decode(self, z: torch.Tensor) -> torch.Tensor:
        return self.decoder(z) * self.std + self.mean

    def rollout(self, x0: torch.Tensor, steps: int) -> torch.Tensor:
        """Predicted states ``(n, steps + 1, d)`` from initial states ``x0`` (n, d)."""
        z = self.encode(x0)
        out = [x0]
        for _ in range(steps):
            z = z @ self.K
            out.append(self.decode(z))
        return torch.stack(out, 1)


@dataclass
class KoopmanModel:
    """A trained entropy-regularised Koopman autoencoder.

    Attributes
    ----------
    net
        The :class:`KoopmanAE` (``net.K`` the operator fitted on all training pairs).
    history
        Per epoch: ``epoch, loss, pred, recon, infonce, entropy``.
    settings
        The training settings.
    """

    net: Any
    history: list[dict[str, float]] = field(default_factory=list)
    settings: dict[str, Any] = field(default_factory=dict)

    def _tensor(self, x: Any) -> torch.Tensor:
        return torch.as_tensor(np.asarray(x), dtype=torch.float32)

    def encode(self, x: Any) -> np.ndarray:
        """Latents of states ``x`` (..., d)."""
        with torch.no_grad():
            return self.net.encode(self._tensor(x)).numpy()

    def predict(self, x0: Any, steps: int) -> np.ndarray:
        """Rollout ``(n, steps + 1, d)`` from initial states ``x0`` (n, d)."""
        steps = check_int(steps, "steps", min_value=0)
        with torch.no_grad():
            return self.net.rollout(self._tensor(x0), steps).numpy()

    def nrmse(self, trajectories: Any, horizons: Any = (1, 5, 10, 25, 50)) -> Any:
        """Normalised RMSE of rollouts from each trajectory's first state, per horizon.

        ``NRMSE_h = sqrt(mean over trajectories and coordinates of (x̂_h − x_h)²) / s`` with
        ``s`` the pooled standard deviation of the trajectories' states.  Returns a pandas
        DataFrame with columns ``horizon, nrmse``.
        """
        import pandas as pd

        traj = _trajectories(trajectories)
        hs = [check_int(int(h), "horizon", min_value=1) for h in horizons]
        if max(hs) >= traj.shape[1]:
            raise ValueError(
                f"horizon {max(hs)} needs trajectories of more than {max(hs)} steps, "
                f"got {traj.shape[1]}"
            )
        pred = self.predict(traj[:, 0], max(hs))
        scale = float(traj.std())
        rows = [
            {"horizon": h, "nrmse": float(np.sqrt(np.mean((pred[:, h] - traj[:, h]) ** 2)) / scale)}
            for h in hs
        ]
        return pd.DataFrame(rows)

    def latent_entropy(self, trajectories: Any) -> Estimate:
        """Von Neumann entropy of the latents of all states (an Estimate, nats)."""
        from infometer.estimators.matrix import von_neumann_entropy

        traj = _trajectories(trajectories)
        return von_neumann_entropy(self.encode(traj.reshape(-1, traj.shape[-1])))

    def effective_rank(self, trajectories: Any, spectrum: str = "singular") -> float:
        """Effective rank (Roy & Vetterli) of the latents of all states."""
        from infometer.estimators.matrix import effective_rank

        traj = _trajectories(trajectories)
        return effective_rank(self.encode(traj.reshape(-1, traj.shape[-1])), spectrum=spectrum)


def _trajectories(trajectories: Any) -> np.ndarray:
    t = np.asarray(trajectories, dtype=np.float64)
    if t.ndim != 3:
        raise ValueError(
            f"trajectories must be 3-D (n_traj, steps, state_dim), got shape {t.shape}"
        )
    if not np.all(np.isfinite(t)):
        raise ValueError("trajectories contain NaN or inf")
    return t


def _rollout_loss(
    net: KoopmanAE, z: torch.Tensor, win: torch.Tensor, kop: torch.Tensor, rollout: int
) -> torch.Tensor:
    """Mean over j = 1..rollout of MSE(dec(z_t K^j), x_{t+j}) (j = 1: the one-step loss)."""
    total = z.new_zeros(())
    zk = z
    for j in range(1, rollout + 1):
        zk = zk[:, :-1] @ kop
        total = total + F.mse_loss(net.decoder(zk), win[:, j:])
    return total / rollout


def fit_koopman(
    trajectories: Any,
    *,
    latent_dim: int = 16,
    hidden: int = 64,
    depth: int = 2,
    seq_len: int = 16,
    epochs: int = 100,
    batch_size: int = 32,
    lr: float = 1e-3,
    recon_weight: float = 0.1,
    infonce_weight: float = 0.0,
    entropy_weight: float = 0.0,
    ridge: float = 0.1,
    rollout: int = 1,
    k: int = 3,
    tau: float = 0.1,
    seed: Seed = 0,
    progress: bool | None = None,
) -> KoopmanModel:
    """Train a Koopman autoencoder on trajectories (CPU).

    Parameters
    ----------
    trajectories
        (n_traj, steps, state_dim) array; one random window of ``seq_len`` steps per
        trajectory and epoch.
    latent_dim, hidden, depth
        Latent width H, MLP width and number of hidden layers.
    seq_len, epochs, batch_size, lr
        Window length, epochs, windows per batch, Adam learning rate.
    recon_weight
        λ of the reconstruction term.
    infonce_weight
        a of the InfoNCE term (0 switches it off).
    entropy_weight
        γ ≥ 0 of the entropy term: ``−γ S_vN`` in the minimised loss, so the latent entropy
        is *raised* (0 switches it off).
    ridge
        Ridge r of the Koopman least-squares fit.
    rollout
        Prediction steps in the loss: the mean over ``j = 1..rollout`` of
        ``MSE(dec(z_t K^j), x_{t+j})`` (1: the one-step loss of the released code).
    k, tau
        InfoNCE positives on each side and temperature.
    seed
        Seeds initialisation and window sampling. An int >= 0 (the same int gives the same numbers),
        a numpy.random.Generator (drawn from as it is) or None (fresh entropy from the operating
        system).
    progress
        Progress bar.

    Returns
    -------
    KoopmanModel
    """
    traj = _trajectories(trajectories)
    latent_dim = check_int(latent_dim, "latent_dim", min_value=1)
    hidden = check_int(hidden, "hidden", min_value=1)
    depth = check_int(depth, "depth", min_value=1)
    seq_len = check_int(seq_len, "seq_len", min_value=2, max_value=traj.shape[1])
    epochs = check_int(epochs, "epochs", min_value=0)
    batch_size = check_int(batch_size, "batch_size", min_value=1)
    lr = check_float(lr, "lr", low=0.0, inclusive=(False, True))
    recon_weight = check_float(recon_weight, "recon_weight", low=0.0)
    infonce_weight = check_float(infonce_weight, "infonce_weight", low=0.0)
    entropy_weight = check_float(entropy_weight, "entropy_weight", low=0.0)
    ridge = check_float(ridge, "ridge", low=0.0)
    rollout = check_int(rollout, "rollout", min_value=1, max_value=seq_len - 1)
    k = check_int(k, "k", min_value=1)
    tau = check_float(tau, "tau", low=0.0, inclusive=(False, True))
    if infonce_weight > 0 and seq_len <= 2 * k:
        raise ValueError(f"seq_len must exceed 2k = {2 * k} for the InfoNCE term, got {seq_len}")
    seed = resolve_seed(seed)
    settings = {
        "latent_dim": latent_dim,
        "hidden": hidden,
        "depth": depth,
        "seq_len": seq_len,
        "epochs": epochs,
        "batch_size": batch_size,
        "lr": lr,
        "recon_weight": recon_weight,
        "infonce_weight": infonce_weight,
        "entropy_weight": entropy_weight,
        "ridge": ridge,
        "rollout": rollout,
        "k": k,
        "tau": tau,
        "seed": seed,
    }
    torch.manual_seed(seed)
    rng = as_generator(seed)
    n_traj, steps, d = traj.shape
    net = KoopmanAE(d, latent_dim, hidden, depth)
    data = torch.as_tensor(traj, dtype=torch.float32)
    net.mean.copy_(data.reshape(-1, d).mean(0))
    net.std.copy_(data.reshape(-1, d).std(0).clamp_min(1e-8))
    data = (data - net.mean) / net.std
    opt, _ = optimizer(net.parameters(), lr=lr)
    parts = ("loss", "pred", "recon", "infonce", "entropy")

    def windows(_epoch: int):
        starts = rng.integers(0, steps - seq_len + 1, n_traj)
        order = rng.permutation(n_traj)
        for i in range(0, n_traj, batch_size):
            rows = order[i : i + batch_size]
            yield torch.stack(
                [data[r, s : s + seq_len] for r, s in zip(rows, starts[rows], strict=True)]
            )

    def window_loss(win):
        z = net.encoder(win)  # data are standardised: losses in units of each state sd
        kop = ridge_koopman(z[:, :-1].detach(), z[:, 1:].detach(), ridge)
        pred = _rollout_loss(net, z, win, kop, rollout)
        recon = F.mse_loss(net.decoder(z), win)
        loss = pred + recon_weight * recon
        nce = infonce_time(z, k, tau) if infonce_weight > 0 else z.new_zeros(())
        ent = von_neumann_entropy_torch(z.reshape(-1, latent_dim))
        loss = loss + infonce_weight * nce - entropy_weight * ent
        vals = (loss, pred, recon, nce, ent)
        return loss, {key: float(v.detach()) for key, v in zip(parts, vals, strict=True)}

    history = run_epochs(
        opt,
        epochs,
        windows,
        window_loss,
        before_epoch=lambda epoch: {"epoch": float(epoch)},
        keys=parts,
        desc="Koopman",
        progress=progress,
    )
    with torch.no_grad():
        z = net.encoder(data)
        net.K.copy_(ridge_koopman(z[:, :-1], z[:, 1:], ridge))
    net.eval()
    return KoopmanModel(net=net, history=history, settings=settings)
