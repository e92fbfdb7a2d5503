"""The public-surface policy of docs/api.md, checked on every exported signature (issue 29).

The walk visits every module whose dotted path has no component starting with ``_``
(``pkgutil.walk_packages``; the typer commands of ``infometer.cli`` aside, and modules behind
a missing optional extra skipped); every callable listed in a module's ``__all__``
(function or class) is checked, and in a module without ``__all__`` every public callable
it defines.  A departure
from the policy is allowed only in :data:`ALLOWED`, each with its reason.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
import warnings

import pytest

import infometer as im
from infometer.core.seeding import SEED_DOC, Seed

#: Modules skipped by the walk: the typer commands of the CLI take typer ``OptionInfo``
#: objects as defaults, so their signatures are the command line's, not the policy's.
SKIP_PREFIXES = ("infometer.cli",)


def _public_modules() -> list[str]:
    """Every module whose dotted path has no component starting with ``_``."""
    names = ["infometer"]
    for info in pkgutil.walk_packages(im.__path__, "infometer.", onerror=lambda _name: None):
        parts = info.name.split(".")
        if any(part.startswith("_") for part in parts):
            continue
        if info.name.startswith(SKIP_PREFIXES):
            continue
        names.append(info.name)
    return names


#: (qualified name, rule) -> why the departure is allowed.
ALLOWED: dict[tuple[str, str], str] = {
    ("infometer.core.progress.progress_bar", "unit"): "the unit of a progress bar (items), not of "
    "information",
    ("infometer.measures.stats.block_permutation", "seed"): "a kernel that draws from the caller's "
    "numpy Generator (the public tests take seed=)",
    ("infometer.measures.stats.local_permutation", "seed"): "as block_permutation",
    (
        "infometer.measures.truth.discrete.sample_symmetric_channel",
        "seed",
    ): "a task's sampler kernel: it "
    "draws from the numpy Generator of the task's sampler(n, rng) protocol (users call "
    "Task.sample(n, seed=))",
    (
        "infometer.measures.truth.discrete.sample_markov_chain",
        "seed",
    ): "as sample_symmetric_channel",
    (
        "infometer.systems.extract.litecost.run_cost",
        "seed",
    ): "rng=None decides greedily (how users call "
    "it); a Generator samples the GRPO rollouts from train_extractor's stream (which takes "
    "seed=)",
    ("infometer.core.seeding.derive", "seed"): "takes the call's resolved int root "
    "(resolve_seed's), never a user's seed: a keyed stream from None would be the two meanings "
    "of seed=None again",
    ("infometer.core.seeding.derive_seed", "seed"): "as derive",
    (
        "infometer.workflows.allpairs.compute.Config",
        "seed",
    ): "a record of the resolved int seed a matrix "
    "job runs with (pairwise resolves the user's seed first)",
    ("infometer.workflows.allpairs.matrix.make_config", "seed"): "as Config, which it builds",
    (
        "infometer.workflows.bench.Job",
        "seed",
    ): "a record of one benchmark job's int seed (a key of the results store)",
    ("infometer.systems.extract.documents.Filing", "seed"): "a record of the int seed a filing was "
    "made with (make_filing resolves the user's seed)",
    ("infometer.systems.models.cmi.cmi_terms", "name"): "a numeric kernel (per-class terms of the "
    "classifier_cmi quantity), named after its module, not a public quantity",
    ("infometer.measures.stats.circular_shift", "seed"): "a kernel that draws from the caller's "
    "numpy Generator (the public tests take seed=)",
    ("infometer.measures.stats.nulls.permutation", "seed"): "as circular_shift",
    ("infometer.measures.stats.nulls.strata_permutation", "seed"): "as circular_shift",
    ("infometer.measures.stats.nulls.permutation_table", "seed"): "as circular_shift",
    ("infometer.measures.stats.nulls.independent_orders", "seed"): "as circular_shift",
}

#: The one sentence that says what ``seed`` accepts, as the docstrings wrap it.
_SEED_DOC = " ".join(SEED_DOC.split())
#: Spellings of a seed other than ``seed``.
OTHER_SEEDS = {"random_state", "rng", "random_seed", "seed_value", "rs"}
#: Abbreviated quantity names (the rule: full words, ``mutual_info``, ``cond_mutual_info``).
ABBREVIATED = re.compile(r"(^|_)(mi|cmi|nmi)(_|$)")


def _exported(mod: object) -> list[str]:
    """A module's ``__all__``; without one, the public callables it defines itself."""
    if hasattr(mod, "__all__"):
        return list(mod.__all__)
    return [
        attr
        for attr, obj in vars(mod).items()
        if not attr.startswith("_")
        and callable(obj)
        and not inspect.ismodule(obj)
        and getattr(obj, "__module__", None) == mod.__name__
    ]


