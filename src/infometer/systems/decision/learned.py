"""A learned, differentiable VI²N planner and a QMDP-net-style baseline (extra ``torch``).

Both networks see the map of a hidden-goal grid world (:mod:`infometer.systems.decision.grid`) as
image channels per goal hypothesis ``g`` (wall, landmark, goal ``g``, other candidates):

* a reward network ``f_R`` (3x3 conv, ReLU, 1x1 conv) gives a reward map per hypothesis;
* convolutional value iteration (VIN, Tamar et al. 2016) with a learned 3x3 kernel per action
  on ``[R, V]``: ``Q_a = w_a * [R; V]``, ``V = (1 - terminal) max_a Q_a``, ``k_vi`` times,
  gives ``Q_g`` for each hypothesis;
* VI²N only: an observation network ``f_Z`` gives, per hypothesis, the probability that a cell
  shows the goal's index; the distinguishability of hypotheses ``g, g'`` at a cell is the
  paper's Eq. 1 on that observation model, ``D = 1 - sum_o Z_g(o) Z_g'(o) = 1 - (1-p_g)(1-p_g')``;
  pair value iteration on the mixed-observability pair map (the cell is visible, so only
  hypothesis pairs at the same cell are kept) starts at ``D (V_g + V_g')/2 + (1 - D) min R``
  and holds resolved pairs at ``(V_g + V_g')/2`` (softly, weight ``D``) for ``k_pair`` steps;
* action values at the agent's cell from the exact belief over goals: QMDP-net
  ``sum_g b_g Q_g``; VI²N the ``"pairs"`` weighting of :class:`~.pairwise.PairPolicy`
  (pair values while the goal is uncertain, ``Q_g`` once it is known).

Training is imitation of the exact planner (:func:`~.solve.solve_pomdp`, belief-space DP):
every reachable (cell, belief) of every training map, the target spread evenly over the
exact optimal actions, cross-entropy loss.  The belief filter is exact for both networks (the
comparison is about planning, not filtering).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from infometer.core.progress import check_progress, progress_bar
from infometer.core.results import Result
from infometer.core.seeding import Seed, as_generator, resolve_seed
from infometer.core.training import optimizer, run_epochs

from ._validate import check_choice, check_float, check_int
from .grid import EpisodeStats, GridWorld, success_rate
from .pomdp import greedy_action
from .solve import solve_pomdp

__all__ = ["LearnedPlanner", "ImitationData", "imitation_data", "pad_world", "TrainLog"]

N_ACTIONS = 4


def pad_world(world: GridWorld, canvas: int) -> GridWorld:
    """The same world on a ``canvas x canvas`` map, walls added on the right and bottom."""
    h, w = world.shape
    if h > canvas or w > canvas:
        raise ValueError(f"the map is {h}x{w}, larger than canvas={canvas}")
    walls = np.ones((canvas, canvas), dtype=bool)
    walls[:h, :w] = world.walls
    return replace(world, walls=walls, _cache={})


def _inputs(world: GridWorld) -> np.ndarray:
    """Map channels per hypothesis: (G, 4, H, W) = wall, landmark, own goal, other goals."""
    g = world.n_goals
    x = np.zeros((g, 4, *world.shape), dtype=np.float32)
    x[:, 0] = world.walls
    for r, c in world.landmarks:
        x[:, 1, r, c] = 1.0
    for k, (r, c) in enumerate(world.goals):
        x[:, 3, r, c] = 1.0
        x[k, 2, r, c] = 1.0
        x[k, 3, r, c] = 0.0
    return x


@dataclass
class ImitationData:
    """Expert labels: per map the input channels; per sample the map, cell, belief, target."""

    inputs: np.ndarray  # (M, G, 4, H, W)
    map_index: np.ndarray  # (N,)
    cell: np.ndarray  # (N, 2)
    belief: np.ndarray  # (N, G)
    target: np.ndarray  # (N, A): uniform over the exact optimal actions

    @property
    def n_maps(self) -> int:
        return self.inputs.shape[0]


def imitation_data(
    worlds: Sequence[GridWorld], canvas: int = 10, *, progress: bool | None = None
) -> ImitationData:
    """Label every reachable (cell, belief) of each world with the exact planner's actions."""
    if not worlds:
        raise ValueError("worlds is empty")
    goals = {w.n_goals for w in worlds}
    if len(goals) != 1:
        raise ValueError(f"all worlds must have the same number of goals, got {sorted(goals)}")
    inputs, mi, cells, beliefs, targets = [], [], [], [], []
    items = progress_bar(
        enumerate(worlds), total=len(worlds), desc="exact planner labels", progress=progress
    )
    for m, world in items:
        world = pad_world(world, canvas)
        inputs.append(_inputs(world))
        model = world.pomdp()
        pol = solve_pomdp(model, method="exact").policy
        g = world.n_goals
        term = model.terminal
        for b, q in zip(pol.beliefs, pol.q, strict=True):
            if b[term].sum() > 1e-9:
                continue
            bx = b.reshape(-1, g)
            x = int(bx.sum(axis=1).argmax())
            best = q.max()
            opt = q >= best - 1e-9 * max(1.0, abs(best))
            mi.append(m)
            cells.append(world.cells[x])
            beliefs.append(bx[x] / bx[x].sum())
            targets.append(opt / opt.sum())
    return ImitationData(
        inputs=np.stack(inputs),
        map_index=np.asarray(mi),
        cell=np.asarray(cells),
        belief=np.asarray(beliefs, dtype=np.float32),
        target=np.asarray(targets, dtype=np.float32),
    )


