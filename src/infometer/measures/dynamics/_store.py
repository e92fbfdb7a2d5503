"""A resumable per-target result store for :func:`~infometer.measures.dynamics.infer_network`.

One JSON file per finished job (``<phase>-<target>.json``, written atomically) under a
folder whose ``manifest.json`` records a fingerprint of the data and the settings: a
re-run of the same analysis skips the targets already stored, and a different analysis
pointed at the same folder is refused instead of mixing results.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Hashable, Iterable
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["fingerprint", "TargetStore"]


def fingerprint(values: np.ndarray, names: list[str], settings: dict[str, Any]) -> str:
    """SHA-256 of the data (bytes, dtype, shape, names) and the settings."""
    h = hashlib.sha256()
    arr = np.ascontiguousarray(values)
    h.update(str((arr.dtype.str, arr.shape, names)).encode())
    h.update(arr.tobytes())
    h.update(json.dumps(settings, sort_keys=True, default=str).encode())
    return h.hexdigest()


class TargetStore:
    """A :class:`infometer.core.parallel.Sink` of one phase's per-target results in ``folder``."""

    def __init__(self, folder: str | os.PathLike, phase: str, print_: str) -> None:
        self.folder = Path(folder)
        self.phase = phase
        self.folder.mkdir(parents=True, exist_ok=True)
        man = self.folder / "manifest.json"
        if man.exists():
            held = json.loads(man.read_text()).get("fingerprint")
            if held != print_:
                raise ValueError(
                    f"store={str(self.folder)!r} holds results of a different analysis (other "
                    "data or settings); use another folder or delete this one"
                )
        else:
            _atomic(man, json.dumps({"fingerprint": print_}))

    def _path(self, key: Hashable) -> Path:
        return self.folder / f"{self.phase}-{int(key)}.json"  # type: ignore[arg-type]

    def done_keys(self) -> Iterable[Hashable]:
        pre = f"{self.phase}-"
        return [
            int(p.stem[len(pre) :])
            for p in self.folder.glob(f"{pre}*.json")
            if p.stem[len(pre) :].isdigit()
        ]

    def add(self, key: Hashable, result: Any) -> None:
        _atomic(self._path(key), json.dumps(result))

    def results(self, keys: Iterable[Hashable]) -> dict[Hashable, Any]:
        return {k: json.loads(self._path(k).read_text()) for k in keys}


def _atomic(path: Path, text: str) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)
