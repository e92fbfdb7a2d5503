"""A resumable folder of finished multiplet chunks (the ``store=`` of
:func:`infometer.multiplets`): ``manifest.json`` (what the sweep is) and one ``.npz`` per
finished chunk, written to a temporary name and renamed, so a chunk is complete or
absent whatever happens to the process.  A folder holding a different sweep is refused."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Hashable, Iterable
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["ChunkStore"]

_NAME = re.compile(r"^s(\d+)_c(\d+)\.npz$")


class ChunkStore:
    """Sink of :func:`infometer.core.parallel.run_jobs` keyed by ``(size, chunk)``.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     st = ChunkStore(d, {"sweep": 1})
    ...     st.add((3, 0), {"value": np.zeros(2)})
    ...     sorted(ChunkStore(d, {"sweep": 1}).done_keys())
    [(3, 0)]
    """

    def __init__(self, path: str | os.PathLike, fingerprint: dict[str, Any]) -> None:
        self.path = Path(path)
        self.chunks = self.path / "chunks"
        self.chunks.mkdir(parents=True, exist_ok=True)
        man = self.path / "manifest.json"
        fp = json.loads(json.dumps(fingerprint))
        if man.exists():
            try:
                have = json.loads(man.read_text())
            except ValueError:
                have = None
            if have is not None and have != fp:
                diff = sorted(k for k in set(fp) | set(have) if fp.get(k) != have.get(k))
                raise ValueError(
                    f"store {str(self.path)!r} holds a different multiplet sweep (differs "
                    f"in {', '.join(diff)}); pass another folder or delete it"
                )
        tmp = man.with_suffix(".tmp")
        tmp.write_text(json.dumps(fp, sort_keys=True))
        os.replace(tmp, man)

    def done_keys(self) -> Iterable[Hashable]:
        """Keys of the finished chunks."""
        out = []
        for f in self.chunks.iterdir():
            m = _NAME.match(f.name)
            if m:
                out.append((int(m.group(1)), int(m.group(2))))
        return out

    def _file(self, key: tuple[int, int]) -> Path:
        return self.chunks / f"s{key[0]}_c{key[1]}.npz"

    def add(self, key: Hashable, result: dict[str, np.ndarray]) -> None:
        """Write one finished chunk atomically."""
        f = self._file(key)  # type: ignore[arg-type]
        tmp = f.with_name(f.name + ".part")
        with open(tmp, "wb") as fh:
            np.savez(fh, **result)
        os.replace(tmp, f)

    def get(self, key: tuple[int, int]) -> dict[str, np.ndarray]:
        """One finished chunk."""
        with np.load(self._file(key)) as z:
            return {k: z[k] for k in z.files}