def _build_net(kind: str, hidden: int, k_vi: int, k_pair: int, n_goals: int):
    import torch
    from torch import nn

    class PlannerNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.reward = nn.Sequential(
                nn.Conv2d(4, hidden, 3, padding=1), nn.ReLU(), nn.Conv2d(hidden, 1, 1)
            )
            self.trans = nn.Conv2d(2, N_ACTIONS, 3, padding=1, bias=False)
            self.scale = nn.Parameter(torch.tensor(1.0))
            self.pairs = list(itertools.combinations(range(n_goals), 2)) if kind == "vi2n" else []
            if self.pairs:
                self.reveal = nn.Sequential(
                    nn.Conv2d(4, hidden, 3, padding=1), nn.ReLU(), nn.Conv2d(hidden, 1, 1)
                )

        def _vi(self, r, v, alive, k, held=None, d=None):
            """``k`` steps of conv value iteration; pairs resolved with weight ``d`` held."""
            for _ in range(k):
                v = alive * self.trans(torch.cat([r, v], 1)).amax(1, keepdim=True)
                if d is not None:
                    v = d * held + (1 - d) * v
            return self.trans(torch.cat([r, v], 1)), v

        def forward(self, x):
            b, g, c, h, w = x.shape
            xf = x.reshape(b * g, c, h, w)
            r = self.reward(xf)
            # goal cells end the episode and walls are never entered: no value after them
            alive = 1.0 - (xf[:, 0:1] + xf[:, 2:3] + xf[:, 3:4]).clamp(max=1.0)
            q, v = self._vi(r, torch.zeros_like(r), alive, k_vi)
            out = {"q": q.reshape(b, g, N_ACTIONS, h, w)}
            if self.pairs:
                p = torch.sigmoid(self.reveal(xf)).reshape(b, g, 1, h, w)
                rg, vg = r.reshape(b, g, 1, h, w), v.reshape(b, g, 1, h, w)
                alive_b = alive.reshape(b, g, 1, h, w)[:, 0]
                q2 = []
                for i, j in self.pairs:
                    d = 1.0 - (1.0 - p[:, i]) * (1.0 - p[:, j])
                    r2 = 0.5 * (rg[:, i] + rg[:, j])
                    held = 0.5 * (vg[:, i] + vg[:, j])
                    rmin = r2.amin(dim=(2, 3), keepdim=True).detach()
                    start = d * held + (1 - d) * rmin
                    q2.append(self._vi(r2, start, alive_b, k_pair, held, d)[0])
                out["q_pair"] = torch.stack(q2, 1)
            return out

        def action_values(self, out, m, rc, belief):
            """Belief-weighted action values (N, A) at map ``m``, cell ``rc``."""
            q = out["q"][m, :, :, rc[:, 0], rc[:, 1]]  # (N, G, A)
            single = (belief[:, :, None] * q).sum(1)
            if not self.pairs:
                return self.scale * single
            w = torch.stack([belief[:, i] * belief[:, j] for i, j in self.pairs], 1)
            q2 = out["q_pair"][m, :, :, rc[:, 0], rc[:, 1]]  # (N, P, A)
            mass = w.sum(1, keepdim=True)
            pair = (w[:, :, None] * q2).sum(1) / mass.clamp(min=1e-12)
            return self.scale * torch.where(mass > 1e-9, pair, single)

    return PlannerNet()


