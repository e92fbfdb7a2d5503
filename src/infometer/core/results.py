"""The one base of result objects: :class:`Result`.

Every public result class of the library (an :class:`~infometer.Estimate`, a
:class:`~infometer.LocalValues`, a ``PIDResult``, a ``NetworkResult``, ...) derives from
:class:`Result` (``tests/test_results.py`` walks the source for any that does not), so that
every one of them offers the same protocol:

* ``to_dict()``: a JSON-safe ``dict`` (``json.dumps(..., allow_nan=False)`` accepts it).
  Arrays become lists, nested results their own ``to_dict()``; a non-finite number
  becomes ``null`` and the ``"nonfinite"`` entry names it with its reason, e.g.
  ``{"value": null, ..., "nonfinite": {"value": "nan"}}`` (paths are ``/``-separated keys and
  list indices: ``"ci/1": "inf"``).  Objects that are not data (a trained torch model, a
  callable) appear as their ``repr`` text.
* ``to_frame()``: a pandas ``DataFrame``: the class's natural table, or (the default) one
  row of its scalar fields.
* a readable ``repr`` (arrays, tables and long lists summarised by their shape) and
  ``_repr_html_`` for notebooks (the text escaped: user labels are never markup).
* ``plot(ax=None, path=None) -> Axes`` where a figure makes sense, through the shared
  :mod:`infometer.core.plot` convention; a class without a figure has no ``plot``.

Equality and hashing follow one rule.  A composite result equals another of the same class
whose ``to_dict()`` is equal (so ``r == r`` also when it holds NaN), and is unhashable
(``hash(r)`` raises ``TypeError``): its content is arrays and tables.  An ``Estimate`` is
float-like: it equals a real number ``x`` when ``value == x``, equals another ``Estimate``
when every field (``to_dict()``) is equal, and hashes as ``hash(value)`` (NaN: as
``float("nan")`` hashed by value, ``0``), so ``a == b`` implies ``hash(a) == hash(b)``.

Examples
--------
>>> import infometer as im
>>> e = im.Estimate(0.5, "nats")
>>> e == 0.5, hash(e) == hash(0.5)
(True, True)
>>> im.Estimate(float("nan")).to_dict()["nonfinite"]
{'value': 'nan'}
"""

from __future__ import annotations

import dataclasses
import html
import math
import numbers
from pathlib import PurePath
from typing import Any

import numpy as np

__all__ = ["Result", "json_safe", "json_document"]

#: Rows of ``to_frame()`` shown by ``_repr_html_``.
HTML_ROWS = 20


def _nonfinite_reason(f: float) -> str:
    return "nan" if math.isnan(f) else ("inf" if f > 0 else "-inf")


def json_safe(obj: Any, nonfinite: dict[str, str] | None = None, path: str = "") -> Any:
    """``obj`` as plain JSON data: non-finite numbers become ``None``.

    When ``nonfinite`` is given, each non-finite number's path (``/``-separated keys and
    indices below ``path``) is recorded there with its reason (``"nan"``, ``"inf"``,
    ``"-inf"``).  Nested :class:`Result` objects become their own ``to_dict()`` (which
    carries its own ``"nonfinite"`` entry).

    Examples
    --------
    >>> import numpy as np
    >>> why = {}
    >>> json_safe({"a": np.array([1.0, np.nan]), "b": (np.int64(2), np.inf)}, why)
    {'a': [1.0, None], 'b': [2, None]}
    >>> why
    {'a/1': 'nan', 'b/1': 'inf'}
    """

    def sub(key: Any) -> str:
        return f"{path}/{key}" if path else str(key)

    if obj is None or isinstance(obj, str | bool):
        return obj
    if isinstance(obj, Result):
        return obj.to_dict()
    if isinstance(obj, np.bool_):
        return bool(obj)
    if isinstance(obj, numbers.Integral):
        return int(obj)
    if isinstance(obj, numbers.Real):
        f = float(obj)
        if math.isfinite(f):
            return f
        if nonfinite is not None:
            nonfinite[path] = _nonfinite_reason(f)
        return None
    if isinstance(obj, dict):
        return {str(k): json_safe(v, nonfinite, sub(k)) for k, v in obj.items()}
    if isinstance(obj, list | tuple | set | frozenset):
        items = sorted(obj, key=repr) if isinstance(obj, set | frozenset) else obj
        return [json_safe(v, nonfinite, sub(i)) for i, v in enumerate(items)]
    if isinstance(obj, np.ndarray):
        return json_safe(obj.tolist(), nonfinite, path)
    if isinstance(obj, np.generic):  # numpy strings, datetimes
        return json_safe(obj.item(), nonfinite, path)
    if isinstance(obj, PurePath):
        return str(obj)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {
            f.name: json_safe(getattr(obj, f.name), nonfinite, sub(f.name))
            for f in dataclasses.fields(obj)
        }
    module = type(obj).__module__.split(".")[0]
    if module == "pandas":
        if hasattr(obj, "to_dict") and hasattr(obj, "columns"):  # a DataFrame
            frame = obj if _plain_index(obj) else obj.reset_index()
            return json_safe(frame.to_dict(orient="list"), nonfinite, path)
        if hasattr(obj, "tolist"):  # a Series or an Index
            return json_safe(obj.tolist(), nonfinite, path)
    if module == "torch" and hasattr(obj, "detach"):  # a tensor
        return json_safe(obj.detach().cpu().numpy(), nonfinite, path)
    return repr(obj)


