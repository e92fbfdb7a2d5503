"""The public-surface policy of docs/api.md, checked on every exported signature (issue 29),
and the budget of public modules and names (issue 37).

The walk visits every module whose dotted path has no component starting with ``_``
(``pkgutil.walk_packages``; the typer commands of ``infometer.cli`` aside, and modules behind
a missing optional extra skipped); every callable listed in a module's ``__all__``
(function or class) is checked.  A departure from the policy is allowed only in
:data:`ALLOWED`, each with its reason.  The public modules and the size of each one's
``__all__`` are the budget table of docs/api.md: a new public module or name fails here
until the table says so.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
import warnings
from pathlib import Path

import pytest

import infometer as im
from infometer.core.seeding import SEED_DOC, Seed

#: Modules skipped by the walk: the typer commands of the CLI take typer ``OptionInfo``
#: objects as defaults, so their signatures are the command line's, not the policy's.
SKIP_PREFIXES = ("infometer.cli",)


def _public_modules(cli: bool = False) -> list[str]:
    """Every module whose dotted path has no component starting with ``_`` (the CLI's only
    with ``cli=True``)."""
    names = ["infometer"]
    for info in pkgutil.walk_packages(im.__path__, "infometer.", onerror=lambda _name: None):
        parts = info.name.split(".")
        if any(part.startswith("_") for part in parts):
            continue
        if info.name.startswith(SKIP_PREFIXES) and not cli:
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
        "infometer.systems.extract.litecost.run_cost",
        "seed",
    ): "rng=None decides greedily (how users call "
    "it); a Generator samples the GRPO rollouts from train_extractor's stream (which takes "
    "seed=)",
    ("infometer.core.parallel.connect", "execution"): "connects to the Dask scheduler it is "
    "given: the scheduler is its subject, not an option of where it runs",
    ("infometer.core.training.run_epochs", "execution"): "scheduler= is a torch learning-rate "
    "scheduler, not where work runs",
    ("infometer.core.training.set_threads", "execution"): "sets torch's thread count: the "
    "count is its subject",
    ("infometer.core.seeding.derive", "seed"): "takes the call's resolved int root "
    "(resolve_seed's), never a user's seed: a keyed stream from None would be the two meanings "
    "of seed=None again",
    ("infometer.core.seeding.derive_seed", "seed"): "as derive",
    (
        "infometer.workflows.bench.Job",
        "seed",
    ): "a record of one benchmark job's int seed (a key of the results store)",
    ("infometer.measures.stats.circular_shift", "seed"): "a kernel that draws from the caller's "
    "numpy Generator (the public tests take seed=)",
    ("infometer.measures.stats.nulls.permutation", "seed"): "as circular_shift",
    ("infometer.measures.stats.nulls.strata_permutation", "seed"): "as circular_shift",
    ("infometer.measures.stats.nulls.permutation_table", "seed"): "as circular_shift",
    ("infometer.measures.stats.nulls.independent_orders", "seed"): "as circular_shift",
}

#: Where work runs (issue 37 §2): the one object and its one shorthand; ``store`` (what a
#: resumable run keeps) and ``progress`` have policies of their own.  ``Execution`` itself
#: holds every field.
WHERE_WORK_RUNS = {"execution", "n_jobs"}
#: Other spellings of the same concept, refused in every public signature.
OTHER_EXECUTION = {
    "workers",
    "n_workers",
    "threads",
    "n_threads",
    "scheduler",
    "client",
    "backend",
    "pool",
    "processes",
    "jobs_per_worker",
    "retries",
    "connect_timeout",
}
EXECUTION_HOME = "infometer.Execution"

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
    ``infometer.measures.stats._independence.block_permutation``)."""
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
        if p.name in OTHER_EXECUTION and qual != EXECUTION_HOME and p.kind != p.POSITIONAL_ONLY:
            bad.append(
                (
                    "execution",
                    f"where work runs is spelled {p.name!r}: use execution=Execution(...) "
                    f"or n_jobs=",
                )
            )
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
        "infometer.measures.truth.closed_forms",
        "infometer.systems.extract.bridge",
        "infometer.systems.text",
    } <= set(mods)
    assert "infometer.systems.text._channel" not in mods
    assert not [m for m in mods if any(p.startswith("_") for p in m.split("."))]
    assert not [m for m in mods if m.startswith("infometer.cli")]


@pytest.mark.parametrize("qual", sorted(PUBLIC))
def test_signature_follows_the_policy(qual):
    bad = [why for rule, why in _violations(qual, PUBLIC[qual]) if (qual, rule) not in ALLOWED]
    assert not bad, f"{qual}: " + "; ".join(bad)


def test_allow_list_has_no_stale_entries():
    live = {(q, rule) for q, obj in PUBLIC.items() for rule, _ in _violations(q, obj)}
    stale = [k for k in ALLOWED if k not in live]
    assert not stale, f"allowed departures that no longer occur (or are not public): {stale}"