@dataclass(eq=False, repr=False)
class TrainLog(Result):
    """What training did: epochs, losses, wall and CPU seconds, the load it ran under."""

    epochs: int = 0
    losses: list[float] = field(default_factory=list)
    train_accuracy: float = float("nan")
    wall_seconds: float = 0.0
    cpu_seconds: float = 0.0
    loadavg: tuple[float, float, float] = (0.0, 0.0, 0.0)
    n_maps: int = 0
    n_samples: int = 0


def _belief_q(
    q_cell: np.ndarray, q_pair_cell: np.ndarray | None, pairs: Sequence[tuple[int, int]], bh
) -> np.ndarray:
    """Action values at one cell: QMDP weighting, or pairs while the goal is uncertain."""
    single = bh @ q_cell
    if q_pair_cell is None:
        return single
    w = np.array([bh[i] * bh[j] for i, j in pairs])
    if w.sum() <= 1e-9:
        return single
    return w @ q_pair_cell / w.sum()


@dataclass(frozen=True, eq=False)
class NetPolicy:
    """A trained network's policy on one world (its action values computed once)."""

    world: GridWorld
    q: np.ndarray  # (G, A, H, W)
    q_pair: np.ndarray | None  # (P, A, H, W)
    pairs: tuple[tuple[int, int], ...]

    def q_values(self, belief: np.ndarray) -> np.ndarray:
        g = self.world.n_goals
        bx = np.asarray(belief).reshape(-1, g)
        x = int(bx.sum(axis=1).argmax())
        r, c = self.world.cells[x]
        qp = None if self.q_pair is None else self.q_pair[:, :, r, c]
        return _belief_q(self.q[:, :, r, c], qp, self.pairs, bx[x] / bx[x].sum())

    def action(self, belief: np.ndarray) -> int:
        return greedy_action(self.q_values(belief))


