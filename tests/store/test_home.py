"""The store service is the only home of resumable state (issue 36 §2, issue 37 §1): a walk
of the source (with :mod:`ast`) finds no stray copy of what it does outside
``infometer/core/store/`` (renames onto a file, fsyncs, ``.npz`` or Parquet writes, JSON dumped
to a file, SQLite), and nothing anywhere loads a pickle."""

from __future__ import annotations

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parents[2] / "src" / "infometer"
HOME = PKG / "core" / "store"

#: ``module.function`` calls that write durable state: only the store service makes them.
STORE_CALLS = {
    ("os", "replace"),
    ("os", "rename"),
    ("os", "fsync"),
    ("shutil", "move"),
    ("np", "savez"),
    ("np", "savez_compressed"),
    ("numpy", "savez"),
    ("numpy", "savez_compressed"),
    ("json", "dump"),
    ("pq", "write_table"),
    ("parquet", "write_table"),
}
#: Method calls on a temporary path that make it the real file (``tmp.replace(path)``).
RENAMES = {"replace", "rename"}


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return ""


def stray_store_code(source: str) -> list[str]:
    """What in ``source`` writes resumable state the store service's way."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import | ast.ImportFrom):
            mods = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module]
            if any((m or "").split(".")[0] == "sqlite3" for m in mods):
                found.append(f"line {node.lineno}: imports sqlite3")
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        owner, attr = _dotted(node.func.value), node.func.attr
        if (owner.rsplit(".", 1)[-1], attr) in STORE_CALLS:
            found.append(f"line {node.lineno}: {owner}.{attr}()")
        elif attr in RENAMES and ("tmp" in owner.lower() or "temp" in owner.lower()):
            found.append(f"line {node.lineno}: {owner}.{attr}() (a temporary file renamed)")
        elif attr == "write_table":
            found.append(f"line {node.lineno}: {owner}.write_table()")
    return found


def _is_const(kw: dict):
    def is_const(name, value):
        return isinstance(kw.get(name), ast.Constant) and kw[name].value is value

    return is_const


def unpickling_code(source: str) -> list[str]:
    """Loads that can unpickle: ``pickle.load(s)``, ``np.load`` without
    ``allow_pickle=False``, ``torch.load`` without ``weights_only=True``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        owner, attr = _dotted(node.func.value), node.func.attr
        kw = {k.arg: k.value for k in node.keywords}
        is_const = _is_const(kw)
        if owner in ("pickle", "cPickle", "dill", "joblib") and attr in ("load", "loads"):
            found.append(f"line {node.lineno}: {owner}.{attr}()")
        elif owner in ("np", "numpy") and attr == "load" and not is_const("allow_pickle", False):
            found.append(f"line {node.lineno}: {owner}.load() without allow_pickle=False")
        elif owner == "torch" and attr == "load" and not is_const("weights_only", True):
            found.append(f"line {node.lineno}: torch.load() without weights_only=True")
    return found


SOURCES = sorted(PKG.rglob("*.py"))


def test_no_stray_store_outside_the_store_service():
    stray = {
        str(p.relative_to(PKG)): found
        for p in SOURCES
        if HOME not in p.parents and (found := stray_store_code(p.read_text(encoding="utf-8")))
    }
    assert stray == {}, "these write resumable state themselves; use infometer.core.store"


def test_nothing_is_ever_unpickled():
    found = {
        str(p.relative_to(PKG)): f
        for p in SOURCES
        if (f := unpickling_code(p.read_text(encoding="utf-8")))
    }
    assert found == {}


def test_the_walk_finds_what_it_looks_for():
    # each pattern the stores used before the service, and what the service does itself
    stray = """
import sqlite3, os, json
import numpy as np
os.replace(tmp, man)
np.savez(fh, **result)
tmp.replace(f)
json.dump(obj, fh)
pq.write_table(table, tmp)
"""
    assert len(stray_store_code(stray)) == 6
    assert len(stray_store_code((HOME / "_files.py").read_text())) >= 2  # os.replace, fsync
    assert stray_store_code("text.replace('a', 'b'); df.rename(columns={})") == []
    loads = "np.load(p); np.load(p, allow_pickle=False); pickle.loads(b); torch.load(f)"
    assert len(unpickling_code(loads)) == 3


def test_the_service_is_where_the_layers_say():
    import infometer.core.store as st

    assert Path(st.__file__).parent == HOME
    assert {"ResultStore", "KeyedSink", "RowStore", "StoreError", "fingerprint"} <= set(st.__all__)
