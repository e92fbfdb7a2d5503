"""Named benchmark suites: which tasks, and default sample sizes and seeds."""

from __future__ import annotations

from dataclasses import dataclass

from infometer.measures import truth

__all__ = ["Suite", "SUITES", "MAIN_METHODS", "SIGNAL_METHODS", "suite_tasks"]


@dataclass(frozen=True)
class Suite:
    """A named selection of tasks with default ``n``, number of seeds and estimators."""

    name: str
    description: str
    ns: tuple[int, ...]
    seeds: int
    tags: tuple[str, ...] = ()
    names: tuple[str, ...] = ()
    methods: tuple[str, ...] = ("auto",)


#: The main estimators, side by side (each runs where it applies): kNN, copula, GKOV,
#: the discrete family and the histogram, plus what ``auto`` picks.
MAIN_METHODS: tuple[str, ...] = (
    "ksg1",
    "ksg2",
    "kozachenko_leonenko",
    "gaussian_copula",
    "gkov",
    "plugin",
    "miller_madow",
    "grassberger",
    "chao_shen",
    "shrinkage",
    "nsb",
    "histogram",
    "auto",
)

#: The estimators of the signal, generalised-entropy and channel tasks (each task names the
#: ones its truth belongs to).
SIGNAL_METHODS: tuple[str, ...] = (
    "permutation",
    "weighted_permutation",
    "modified_permutation",
    "dispersion",
    "sample",
    "svd",
    "plugin",
    "unbiased",
    "lps",
    "auto",
)


SUITES: dict[str, Suite] = {
    s.name: s
    for s in (
        Suite(
            "quick",
            "14 cheap tasks of every kind, the main estimators side by side (< 3 min)",
            ns=(1000,),
            seeds=3,  # a median over 3 seeds is a real run, not the mean of two
            methods=MAIN_METHODS,
            names=(
                "1v1-normal-0.75",
                "1v1-additive-0.75",
                "multinormal-sparse-3-3-2-2.0",
                "student-identity-1-1-1",
                "mixed-uniform-m5",
                "symchannel-1pair-V2-0.5nat",
                "symchannel-2pairs-V8-1nat",
                "table-4x5-dirichlet",
                "ising1d-K0.5-mi",
                "ising2d-3x3-T2.5",
                "zipf-100",
                "gauss-entropy-1d",
                "1v1-normal-0.75~independent",
                "1v1-normal-0.75~doubled",
            ),
        ),
        Suite(
            "beyond-normal",
            "the 40 Beyond Normal tasks (Czyż et al. 2023)",
            ns=(5000,),
            seeds=3,
            tags=("beyond-normal",),
        ),
        Suite(
            "high-mi",
            "Gaussian (d = 1, 20) and additive-uniform staircases to 10 nats",
            ns=(1000, 10000),
            seeds=3,
            tags=("high-mi",),
        ),
        Suite(
            "discrete",
            "symmetric channels, Markov and Ising chains, 2-D Ising, tables",
            ns=(1000, 10000),
            seeds=3,
            tags=("discrete",),
        ),
        Suite(
            "consistency",
            "independence, data processing and additivity checks",
            ns=(2000,),
            seeds=3,
            tags=("consistency",),
        ),
        Suite(
            "signals",
            "signal complexity, Rényi/Tsallis entropies and channel capacity from samples",
            ns=(1000, 10000),
            seeds=3,
            tags=("signals",),
            methods=SIGNAL_METHODS,
        ),
        Suite("all", "every registered task", ns=(1000, 5000), seeds=3, tags=()),
    )
}


def suite_tasks(name: str) -> list[truth.Task]:
    """Tasks of the suite called ``name`` (``all`` = every task)."""
    if name not in SUITES:
        raise ValueError(f"suite must be one of {sorted(SUITES)}, got {name!r}")
    s = SUITES[name]
    if s.names:
        return [truth.get_task(t) for t in s.names]
    if s.tags:
        out: list[truth.Task] = []
        for tag in s.tags:
            out.extend(t for t in truth.tasks(tag) if t not in out)
        return out
    return truth.tasks()