class LearnedPlanner:
    """A differentiable planner trained by imitation of the exact planner on grid worlds.

    Parameters
    ----------
    kind
        ``"vi2n"`` (value iteration + pair value iteration) or ``"qmdp"`` (QMDP-net style:
        value iteration, belief-weighted Q).
    canvas
        Maps are padded with walls to ``canvas x canvas``.
    hidden
        Channels of the reward (and observation) networks.
    k_vi, k_pair
        Iterations of value iteration and of pair value iteration.
    epochs, batch_maps, lr
        Training: passes over the maps, maps per step, Adam learning rate.
    seed
        Initialisation and batch order. An int >= 0 (the same int gives the same numbers), a
        numpy.random.Generator (drawn from as it is) or None (fresh entropy from the operating
        system).
    threads
        torch's threads during training (restored after); ``None``: the library's training
        default (``infometer.core._threads``).
    progress
        Show a progress bar.

    Examples
    --------
    >>> from infometer.systems.decision import generate_world
    >>> worlds = [generate_world(6, seed=s) for s in range(8)]
    >>> net = LearnedPlanner("vi2n", epochs=1, k_vi=10, k_pair=10).fit(worlds)  # doctest: +SKIP
    >>> net.evaluate(worlds).success_rate  # doctest: +SKIP
    """

    def __init__(
        self,
        kind: str = "vi2n",
        *,
        canvas: int = 10,
        hidden: int = 16,
        k_vi: int = 30,
        k_pair: int = 30,
        epochs: int = 30,
        batch_maps: int = 16,
        lr: float = 5e-3,
        seed: Seed = 0,
        threads: int | None = None,
        progress: bool | None = None,
    ) -> None:
        self.kind = check_choice(kind, "kind", ["vi2n", "qmdp"])
        self.canvas = check_int(canvas, "canvas", min_value=5, max_value=64)
        self.hidden = check_int(hidden, "hidden", min_value=1)
        self.k_vi = check_int(k_vi, "k_vi", min_value=1)
        self.k_pair = check_int(k_pair, "k_pair", min_value=1)
        self.epochs = check_int(epochs, "epochs", min_value=1)
        self.batch_maps = check_int(batch_maps, "batch_maps", min_value=1)
        self.lr = check_float(lr, "lr", low=0.0, inclusive=(False, True))
        self.seed = resolve_seed(seed)
        self.threads = None if threads is None else check_int(threads, "threads", min_value=1)
        self.progress = check_progress(progress)
        self.net: Any = None
        self.log = TrainLog()

    def fit(self, worlds: Sequence[GridWorld] | ImitationData) -> LearnedPlanner:
        """Train on grid worlds (labelled here by the exact planner) or on prepared data."""
        import os

        import torch

        data = (
            worlds
            if isinstance(worlds, ImitationData)
            else imitation_data(worlds, self.canvas, progress=self.progress)
        )
        if data.inputs.shape[-1] != self.canvas:
            raise ValueError(f"the data's maps are not {self.canvas}x{self.canvas}")
        from infometer.core._threads import training_threads

        with training_threads(self.threads):
            with torch.random.fork_rng(devices=[]):
                torch.manual_seed(self.seed)
                self.net = _build_net(
                    self.kind, self.hidden, self.k_vi, self.k_pair, data.inputs.shape[1]
                )
            self.n_goals = data.inputs.shape[1]
            log = TrainLog(n_maps=data.n_maps, n_samples=int(data.map_index.size))
            t0, c0 = time.perf_counter(), time.process_time()
            self._train(data, log)
            log.wall_seconds = time.perf_counter() - t0
            log.cpu_seconds = time.process_time() - c0
            log.loadavg = os.getloadavg()
            self.log = log
        return self

    def _train(self, data: ImitationData, log: TrainLog) -> None:
        import torch

        x = torch.as_tensor(data.inputs)
        mi = torch.as_tensor(data.map_index)
        rc = torch.as_tensor(data.cell)
        bel = torch.as_tensor(data.belief)
        tgt = torch.as_tensor(data.target)
        by_map = [torch.nonzero(mi == m).flatten() for m in range(data.n_maps)]
        steps_per_epoch = -(-data.n_maps // self.batch_maps)
        opt, sched = optimizer(
            self.net.parameters(), lr=self.lr, cosine_steps=self.epochs * steps_per_epoch
        )
        rng = as_generator(self.seed + 1)

        def epoch_maps(_epoch: int):
            order = rng.permutation(data.n_maps)
            for s in range(steps_per_epoch):
                yield order[s * self.batch_maps : (s + 1) * self.batch_maps]

        def maps_loss(maps):
            idx = torch.cat([by_map[m] for m in maps])
            local = {int(m): i for i, m in enumerate(maps)}
            m_local = torch.as_tensor([local[int(m)] for m in mi[idx]])
            out = self.net(x[torch.as_tensor(maps)])
            logits = self.net.action_values(out, m_local, rc[idx], bel[idx])
            loss = -(tgt[idx] * torch.log_softmax(logits, -1)).sum(-1).mean()
            return loss, {"loss": loss.item() * len(maps)}

        epochs = run_epochs(
            opt,
            self.epochs,
            epoch_maps,
            maps_loss,
            scheduler=sched,
            grad_clip=1.0,
            reduce="sum",
            desc=f"training {self.kind}",
            progress=self.progress,
        )
        log.losses.extend(e["loss"] / data.n_maps for e in epochs)  # mean loss per map
        log.epochs += len(epochs)
        log.train_accuracy = self._accuracy(data)

    def _outputs(self, inputs: np.ndarray) -> dict[str, np.ndarray]:
        import torch

        if self.net is None:
            raise RuntimeError("call fit() first")
        with torch.no_grad():
            out = self.net(torch.as_tensor(inputs))
        return {k: v.numpy() for k, v in out.items()}

    def _accuracy(self, data: ImitationData) -> float:
        """Fraction of labelled samples where the greedy action is an expert action."""
        hits = 0
        for m0 in range(0, data.n_maps, 64):
            out = self._outputs(data.inputs[m0 : m0 + 64])
            sel = np.flatnonzero((data.map_index >= m0) & (data.map_index < m0 + 64))
            for i in sel:
                m, (r, c) = data.map_index[i] - m0, data.cell[i]
                qp = out["q_pair"][m, :, :, r, c] if "q_pair" in out else None
                qv = _belief_q(out["q"][m, :, :, r, c], qp, self.net.pairs, data.belief[i])
                hits += data.target[i, greedy_action(qv)] > 0
        return hits / max(1, data.map_index.size)

    def policy(self, world: GridWorld) -> NetPolicy:
        """The trained network's policy on ``world`` (padded to the canvas)."""
        world = pad_world(world, self.canvas)
        out = self._outputs(_inputs(world)[None])
        return NetPolicy(
            world=world,
            q=out["q"][0],
            q_pair=out["q_pair"][0] if "q_pair" in out else None,
            pairs=tuple(self.net.pairs),
        )

    def evaluate(
        self, worlds: Sequence[GridWorld], *, max_steps: int | None = None
    ) -> EpisodeStats:
        """Success rate of the trained policy on ``worlds`` (see :func:`~.grid.success_rate`)."""
        return success_rate(worlds, self.policy, max_steps=max_steps)
