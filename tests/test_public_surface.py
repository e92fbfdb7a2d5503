"""The public-surface policy of docs/api.md, checked on every exported signature (issue 29).

The walk starts at ``infometer.__all__`` and follows every subpackage or module listed in
an ``__all__``; every callable listed there (function or class) is checked.  A departure
from the policy is allowed only in :data:`ALLOWED`, each with its reason.
"""

from __future__ import annotations

import importlib
import inspect
import re
import warnings

import pytest

import infometer as im

#: Modules whose ``__all__`` is walked besides those reached from ``infometer.__all__``.
ROOTS = (
    "infometer",
    "infometer.allpairs",
    "infometer.models",
    "infometer.models.activations",
    "infometer.neural",
    "infometer.text",
    "infometer.timeseries",
    "infometer.stats",
    "infometer.diffusion",
    "infometer.parametric",
    "infometer.discrete",
    "infometer.knn",
    "infometer.matrix",
    "infometer.binned",
    "infometer.truth",
    "infometer.bench",
    "infometer.uncertainty",
    "infometer.validation",
    "infometer.progress",
    "infometer.resample",
    "infometer.training",
    "infometer.plot",
    "infometer.parallel",
)

#: (qualified name, rule) -> why the departure is allowed.
ALLOWED: dict[tuple[str, str], str] = {
    ("infometer.progress.progress_bar", "unit"): "the unit of a progress bar (items), not of "
    "information",
    ("infometer.stats.block_permutation", "seed"): "a kernel that draws from the caller's "
    "numpy Generator (the public tests take seed=)",
    ("infometer.stats.local_permutation", "seed"): "as block_permutation",
    ("infometer.models.cmi.cmi_terms", "name"): "a numeric kernel (per-class terms of the "
    "classifier_cmi quantity), named after its module, not a public quantity",
}

#: Spellings of a seed other than ``seed``.
OTHER_SEEDS = {"random_state", "rng", "random_seed", "seed_value", "rs"}
#: Abbreviated quantity names (the rule: full words, ``mutual_info``, ``cond_mutual_info``).
ABBREVIATED = re.compile(r"(^|_)(mi|cmi|nmi)(_|$)")


def _walk() -> dict[str, object]:
    """Qualified public name -> callable, over every ``__all__`` reachable from ROOTS."""
    todo, seen_mods, out = list(ROOTS), set(), {}
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
            for attr in getattr(mod, "__all__", []):
                try:
                    obj = getattr(mod, attr)
                except ImportError:  # a lazy name behind a missing extra
                    continue
                if inspect.ismodule(obj):
                    if obj.__name__.startswith("infometer"):
                        todo.append(obj.__name__)
                elif callable(obj):
                    out.setdefault(f"{name}.{attr}", obj)
    return out


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
    ret = sig.return_annotation
    takes_variable = any("Variable" in str(p.annotation) for p in sig.parameters.values())
    if takes_variable and "Raw" in str(ret):
        bad.append(("private", "an estimator function (Variable -> Raw) is exported"))
    return bad


def test_the_walk_reaches_the_families():
    assert len(PUBLIC) > 100
    assert "infometer.mutual_info" in PUBLIC and "infometer.probes.decoding.fano_bound" in PUBLIC


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
        ("infometer.models", "classifier_cmi_per_class", "classifier_cond_mutual_info_per_class"),
        ("infometer.text", "channel_mi", "channel_mutual_info"),
        ("infometer.text", "channel_mi_of_summaries", "channel_mutual_info_of_summaries"),
        ("infometer.text", "channel_mi_from_scores", "channel_mutual_info_from_scores"),
        ("infometer.probes.clib", "nmi", "normalized_mutual_info"),
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
