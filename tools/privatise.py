"""Codemod of issue 37 §2: make the internals private (``_``-prefixed modules).

Run it from the root of a checkout that has the layer folders (``tools/relayout.py`` done);
a second run changes nothing, so a branch can run it again after merging main to move its
own new imports of an old path::

    .venv/bin/python tools/privatise.py          # rewrite, move, sort imports, format
    .venv/bin/python tools/privatise.py --check  # list files that still name an old path

It renames each module of :data:`RENAMED` inside its package (``git mv``) and rewrites
every import and dotted path that names it, in ``src/ tests/ docs/ benchmarks/ examples/
.ci/``, ``README.md``, ``pyproject.toml`` and ``Makefile``, with the machinery of
``tools/relayout.py``: ``from infometer.x.kernels import f`` -> ``from infometer.x._kernels
import f``; ``from .kernels import f`` -> ``from ._kernels import f``; ``from . import
kernels`` -> ``from . import _kernels as kernels`` (the local name is kept);
``"infometer.x.kernels.f"`` in strings (``mock.patch`` targets, the registry's
``FAMILIES``, ``SUBCOMMANDS``) too.  Paths written with slashes
(``src/infometer/x/kernels.py``) are rewritten as well.

Merge recipe for a branch made before this codemod landed (tested on a copy of h-floor:
3 conflicts, all import lines of files both sides edited)::

    git merge main                     # git follows the renames into the files you edited;
                                       # conflicts are your edits beside issue 37's (mostly
                                       # import lines): keep both sides' imports
    .venv/bin/python tools/privatise.py          # your new files' and lines' old paths
    .venv/bin/ruff check --fix src tests benchmarks && .venv/bin/ruff format src tests benchmarks
    git add -A && git commit
    .venv/bin/python -m pytest -q tests/test_function_imports.py tests/test_public_surface.py \
        tests/test_import_graph.py tests/test_lazy.py

The last line names what is left: an import inside a function without a lightness or cycle
reason (move it to the top), a new public module or name (make it private, or add it to
the budget of docs/api.md).  A new module of the branch in a package of :data:`PRIVATE`
stays public until its name is added to the table here and the script runs again.  (Running
the codemod on the branch first, as the relayout recipe does, gives more conflicts here:
issue 37 also moved imports and re-exports on the same lines.)

Which modules stay public, and the budget, is docs/api.md's (``tests/test_public_surface.py``
holds the tree to it).
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import relayout as _rl  # noqa: E402  (the import and text rewriting of the relayout)

#: Package (dotted, under ``infometer``) -> its modules that become private, old names.
PRIVATE: dict[str, tuple[str, ...]] = {
    "core": ("io", "io_seq", "jit", "saturation"),
    "estimators.binned": ("histogram",),
    "estimators.diffusion": ("infosedd", "model", "tokens"),
    "estimators.discrete": ("counting", "estimators", "kernels"),
    "estimators.knn": ("engine", "estimators", "kernels", "prep"),
    "estimators.matrix": ("estimators", "kernels"),
    "estimators.neural": ("bounds", "critics", "estimator", "flownib", "layers"),
    "estimators.parametric": ("gaussian",),
    "measures.channels": ("bottleneck", "capacity", "rate_distortion", "samples"),
    "measures.complexity": ("api", "estimators", "measures"),
    "measures.dynamics": ("local", "network", "ordinal", "storage"),
    "measures.generalized": ("closed_forms", "estimators", "exact", "kernels"),
    "measures.multivariate": (
        "decomposition",
        "estimators",
        "exact",
        "kernels",
        "measures",
        "multiplets",
        "pairs",
        "significance",
    ),
    "measures.stats": ("independence",),
    "measures.timeseries": ("transfer",),
    "measures.truth": (
        "base",
        "beyond_normal",
        "consistency",
        "continuous",
        "discrete",
        "dynamics",
        "multivariate",
        "network",
        "quantised",
        "signals",
    ),
    "systems.decision": (
        "grid",
        "learned",
        "multiturn",
        "pairwise",
        "persuasion",
        "pomdp",
        "solve",
        "voi",
    ),
    "systems.extract": ("dedup", "documents", "metrics", "sandbox", "server", "sites", "sso"),
    "systems.models": ("cmi", "core", "djip", "fisher", "iecl", "koopman", "synthetic"),
    "systems.models.activations": ("information", "modules", "nets", "swap", "tasks", "theory"),
    "systems.text": (
        "channel",
        "comi",
        "compressors",
        "embed",
        "files",
        "measure",
        "needle",
        "records",
        "scorers",
    ),
    "workflows.allpairs": (
        "compute",
        "kernels",
        "matrix",
        "network",
        "result",
        "select",
        "store",
        "table",
    ),
    "workflows.bench": ("figures", "peers", "report", "runner", "store", "suites"),
    "cli": (
        "bench",
        "complexity",
        "demo",
        "extract",
        "layers",
        "multi",
        "network",
        "pairwise",
        "seq",
        "text",
    ),
}

def _renamed() -> dict[str, str]:
    out = {}
    for pkg, names in PRIVATE.items():
        for name in names:
            out[f"{pkg}.{name}"] = f"{pkg}._{name}"
    return out


RENAMED = _renamed()
PKG = "infometer"

#: Renamed modules whose package exports a function of the same name: ``from P import n``
#: and a bare ``infometer.P.n`` mean the function and are left alone (``infometer.P.n.x``
#: still names the module and is rewritten).
FUNCTION_OF_PACKAGE = {
    "infometer.estimators.neural.flownib",
    "infometer.measures.channels.rate_distortion",
    "infometer.measures.multivariate.multiplets",
}

_new_name = _rl.new_name


def new_name(dotted: str) -> str:
    return dotted if dotted in FUNCTION_OF_PACKAGE else _new_name(dotted)


#: Private modules renamed first to make room for a module of :data:`PRIVATE` (the branch
#: that made the codemod renamed them in a commit of their own): renamed, with every import,
#: only while the public module that takes the name is still there.
MAKE_ROOM = {"measures.multivariate._exact": "measures.multivariate._pmf"}


def _path(base: Path, dotted: str) -> Path:
    return base.joinpath(*dotted.split(".")).with_suffix(".py")


def _room(base: Path) -> dict[str, str]:
    """The entries of :data:`MAKE_ROOM` this tree still needs."""
    out = {}
    for old, new in MAKE_ROOM.items():
        pkg, name = old.rsplit(".", 1)
        taker = f"{pkg}.{name.lstrip('_')}"
        if _path(base, old).exists() and _path(base, taker).exists():
            if _path(base, new).exists():
                sys.exit(f"privatise: {old} must become {new}, which exists; merge by hand")
            out[old] = new
    return out


def _configure_relayout(room: dict[str, str] | None = None) -> None:
    """Point relayout's rewriting at this table (no layer moves).  One pass serves both
    tables: each dotted path is mapped once (``_exact`` -> ``_pmf``, ``exact`` -> ``_exact``)."""
    _rl.PREFIXES = {**(room or {}), **RENAMED}
    _rl.RENAMED = {}
    _rl.SELF = "tools/privatise.py"
    _rl.new_name = new_name


_SLASHED = re.compile(r"(?<![\w.-])((?:src/)?infometer/)((?:[A-Za-z_]\w*/)*[A-Za-z_]\w*\.py)\b")


def _slashed(m: re.Match) -> str:
    stem = m.group(2)[: -len(".py")]
    new = _new_name(f"{PKG}.{stem.replace('/', '.')}")
    return m.group(1) + new[len(PKG) + 1 :].replace(".", "/") + ".py"


#: ``import_module("infometer.x.y")`` (and ``importlib.import_module``): always a module,
#: also where :data:`FUNCTION_OF_PACKAGE` would read the dotted path as a function.
_IMPORT_MODULE = re.compile(r"""(import_module\(\s*)(["'])(infometer(?:\.\w+)+)\2""")


def _import_module(m: re.Match) -> str:
    return m.group(1) + m.group(2) + _new_name(m.group(3)) + m.group(2)


def rewrite(text: str, rel: str) -> str:
    text = _IMPORT_MODULE.sub(_import_module, text)
    new = _rl.rewrite_imports(text, rel) if rel.endswith(".py") else text
    new = _rl._FROM_LINE.sub(_rl._from_line, new)
    new = _rl._DOTTED.sub(_rl._dotted, new)
    return _SLASHED.sub(_slashed, new)


def _moves(base: Path, room: dict[str, str]) -> list[tuple[Path, Path]]:
    """The renames in order: making room first."""
    pairs = [*room.items(), *RENAMED.items()]
    return [(_path(base, old), _path(base, new)) for old, new in pairs]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="only list files naming old paths")
    ap.add_argument("--no-ruff", action="store_true", help="skip sorting and formatting")
    args = ap.parse_args(argv)
    root = Path.cwd()
    base = root / "src" / PKG
    if not (base / "core").is_dir():
        sys.exit("privatise: run me from the root of a re-laid-out checkout (tools/relayout.py)")
    room = _room(base)
    _configure_relayout(room)
    freed = {_path(base, old) for old in room}
    clash = [d for s, d in _moves(base, {}) if s.exists() and d.exists() and d not in freed]
    if clash:  # checked before anything is written
        sys.exit(f"privatise: both {clash[0]} and its public name exist; merge them by hand")
    changed: list[Path] = []
    for p in _rl.text_files(root):
        rel = p.relative_to(root).as_posix()
        if rel in ("tools/relayout.py", "tools/privatise.py"):
            continue
        try:
            text = p.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        new = rewrite(text, rel)
        if new != text:
            changed.append(p)
            if not args.check:
                p.write_text(new, encoding="utf-8")
    if args.check:
        print("\n".join(str(c.relative_to(root)) for c in changed))
        return 1 if changed else 0
    for src, dst in _moves(base, room):
        if src.exists():
            changed = [dst if c == src else c for c in changed]
            _rl.move(src, dst)
    py = [str(c) for c in changed if c.suffix == ".py" and c.exists()]
    ruff = Path(sys.executable).with_name("ruff")
    ruff_cmd = str(ruff) if ruff.exists() else shutil.which("ruff")
    if py and ruff_cmd and not args.no_ruff:
        subprocess.run([ruff_cmd, "check", "--select", "I", "--fix", "-q", "--exit-zero", *py])
        subprocess.run([ruff_cmd, "format", "-q", *py])
    print(f"privatise: {len(changed)} files rewritten, {len(RENAMED)} modules private")
    return 0


if __name__ == "__main__":
    sys.exit(main())