def _walk() -> dict[str, object]:
    """Qualified public name -> callable, over the ``__all__`` of every public module (and of
    every module listed in an ``__all__``).  A callable re-exported under the same name is
    checked once, under its shortest path (``infometer.measures.stats.block_permutation``, not
    ``infometer.measures.stats.independence.block_permutation``)."""
    todo, seen_mods, found = _public_modules(), set(), {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        while todo:
            name = todo.pop()
            if name in seen_mods:
                continue
            seen_mods.add(name)
            try:
                mod = importlib.import_module(name)
            except ImportError:  # an optional extra (torch, transformers) is missing
                continue
            for attr in _exported(mod):
                try:
                    obj = getattr(mod, attr)
                except ImportError:  # a lazy name behind a missing extra
                    continue
                if inspect.ismodule(obj):
                    if obj.__name__.startswith("infometer") and not obj.__name__.startswith(
                        SKIP_PREFIXES
                    ):
                        todo.append(obj.__name__)
                elif callable(obj):
                    qual = f"{name}.{attr}"
                    best = found.get((id(obj), attr))
                    if best is None or (qual.count("."), qual) < (best[0].count("."), best[0]):
                        found[(id(obj), attr)] = (qual, obj)
    return dict(found.values())


PUBLIC = _walk()


def _violations(qual: str, obj: object) -> list[tuple[str, str]]:
    bad = []
    if ABBREVIATED.search(qual.rsplit(".", 1)[1]):
        bad.append(("name", "abbreviated quantity name (spell it in full words)"))
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):  # a builtin or an object without one
        return bad
    empty = inspect.Parameter.empty
    for p in sig.parameters.values():
        if p.name == "unit" and p.default not in (empty, "nats"):
            bad.append(("unit", f"unit defaults to {p.default!r}, not 'nats'"))
        if p.name == "ci" and p.default not in (empty, None):
            bad.append(("ci", f"ci defaults to {p.default!r}, not None"))
        if p.name in OTHER_SEEDS:
            bad.append(("seed", f"the seed is spelled {p.name!r}, not 'seed'"))
        if p.name == "progress" and p.default not in (empty, None):
            bad.append(("progress", f"progress defaults to {p.default!r}, not None"))
        if p.name == "seed" and p.default is not empty and p.default not in (0, None):
            bad.append(("seed", f"seed defaults to {p.default!r}"))
        if p.name == "seed" and p.annotation not in (empty, "Seed", Seed):
            bad.append(
                ("seed", f"seed is annotated {p.annotation!r}, not infometer.core.seeding.Seed")
            )
        if p.name == "seed" and _SEED_DOC not in " ".join((inspect.getdoc(obj) or "").split()):
            bad.append(("seed", "the docstring does not say what seed accepts (seeding.SEED_DOC)"))
    ret = sig.return_annotation
    takes_variable = any("Variable" in str(p.annotation) for p in sig.parameters.values())
    if takes_variable and "Raw" in str(ret):
        bad.append(("private", "an estimator function (Variable -> Raw) is exported"))
    return bad


def test_the_walk_reaches_the_families():
    assert len(PUBLIC) > 100
    assert (
        "infometer.mutual_info" in PUBLIC
        and "infometer.systems.probes.decoding.fano_bound" in PUBLIC
    )
    # modules listed in no __all__ are reached too
    assert "infometer.measures.truth.closed_forms.gaussian_mutual_info" in PUBLIC
    assert "infometer.systems.extract.bridge.layout_entropy" in PUBLIC
    # the compiled kernels are private modules (issue 37): not on the surface
    assert not [
        q
        for q in PUBLIC
        if q.startswith(("infometer.estimators.knn._", "infometer.estimators.discrete._"))
    ]


