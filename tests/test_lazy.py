"""One lazy mechanism (issue 37 §2): every lazy package gets its ``__getattr__`` / ``__dir__``
from :func:`infometer.core._lazy.attach`, and a type checker sees the same names through
the package's ``if TYPE_CHECKING:`` imports (``reveal_type(im.mutual_info(x, y))`` is
``Estimate``, not ``Any``)."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import json
import subprocess
import sys
import textwrap
import types
from pathlib import Path

import pytest

import infometer as im
from infometer.core._extras import MissingExtraError
from infometer.core._lazy import attach, lazy_module

SRC = Path(im.__file__).parent


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _sources() -> dict[str, ast.Module]:
    return {
        _module_name(p): ast.parse(p.read_text(encoding="utf-8"))
        for p in sorted(SRC.rglob("*.py"))
        if "__pycache__" not in p.parts
    }


SOURCES = _sources()
LAZY_PACKAGES = sorted(
    name
    for name, tree in SOURCES.items()
    if any(
        isinstance(n, ast.Call) and getattr(n.func, "id", None) == "attach" for n in ast.walk(tree)
    )
)

#: (package, name) -> why its TYPE_CHECKING import differs from its lazy entry.
TYPED_OTHERWISE = {
    ("infometer", "complexity"): "the package is callable (im.complexity(x, ...)); a type "
    "checker cannot call a module, so it sees the function the package forwards to",
}


def _type_checking_imports(package: str) -> dict[str, tuple[str, str | None]]:
    """Name -> (module, attribute; None for a module) of the ``if TYPE_CHECKING:`` imports."""
    out: dict[str, tuple[str, str | None]] = {}
    for node in SOURCES[package].body:
        if not (isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING"):
            continue
        for imp in node.body:
            assert isinstance(imp, ast.ImportFrom), ast.unparse(imp)
            base = importlib.util.resolve_name("." * imp.level + (imp.module or ""), package)
            for a in imp.names:
                out[a.asname or a.name] = (base, a.name)
    return out


def _same(lazy: tuple[str, str | None] | None, typed: tuple[str, str | None] | None) -> bool:
    """``from B import n`` (typed) is the lazy entry (B, n), or the submodule (B.n, None)."""
    if lazy is None or typed is None:
        return False
    return lazy == typed or lazy == (f"{typed[0]}.{typed[1]}", None)


def test_the_walk_finds_the_lazy_packages():
    assert {
        "infometer",
        "infometer.measures.dynamics",
        "infometer.systems.probes",
        "infometer.systems.models",
        "infometer.estimators.neural",
    } <= set(LAZY_PACKAGES)


def test_one_mechanism_no_hand_written_module_getattr():
    """A module-level ``__getattr__`` is written once, in core/_lazy.py."""
    own = [
        name
        for name, tree in SOURCES.items()
        if name != "infometer.core._lazy"
        and any(isinstance(n, ast.FunctionDef) and n.name == "__getattr__" for n in tree.body)
    ]
    assert not own, f"hand-written module __getattr__ (use core._lazy.attach): {own}"


@pytest.mark.parametrize("package", LAZY_PACKAGES)
def test_type_checking_imports_name_the_lazy_table(package):
    mod = importlib.import_module(package)
    table = vars(mod)["__getattr__"].lazy_table
    lazy = {
        name: (importlib.util.resolve_name(module, package), attr)
        for name, (module, attr) in table.items()
    }
    typed = _type_checking_imports(package)
    differ = {
        n
        for n in set(lazy) | set(typed)
        if not _same(lazy.get(n), typed.get(n)) and (package, n) not in TYPED_OTHERWISE
    }
    assert not differ, {n: (lazy.get(n), typed.get(n)) for n in sorted(differ)}
    exported = set(getattr(mod, "__all__", ()))
    assert not (set(lazy) - exported), "a lazy name not in __all__"


def test_attach_imports_once_caches_and_names_the_extra(monkeypatch):
    pkg = types.ModuleType("infometer_demo_pkg")
    monkeypatch.setitem(sys.modules, "infometer_demo_pkg", pkg)
    pkg.__all__ = ["sqrt", "needs_torch"]
    fake = types.ModuleType("infometer_demo_torchy")

    def _missing(name: str):
        raise ModuleNotFoundError("No module named 'torch'", name="torch")

    fake.__getattr__ = _missing
    monkeypatch.setitem(sys.modules, "infometer_demo_torchy", fake)
    pkg.__getattr__, pkg.__dir__ = attach(
        "infometer_demo_pkg",
        {"sqrt": "math", "needs_torch": "infometer_demo_torchy"},
        modules={"json": "json"},
    )
    assert "sqrt" not in vars(pkg)
    assert pkg.sqrt(4.0) == 2.0 and vars(pkg)["sqrt"] is importlib.import_module("math").sqrt
    assert pkg.json is importlib.import_module("json")
    assert dir(pkg) == ["needs_torch", "sqrt"]
    with pytest.raises(
        MissingExtraError,
        match=r"infometer_demo_pkg.needs_torch needs torch.*"
        r"pip install 'infometer\[torch\]'",
    ):
        _ = pkg.needs_torch
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        _ = pkg.nope


def test_lazy_module_waits_for_its_first_attribute():
    code = (
        "import sys\n"
        "from infometer.core._lazy import lazy_module\n"
        "m = lazy_module('._kernels', 'infometer.measures.complexity')\n"
        "assert 'numba' not in sys.modules\n"
        "m.entropy_of_counts\n"
        "assert 'numba' in sys.modules\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    m = lazy_module("json")
    assert m.dumps([1]) == "[1]"
    assert vars(m)["dumps"] is json.dumps  # kept: later reads skip the failed lookup


def test_complexity_package_stays_callable():
    assert callable(im.complexity) and im.complexity.multiscale is im.multiscale


# ------------------------------------------------------------------- the type checker's view
#: Calls and the type mypy must reveal for each (through ``import infometer as im``).
REVEALS = {
    "im.mutual_info(x, y)": "infometer.core.estimate.Estimate",
    "im.mutual_info(x, y, local=True)": "infometer.core._local.LocalValues",
    "im.mutual_info(x, y, local=flag)": "infometer.core.estimate.Estimate | "
    "infometer.core._local.LocalValues",
    "im.cond_mutual_info(x, y, x, method='ksg1', unit='bits')": "infometer.core.estimate.Estimate",
    "im.cond_mutual_info(x, y, x, local=True)": "infometer.core._local.LocalValues",
    "im.entropy(x)": "infometer.core.estimate.Estimate",
    "im.estimate('mutual_info', {'x': x, 'y': y})": "infometer.core.estimate.Estimate",
    "im.transfer_entropy(x, y, local=True)": "infometer.core._local.LocalValues",
    "im.active_info_storage(x, k=2)": "infometer.core.estimate.Estimate",
    "im.entropy_rate(x, local=True)": "infometer.core._local.LocalValues",
    "im.exact.entropy([0.5, 0.5])": "infometer.core.estimate.Estimate",
    "im.total_correlation(x)": "infometer.core.estimate.Estimate",
    "im.complexity(x)": "infometer.core.estimate.Estimate",
    "im.pairwise(x)": "infometer.workflows.allpairs._result.PairwiseResult",
    "im.mutual_info(x, y).to('bits')": "infometer.core.estimate.Estimate",
}

#: Third-party packages mypy does not read (their types do not matter here, and reading
#: numpy's, pandas' and torch's stubs would take most of the time).
_SKIP = (
    "numpy pandas scipy torch matplotlib sklearn numba transformers typer rich dask "
    "distributed pyarrow polars networkx lxml rapidfuzz bs4 tqdm threadpoolctl safetensors "
    "sentence_transformers pyfastx click"
).split()


#: Public names whose return type comes from a package the check skips (so mypy says Any).
RETURNS_SKIPPED = {"layer_info": "a pandas DataFrame"}


def test_a_type_checker_sees_the_public_types(tmp_path):
    pytest.importorskip("mypy")
    names = [n for n in im.__all__ if n != "__version__"]
    body = "\n".join(f"reveal_type({call})" for call in [*REVEALS, *(f"im.{n}" for n in names)])
    (tmp_path / "snippet.py").write_text(
        "import numpy as np\nimport infometer as im\n\n"
        "x = np.zeros(10)\ny = np.zeros(10)\nflag: bool = bool(x.size)\n" + body + "\n",
        encoding="utf-8",
    )
    (tmp_path / "mypy.ini").write_text(
        textwrap.dedent(
            f"""\
            [mypy]
            follow_imports = silent
            ignore_missing_imports = True
            cache_dir = {tmp_path / "cache"}
            [mypy-{",".join(f"{m}.*" for m in _SKIP)}]
            follow_imports = skip
            """
        ),
        encoding="utf-8",
    )
    out = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", "mypy.ini", "snippet.py"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
    )
    revealed = [
        line.split('Revealed type is "', 1)[1].rstrip('"')
        for line in out.stdout.splitlines()
        if "Revealed type is" in line
    ]
    assert out.returncode == 0 and len(revealed) == len(REVEALS) + len(names), out.stdout
    pairs = zip(REVEALS.items(), revealed[: len(REVEALS)], strict=True)
    wrong = {call: got for (call, want), got in pairs if got != want}
    assert not wrong, wrong
    untyped = [
        n
        for n, got in zip(names, revealed[len(REVEALS) :], strict=True)
        if (got == "Any" or got.endswith(("-> Any", "-> Any)"))) and n not in RETURNS_SKIPPED
    ]
    assert not untyped, f"public names a type checker sees as Any (or returning Any): {untyped}"
