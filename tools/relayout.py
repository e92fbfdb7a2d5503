"""Codemod of issue 37 §2: make infometer's layers the folders under ``src/infometer``.

Run it from the root of a checkout (any branch that still has the flat layout, or one
that has been re-laid out already: a second run changes nothing)::

    .venv/bin/python tools/relayout.py            # rewrite, move, sort imports, format
    .venv/bin/python tools/relayout.py --check    # only list the entries it cannot place

What it does, in this order:

1. **Refuses** (exit 2, listing them) when ``src/infometer`` has a top-level entry that
   :data:`TOP` does not place.  Add a line to :data:`TOP` (in your copy) and rerun.
2. **Imports** in every ``.py`` under ``src/``: a relative import whose target lies in
   another unit (a unit is one package such as ``estimators/knn`` or one ground-floor
   module such as ``core/data.py``) becomes absolute (``from ..x import y`` ->
   ``from infometer.core.x import y``); a sibling import inside a package stays relative
   (renamed modules renamed).  In every ``.py`` of ``src/ tests/ benchmarks/ examples/
   docs/``, ``from infometer[.pkg] import module`` is pointed at the module's new parent
   (``from infometer import registry`` -> ``from infometer.core import registry``; a
   renamed module keeps its local name: ``import _compiled as compiled``).
3. **Text**: every dotted path ``infometer.<old>...`` (imports, strings, ``mock.patch``
   targets, the registry's ``FAMILIES``, docs' ``:mod:`` roles) and every file path
   ``[src/]infometer/<old>/...`` or ``<oldpkg>/<file>.py`` is rewritten in ``src/ tests/
   docs/ benchmarks/ examples/ README.md pyproject.toml Makefile .ci/``; the root
   package's relative lazy strings (``".knn"``) too, and file names of renamed modules
   quoted inside their own package (``"compiled.py"``).
4. **Moves** each top-level entry with ``git mv`` to its layer folder (a package moves
   whole, so files that only your branch has go with it), then renames the private
   internals of :data:`RENAMED`; creates each layer's ``__init__.py``.
5. Sorts the imports (``ruff check --select I --fix``) and formats (``ruff format``) the
   Python files it changed.

Merge recipe for a branch made from the flat main (with its own commits and new files).
``R`` is the commit on main that holds this script's result; ``R^`` the one that added the
script, on the last flat main::

    R=$(git log main --format=%H --grep='^relayout: the layers are the folders' -1)
    git merge $R^                       # the flat main + this script (ordinary merge)
    .venv/bin/python tools/relayout.py  # the same moves and rewrites on this branch
    git add -A && git commit -qm "relayout: the codemod on this branch before merging main"
    git merge $R                        # identical rewrites on both sides: clean, except
                                        # lines this branch edited next to rewritten ones
    git merge main                      # the fixes made after the relayout, and the rest

Merging ``$R`` before ``main`` makes ``R`` the merge base of the last step, so the hand
fixes made on main after the codemod (wrapped lines, tests) apply without conflict.  If
the script refuses an entry your branch added, place it: add a line to :data:`TOP` in a
copy of the script, run the copy, and say so when the branch is merged.

The script is deterministic per file: the lines it rewrites come out the same on every
branch, so they merge without conflict; only lines that a branch edited itself can clash.
"""

from __future__ import annotations

import argparse
import ast
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

