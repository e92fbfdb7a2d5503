"""The :class:`Task` type and the task catalogue shared by every ground-truth module.

A task is a sampler with a known answer: ``task.sample(n, seed)`` returns a dict that maps
the roles of ``task.quantity`` (``x``/``y`` for MI, ``x`` for entropy, ``x``/``y``/``z`` for
CMI, ``p``/``q`` for KL) to numpy arrays with samples in rows, and ``task.truth`` is the
exact value in nats (``task.truth_se`` > 0 only for Monte Carlo truths).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from infometer.core.data import check_int
from infometer.core.seeding import Seed, as_generator

__all__ = ["Task", "register_task", "get_task", "tasks", "TASKS"]

Sampler = Callable[[int, np.random.Generator], dict[str, np.ndarray]]

#: name -> Task, filled by the modules of :mod:`infometer.measures.truth` when imported.
TASKS: dict[str, Task] = {}


@dataclass(frozen=True)
class Task:
    """A distribution with an exactly known information quantity.

    Attributes
    ----------
    name
        Unique identifier (Beyond Normal tasks keep their published ids).
    quantity
        ``"mutual_info"``, ``"entropy"``, ``"cond_mutual_info"``, ``"kl_divergence"``,
        ``"entropy_rate"``, ``"transfer_entropy"``, ``"active_info_storage"``, the
        multivariate quantities (``"o_information"``, ``"total_correlation"``...),
        ``"pid_atom"``, ``"complexity"``, or ``"network"`` (a graph: ``truth`` is 1, the
        F1 score of recovering ``extra["edges"]`` exactly).
    sampler
        ``sampler(n, rng) -> {role: array}``; use :meth:`sample`.
    truth
        Exact value in nats.
    truth_se
        Monte Carlo standard error of ``truth`` (0 for closed forms).
    dims
        Dimensions of each role, e.g. ``(3, 3)`` for a 3×3 MI task.
    family
        Task family used to group plots (``"multinormal"``, ``"student"``, ``"ising"``...).
    tags
        Free labels used to build suites (``"beyond-normal"``, ``"high-mi"``, ``"discrete"``...).
    discrete
        ``True`` when the samples are symbols, ``False`` when numbers, ``None`` mixed.
    description
        One line on the construction and the ground-truth route.
    extra
        Parameters of the construction (for records and reports).
    methods
        The estimators whose value ``truth`` is (empty: any estimator of ``quantity``).
        The measures of one quantity may have different values on the same data (the
        signal-complexity measures), and a benchmark never scores one against another's.
    params
        The settings ``truth`` belongs to, passed to every estimator (and peer) of the
        task: history lengths of transfer entropy and storage (``k``, ``l``), the order and
        tolerance of a complexity measure, the PID measure and atom, the lags a network
        search tries.  Empty when the quantity has no such setting.
    """

    name: str
    quantity: str
    sampler: Sampler
    truth: float
    dims: tuple[int, ...]
    family: str
    tags: frozenset[str] = frozenset()
    truth_se: float = 0.0
    discrete: bool | None = False
    description: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    methods: tuple[str, ...] = ()
    params: dict[str, Any] = field(default_factory=dict)

    def sample(self, n: int, seed: Seed = 0) -> dict[str, np.ndarray]:
        """Draw ``n`` i.i.d. samples (rows) with a seeded generator.

        Parameters
        ----------
        n
            Number of samples (for ``entropy_rate``: length of one sequence).
        seed
            Seed of ``numpy.random.default_rng``. An int >= 0 (the same int gives the same numbers),
            a numpy.random.Generator (drawn from as it is) or None (fresh entropy from the operating
            system).

        Returns
        -------
        dict
            Role name -> array of shape ``(n, d)``.
        """
        n = check_int(n, "n", min_value=1)
        return self.sampler(n, as_generator(seed))


def register_task(task: Task) -> Task:
    """Add ``task`` to :data:`TASKS` (names must be unique)."""
    if task.name in TASKS:
        raise ValueError(f"task {task.name!r} is already registered")
    if not np.isfinite(task.truth):
        raise ValueError(f"task {task.name!r} has a non-finite truth {task.truth}")
    TASKS[task.name] = task
    return task


def _load() -> None:
    # Import the modules that register tasks (idempotent).
    import importlib

    for mod in _TASK_MODULES:
        importlib.import_module(f"{__package__}.{mod}")


#: Modules of this package that register tasks when imported.
_TASK_MODULES = (
    "beyond_normal",
    "discrete",
    "continuous",
    "consistency",
    "quantised",
    "signals",
    "dynamics",
    "multivariate",
    "network",
)


def get_task(name: str) -> Task:
    """The task called ``name``; the error lists close names."""
    _load()
    if not isinstance(name, str):
        raise TypeError(f"name must be a string, got {type(name).__name__}")
    if name not in TASKS:
        import difflib

        close = difflib.get_close_matches(name, TASKS, n=5)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise ValueError(f"unknown task {name!r}{hint}")
    return TASKS[name]


def tasks(tags: str | Iterable[str] | None = None, quantity: str | None = None) -> list[Task]:
    """Tasks carrying all of ``tags`` (and of ``quantity`` when given), in registration order."""
    _load()
    want = {tags} if isinstance(tags, str) else set(tags or ())
    return [
        t for t in TASKS.values() if want <= t.tags and (quantity is None or t.quantity == quantity)
    ]
