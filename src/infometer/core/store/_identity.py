"""The identity of an analysis (what a store holds): written before the first result and
compared on every open; a data fingerprint; the one-line refusals about identities."""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ._files import canonical_json, sha256

__all__ = ["FORMAT", "MANIFEST", "StoreError", "fingerprint", "new_identity", "read_identity"]

#: Version of the store layout; a store of another format is refused.
FORMAT = 1
#: The identity file of every store folder.
MANIFEST = "manifest.json"

#: What each kind of job is called in messages.
KINDS = {
    "multiplets": "multiplets sweep",
    "network": "network inference",
    "pairwise": "pairwise matrix",
    "bench": "benchmark sweep",
    "extract-bench": "extraction benchmark",
}

_FIELDS = ("infometer_store", "kind", "created", "version", "data", "params")


class StoreError(ValueError):
    """A store folder that cannot be used for this analysis (one line: the folder or file,
    what is wrong and what to do)."""


def what(kind: str) -> str:
    """``"multiplets sweep"`` for ``"multiplets"``."""
    return KINDS.get(kind, f"{kind} job")


def a_what(kind: str) -> str:
    """``"a multiplets sweep"``, ``"an extraction benchmark"``."""
    name = what(kind)
    return ("an " if name[0] in "aeiou" else "a ") + name


def fingerprint(*parts: Any) -> str:
    """SHA-256 of the data an analysis reads: arrays by dtype, shape and bytes, anything
    else by its JSON (names, kinds).

    Examples
    --------
    >>> import numpy as np
    >>> fingerprint(np.arange(3)) == fingerprint(np.arange(3))
    True
    >>> fingerprint(np.arange(3)) == fingerprint(np.arange(3.0))
    False
    """
    h = hashlib.sha256()
    for part in parts:
        if isinstance(part, np.ndarray):
            arr = np.ascontiguousarray(part)
            h.update(f"array|{arr.dtype.str}|{arr.shape}|".encode())
            h.update(arr.tobytes())
        else:
            h.update(b"json|" + json.dumps(part, sort_keys=True, default=str).encode() + b"|")
    return h.hexdigest()


def jsonable(params: Mapping[str, Any]) -> dict[str, Any]:
    """``params`` as they read back from JSON (tuples become lists; other objects their
    ``str``), so that a new identity compares equal to a stored one."""
    return json.loads(json.dumps(dict(params), sort_keys=True, default=_plain))


def _plain(obj: Any) -> Any:
    """numpy scalars and arrays as Python numbers and lists; anything else by ``str``."""
    if isinstance(obj, np.generic | np.ndarray):
        return obj.tolist()
    return str(obj)


def new_identity(kind: str, data: str | None, params: Mapping[str, Any]) -> dict[str, Any]:
    """The manifest of a new store (with its own checksum)."""
    from infometer import __version__

    ident = {
        "infometer_store": FORMAT,
        "kind": kind,
        "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "version": __version__,
        "data": data,
        "params": jsonable(params),
    }
    ident["sha256"] = sha256(canonical_json(ident))
    return ident


def read_identity(folder: Path, label: str) -> dict[str, Any] | None:
    """The identity in ``folder/manifest.json``; None when there is none; a
    :class:`StoreError` when it is unreadable, truncated or changed after it was written."""
    man = folder / MANIFEST
    try:
        raw = man.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StoreError(f"{label}: {MANIFEST} cannot be read ({exc.strerror})") from None
    why = None
    try:
        ident = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        ident, why = None, "not JSON: truncated or overwritten"
    if why is None and not (
        isinstance(ident, dict)
        and set(ident) == {*_FIELDS, "sha256"}
        and isinstance(ident["kind"], str)
        and isinstance(ident["params"], dict)
    ):
        why = "not an infometer store identity"
    if why is None:
        body = {k: ident[k] for k in _FIELDS}
        if sha256(canonical_json(body)) != ident["sha256"]:
            why = "its checksum does not match: changed after it was written"
    if why is not None:
        raise StoreError(
            f"{label}: its {MANIFEST} (the identity of the analysis it holds) is damaged "
            f"({why}); the results in it cannot be matched to any analysis: use another "
            "folder, or delete this one to start afresh"
        )
    return ident


def _short(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 40 else text[:37] + "..."


def differences(held: dict[str, Any], want: dict[str, Any]) -> list[str]:
    """What differs between a stored identity and this analysis's, one phrase each."""
    out = []
    fmt = held["infometer_store"], want["infometer_store"]
    if fmt[0] != fmt[1]:
        out.append(f"store format ({fmt[0]} there, {fmt[1]} here)")
    if held["version"] != want["version"]:
        out.append(f"infometer version ({held['version']} there, {want['version']} here)")
    if held["data"] != want["data"]:
        out.append("data (another data set)")
    hp, wp = held["params"], want["params"]
    for k in sorted(set(hp) | set(wp)):
        if k not in hp:
            out.append(f"{k} (absent there, {_short(wp[k])} here)")
        elif k not in wp:
            out.append(f"{k} ({_short(hp[k])} there, absent here)")
        elif hp[k] != wp[k]:
            out.append(f"{k} ({_short(hp[k])} there, {_short(wp[k])} here)")
    return out


def refuse_other(label: str, held: dict[str, Any], want: dict[str, Any]) -> StoreError:
    """The refusal of a store that holds another analysis: which, made when, what differs."""
    made = f"made {held['created']} by infometer {held['version']}"
    if held["kind"] != want["kind"]:
        return StoreError(
            f"{label} holds {a_what(held['kind'])} ({made}), not {a_what(want['kind'])}; "
            "use another folder, or delete this one to start afresh"
        )
    diff = differences(held, want)
    said = diff[0] if len(diff) == 1 else ", ".join(diff[:-1]) + " and " + diff[-1]
    return StoreError(
        f"{label} holds another {what(held['kind'])} ({made}) that differs in {said}; use "
        "another folder, or delete this one to start afresh"
    )