#: Old top-level entry of ``src/infometer`` (module stem or package) -> its new dotted path
#: under ``infometer``.  Identity entries stay where they are.
TOP: dict[str, str] = {
    # the ground floor: shared services; imports nothing above it
    "_estimate": "core.estimate",
    "_local": "core._local",
    "data": "core.data",
    "validation": "core.validation",
    "registry": "core.registry",
    "api": "core.api",
    "uncertainty": "core.uncertainty",
    "resample": "core.resample",
    "progress": "core.progress",
    "plot": "core.plot",
    "training": "core.training",
    "_threads": "core._threads",
    "_cachedir": "core._cachedir",
    "jit": "core.jit",
    "_extras": "core._extras",
    "_warnings": "core._warnings",
    "_torch": "core._torch",
    "_deprecation": "core._deprecation",
    "saturation": "core.saturation",
    "io": "core.io",
    "io_seq": "core.io_seq",
    "encoders": "core.encoders",
    "parallel": "core.parallel",
    # homes other branches are adding (issue 37 §1)
    "seeding": "core.seeding",
    "seeds": "core.seeds",
    "_seeds": "core._seeds",
    "results": "core.results",
    "_results": "core._results",
    "store": "core.store",
    "_store": "core._store",
    # the estimator families
    "discrete": "estimators.discrete",
    "knn": "estimators.knn",
    "parametric": "estimators.parametric",
    "binned": "estimators.binned",
    "matrix": "estimators.matrix",
    "neural": "estimators.neural",
    "diffusion": "estimators.diffusion",
    # the measurement families
    "timeseries": "measures.timeseries",
    "dynamics": "measures.dynamics",
    "multivariate": "measures.multivariate",
    "generalized": "measures.generalized",
    "complexity": "measures.complexity",
    "channels": "measures.channels",
    "stats": "measures.stats",
    "exact": "measures.exact",
    "truth": "measures.truth",
    # the paper systems
    "text": "systems.text",
    "models": "systems.models",
    "probes": "systems.probes",
    "decision": "systems.decision",
    "extract": "systems.extract",
    # methods built on the measurements ("workflows": a folder named "methods" would
    # replace the function ``im.methods`` by the subpackage once anything imported it)
    "allpairs": "workflows.allpairs",
    "bench": "workflows.bench",
    "sklearn": "workflows.sklearn",
    # on top
    "cli": "cli",
    "report": "report",
}

#: Modules renamed inside their package (old dotted path under ``infometer``): the
#: compiled kernels, which users never import.
RENAMED: dict[str, str] = {
    "knn.compiled": "knn._compiled",
    "knn.bitset": "knn._bitset",
    "knn.rankbits": "knn._rankbits",
    "knn.intrinsics": "knn._intrinsics",
    "knn.grid": "knn._grid",
    "discrete.compiled": "discrete._compiled",
}

#: The layer folders, bottom to top, with the docstring of their ``__init__.py``.
LAYERS: dict[str, str] = {
    "core": "The ground floor: shared services (estimate, data, validation, registry, the "
    "dispatcher, uncertainty, resampling, progress, plots, training, parallel); imports "
    "nothing above it.",
    "estimators": "The estimator families (discrete, knn, parametric, binned, matrix, neural, "
    "diffusion); they import the ground floor only.",
    "measures": "The measurement families (time series, dynamics, multivariate, generalised, "
    "complexity, channels, stats, exact, truth); they import the ground floor and the "
    "estimators.",
    "systems": "The paper systems (text, models, probes, decision, extract); they import "
    "anything below them.",
    "workflows": "Methods built on the measurements (all-pairs scans, benchmark suites, "
    "scikit-learn adapters); they import anything below them.",
}

#: Entries of ``src/infometer`` that stay and are no module to place.
KEEP = {"__init__.py", "__main__.py", "py.typed", "__pycache__", *LAYERS}

PKG = "infometer"
TEXT_ROOTS = ["src", "tests", "docs", "benchmarks", "examples", ".ci"]
TEXT_FILES = ["README.md", "pyproject.toml", "Makefile"]
TEXT_SUFFIXES = {".py", ".md", ".rst", ".txt", ".toml", ".cfg", ".ini", ".yml", ".yaml", ""}
SELF = "tools/relayout.py"


def _prefixes() -> dict[str, str]:
    """Old dotted path under ``infometer`` -> new, for every moved or renamed module."""
    out = {old: new for old, new in TOP.items() if old != new}
    for old, new in RENAMED.items():
        top, rest = old.split(".", 1)
        ntop, nrest = new.split(".", 1)
        assert top == ntop, (old, new)
        out[old] = f"{TOP[top]}.{nrest}"
    return out


PREFIXES = _prefixes()


def new_name(dotted: str) -> str:
    """``infometer.knn.compiled.x`` -> ``infometer.estimators.knn._compiled.x``."""
    if not dotted.startswith(PKG + "."):
        return dotted
    parts = dotted[len(PKG) + 1 :].split(".")
    for i in range(len(parts), 0, -1):
        key = ".".join(parts[:i])
        if key in PREFIXES:
            return ".".join([PKG, PREFIXES[key], *parts[i:]])
    return dotted