# ----------------------------------------------------------------- the budget (issue 37)
DOCS_API = Path(__file__).resolve().parents[1] / "docs" / "api.md"


def _budget() -> tuple[dict[str, int], tuple[int, int]]:
    """The table of docs/api.md (module -> names) and its stated totals."""
    text = DOCS_API.read_text(encoding="utf-8")
    table = text.split("<!-- budget: read by tests/test_public_surface.py -->", 1)[1]
    rows = dict(
        (m, int(n)) for m, n in re.findall(r"^\| `(infometer[\w.]*)` \| (\d+) \|$", table, re.M)
    )
    stated = re.search(r"\*\*Budget: (\d+) public modules, ([\d,]+) public names\*\*", text)
    assert stated, "docs/api.md states no budget line"
    return rows, (int(stated.group(1)), int(stated.group(2).replace(",", "")))


def _surface() -> dict[str, int]:
    """Public module -> the size of its ``__all__`` (the CLI's modules included)."""
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in _public_modules(cli=True):
            out[name] = len(importlib.import_module(name).__all__)
    return out


def test_every_public_module_has_an_all():
    missing = []
    for name in _public_modules(cli=True):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if not hasattr(importlib.import_module(name), "__all__"):
                missing.append(name)
    assert not missing, f"public modules without __all__: {missing}"


def test_the_public_modules_are_the_budgeted_list():
    rows, _ = _budget()
    have = set(_surface())
    new, gone = sorted(have - set(rows)), sorted(set(rows) - have)
    assert not new, (
        f"new public modules {new}: make them private (a _ prefix, re-exported from their "
        "package) or add them to the budget table of docs/api.md"
    )
    assert not gone, f"modules in the budget table of docs/api.md that are not public: {gone}"


def test_public_names_stay_in_the_budget():
    rows, (n_modules, n_names) = _budget()
    have = _surface()
    moved = {m: (rows[m], n) for m, n in have.items() if m in rows and rows[m] != n}
    assert not moved, (
        "public names changed (module: (budget, now)); update the table of docs/api.md, or "
        f"keep the new names private: {moved}"
    )
    assert (n_modules, n_names) == (len(rows), sum(rows.values())), (
        f"the budget line says {n_modules} modules and {n_names} names, the table "
        f"{len(rows)} and {sum(rows.values())}"
    )


def test_where_work_runs_has_one_spelling():
    """Every public signature spells where work runs as execution= or n_jobs= (the table
    WHERE_WORK_RUNS / OTHER_EXECUTION); the functions that fan work out take both."""
    fans_out = [
        "infometer.pairwise",
        "infometer.infer_network",
        "infometer.multiplets",
        "infometer.core.parallel.run_jobs",
        "infometer.workflows.bench.run_sweep",
    ]
    for qual in fans_out:
        params = set(inspect.signature(PUBLIC[qual]).parameters)
        assert WHERE_WORK_RUNS <= params, (qual, WHERE_WORK_RUNS - params)
        assert not params & OTHER_EXECUTION, (qual, params & OTHER_EXECUTION)
    fields = set(inspect.signature(PUBLIC[EXECUTION_HOME]).parameters)
    assert {"n_jobs", "backend", "scheduler", "store", "progress", "retries"} <= fields


def test_dir_shows_public_names_only():
    names = dir(im)
    assert names == sorted(im.__all__)
    for leak in ("annotations", "importlib", "sys", "types", "_Package"):
        assert leak not in names


#: The abbreviated names renamed before the first release (issue 29) and dropped without an
#: alias (issue 37: nothing was released, so nothing keeps an old spelling).
DROPPED = [
    ("infometer", "classifier_cmi"),
    ("infometer.systems.models", "classifier_cmi_per_class"),
    ("infometer.systems.text", "channel_mi"),
    ("infometer.systems.text", "channel_mi_of_summaries"),
    ("infometer.systems.text", "channel_mi_from_scores"),
    ("infometer.systems.probes.clib", "nmi"),
    ("infometer.measures.truth.closed_forms", "gaussian_mi"),
    ("infometer.measures.truth.closed_forms", "gaussian_cmi"),
    ("infometer.measures.truth._continuous", "gaussian_cmi_task"),
    ("infometer.measures.truth._discrete", "table_mi_task"),
    ("infometer.measures.dynamics.simulate", "gaussian_cmi"),
    ("infometer.systems.extract.bridge", "extraction_mi"),
]


@pytest.mark.parametrize(("module", "old"), DROPPED)
def test_renamed_functions_have_no_alias(module, old):
    with pytest.raises(AttributeError):
        getattr(importlib.import_module(module), old)


def test_no_deprecation_machinery_is_left():
    """No alias helper, no deprecated call form: every public object is what its name says
    (a walk over the source, so a new ``DeprecationWarning`` shim fails here)."""
    src = Path(im.__file__).parent
    hits = [
        f"{p.relative_to(src)}:{n}"
        for p in sorted(src.rglob("*.py"))
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if "DeprecationWarning" in line or "deprecated_alias" in line
    ]
    assert not hits, hits