def _plain_index(frame: Any) -> bool:
    idx = frame.index
    return type(idx).__name__ == "RangeIndex" and idx.start == 0 and idx.step == 1


def json_document(obj: Any) -> Any:
    """``obj`` as one JSON document: a dict gets the ``"nonfinite"`` entry of its
    non-finite numbers; a list of dicts, one per dict (rows of a table)."""
    if isinstance(obj, Result):
        return obj.to_dict()
    if isinstance(obj, list | tuple) and all(isinstance(v, dict | Result) for v in obj):
        return [json_document(v) for v in obj]
    why: dict[str, str] = {}
    out = json_safe(obj, why)
    if why and isinstance(out, dict):
        out["nonfinite"] = why
    return out


def _shape(v: np.ndarray) -> str:
    return "×".join(str(s) for s in v.shape) or "scalar"


def summary(v: Any, width: int = 60) -> str:
    """A short text for one field of a result (arrays and tables by their shape)."""
    if isinstance(v, Result) and type(v).__repr__ is not Result.__repr__:
        text = repr(v)
    elif isinstance(v, Result):
        text = f"<{type(v).__name__}>"
    elif isinstance(v, np.ndarray):
        if v.size <= 6 and v.ndim <= 1:
            text = np.array2string(v, precision=4, separator=", ")
        else:
            text = f"<array {_shape(v)} {v.dtype}>"
    elif isinstance(v, float | np.floating):
        text = f"{float(v):.4g}"
    elif isinstance(v, str):
        text = repr(v)
    elif isinstance(v, dict):
        keys = list(v)
        text = "{" + ", ".join(map(str, keys[:4])) + (", …" if len(keys) > 4 else "") + "}"
        text = text if keys else "{}"
    elif isinstance(v, list | tuple):
        if len(v) <= 4 and all(isinstance(x, str | int | float | np.number) for x in v):
            text = repr(list(v)) if isinstance(v, list) else repr(tuple(v))
        else:
            text = f"<{type(v).__name__} of {len(v)}>"
    elif type(v).__module__.split(".")[0] == "pandas" and hasattr(v, "shape"):
        text = f"<{type(v).__name__} {_shape(np.empty(v.shape))}>"
    elif v is None or isinstance(v, bool | int | np.integer):
        text = repr(v)
    else:
        text = f"<{type(v).__name__}>"
    return text if len(text) <= width else text[: width - 1] + "…"


class Result:
    """The base of every result class (see the module docstring for the protocol).

    Subclasses are dataclasses declared with ``eq=False`` (the rule of equality is this
    class's) and, unless they write their own ``__repr__``, ``repr=False``.  Fields that are
    not data (a trained model, a callable) are listed in ``_dict_exclude``.
    """

    __slots__ = ()

    #: Fields left out of ``to_dict()`` (and of the default ``to_frame()``).
    _dict_exclude: tuple[str, ...] = ()

    def _fields(self) -> dict[str, Any]:
        if dataclasses.is_dataclass(self):
            return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        return {k: v for k, v in vars(self).items() if not k.startswith("_")}

    def _dict_fields(self) -> dict[str, Any]:
        """What ``to_dict`` holds: the fields, less ``_dict_exclude`` (a class may
        summarise a field instead: the null of a permutation test)."""
        return {k: v for k, v in self._fields().items() if k not in self._dict_exclude}

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict of the result (``"type"``: the class name; non-finite numbers
        ``null`` with their reason under ``"nonfinite"``)."""
        why: dict[str, str] = {}
        out: dict[str, Any] = {"type": type(self).__name__}
        for name, v in self._dict_fields().items():
            out[name] = json_safe(v, why, name)
        if why:
            out["nonfinite"] = why
        return out

    def to_frame(self) -> Any:
        """A one-row ``DataFrame`` of the scalar fields (an ``Estimate`` as its value)."""
        import pandas as pd

        row: dict[str, Any] = {}
        for name, v in self._fields().items():
            if name in self._dict_exclude:
                continue
            if hasattr(v, "value") and hasattr(v, "unit") and isinstance(v, Result):
                row[name] = float(v.value)
            elif v is None or isinstance(v, str | numbers.Number | np.generic):
                row[name] = v
        return pd.DataFrame([row])

    def __repr__(self) -> str:
        parts = [f"{k}={summary(v)}" for k, v in self._fields().items()]
        name = type(self).__name__
        one = f"{name}({', '.join(parts)})"
        if len(one) <= 100:
            return one
        return name + "(\n" + "".join(f"    {p},\n" for p in parts) + ")"

    def _repr_html_(self) -> str:
        head = f"<strong>{html.escape(type(self).__name__)}</strong>"
        body = f"<pre>{html.escape(repr(self))}</pre>"
        table = ""
        frame = self.to_frame()
        if frame is not None and len(frame.columns):
            more = len(frame) - HTML_ROWS
            table = frame.head(HTML_ROWS).to_html(escape=True, index=False, border=0)
            if more > 0:
                table += f"<p>… {more} more rows (<code>.to_frame()</code>)</p>"
        return f'<div class="infometer-result">{head}{body}{table}</div>'

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self.to_dict() == other.to_dict()  # type: ignore[attr-defined]

    __hash__ = None  # type: ignore[assignment]  # content is arrays and tables