def unit(dotted: str) -> str:
    """The unit a new module path belongs to: ``infometer.estimators.knn`` for anything
    in knn, ``infometer.core.data`` for the module, ``infometer.cli`` on top."""
    parts = dotted.split(".")
    if len(parts) >= 2 and parts[1] in LAYERS:
        return ".".join(parts[:3])
    return ".".join(parts[:2])


# ---------------------------------------------------------------------------- text
_DOTTED = re.compile(r"(?<![\w.])infometer(?:\.[A-Za-z_]\w*)+")
_SLASHED = re.compile(r"(?<![\w.-])((?:src/)?infometer/)((?:[A-Za-z_]\w*/)*[A-Za-z_]\w*(?:\.py)?)")
_BARE = re.compile(r"(?<![\w/.-])((?:[A-Za-z_]\w*/)+[A-Za-z_]\w*\.py)\b")
_RELSTR = re.compile(r"""(["'])\.([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\1""")


def _dotted(m: re.Match) -> str:
    return new_name(m.group(0))


def _path_to_new(path: str) -> str | None:
    """``knn/rankbits.py`` -> ``estimators/knn/_rankbits.py``; None when not moved."""
    suffix = ".py" if path.endswith(".py") else ""
    stem = path[: len(path) - len(suffix)]
    if stem.startswith(tuple(LAYERS)) and stem.split("/")[0] in LAYERS:
        return None
    new = new_name(f"{PKG}.{stem.replace('/', '.')}")
    if new == f"{PKG}.{stem.replace('/', '.')}":
        return None
    return new[len(PKG) + 1 :].replace(".", "/") + suffix


def _slashed(m: re.Match) -> str:
    new = _path_to_new(m.group(2))
    return m.group(0) if new is None else m.group(1) + new


def _bare(m: re.Match) -> str:
    path = m.group(1)
    if path.split("/")[0] not in PREFIXES:
        return path
    new = _path_to_new(path)
    return path if new is None else new


_FROM_LINE = re.compile(
    r"^(?P<lead>[ \t]*(?:(?:>>>|\.\.\.) )?)from (?P<mod>infometer(?:\.\w+)*) import "
    r"(?P<names>\w+(?: as \w+)?(?:, \w+(?: as \w+)?)*)(?P<tail>[ \t]*(?:#.*)?)$",
    re.M,
)


def _from_line(m: re.Match) -> str:
    """``from infometer import truth`` written in docs and docstrings (one line)."""
    mod = m.group("mod")
    groups: dict[str, list[str]] = {}
    for item in m.group("names").split(", "):
        name, _, asname = item.partition(" as ")
        full = new_name(f"{mod}.{name}")
        if full != f"{new_name(mod)}.{name}":
            parent, leaf = full.rsplit(".", 1)
            local = asname or name
            groups.setdefault(parent, []).append(leaf if leaf == local else f"{leaf} as {local}")
        else:
            groups.setdefault(new_name(mod), []).append(item)
    if list(groups) == [new_name(mod)]:
        return m.group(0)
    lead, tail = m.group("lead"), m.group("tail")
    return "\n".join(f"{lead}from {t} import {', '.join(n)}{tail}" for t, n in groups.items())


def rewrite_text(text: str, rel: str) -> str:
    text = _FROM_LINE.sub(_from_line, text)
    text = _DOTTED.sub(_dotted, text)
    text = _SLASHED.sub(_slashed, text)
    if not rel.endswith(".py"):  # docs name files by their path inside the package
        text = _BARE.sub(_bare, text)
    if rel == f"src/{PKG}/__init__.py":  # the root's lazy table: ".knn" relative to infometer

        def relstr(m: re.Match) -> str:
            new = new_name(f"{PKG}.{m.group(2)}")
            return (
                m.group(0)
                if new == f"{PKG}.{m.group(2)}"
                else f"{m.group(1)}.{new[len(PKG) + 1 :]}{m.group(1)}"
            )

        text = _RELSTR.sub(relstr, text)
    for old, new in RENAMED.items():  # "compiled.py" quoted inside its own package
        pkg, leaf = old.rsplit(".", 1)
        for where in (pkg, PREFIXES[pkg]):
            if rel.startswith(f"src/{PKG}/{where.replace('.', '/')}/"):
                nleaf = new.rsplit(".", 1)[1]
                text = re.sub(rf"""(["']){leaf}\.py\1""", rf"\1{nleaf}.py\1", text)
    return text


