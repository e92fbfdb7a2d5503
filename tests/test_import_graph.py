"""Layers and loops (issues 29 §4, 37 §2): the package's imports, read with :mod:`ast`
(top-level and inside functions), go down the layers of the tree and form no cycle between
subpackages and none between modules.

A module's layer is the first folder under ``infometer/`` (docs/architecture.md): ``core``
< ``estimators`` < ``measures`` < ``systems`` | ``workflows`` < ``cli``.  Nodes of the
coarse graph are the subpackages (``infometer.workflows.allpairs``) and the ground-floor
modules (``infometer.core.api``, ``infometer.core.data``...); an import from one into
another is an edge.  The fine graph has one node per module; an import of a package's
``__init__`` by one of its own modules is ignored there (``from . import kernels`` reads a
sibling, and a package's ``__init__`` exists to gather its modules).  The lazy root package
(``infometer/__init__.py``, which imports through ``importlib`` on first use) is no node.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
PKG = SRC / "infometer"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {_module_name(p): p for p in PKG.rglob("*.py")}


def _is_package(name: str) -> bool:
    return MODULES[name].name == "__init__.py"


def _resolve(base: str, level: int, module: str | None) -> str:
    parts = base.split(".")
    if level:
        parts = parts[: len(parts) - level + 1]
    return ".".join(parts + ([module] if module else []))


def _imports(name: str) -> set[str]:
    """The infometer modules ``name`` imports, anywhere in its file."""
    tree = ast.parse(MODULES[name].read_text(encoding="utf-8"))
    pkg = name if _is_package(name) else name.rsplit(".", 1)[0]
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            mod = _resolve(pkg, node.level, node.module) if node.level else node.module or ""
            # ``from pkg import sub`` imports the submodule when there is one
            targets = [
                f"{mod}.{a.name}" if f"{mod}.{a.name}" in MODULES else mod for a in node.names
            ]
        else:
            continue
        for t in targets:
            while t and t not in MODULES:  # ``import infometer.core.data.x`` -> the module part
                t = t.rsplit(".", 1)[0] if "." in t else ""
            if t.startswith("infometer") and t != "infometer":
                out.add(t)
    return out


EDGES = {name: _imports(name) for name in MODULES if name != "infometer"}


#: docs/architecture.md's layers, bottom to top: the first folder under ``infometer/``.  A
#: module may import its own layer and the layers below it; ``systems`` and ``workflows``
#: share a floor but do not import each other; nothing imports ``cli``.
RANK = {
    "core": 0,
    "estimators": 1,
    "measures": 2,
    "systems": 3,
    "workflows": 3,
    "report": 4,
    "cli": 5,
    "__main__": 6,
}


def _layer(name: str) -> str:
    """``infometer.estimators.knn.engine`` -> ``estimators``."""
    return name.split(".")[1]


def _unit(name: str) -> str:
    """``infometer.estimators.knn.engine`` -> ``infometer.estimators.knn``; a ground-floor
    module (``infometer.core.data``) is its own unit; ``infometer.cli.app`` ->
    ``infometer.cli``."""
    parts = name.split(".")
    return ".".join(
        parts[:3] if parts[1] in RANK and parts[1] not in ("cli", "report") else parts[:2]
    )


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_the_parser_sees_the_known_edges():
    # a check that the graph is read at all: api.run calls the ground-floor resampling
    assert "infometer.core.resample" in EDGES["infometer.core.api"]
    assert "infometer.core.api" in EDGES["infometer.measures.stats.independence"]
    assert "infometer.estimators.knn.kernels" in EDGES["infometer.estimators.knn.estimators"]
    assert len(EDGES) > 100


def test_no_cycle_between_subpackages_or_ground_modules():
    coarse: dict[str, set[str]] = {}
    for a, targets in EDGES.items():
        for b in targets:
            if _unit(a) != _unit(b):
                coarse.setdefault(_unit(a), set()).add(_unit(b))
    assert _cycles(coarse) == []


def test_no_cycle_between_modules():
    fine = {
        a: {b for b in targets if not (_is_package(b) and a.startswith(b + "."))}
        for a, targets in EDGES.items()
    }
    assert _cycles(fine) == []


def test_a_loop_would_be_found():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_every_module_sits_in_a_layer_folder():
    loose = sorted(
        p.name
        for p in PKG.iterdir()
        if p.name not in ("__init__.py", "__main__.py", "py.typed", "__pycache__")
        and p.name not in RANK
    )
    assert loose == [], f"top-level entries outside the layer folders: {loose}"
    assert {_layer(m) for m in EDGES} <= set(RANK)


@pytest.mark.parametrize("layer", sorted(set(RANK) - {"__main__"}))
def test_no_import_reaches_up_a_layer(layer):
    up = sorted(
        (a, t)
        for a, targets in EDGES.items()
        if _layer(a) == layer
        for t in targets
        if RANK[_layer(t)] > RANK[layer] or (RANK[_layer(t)] == RANK[layer] and _layer(t) != layer)
    )
    assert up == [], f"imports above (or beside) the {layer} layer: {up}"


def test_nothing_imports_the_cli():
    assert {
        a
        for a, targets in EDGES.items()
        if _layer(a) not in ("cli", "__main__")
        for t in targets
        if _layer(t) == "cli"
    } == set()


def test_a_layer_breach_would_be_found():
    # the rule read on a made-up edge: an estimator family importing a measurement
    a, t = "infometer.estimators.knn.engine", "infometer.measures.stats.independence"
    assert RANK[_layer(t)] > RANK[_layer(a)]


def test_exact_gathers_its_parts_statically():
    # the loop of issue 37: exact.py reached up through importlib into the families that
    # imported its _wrap back; now it imports them, and they import the ground floor
    exact = EDGES["infometer.measures.exact"]
    assert {
        "infometer.measures.channels",
        "infometer.measures.generalized.exact",
        "infometer.measures.multivariate.exact",
    } <= exact
    assert "importlib" not in MODULES["infometer.measures.exact"].read_text(encoding="utf-8")
    for part in ("generalized.exact", "multivariate.exact"):
        assert "infometer.measures.exact" not in EDGES[f"infometer.measures.{part}"]


def test_discrete_counting_does_not_reach_into_knn():
    # the thread count is a ground-floor helper (infometer.core._threads), not knn's
    counting = EDGES["infometer.estimators.discrete.counting"]
    assert not any(t.startswith("infometer.estimators.knn") for t in counting)
    assert "infometer.core._threads" in counting