def test_the_walk_visits_every_public_module():
    mods = _public_modules()
    assert {
        "infometer.measures.truth.discrete",
        "infometer.systems.extract.bridge",
        "infometer.systems.text.channel",
    } <= set(mods)
    assert not [m for m in mods if any(p.startswith("_") for p in m.split("."))]
    assert not [m for m in mods if m.startswith("infometer.cli")]


@pytest.mark.parametrize("qual", sorted(PUBLIC))
def test_signature_follows_the_policy(qual):
    bad = [why for rule, why in _violations(qual, PUBLIC[qual]) if (qual, rule) not in ALLOWED]
    assert not bad, f"{qual}: " + "; ".join(bad)


def test_allow_list_has_no_stale_entries():
    live = {(q, rule) for q, obj in PUBLIC.items() for rule, _ in _violations(q, obj)}
    stale = [k for k in ALLOWED if k[0] in PUBLIC and k not in live]
    assert not stale, f"allowed departures that no longer occur: {stale}"


def test_dir_shows_public_names_only():
    names = dir(im)
    assert names == sorted(im.__all__)
    for leak in ("annotations", "importlib", "sys", "types", "_Package"):
        assert leak not in names


@pytest.mark.parametrize(
    ("module", "old", "new"),
    [
        ("infometer", "classifier_cmi", "classifier_cond_mutual_info"),
        (
            "infometer.systems.models",
            "classifier_cmi_per_class",
            "classifier_cond_mutual_info_per_class",
        ),
        ("infometer.systems.text", "channel_mi", "channel_mutual_info"),
        ("infometer.systems.text", "channel_mi_of_summaries", "channel_mutual_info_of_summaries"),
        ("infometer.systems.text", "channel_mi_from_scores", "channel_mutual_info_from_scores"),
        ("infometer.systems.probes.clib", "nmi", "normalized_mutual_info"),
        ("infometer.measures.truth.closed_forms", "gaussian_mi", "gaussian_mutual_info"),
        ("infometer.measures.truth.closed_forms", "gaussian_cmi", "gaussian_cond_mutual_info"),
        (
            "infometer.measures.truth.closed_forms",
            "bivariate_normal_mi",
            "bivariate_normal_mutual_info",
        ),
        (
            "infometer.measures.truth.closed_forms",
            "correlation_for_mi",
            "correlation_for_mutual_info",
        ),
        ("infometer.measures.truth.closed_forms", "student_t_mi", "student_t_mutual_info"),
        (
            "infometer.measures.truth.closed_forms",
            "additive_uniform_mi",
            "additive_uniform_mutual_info",
        ),
        (
            "infometer.measures.truth.closed_forms",
            "discrete_uniform_mixture_mi",
            "discrete_uniform_mixture_mutual_info",
        ),
        (
            "infometer.measures.truth.closed_forms",
            "zero_inflated_poissonization_mi",
            "zero_inflated_poissonization_mutual_info",
        ),
        (
            "infometer.measures.truth.continuous",
            "gaussian_cmi_task",
            "gaussian_cond_mutual_info_task",
        ),
        (
            "infometer.measures.truth.discrete",
            "symmetric_channel_mi",
            "symmetric_channel_mutual_info",
        ),
        (
            "infometer.measures.truth.discrete",
            "ising2d_strip_mi_task",
            "ising2d_strip_mutual_info_task",
        ),
        ("infometer.measures.truth.discrete", "table_mi_task", "table_mutual_info_task"),
        (
            "infometer.measures.truth.quantised",
            "quantised_gaussian_mi",
            "quantised_gaussian_mutual_info",
        ),
        ("infometer.measures.dynamics.simulate", "gaussian_cmi", "gaussian_cond_mutual_info"),
        ("infometer.workflows.allpairs.kernels", "copula_mi", "copula_mutual_info"),
        ("infometer.systems.extract.bridge", "extraction_mi", "extraction_mutual_info"),
    ],
)
def test_renamed_functions_keep_a_deprecated_alias(module, old, new):
    mod = importlib.import_module(module)
    alias, func = getattr(mod, old), getattr(mod, new)
    assert old not in getattr(mod, "__all__", []) and new in getattr(mod, "__all__", [])
    assert alias.__deprecated__ == new and alias.__wrapped__ is func
    with pytest.warns(DeprecationWarning, match=f"{old} is deprecated.*use {new}"):
        try:
            alias()
        except TypeError:  # no arguments: the new function's own error, after the warning
            pass
