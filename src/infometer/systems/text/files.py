"""JSON-lines inputs of the text family (the CLI and users who keep their data in files).

* contexts: one per line, a JSON string or an object with ``"text"`` (or ``"context"``) and
  an optional ``"id"`` (string or integer) that summaries and queries may refer to;
* queries: one per context, a JSON string or an object with ``"query"`` (or ``"text"``),
  in the order of the contexts or tied to one by ``"id"``/``"context"``;
* summaries: objects with ``"context"`` (the context's id, or its 0-based position when
  contexts have no ids) and ``"summary"`` (or ``"text"``), optionally ``"compressor"`` (a
  label: one estimate per label); bare JSON strings are the summaries of contexts 0, 1, ...
  in order.

Every problem is reported with the file and line number.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from infometer.core.io import FileReadError, read_jsonl

__all__ = ["ChannelFiles", "read_channel_files", "read_contexts", "read_queries", "read_texts"]


def _where(path: Path, no: int) -> str:
    return f"{path}:{no}"


def _text_field(value: Any, keys: tuple[str, ...], path: Path, no: int, what: str) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        for k in keys:
            if k in value:
                v = value[k]
                if not isinstance(v, str):
                    raise FileReadError(
                        f"{_where(path, no)}: field {k!r} must be a string, got {type(v).__name__}"
                    )
                return v
        raise FileReadError(
            f"{_where(path, no)}: the {what} object has no field "
            f"{' or '.join(map(repr, keys))}; fields are: {', '.join(map(repr, value)) or 'none'}"
        )
    raise FileReadError(
        f"{_where(path, no)}: expected a JSON string or object for a {what}, "
        f"got {type(value).__name__}"
    )


def _id_of(value: Any, path: Path, no: int, key: str = "id") -> Any:
    if isinstance(value, dict) and key in value:
        v = value[key]
        if isinstance(v, bool) or not isinstance(v, str | int):
            raise FileReadError(f"{_where(path, no)}: {key!r} must be a string or an integer")
        return v
    return None


def read_texts(path: str | Path, keys: tuple[str, ...], what: str) -> tuple[list[str], list[Any]]:
    """Texts and ids (``None`` where absent) of a JSON-lines file."""
    p = Path(path)
    texts, ids = [], []
    for no, value in read_jsonl(p):
        t = _text_field(value, keys, p, no, what)
        if what == "context" and not t.strip():
            raise FileReadError(f"{_where(p, no)}: the context is empty")
        texts.append(t)
        ids.append(_id_of(value, p, no))
    return texts, ids


@dataclass
class ChannelFiles:
    """Contexts, queries and the summaries of each compressor label."""

    contexts: list[str]
    queries: list[str] | None
    ids: list[Any]
    groups: dict[str, tuple[list[str], np.ndarray]] = field(default_factory=dict)


def read_contexts(path: str | Path) -> tuple[list[str], list[Any], dict[Any, int]]:
    """Contexts, their ids (positions when the file has none) and id -> position."""
    cpath = Path(path)
    ctx, raw_ids = read_texts(cpath, ("text", "context"), "context")
    if len(ctx) < 2:
        raise FileReadError(f"{cpath}: needs at least 2 contexts, found {len(ctx)}")
    have_ids = any(i is not None for i in raw_ids)
    if have_ids and any(i is None for i in raw_ids):
        raise FileReadError(f"{cpath}: either every context has an 'id' or none has")
    ids = raw_ids if have_ids else list(range(len(ctx)))
    index: dict[Any, int] = {}
    for k, i in enumerate(ids):
        if i in index:
            raise FileReadError(f"{cpath}: id {i!r} is used twice")
        index[i] = k
    return ctx, ids, index


def read_queries(path: str | Path, ids: list[Any], index: dict[Any, int]) -> list[str]:
    """One query per context, in context order (by position, or by ``id``/``context``)."""
    qpath = Path(path)
    q: list[str | None] = [None] * len(ids)
    for pos, (no, value) in enumerate(read_jsonl(qpath)):
        text = _text_field(value, ("query", "text"), qpath, no, "query")
        ref = None
        if isinstance(value, dict):
            ref = _id_of(value, qpath, no, "id")
            if ref is None:
                ref = _id_of(value, qpath, no, "context")
        k = pos if ref is None else index.get(ref)
        if k is None or k >= len(ids):
            which = f"#{pos}" if ref is None else repr(ref)
            raise FileReadError(f"{_where(qpath, no)}: no context {which} for this query")
        if q[k] is not None:
            raise FileReadError(f"{_where(qpath, no)}: a second query for context {ids[k]!r}")
        q[k] = text
    missing = [ids[k] for k, v in enumerate(q) if v is None]
    if missing:
        raise FileReadError(
            f"{qpath}: no query for {len(missing)} context(s), e.g. {missing[0]!r}; give one "
            "query per context"
        )
    return [v for v in q if v is not None]


def read_channel_files(
    contexts: str | Path, summaries: str | Path, queries: str | Path | None = None
) -> ChannelFiles:
    """Read the three JSON-lines files of a channel-MI run (see the module docstring)."""
    ctx, ids, index = read_contexts(contexts)
    q = None if queries is None else read_queries(queries, ids, index)
    spath = Path(summaries)
    groups: dict[str, tuple[list[str], list[int]]] = {}
    for pos, (no, value) in enumerate(read_jsonl(spath)):
        text = _text_field(value, ("summary", "text"), spath, no, "summary")
        if isinstance(value, str):
            k, label = pos, "summary"
            if k >= len(ctx):
                raise FileReadError(
                    f"{_where(spath, no)}: bare summary number {pos + 1} but only {len(ctx)} "
                    "contexts; use objects with a 'context' field"
                )
        else:
            if "context" not in value:
                raise FileReadError(
                    f"{_where(spath, no)}: the summary object has no 'context' field"
                )
            ref = value["context"]
            if isinstance(ref, bool) or not isinstance(ref, str | int):
                raise FileReadError(f"{_where(spath, no)}: 'context' must be an id or an index")
            k = index.get(ref)
            if k is None:
                raise FileReadError(f"{_where(spath, no)}: no context with id {ref!r}")
            label = value.get("compressor", "summary")
            if not isinstance(label, str):
                raise FileReadError(f"{_where(spath, no)}: 'compressor' must be a string")
        z, src = groups.setdefault(label, ([], []))
        z.append(text)
        src.append(k)
    return ChannelFiles(
        contexts=ctx,
        queries=q,
        ids=ids,
        groups={k: (z, np.array(s, dtype=np.int64)) for k, (z, s) in groups.items()},
    )
