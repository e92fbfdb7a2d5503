"""Imports of infometer modules sit at the top of the module (issue 37 §2).

A function-level import of an ``infometer`` module (absolute or relative) fails here unless
tests/_import_rules.py finds a reason for it, computed from the source (the imported
module loads, at its top, a heavy library or an optional extra that the importing module
does not: lightness; or it imports the importing module: a cycle), or the file is on the
short :data:`ALLOWED` list with its reason.
"""

from __future__ import annotations

import pytest

from tests import _import_rules as rules

#: Module (or package prefix) -> why its function-level imports stay where they are.
ALLOWED = {
    "infometer.cli": "per-command laziness: `infometer --help` imports every command module "
    "(tests/test_import_light.py), and a command loads only the library code it runs",
    "infometer": "`import infometer` loads nothing (the lazy root): im.methods() imports the "
    "registry when called",
}


def _allowed(module: str) -> bool:
    prefixes = [p for p in ALLOWED if p != "infometer"]  # the root: its own module only
    return module in ALLOWED or any(module.startswith(p + ".") for p in prefixes)


IMPORTS = [f for m in rules.MODULES for f in rules.function_imports(m)]


def test_the_walk_sees_the_function_imports():
    lazy = [f for f in IMPORTS if not _allowed(f.module)]
    assert lazy, "no function-level import found outside the allow-list: is the walk blind?"
    # numba's kernels stay behind the knn engine's functions: registering a family is light
    assert any(f.module == "infometer.estimators.knn._engine" and f.reason for f in lazy)
    assert any(f.module.startswith("infometer.cli") for f in IMPORTS)


@pytest.mark.parametrize("module", sorted({f.module for f in IMPORTS if not _allowed(f.module)}))
def test_function_level_imports_have_a_reason(module):
    bare = [f"line {f.line}: {f.text}" for f in IMPORTS if f.module == module and f.reason is None]
    assert not bare, (
        f"{module} imports infometer modules inside functions with no lightness or cycle "
        f"reason; move them to the top of the module: {bare}"
    )


def test_the_reasons_are_computed_not_assumed():
    """The rule itself: a light module imported lazily has no reason; a module that brings
    numba or torch does; a module that imports the importer back does."""
    assert rules._reason("infometer.core.api", ["infometer.core.data"], frozenset()) is None
    why = rules._reason(
        "infometer.estimators.knn._estimators", ["infometer.estimators.knn._compiled"], frozenset()
    )
    assert why is not None and why.startswith("lightness") and "numba" in why
    assert rules._reason(
        "infometer.core.data", ["infometer.core.api"], rules.heavy("infometer.core.data")
    ).startswith("cycle")


def test_allow_list_is_short_and_used():
    assert len(ALLOWED) <= 5
    for prefix in ALLOWED:
        assert any(f.module == prefix or f.module.startswith(prefix + ".") for f in IMPORTS), prefix
