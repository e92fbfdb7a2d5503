"""Named benchmark suites: which tasks, and default sample sizes and seeds."""

from __future__ import annotations

from dataclasses import dataclass

from infometer.measures import truth

from .runner import NETWORK_METHODS

__all__ = [
    "Suite",
    "SUITES",
    "MAIN_METHODS",
    "SIGNAL_METHODS",
    "QUICK_METHODS",
    "suite_tasks",
]


@dataclass(frozen=True)
class Suite:
    """A named selection of tasks with default ``n``, number of seeds and estimators.

    The tasks are those named in ``names`` and those carrying any of ``tags``.
    """

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


#: The quick suite: the main estimators, plus the reference of each family beyond MI
#: (Gaussian closed forms, the multivariate KSG, two network searches, permutation entropy).
QUICK_METHODS: tuple[str, ...] = MAIN_METHODS[:-1] + (
    "gaussian",
    "frenzel_pompe",
    "ksg",
    "mte",
    "pcmci",
    "permutation",
    "auto",
)

_KNN_CMI = ("frenzel_pompe", "ksg1", "gkov", "gaussian", "gaussian_copula", "histogram")
_DISCRETE = ("plugin", "miller_madow", "grassberger", "chao_shen", "shrinkage", "nsb")

#: One slice of every suite beyond MI, in the quick suite (one or two tasks each).
QUICK_BEYOND_MI: tuple[str, ...] = (
    "gauss-cmi-1-1-1",
    "xor-cmi",
    "var2-te-0to1",
    "markov-te-x2y",
    "ar1-ais-0.6",
    "ar2-rate-k2",
    "gauss3-synergistic-oinfo",
    "xor3-noisy0.1-oinfo",
    "pid-and-mmi-red",
    "pid-gauss-mmi-syn",
    "var4-3links",
    "ar1-neg0.8-permutation-m3",
)

SUITES: dict[str, Suite] = {
    s.name: s
    for s in (
        Suite(
            "quick",
            "26 cheap tasks of every kind (MI, entropy and a slice of each suite beyond "
            "MI), the main estimators side by side",
            ns=(1000,),
            seeds=3,  # a median over 3 seeds is a real run, not the mean of two
            methods=QUICK_METHODS,
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
            )
            + QUICK_BEYOND_MI,
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
        Suite(
            "cmi",
            "conditional MI: Gaussian closed forms (Z of 1 to 5 dimensions, a zero), "
            "discrete tables (XOR, noisy copies, Dirichlet)",
            ns=(1000, 10000),
            seeds=3,
            tags=("cmi",),
            methods=_KNN_CMI + _DISCRETE + ("auto",),
        ),
        Suite(
            "te",
            "transfer entropy: Gaussian VAR closed forms (null, strong, conditional, "
            "histories of 2), jointly Markov symbol chains",
            ns=(1000, 10000),
            seeds=3,
            tags=("te",),
            methods=_KNN_CMI + _DISCRETE + ("auto",),
        ),
        Suite(
            "dynamics",
            "active information storage and entropy rate: Gaussian AR closed forms, Markov "
            "and Ising chains",
            ns=(1000, 10000),
            seeds=3,
            tags=("dynamics",),
            names=(
                "markov-3state-rate",
                "ising1d-K0.2-rate",
                "ising1d-K0.5-rate",
                "ising1d-K1-rate",
            ),
            methods=("ksg1", "ksg2", "gkov", "gaussian", "gaussian_copula", "kozachenko_leonenko")
            + _DISCRETE
            + ("auto",),
        ),
        Suite(
            "multivariate",
            "TC, DTC, O- and S-information: Gaussian closed forms, XOR/COPY/noisy XOR gates",
            ns=(1000, 10000),
            seeds=3,
            tags=("multivariate",),
            methods=("gaussian", "gaussian_copula", "ksg") + _DISCRETE + ("auto",),
        ),
        Suite(
            "pid",
            "PID atoms: XOR, AND, COPY, RDN gates (MMI and BROJA), Gaussian MMI/BROJA",
            ns=(1000, 10000),
            seeds=3,
            tags=("pid",),
            methods=("gaussian", "plugin", "auto"),
        ),
        Suite(
            "network",
            "network recovery on Gaussian VARs with known links (and a null network): F1, "
            "precision, recall, false-positive rate",
            ns=(500,),
            seeds=3,
            tags=("network",),
            methods=NETWORK_METHODS,
        ),
        Suite(
            "complexity",
            "permutation (white noise to order 5, AR(1)), weighted/modified permutation, "
            "dispersion, sample entropy (three r), SVD entropy",
            ns=(1000, 10000),
            seeds=3,
            tags=("complexity",),
            methods=SIGNAL_METHODS[:6],
        ),
        Suite("all", "every registered task", ns=(1000, 5000), seeds=3, tags=()),
    )
}


#: The suites beyond MI, gathered in ``beyond-mi`` (one sweep, one report).
BEYOND_MI = ("cmi", "te", "dynamics", "multivariate", "pid", "network", "complexity")


def _union(name: str, description: str, parts: tuple[str, ...]) -> Suite:
    ps = [SUITES[p] for p in parts]
    methods: list[str] = []
    for p in ps:
        methods += [m for m in p.methods if m not in methods]
    return Suite(
        name,
        description,
        ns=(1000,),
        seeds=3,
        names=tuple(n for p in ps for n in p.names),
        tags=tuple(t for p in ps for t in p.tags),
        methods=tuple(methods),
    )


SUITES["beyond-mi"] = _union(
    "beyond-mi", "every suite beyond MI at n = 1000, their estimators side by side", BEYOND_MI
)
SUITES["all"] = SUITES.pop("all")  # last in listings


def suite_tasks(name: str) -> list[truth.Task]:
    """Tasks of the suite called ``name`` (``all`` = every task)."""
    if name not in SUITES:
        raise ValueError(f"suite must be one of {sorted(SUITES)}, got {name!r}")
    s = SUITES[name]
    if not s.names and not s.tags:
        return truth.tasks()
    out: list[truth.Task] = [truth.get_task(t) for t in s.names]
    for tag in s.tags:
        out.extend(t for t in truth.tasks(tag) if t not in out)
    return out