# ---------------------------------------------------------------------------- imports
def module_of(rel: str) -> str | None:
    """The dotted module of a file under src/ (its path today), else None."""
    p = Path(rel)
    if p.parts[:2] != ("src", PKG) or p.suffix != ".py":
        return None
    parts = list(p.with_suffix("").parts[1:])
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _resolve(package: str, level: int, module: str | None) -> str:
    parts = package.split(".")
    if level > 1:
        parts = parts[: len(parts) - level + 1]
    return ".".join(parts + ([module] if module else []))


def _relative(package: str, target: str) -> str | None:
    """``from <rel> import`` text for ``target`` seen from ``package`` (None: not inside)."""
    parts = package.split(".")
    for level in range(1, len(parts) + 1):
        anchor = ".".join(parts[: len(parts) - level + 1])
        if target == anchor:
            return "." * level
        if target.startswith(anchor + "."):
            return "." * level + target[len(anchor) + 1 :]
    return None


def _alias(name: str, asname: str | None) -> str:
    return name if asname is None else f"{name} as {asname}"


def rewrite_imports(text: str, rel: str) -> str:
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return text
    mod = module_of(rel)
    is_pkg = rel.endswith("__init__.py")
    old_pkg = (mod if is_pkg else mod.rsplit(".", 1)[0]) if mod else None
    new_mod = new_name(mod) if mod else None
    new_pkg = (new_mod if is_pkg else new_mod.rsplit(".", 1)[0]) if new_mod else None
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    edits: list[tuple[int, int, str]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level:
            if old_pkg is None:
                continue
            target = _resolve(old_pkg, node.level, node.module)
        else:
            target = node.module or ""
            if target != PKG and not target.startswith(PKG + "."):
                continue
        new_target = new_name(target)
        # names that are modules moved elsewhere than under new_target
        groups: dict[str, list[str]] = {}
        renamed = False
        for a in node.names:
            full = new_name(f"{target}.{a.name}") if a.name != "*" else ""
            if full and full != f"{new_target}.{a.name}":
                parent, leaf = full.rsplit(".", 1)
                local = a.asname or a.name
                renamed = True
                groups.setdefault(parent, []).append(_alias(leaf, None if leaf == local else local))
            else:
                groups.setdefault(new_target, []).append(_alias(a.name, a.asname))

        def spell(t: str, level: int = node.level) -> str:
            if level and new_pkg is not None and unit(t) == unit(new_mod):
                r = _relative(new_pkg, t)
                if r is not None:
                    return r
            return t

        start = offsets[node.lineno - 1] + node.col_offset
        end = offsets[node.end_lineno - 1] + node.end_col_offset
        seg = text[start:end]
        if not renamed:
            m = re.match(r"from\s+([.\w]+)", seg)
            spelled = spell(new_target)
            if m and m.group(1) != spelled:
                edits.append((start + m.start(1), start + m.end(1), spelled))
            continue
        indent = text[offsets[node.lineno - 1] : start]
        sep = "\n" + indent if indent.strip() == "" else "; "
        stmts = [f"from {spell(t)} import {', '.join(names)}" for t, names in groups.items()]
        tail = text[end : offsets[node.end_lineno]].rstrip("\n")
        if sep != "; " and re.fullmatch(r"\s*#.*", tail):  # a noqa goes with every line
            stmts = [s + "  " + tail.strip() for s in stmts[:-1]] + stmts[-1:]
        edits.append((start, end, sep.join(stmts)))
    for s, e, new in sorted(edits, reverse=True):
        text = text[:s] + new + text[e:]
    return text


# ---------------------------------------------------------------------------- files
def git(*args: str, check: bool = True) -> str:
    out = subprocess.run(["git", *args], capture_output=True, text=True)
    if check and out.returncode:
        sys.exit(f"relayout: git {' '.join(args)} failed:\n{out.stderr}")
    return out.stdout


def text_files(root: Path) -> list[Path]:
    files = [root / f for f in TEXT_FILES if (root / f).is_file()]
    for d in TEXT_ROOTS:
        for p in sorted((root / d).rglob("*")) if (root / d).is_dir() else []:
            if "__pycache__" in p.parts or ".ipynb_checkpoints" in p.parts or not p.is_file():
                continue
            if p.suffix in TEXT_SUFFIXES:
                files.append(p)
    return [p for p in files if p.relative_to(root).as_posix() != SELF]


def unknown_entries(base: Path) -> list[str]:
    out = []
    for p in sorted(base.iterdir()):
        stem = p.name[:-3] if p.name.endswith(".py") else p.name
        if p.name in KEEP or p.name.endswith((".pyc", ".so", ".pyd")):
            continue
        if p.is_file() and not p.name.endswith(".py"):
            out.append(p.name)
        elif stem not in TOP:
            out.append(p.name)
    return out


def move(src: Path, dst: Path) -> None:
    """``git mv`` (or a plain rename for what git does not track); into an existing folder,
    entry by entry."""
    if dst.is_dir() and src.is_dir():
        for child in sorted(src.iterdir()):
            if child.name == "__pycache__":
                shutil.rmtree(child)
                continue
            move(child, dst / child.name)
        src.rmdir()
        return
    if dst.exists():
        sys.exit(f"relayout: both {src} and {dst} exist; merge them by hand and rerun")
    dst.parent.mkdir(parents=True, exist_ok=True)
    tracked = git("ls-files", "--", str(src)).strip()
    if tracked:
        git("mv", str(src), str(dst))
    if src.exists():  # untracked files (or the whole entry)
        os.replace(src, dst) if not dst.exists() else move(src, dst)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="only list unplaced entries")
    ap.add_argument("--no-ruff", action="store_true", help="skip sorting and formatting")
    args = ap.parse_args(argv)
    root = Path.cwd()
    base = root / "src" / PKG
    if not base.is_dir():
        sys.exit("relayout: run me from the repository root (no src/infometer here)")
    bad = unknown_entries(base)
    if bad:
        print(
            "relayout: no layer for these top-level entries of src/infometer; add them to "
            "TOP in tools/relayout.py:\n  " + "\n  ".join(bad),
            file=sys.stderr,
        )
        return 2
    if args.check:
        return 0
    changed: list[Path] = []
    for p in text_files(root):
        rel = p.relative_to(root).as_posix()
        try:
            text = p.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        new = rewrite_imports(text, rel) if p.suffix == ".py" else text
        new = rewrite_text(new, rel)
        if new != text:
            p.write_text(new, encoding="utf-8")
            changed.append(p)
    # moves: whole entries, then the renames inside the packages
    for p in sorted(base.iterdir()):
        stem = p.name[:-3] if p.name.endswith(".py") else p.name
        if p.name in KEEP or stem not in TOP or TOP[stem] == stem:
            continue
        dst = base.joinpath(*TOP[stem].split("."))
        dst = dst.with_name(dst.name + ".py") if p.is_file() else dst
        changed = [dst / c.relative_to(p) if p in c.parents else c for c in changed]
        changed = [dst if c == p else c for c in changed]
        move(p, dst)
    for old, new in RENAMED.items():
        pkg = PREFIXES[old.split(".")[0]]
        here = base.joinpath(*pkg.split("."))
        s, d = here / (old.rsplit(".", 1)[1] + ".py"), here / (new.rsplit(".", 1)[1] + ".py")
        if s.exists():
            changed = [d if c == s else c for c in changed]
            move(s, d)
    for layer, doc in LAYERS.items():
        init = base / layer / "__init__.py"
        if (base / layer).is_dir() and not init.exists():
            body = textwrap.fill(doc, 92, initial_indent='"""', subsequent_indent="")
            init.write_text(f'{body}\n"""\n', encoding="utf-8")
            git("add", str(init))
    py = [str(c) for c in changed if c.suffix == ".py" and c.exists()]
    ruff = Path(sys.executable).with_name("ruff")
    ruff_cmd = str(ruff) if ruff.exists() else shutil.which("ruff")
    if py and ruff_cmd and not args.no_ruff:
        subprocess.run([ruff_cmd, "check", "--select", "I", "--fix", "-q", "--exit-zero", *py])
        subprocess.run([ruff_cmd, "format", "-q", *py])
    print(f"relayout: {len(changed)} files rewritten; layers: {', '.join(LAYERS)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
