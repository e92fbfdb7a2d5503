"""Grid worlds with a hidden goal: generate maps, build the POMDP, run episodes, render PNGs.

The agent sees its own cell; the goal is one of ``goals`` (a hidden index with a prior).
Entering the true goal pays ``goal_reward`` and ends the episode; entering another candidate
pays ``-wrong_goal_penalty`` and ends it; every move costs ``step_cost``.  Entering a
*landmark* cell shows the goal's index (the sign of a T-maze).  Moves are N, E, S, W; a move
into a wall or off the map stays put; with probability ``slip`` the agent moves in one of the
other three directions instead.  This is the mixed-observability setting of the VI²N paper's
second task: the visible part is the cell, the hidden part the goal.

States are ordered ``s = cell * n_goals + goal`` (cells in row-major order of the free
cells), so :func:`~infometer.systems.decision.pairwise.momdp_pair_value_iteration` applies with
``n_hidden = n_goals``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from infometer.core.results import Result
from infometer.core.seeding import Seed, as_generator, resolve_seed

from ._validate import check_choice, check_float, check_int, distribution
from .pomdp import POMDP, Episode, Policy, run_episode

__all__ = [
    "GridWorld",
    "EpisodeStats",
    "tmaze",
    "generate_world",
    "success_rate",
    "render_world",
    "render_maps",
]

ACTIONS = ("N", "E", "S", "W")
MOVES = np.array([(-1, 0), (0, 1), (1, 0), (0, -1)])

Cell = tuple[int, int]


def _cell(c: Any, name: str) -> Cell:
    try:
        r, k = c
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a (row, column) pair, got {c!r}") from exc
    return (check_int(r, f"{name} row"), check_int(k, f"{name} column"))


@dataclass(frozen=True, eq=False)
class GridWorld:
    """A grid map with a hidden goal among candidate cells (see the module docstring).

    Parameters
    ----------
    walls
        Boolean array ``(rows, cols)``, ``True`` for a wall.
    start
        Start cell ``(row, col)``.
    goals
        Candidate goal cells; the true one is hidden.
    landmarks
        Cells that reveal the goal's index on entering.
    goal_prior
        Prior over the candidates (uniform by default).
    goal_reward, wrong_goal_penalty, step_cost
        Rewards (the penalty and cost are given as positive numbers).
    slip
        Probability that a move goes in one of the other three directions.
    discount
        ``gamma`` of the POMDP.
    """

    walls: np.ndarray
    start: Cell
    goals: tuple[Cell, ...]
    landmarks: tuple[Cell, ...] = ()
    goal_prior: np.ndarray | None = None
    goal_reward: float = 10.0
    wrong_goal_penalty: float = 10.0
    step_cost: float = 1.0
    slip: float = 0.0
    discount: float = 1.0
    _cache: dict[str, Any] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        w = np.asarray(self.walls)
        if w.ndim != 2 or w.size == 0:
            raise ValueError(f"walls must be a non-empty 2-D boolean array, got shape {w.shape}")
        if w.dtype != bool:
            if not np.isin(w, [0, 1]).all():
                raise ValueError("walls must be boolean (or 0/1)")
            w = w.astype(bool)
        object.__setattr__(self, "walls", w)
        start = _cell(self.start, "start")
        goals = tuple(_cell(g, "goals entry") for g in self.goals)
        marks = tuple(_cell(m, "landmarks entry") for m in self.landmarks)
        if len(goals) < 1:
            raise ValueError("goals must list at least one candidate cell")
        if len(set(goals)) != len(goals):
            raise ValueError("goals must be distinct cells")
        for name, cells in (("start", [start]), ("goals", goals), ("landmarks", marks)):
            for r, c in cells:
                if not (0 <= r < w.shape[0] and 0 <= c < w.shape[1]):
                    raise ValueError(f"{name} cell {(r, c)} is outside the {w.shape} map")
                if w[r, c]:
                    raise ValueError(f"{name} cell {(r, c)} is a wall")
        if start in goals:
            raise ValueError("start must not be a goal cell")
        if set(marks) & set(goals):
            raise ValueError("a landmark must not be a goal cell")
        prior = (
            np.full(len(goals), 1.0 / len(goals))
            if self.goal_prior is None
            else distribution(self.goal_prior, "goal_prior", size=len(goals))
        )
        object.__setattr__(self, "start", start)
        object.__setattr__(self, "goals", goals)
        object.__setattr__(self, "landmarks", marks)
        object.__setattr__(self, "goal_prior", prior)
        for name in ("goal_reward", "wrong_goal_penalty", "step_cost"):
            object.__setattr__(self, name, check_float(getattr(self, name), name, low=0.0))
        object.__setattr__(self, "slip", check_float(self.slip, "slip", low=0.0, high=0.75))
        object.__setattr__(
            self,
            "discount",
            check_float(self.discount, "discount", low=0.0, high=1.0, inclusive=(False, True)),
        )

    # ------------------------------------------------------------------ cells
    @property
    def shape(self) -> tuple[int, int]:
        return self.walls.shape  # type: ignore[return-value]

    @property
    def cells(self) -> list[Cell]:
        """Free cells in row-major order (the visible part of the state)."""
        if "cells" not in self._cache:
            self._cache["cells"] = [tuple(map(int, rc)) for rc in np.argwhere(~self.walls)]
        return self._cache["cells"]

    @property
    def n_goals(self) -> int:
        return len(self.goals)

    def cell_index(self, cell: Cell) -> int:
        if "index" not in self._cache:
            self._cache["index"] = {c: i for i, c in enumerate(self.cells)}
        return self._cache["index"][tuple(cell)]

    def state(self, cell: Cell, goal: int) -> int:
        """Flat POMDP state of ``(cell, goal index)``."""
        return self.cell_index(cell) * self.n_goals + goal

    def cell_of(self, state: int) -> Cell:
        return self.cells[state // self.n_goals]

    def reachable(self) -> bool:
        """Whether every goal and landmark can be reached from the start without passing a goal."""
        dist = self.distances(self.start)
        return all(dist[c] < np.inf for c in self.goals + self.landmarks)

    def distances(self, source: Cell) -> np.ndarray:
        """Shortest path lengths from ``source`` (goal cells are entered, never passed through)."""
        dist = np.full(self.shape, np.inf)
        dist[source] = 0
        queue = deque([source])
        goals = set(self.goals)
        while queue:
            r, c = queue.popleft()
            if (r, c) in goals and (r, c) != source:
                continue
            for dr, dc in MOVES:
                nr, nc = r + dr, c + dc
                if (
                    0 <= nr < self.shape[0]
                    and 0 <= nc < self.shape[1]
                    and not self.walls[nr, nc]
                    and dist[nr, nc] == np.inf
                ):
                    dist[nr, nc] = dist[r, c] + 1
                    queue.append((nr, nc))
        return dist

    # ------------------------------------------------------------------ model
    def _moves(self) -> np.ndarray:
        """``P[a, i, j]``: probability that action ``a`` takes free cell ``i`` to ``j``."""
        cells, n = self.cells, len(self.cells)
        dest = np.empty((4, n), dtype=int)
        for i, (r, c) in enumerate(cells):
            for d, (dr, dc) in enumerate(MOVES):
                nr, nc = r + dr, c + dc
                inside = 0 <= nr < self.shape[0] and 0 <= nc < self.shape[1]
                dest[d, i] = self.cell_index((nr, nc)) if inside and not self.walls[nr, nc] else i
        p = np.zeros((4, n, n))
        for a in range(4):
            for d in range(4):
                w = 1.0 - self.slip if d == a else self.slip / 3.0
                if w > 0:
                    np.add.at(p[a], (np.arange(n), dest[d]), w)
        return p

    def pomdp(self, *, landmarks: bool = True) -> POMDP:
        """The POMDP (``landmarks=False``: the same problem without the information source)."""
        key = f"pomdp{landmarks}"
        if key in self._cache:
            return self._cache[key]
        n, g = len(self.cells), self.n_goals
        s_n = n * g
        p = self._moves()
        goal_idx = [self.cell_index(c) for c in self.goals]
        is_goal = np.zeros(n, dtype=bool)
        is_goal[goal_idx] = True
        # reward on entering cell j when the goal index is k
        enter = np.zeros((n, g))
        for k, gi in enumerate(goal_idx):
            enter[goal_idx, k] = -self.wrong_goal_penalty
            enter[gi, k] = self.goal_reward
        t = np.zeros((4, s_n, s_n))
        r = np.zeros((s_n, 4))
        for k in range(g):
            rows = np.arange(n) * g + k
            for a in range(4):
                t[a][np.ix_(rows, rows)] = p[a]
                r[rows, a] = -self.step_cost + p[a] @ enter[:, k]
        # goal cells are terminal: absorbing, no reward
        for i in np.flatnonzero(is_goal):
            for k in range(g):
                s = i * g + k
                t[:, s, :] = 0.0
                t[:, s, s] = 1.0
                r[s, :] = 0.0
        # observation: (cell, reading); the reading is the goal index on a landmark, else none
        marks = {self.cell_index(m) for m in self.landmarks} if landmarks else set()
        z = np.zeros((s_n, n * (g + 1)))
        for i in range(n):
            for k in range(g):
                z[i * g + k, i * (g + 1) + (k if i in marks else g)] = 1.0
        used = z.any(axis=0)
        z = z[:, used]
        readings = [f"g{k}" for k in range(g)] + ["-"]
        all_names = [f"{c}:{rd}" for c in self.cells for rd in readings]
        obs_names = tuple(n for n, u in zip(all_names, used, strict=True) if u)
        b0 = np.zeros(s_n)
        si = self.cell_index(self.start)
        b0[si * g : (si + 1) * g] = self.goal_prior
        names = tuple(f"{c}/g{k}" for c in self.cells for k in range(g))
        model = POMDP(
            t,
            r,
            z,
            self.discount,
            b0,
            state_names=names,
            action_names=ACTIONS,
            observation_names=obs_names,
        )
        self._cache[key] = model
        return model

    def without_landmarks(self) -> GridWorld:
        return replace(self, landmarks=(), _cache={})

    def with_discount(self, discount: float) -> GridWorld:
        return replace(self, discount=discount, _cache={})

    def run(
        self,
        policy: Policy,
        goal: int,
        *,
        landmarks: bool = True,
        max_steps: int = 100,
        seed: Seed = 0,
    ) -> Episode:
        """Run ``policy`` from the start with the true goal index ``goal``.

        Parameters
        ----------
        seed
            An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from
            as it is) or None (fresh entropy from the operating system).
        """
        goal = check_int(goal, "goal", min_value=0, max_value=self.n_goals - 1)
        return run_episode(
            self.pomdp(landmarks=landmarks),
            policy,
            start_state=self.state(self.start, goal),
            max_steps=max_steps,
            seed=seed,
        )

    def path(self, episode: Episode) -> list[Cell]:
        """The cells an episode visited."""
        return [self.cell_of(s) for s in episode.states]

    def success(self, episode: Episode) -> bool:
        """Whether the episode ended on the true goal."""
        s = episode.states[-1]
        return episode.terminated and self.cell_of(s) == self.goals[s % self.n_goals]

    def to_grid(self, per_cell: np.ndarray) -> np.ndarray:
        """A per-free-cell vector as a ``(rows, cols)`` array with NaN on walls."""
        out = np.full(self.shape, np.nan)
        for v, (r, c) in zip(np.asarray(per_cell), self.cells, strict=True):
            out[r, c] = v
        return out


def tmaze(
    stem: int = 3,
    arm: int = 2,
    *,
    goal_reward: float = 10.0,
    wrong_goal_penalty: float = 10.0,
    discount: float = 1.0,
) -> GridWorld:
    """The T-maze of the brief: stem cells ``0..stem`` (sign at 0, start at 1, junction at
    ``stem``), two arms of ``arm`` cells ending in the two goal candidates, prior 1/2 each."""
    stem = check_int(stem, "stem", min_value=2)
    arm = check_int(arm, "arm", min_value=1)
    walls = np.ones((stem + 1, 2 * arm + 1), dtype=bool)
    walls[0, :] = False
    walls[:, arm] = False
    return GridWorld(
        walls=walls,
        start=(stem - 1, arm),
        goals=((0, 0), (0, 2 * arm)),
        landmarks=((stem, arm),),
        goal_reward=goal_reward,
        wrong_goal_penalty=wrong_goal_penalty,
        discount=discount,
    )


def generate_world(
    size: int = 8,
    *,
    kind: str = "symmetric",
    obstacle_density: float = 0.1,
    n_goals: int = 2,
    slip: float = 0.0,
    discount: float = 0.95,
    goal_reward: float = 10.0,
    wrong_goal_penalty: float = 10.0,
    seed: Seed = 0,
    max_tries: int = 1000,
) -> GridWorld:
    """A random ``size x size`` map (walls on the border) with one landmark.

    ``kind="symmetric"``: obstacles mirrored left-right, two goals at mirror positions in the
    top rows and the start on the bottom row in the middle, so that without the landmark both
    goals look the same (the ambiguous layouts QMDP fails on); the landmark is off the axis.
    ``kind="random"``: obstacles, goals, start and landmark anywhere.  Maps are redrawn until
    every goal and the landmark can be reached.

    Parameters
    ----------
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).
    """
    size = check_int(size, "size", min_value=5, max_value=64)
    check_choice(kind, "kind", ["symmetric", "random"])
    dens = check_float(obstacle_density, "obstacle_density", low=0.0, high=0.5)
    n_goals = check_int(n_goals, "n_goals", min_value=1, max_value=8)
    if kind == "symmetric" and n_goals != 2:
        raise ValueError("kind='symmetric' places two mirrored goals: use n_goals=2")
    max_tries = check_int(max_tries, "max_tries", min_value=1)
    rng = as_generator(seed)
    for _ in range(max_tries):
        walls = np.zeros((size, size), dtype=bool)
        walls[0, :] = walls[-1, :] = walls[:, 0] = walls[:, -1] = True
        inner = rng.random((size, size)) < dens
        if kind == "symmetric":
            inner = inner | inner[:, ::-1]
        walls |= inner
        free = [tuple(map(int, rc)) for rc in np.argwhere(~walls)]
        if kind == "symmetric":
            start = (size - 2, size // 2)
            r = int(rng.integers(1, max(2, size // 3)))
            c = int(rng.integers(1, max(2, size // 2 - 1)))
            goals: tuple[Cell, ...] = ((r, c), (r, size - 1 - c))
            axis = {size // 2, (size - 1) // 2}
            cand = [f for f in free if f[1] not in axis and f not in goals and f != start]
        else:
            pick = rng.permutation(len(free))[: n_goals + 2]
            if len(pick) < n_goals + 2:
                continue
            start = free[pick[0]]
            goals = tuple(free[i] for i in pick[1 : n_goals + 1])
            cand = [free[pick[-1]]]
        if not cand or any(walls[g] for g in goals) or walls[start]:
            continue
        mark = cand[int(rng.integers(len(cand)))]
        world = GridWorld(
            walls,
            start,
            goals,
            (mark,),
            goal_reward=goal_reward,
            wrong_goal_penalty=wrong_goal_penalty,
            slip=slip,
            discount=discount,
        )
        if world.reachable():
            return world
    raise ValueError(f"no valid map in {max_tries} tries: lower obstacle_density")


@dataclass(frozen=True, eq=False)
class EpisodeStats(Result):
    """Success of a planner over a set of worlds (every goal index, weighted by its prior)."""

    success_rate: float
    stderr: float  # over worlds
    terminated_rate: float
    mean_steps: float
    n_worlds: int

    def __repr__(self) -> str:
        return (
            f"success {self.success_rate:.3f} ± {self.stderr:.3f} over {self.n_worlds} worlds"
            f" (ended {self.terminated_rate:.3f}, {self.mean_steps:.1f} steps)"
        )


def success_rate(
    worlds: Sequence[GridWorld],
    make_policy: Callable[[GridWorld], Policy],
    *,
    max_steps: int | None = None,
    seed: Seed = 0,
) -> EpisodeStats:
    """Run ``make_policy(world)`` once per goal index on every world.

    Success means ending on the true goal within ``max_steps`` (default ``4 * rows * cols``);
    each world's score is the prior-weighted success over its goals, and the standard error is
    over worlds.

    Parameters
    ----------
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).
    """
    if not worlds:
        raise ValueError("worlds is empty")
    seed = resolve_seed(seed)  # world i's episodes run with seed + i
    per_world, ended, steps = [], [], []
    for i, world in enumerate(worlds):
        pol = make_policy(world)
        cap = max_steps if max_steps is not None else 4 * world.walls.size
        eps = [world.run(pol, g, max_steps=cap, seed=seed + i) for g in range(world.n_goals)]
        p = world.goal_prior
        per_world.append(float(p @ [world.success(e) for e in eps]))
        ended.append(float(p @ [e.terminated for e in eps]))
        steps.append(float(p @ [e.steps for e in eps]))
    s = np.asarray(per_world)
    return EpisodeStats(
        success_rate=float(s.mean()),
        stderr=float(s.std(ddof=1) / np.sqrt(s.size)) if s.size > 1 else float("nan"),
        terminated_rate=float(np.mean(ended)),
        mean_steps=float(np.mean(steps)),
        n_worlds=int(s.size),
    )


# ------------------------------------------------------------------ rendering
def _draw_world(ax, world: GridWorld, values: np.ndarray | None, cmap: str, label: str | None):
    import matplotlib.colors as mcolors
    from matplotlib.patches import Rectangle

    h, w = world.shape
    if values is not None:
        grid = world.to_grid(values) if np.ndim(values) == 1 else np.asarray(values, float)
        im = ax.imshow(np.ma.masked_invalid(grid), cmap=cmap, origin="upper")
        ax.figure.colorbar(im, ax=ax, fraction=0.046, pad=0.04, label=label)
    wall_rgba = np.zeros((h, w, 4))
    wall_rgba[world.walls] = mcolors.to_rgba("#333333")
    ax.imshow(wall_rgba, origin="upper")
    colors = [
        "#d62728",
        "#1f77b4",
        "#2ca02c",
        "#9467bd",
        "#ff7f0e",
        "#8c564b",
        "#e377c2",
        "#17becf",
    ]
    for k, (r, c) in enumerate(world.goals):
        ax.add_patch(
            Rectangle((c - 0.45, r - 0.45), 0.9, 0.9, fill=False, lw=2.5, ec=colors[k % 8])
        )
        ax.text(c, r, f"G{k}", ha="center", va="center", fontsize=8, weight="bold")
    for r, c in world.landmarks:
        ax.plot(c, r, marker="*", ms=16, color="#ffbf00", mec="black")
    ax.plot(world.start[1], world.start[0], marker="o", ms=10, color="white", mec="black")
    ax.set_xticks(np.arange(-0.5, w, 1), minor=True)
    ax.set_yticks(np.arange(-0.5, h, 1), minor=True)
    ax.grid(which="minor", color="#bbbbbb", lw=0.4)
    ax.tick_params(which="both", length=0, labelbottom=False, labelleft=False)
    return colors


def render_world(
    world: GridWorld,
    ax: Any = None,
    path: str | Path | None = None,
    *,
    trajectories: Sequence[tuple[str, Sequence[Cell]]] = (),
    values: np.ndarray | None = None,
    value_label: str | None = None,
    title: str | None = None,
    cmap: str = "viridis",
) -> Any:
    """Draw a map (walls, goals ``G0..``, landmark stars, start circle).

    Parameters
    ----------
    world
        The grid world.
    ax
        Axes to draw on (a new figure if ``None``).
    path
        Also save the figure as a PNG there.  The older ``render_world(world, path)``
        still works for one release (``DeprecationWarning``; it returns the path).
    trajectories
        ``(label, cells)`` pairs drawn as lines.
    values, value_label, cmap
        A per-free-cell vector (or a ``(rows, cols)`` array) shown as a heat map, the label
        of its colour bar and its colour map.
    title
        Title of the axes.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> ax = render_world(tmaze(3), trajectories=[("left", [(0, 1), (0, 0)])])
    >>> [t.get_text() for t in ax.get_legend().get_texts()]
    ['left']
    """
    from infometer.core.plot import close_and_path, deprecated_path_form, finish, new_axes

    ax, path, old = deprecated_path_form(ax, path, "render_world")
    h, w = world.shape
    _, ax = new_axes(ax, figsize=(max(4.5, 1.0 + 0.55 * w), max(3.0, 0.6 + 0.55 * h)))
    _draw_world(ax, world, values, cmap, value_label)
    styles = ["-", "--", ":", "-."]
    for j, (label, cells) in enumerate(trajectories):
        rc = np.asarray(cells, dtype=float).reshape(-1, 2)
        off = 0.12 * (j - (len(trajectories) - 1) / 2)
        ax.plot(rc[:, 1] + off, rc[:, 0] + off, styles[j % 4], lw=2, marker=".", label=label)
    if trajectories:
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.02), ncol=1, fontsize=8)
    if title:
        ax.set_title(title, fontsize=10)
    finish(ax, path, tight_layout=False, bbox_inches="tight")  # the legend is below the axes
    return close_and_path(ax, path) if old else ax


def render_maps(
    world: GridWorld,
    reward_map: np.ndarray,
    informative_map: np.ndarray,
    ax: Any = None,
    path: str | Path | None = None,
    *,
    title: str | None = None,
) -> Any:
    """The two VI²N maps side by side: rewarding cells (MDP value) and informative cells
    (pair values): 2 panels.

    Parameters
    ----------
    world
        The grid world.
    reward_map, informative_map
        Per-free-cell vectors (or ``(rows, cols)`` arrays): the MDP value and the pair value.
    ax
        ``None`` (a new figure), a Figure or SubFigure to draw the panels in, or a sequence
        of 2 Axes: the rule of :mod:`infometer.core.plot`.
    path
        Also save the figure as a PNG there.  The older ``render_maps(world, r, i, path)``
        still works for one release (``DeprecationWarning``; it returns the path).
    title
        Title over the panels (none by default).

    Returns
    -------
    numpy.ndarray
        The 2 Axes, rewarding cells then informative cells.

    Examples
    --------
    >>> w = tmaze(3)
    >>> axes = render_maps(w, np.arange(len(w.cells)), np.ones(len(w.cells)))
    >>> [a.get_title() for a in axes]
    ['rewarding cells: MDP value', 'informative cells: pair value']
    """
    from infometer.core.plot import close_and_path, deprecated_path_form, finish, new_panels

    ax, path, old = deprecated_path_form(ax, path, "render_maps")
    h, w = world.shape
    _, axes = new_panels(ax, 2, figsize=(2.0 + 1.1 * w, 0.9 + 0.55 * h), name="ax")
    _draw_world(axes[0], world, reward_map, "viridis", "V(x)")
    axes[0].set_title("rewarding cells: MDP value", fontsize=9)
    _draw_world(axes[1], world, informative_map, "magma", "pair value")
    axes[1].set_title("informative cells: pair value", fontsize=9)
    if title:
        axes[0].figure.suptitle(title, fontsize=10)
    finish(axes, path)
    return close_and_path(axes, path) if old else axes
