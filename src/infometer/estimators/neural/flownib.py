"""FlowNIB: information-plane trajectories of network layers (Kowsher et al. 2025; needs torch).

For each layer ``T`` two critics are trained together, one for ``I(X;T)`` and one for
``I(T;Y)``, on the loss ``−[α(s)·Î(X;T) + (1 − α(s))·Î(T;Y)]`` with the weight ``α``
decaying linearly from 1 to 0 over the first ``decay`` fraction of the steps and 0
after (the paper: ``α ← max(0, α − 0.001)`` per epoch over 2000 epochs).  Every
``eval_every`` steps both estimates are computed on held-out rows: the sequence of
points ``(Î_s(X;T), Î_s(T;Y))`` is the layer's path in the information plane.

* **Optimal Information Coordinate** (OIC): the point of the path maximising
  ``γ·x + (1 − γ)·y`` with ``γ* = R_y / (R_x + R_y)`` (``R``: range of each coordinate
  along the path).
* **Effective dimensionality**: the participation ratio ``(Σλ)² / Σλ²`` of the
  eigenvalues of the covariance of the activations.

The critics see the layer activations themselves.  The authors' released script
(``FlowNIB.py`` in Kowsher/BidiVsUniLM) feeds its critics a trainable projection
``ReLU(Linear(x))`` of the input instead, so the activations there only set widths and
``d_eff``; this implementation measures the layers, as the paper describes.  The loss
is the paper's (without the released script's division by ``d_eff²``, a rescaling).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from infometer.core.data import (
    InfometerWarning,
    as_variable,
    check_float,
    check_int,
    check_same_length,
)
from infometer.core.results import Result
from infometer.core.seeding import Seed, resolve_seed

__all__ = ["participation_ratio", "flownib", "FlowNIBResult", "optimal_coordinate"]


def participation_ratio(t: Any) -> float:
    """Effective dimensionality ``(Σλ)² / Σλ²`` of the covariance eigenvalues of ``t``.

    Parameters
    ----------
    t
        ``(n, d)`` activations (rows are samples).

    Returns
    -------
    float
        Between 1 (rank one) and ``d`` (isotropic).

    Raises
    ------
    ValueError
        When ``t`` has fewer than 2 rows or no variance at all.
    """
    a = np.asarray(t, dtype=np.float64)
    if a.ndim == 1:
        a = a[:, None]
    if a.ndim != 2 or a.shape[0] < 2:
        raise ValueError(f"t must be 2-D with at least 2 rows, got shape {a.shape}")
    if not np.isfinite(a).all():
        raise ValueError("t contains NaN or infinite values")
    a = a - a.mean(0)
    # singular values of the centred data: λ_i ∝ s_i², no d×d covariance needed when d > n
    s2 = np.linalg.svd(a, compute_uv=False) ** 2
    total = s2.sum()
    if not total > 0:
        raise ValueError("t has no variance: its effective dimensionality is undefined")
    return float(total**2 / (s2**2).sum())


def optimal_coordinate(ix: np.ndarray, iy: np.ndarray) -> tuple[int, float]:
    """Index of the OIC on a path ``(ix, iy)`` and the weight ``γ*`` used."""
    ix, iy = np.asarray(ix, dtype=float), np.asarray(iy, dtype=float)
    rx, ry = float(np.ptp(ix)), float(np.ptp(iy))
    gamma = 0.5 if rx + ry == 0 else ry / (rx + ry)
    return int(np.argmax(gamma * ix + (1 - gamma) * iy)), gamma


@dataclass(eq=False, repr=False)
class FlowNIBResult(Result):
    """Information-plane paths of several layers.

    Attributes
    ----------
    layers
        Layer names, in order.
    steps, alpha
        Evaluation steps and the weight α at each.
    i_xt, i_ty
        ``(n_layers, n_points)`` held-out estimates of I(X;T) and I(T;Y), nats.
    d_eff
        Participation ratio of each layer's activations.
    oic
        Per layer: ``{"index", "step", "alpha", "gamma", "i_xt", "i_ty"}``.
    bound
        Variational bound used by the critics.
    diagnostics
        Per layer: training summary and convergence flags.
    """

    layers: list[str]
    steps: np.ndarray
    alpha: np.ndarray
    i_xt: np.ndarray
    i_ty: np.ndarray
    d_eff: np.ndarray
    oic: list[dict[str, Any]]
    bound: str
    diagnostics: list[dict[str, Any]] = field(default_factory=list)

    def to_frame(self) -> Any:
        """One row per layer (:meth:`table`)."""
        return self.table()

    def table(self) -> Any:
        """One row per layer: d_eff, final and OIC coordinates (pandas DataFrame)."""
        import pandas as pd

        rows = []
        for i, name in enumerate(self.layers):
            o = self.oic[i]
            rows.append(
                {
                    "layer": name,
                    "d_eff": float(self.d_eff[i]),
                    "I(X;T) final": float(self.i_xt[i, -1]),
                    "I(T;Y) final": float(self.i_ty[i, -1]),
                    "I(X;T) max": float(np.nanmax(self.i_xt[i])),
                    "I(T;Y) max": float(np.nanmax(self.i_ty[i])),
                    "OIC step": o["step"],
                    "OIC I(X;T)": o["i_xt"],
                    "OIC I(T;Y)": o["i_ty"],
                }
            )
        return pd.DataFrame(rows)

    def plot(self, ax: Any = None, path: str | None = None) -> Any:
        """Paths in the information plane with their OICs; draws on ``ax`` (a new figure
        if None), saves a PNG at ``path`` when given, returns the axes (``plot(path)``, the
        older form, still works)."""
        from infometer.core.plot import axes_and_path, new_axes, save

        ax, path = axes_and_path(ax, path)
        fig, ax = new_axes(ax, figsize=(6, 4.5))
        for i, name in enumerate(self.layers):
            (line,) = ax.plot(self.i_xt[i], self.i_ty[i], lw=1.2, label=name)
            o = self.oic[i]
            ax.plot(o["i_xt"], o["i_ty"], marker="*", ms=11, color=line.get_color(), mec="k")
        ax.set_xlabel("I(X;T) [nats]")
        ax.set_ylabel("I(T;Y) [nats]")
        ax.set_title(f"FlowNIB information plane ({self.bound}; star = OIC)")
        ax.legend(fontsize=7, ncol=2)
        save(fig, path)
        return ax


def flownib(
    x: Any,
    activations: Mapping[str, Any] | Any,
    y: Any,
    *,
    bound: str = "dv",
    critic: str = "concat",
    hidden: int = 256,
    depth: int = 1,
    steps: int = 2000,
    batch_size: int = 256,
    lr: float = 1e-3,
    decay: float = 0.5,
    eval_every: int = 50,
    holdout: float = 0.2,
    discrete_y: bool | None = None,
    device: str = "cpu",
    seed: Seed = 0,
    progress: bool | None = None,
) -> FlowNIBResult:
    """FlowNIB trajectories of I(X;T) and I(T;Y) for each layer ``T``.

    Parameters
    ----------
    x
        ``(n, d_x)`` input representation (the paper: the mean-pooled embedding output).
    activations
        ``{layer name: (n, d) activations}`` (e.g. from :func:`collect_activations`), or
        one array.
    y
        ``(n,)`` targets (labels are embedded, numbers used as they are).
    bound, critic, hidden, depth
        The variational bound and critic of :class:`NeuralMI` (the paper: DV with a
        one-hidden-layer concat critic).
    steps, batch_size, lr
        Training of the two critics of each layer (no early stopping: the whole path is
        the result).
    decay
        Fraction of the steps over which α goes from 1 to 0.
    eval_every
        Steps between points of the path (each is a held-out evaluation).
    holdout
        Fraction of rows kept aside for the path's estimates.
    discrete_y
        Treat ``y`` as symbols (default: from its dtype).
    device, progress
        As for :class:`NeuralMI`.
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).

    Returns
    -------
    FlowNIBResult
    """
    steps = check_int(steps, "steps", min_value=2)
    eval_every = check_int(eval_every, "eval_every", min_value=1)
    decay = check_float(decay, "decay", low=0.0, high=1.0, inclusive=(False, True))
    acts = dict(activations) if isinstance(activations, Mapping) else {"T": activations}
    if not acts:
        raise ValueError("activations is empty: pass {layer name: array}")
    xv = as_variable(x, "x", discrete=False)
    yv = as_variable(y, "y", discrete=discrete_y)
    tvs = {
        name: as_variable(a, f"activations[{name!r}]", discrete=False) for name, a in acts.items()
    }
    check_same_length(xv, yv, *tvs.values())
    common = {
        "critic": critic,
        "hidden": hidden,
        "depth": depth,
        "steps": steps,
        "batch_size": batch_size,
        "lr": lr,
        "holdout": holdout,
        "val_fraction": 0.0,
        "patience": None,
        "eval_every": eval_every,
        "device": device,
        "seed": resolve_seed(seed),  # one root: every critic's split and initialisation
    }
    names = list(tvs)
    cut = max(1, int(round(decay * steps)))
    paths_x, paths_y, deff, oics, diags = [], [], [], [], []
    eval_steps: list[int] = []
    for li, name in enumerate(names):
        deff.append(participation_ratio(tvs[name].values))
        px, py, eval_steps, log = _layer_path(
            bound,
            common,
            xv,
            tvs[name],
            yv,
            cut,
            f"FlowNIB {name} ({li + 1}/{len(names)})",
            progress,
        )
        paths_x.append(px)
        paths_y.append(py)
        i, gamma = optimal_coordinate(np.array(px), np.array(py))
        oics.append(
            {
                "index": i,
                "step": eval_steps[i],
                "alpha": max(0.0, 1.0 - eval_steps[i] / cut),
                "gamma": gamma,
                "i_xt": px[i],
                "i_ty": py[i],
            }
        )
        bad = bool(not (np.isfinite(px).all() and np.isfinite(py).all()) or log.diverged)
        diags.append({"train": log.summary(), "diverged": bad})
        if bad:
            warnings.warn(
                f"FlowNIB critics of layer {name!r} diverged (non-finite loss or estimates): "
                "its path is not to be read; lower lr",
                InfometerWarning,
                stacklevel=2,
            )
    st_arr = np.asarray(eval_steps)
    return FlowNIBResult(
        layers=names,
        steps=st_arr,
        alpha=np.maximum(0.0, 1.0 - st_arr / cut),
        i_xt=np.asarray(paths_x, dtype=float),
        i_ty=np.asarray(paths_y, dtype=float),
        d_eff=np.asarray(deff),
        oic=oics,
        bound=bound,
        diagnostics=diags,
    )


def _layer_path(
    bound: str,
    common: dict[str, Any],
    xv: Any,
    tv: Any,
    yv: Any,
    cut: int,
    desc: str,
    progress: bool,
) -> tuple[list[float], list[float], list[int], Any]:
    """Train the I(X;T) and I(T;Y) critics of one layer together; return its path."""
    import torch

    from infometer.core.training import TrainSettings, train

    from .estimator import NeuralMI

    mx = NeuralMI(bound, **common)
    my = NeuralMI(bound, **common)
    mx.prepare({"x": xv, "y": tv})
    my.prepare({"x": tv, "y": yv})  # same n and seed: the same split
    net = torch.nn.ModuleDict({"xt": mx.net, "ty": my.net})
    ema = torch.nn.ModuleDict({"xt": mx.ema_net, "ty": my.ema_net})
    gen = torch.Generator(device=mx.device).manual_seed(common["seed"] + 1)
    next_rows = mx.batches(gen)
    mov_x, mov_y = mx.new_moving(), my.new_moving()

    def step_loss(step: int) -> tuple[Any, Any]:
        rows = next_rows()
        lx, vx = mx.batch_loss(net["xt"], rows, gen, mov_x)
        ly, vy = my.batch_loss(net["ty"], rows, gen, mov_y)
        a = max(0.0, 1.0 - step / cut)
        return a * lx + (1 - a) * ly, a * vx + (1 - a) * vy

    px: list[float] = []
    py: list[float] = []
    st: list[int] = []

    def on_eval(step: int) -> None:
        px.append(mx.heldout_value(ema["xt"]))
        py.append(my.heldout_value(ema["ty"]))
        st.append(step)

    log = train(
        net,
        ema,
        step_loss,
        None,
        TrainSettings(
            steps=common["steps"],
            lr=common["lr"],
            weight_decay=0.0,
            warmup=50,
            grad_clip=5.0,
            ema=0.9,
            eval_every=common["eval_every"],
            patience=None,
        ),
        desc=desc,
        progress=progress,
        on_eval=on_eval,
        log=mx.new_log(),
    )
    return px, py, st, log
