"""Validation of parameters and array inputs: the one place every family checks them.

In the manner of scikit-learn's ``utils/validation``: each check takes the value and the
name the user knows it by, returns the value in canonical form, and raises a
``TypeError`` (wrong type) or ``ValueError`` (wrong value) whose message names the
argument and says what would be accepted.  Sample data (rows of variables) goes through
:func:`infometer.core.data.as_variables` instead; this module is for everything else:
scalars, probability tables, labels, sizes that multiply into memory or time, devices.

One tolerance policy for probabilities: a vector (or each slice along ``axis``) may
differ from summing to 1 by ``atol``, by default 1e-9 for float64 input (summation
rounding is ~1e-16 · log2(size), far below it at any size that fits in memory) and 100
machine epsilons for lower-precision floats.  It does not grow with the size: a table off
by 1% in total mass is refused however many cells it has.

Examples
--------
>>> from infometer.core.validation import check_int, check_probability_vector
>>> check_int(3, "k", min_value=1)
3
>>> check_probability_vector([0.25, 0.75], "prior")
array([0.25, 0.75])
"""

from __future__ import annotations

import functools
import inspect
import math
import numbers
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar, cast

import numpy as np

__all__ = [
    "check_int",
    "check_float",
    "check_choice",
    "check_bool",
    "check_real_array",
    "check_pmf",
    "check_probability_vector",
    "check_stochastic_matrix",
    "check_labels",
    "check_budget",
    "check_memory",
    "check_seconds",
    "resolve_device",
    "DEFAULT_MEMORY_LIMIT",
    "Interval",
    "Size",
    "Options",
    "Flag",
    "Pair",
    "Many",
    "Instance",
    "validate_params",
    "check_params",
    "parameter_constraints",
]

#: Bytes a single request may allocate before :func:`check_memory` refuses it (8 GiB: a
#: third of the 24 GiB machines this project is built on; override per call).
DEFAULT_MEMORY_LIMIT = 8 * 2**30


# ------------------------------------------------------------------------- scalars
def check_int(
    value: Any, name: str, *, min_value: int | None = None, max_value: int | None = None
) -> int:
    """Validate an integer parameter; raise a message naming ``name``.

    Examples
    --------
    >>> check_int(5, "bins", min_value=2)
    5
    """
    if type(value) is int:  # the common case, without the ABC checks below
        v = value
    elif isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__} {value!r}")
    else:
        v = int(value)
    if min_value is not None and v < min_value:
        raise ValueError(f"{name} must be >= {min_value}, got {v}")
    if max_value is not None and v > max_value:
        raise ValueError(f"{name} must be <= {max_value}, got {v}")
    return v


def check_float(
    value: Any,
    name: str,
    *,
    low: float | None = None,
    high: float | None = None,
    inclusive: tuple[bool, bool] = (True, True),
) -> float:
    """Validate a finite real parameter; raise a message naming ``name``.

    Examples
    --------
    >>> check_float(0.95, "ci", low=0, high=1, inclusive=(False, False))
    0.95
    """
    if not (type(value) is float or type(value) is int) and (
        isinstance(value, bool) or not isinstance(value, numbers.Real)
    ):  # float and int, the common cases, skip the ABC check
        raise TypeError(f"{name} must be a number, got {type(value).__name__} {value!r}")
    try:
        v = float(value)
    except OverflowError:  # an int beyond float range (10**400)
        raise ValueError(
            f"{name} must be a finite number, got a {int(value).bit_length()}-bit integer "
            "beyond float range"
        ) from None
    if not math.isfinite(v):
        raise ValueError(f"{name} must be finite, got {v}")
    if low is not None and (v < low or (v == low and not inclusive[0])):
        raise ValueError(f"{name} must be {'>=' if inclusive[0] else '>'} {low}, got {v}")
    if high is not None and (v > high or (v == high and not inclusive[1])):
        raise ValueError(f"{name} must be {'<=' if inclusive[1] else '<'} {high}, got {v}")
    return v


def check_choice(value: Any, name: str, choices: Sequence[str]) -> str:
    """Validate a string option against its allowed values.

    Examples
    --------
    >>> check_choice("bits", "unit", ["nats", "bits"])
    'bits'
    """
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{name} must be one of {list(choices)}, got {value!r}")
    return value


def check_bool(value: Any, name: str, *, allow_none: bool = False) -> bool | None:
    """A real ``bool`` (numpy's included), or ``None`` where ``allow_none``; never a string
    such as ``"yes"`` or a number, which Python would silently take as true.

    Examples
    --------
    >>> check_bool(True, "progress")
    True
    """
    if value is True or value is False:
        return value
    if value is None and allow_none:
        return None
    if isinstance(value, np.bool_):
        return bool(value)
    allowed = "True, False or None" if allow_none else "True or False"
    raise TypeError(f"{name} must be {allowed}, got {type(value).__name__} {value!r}")


# -------------------------------------------------------------------------- arrays
_KIND_WORDS = {"c": "complex numbers", "b": "booleans", "U": "strings", "S": "bytes"}


def check_real_array(
    x: Any,
    name: str,
    *,
    ndim: int | None = None,
    finite: bool = True,
    allow_empty: bool = False,
    what: str = "numbers",
    copies: float = 1,
) -> np.ndarray:
    """A float64 array of real numbers, or an error naming ``name``.

    Refuses strings (also numbers written as strings), booleans, complex numbers (the
    imaginary part is never dropped silently), masked arrays with masked values (the
    hidden values are never used), ragged input, and, with ``finite``, NaN and inf.
    An array whose float64 copy times ``copies`` (the working copies of the same size
    the caller's computation keeps) would pass :data:`DEFAULT_MEMORY_LIMIT` is refused
    from its shape alone, before any copy (a broadcast 10⁵ x 10⁵ view costs nothing to
    pass but 74.5 GiB to read).

    Examples
    --------
    >>> check_real_array([1, 2.5], "utility")
    array([1. , 2.5])
    """
    if isinstance(x, str | bytes):
        raise TypeError(f"{name} must be an array of {what}, got a string")
    if isinstance(x, np.ma.MaskedArray):
        if np.ma.getmaskarray(x).any():
            raise ValueError(
                f"{name} is a masked array with {int(np.ma.getmaskarray(x).sum())} masked "
                "values; drop or fill them first (x.compressed() or x.filled(value))"
            )
        x = np.ma.getdata(x)
    try:
        raw = np.asarray(x)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a rectangular array of {what}: {exc}") from exc
    if copies and raw.size * 8.0 * copies > DEFAULT_MEMORY_LIMIT:
        extra = f" with the {copies:g} working copies the computation keeps" if copies > 1 else ""
        check_memory(
            raw.size * 8.0 * copies,
            what=f"float64 copy of its {raw.shape} table{extra}",
            name=name,
            override="pass a smaller table (fewer symbols)",
        )
    kind = raw.dtype.kind
    if kind == "O":
        flat = raw.ravel().tolist()
        bad = next(
            (v for v in flat if not isinstance(v, numbers.Real) or isinstance(v, bool)), None
        )
        if bad is not None or raw.ndim == 0 and not flat:
            raise TypeError(f"{name} must hold real {what}, found {type(bad).__name__} {bad!r}")
    elif kind not in "iuf":
        raise TypeError(f"{name} must hold real {what}, got {_KIND_WORDS.get(kind, raw.dtype)}")
    a = raw.astype(np.float64)
    if a.size == 0 and not allow_empty:
        raise ValueError(f"{name} is empty")
    if ndim is not None and a.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-D, got {a.ndim}-D with shape {a.shape}")
    if finite and not np.all(np.isfinite(a)):
        raise ValueError(f"{name} contains NaN or inf")
    return a


def _default_atol(x: Any) -> float:
    dtype = getattr(x, "dtype", None)
    if dtype is not None and np.dtype(dtype).kind == "f" and np.dtype(dtype).itemsize < 8:
        return 100 * float(np.finfo(dtype).eps)
    return 1e-9


def check_pmf(
    p: Any, name: str, *, ndim: int | None = None, atol: float | None = None, copies: float = 1
):
    """A pmf or joint table (any shape): real, finite, >= 0, summing to 1 within ``atol``
    (the module's tolerance policy); returned renormalised exactly.

    Examples
    --------
    >>> check_pmf([[0.5, 0.0], [0.0, 0.5]], "joint").sum()
    np.float64(1.0)
    """
    a = check_real_array(p, name, ndim=ndim, what="probabilities", copies=copies)
    if np.any(a < 0):
        raise ValueError(f"{name} has negative entries (min {a.min():.3g})")
    tol = _default_atol(p) if atol is None else atol
    s = a.sum()
    if not abs(s - 1.0) <= tol:
        raise ValueError(
            f"{name} sums to {s:.12g}, not 1 (tolerance {tol:.1e}); normalise it first "
            "(p / p.sum())"
        )
    return a / s


def check_probability_vector(
    p: Any, name: str, *, size: int | None = None, atol: float | None = None
) -> np.ndarray:
    """A 1-D probability vector (optionally of ``size`` entries), renormalised exactly.

    Examples
    --------
    >>> check_probability_vector([0.5, 0.5], "p_x", size=2)
    array([0.5, 0.5])
    """
    a = check_pmf(p, name, ndim=1, atol=atol)
    if size is not None and a.size != size:
        raise ValueError(f"{name} must have {size} entries, got {a.size}")
    return a


def check_stochastic_matrix(
    P: Any,
    name: str,
    *,
    axis: int = -1,
    ndim: int | None = 2,
    shape: tuple[int | None, ...] | None = None,
    what: str = "",
    atol: float | None = None,
    copies: float = 1,
) -> np.ndarray:
    """A table whose slices along ``axis`` are distributions (a channel ``P[x, y] =
    p(y | x)`` has rows summing to 1), each renormalised exactly.

    ``shape`` gives the expected shape (``None`` for a free axis); ``what`` says in words
    what the axes are (``"(inputs, outputs): p(y | x)"``) for the error message.

    Examples
    --------
    >>> check_stochastic_matrix([[0.9, 0.1], [0.2, 0.8]], "channel")
    array([[0.9, 0.1],
           [0.2, 0.8]])
    """
    a = check_real_array(P, name, ndim=ndim, what="probabilities", copies=copies)
    if shape is not None and (
        a.ndim != len(shape)
        or any(w is not None and g != w for g, w in zip(a.shape, shape, strict=True))
    ):
        want = "(" + ", ".join("?" if w is None else str(w) for w in shape) + ")"
        raise ValueError(f"{name} must have shape {want} {what}, got {a.shape}".rstrip())
    if np.any(a < 0):
        idx = tuple(int(i) for i in np.argwhere(a < 0)[0])
        raise ValueError(f"{name} has a negative probability at index {idx}")
    sums = a.sum(axis=axis, keepdims=True)
    tol = _default_atol(P) if atol is None else atol
    bad = np.abs(np.squeeze(sums, axis=axis) - 1.0) > tol
    if np.any(bad):
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        got = float(np.squeeze(sums, axis=axis)[idx])
        axes = f" {what}" if what else ""
        raise ValueError(
            f"{name} slice {list(idx)} along axis {axis} sums to {got:.9g}, not 1 "
            f"(tolerance {tol:.1e}); each slice of {name}{axes} must be a distribution"
        )
    return a / sums


def check_labels(y: Any, name: str, *, n_classes: int | None = None) -> np.ndarray:
    """Class labels as int64 ``0..C-1``: integers (or integral floats), no NaN, and, with
    ``n_classes``, inside the class range (never re-mapped by rank).

    Examples
    --------
    >>> check_labels([0, 2, 1], "labels", n_classes=3)
    array([0, 2, 1])
    """
    a = check_real_array(y, name, ndim=1, finite=False, what="class labels")
    if not np.all(np.isfinite(a)):
        row = int(np.argmax(~np.isfinite(a)))
        raise ValueError(f"{name} has a missing (NaN/inf) label at row {row}")
    if np.any(a != np.round(a)):
        row = int(np.argmax(a != np.round(a)))
        raise ValueError(f"{name} must be integer class labels, got {a[row]!r} at row {row}")
    lab = a.astype(np.int64)
    hi = None if n_classes is None else n_classes - 1
    out = (lab < 0) if hi is None else ((lab < 0) | (lab > hi))
    if np.any(out):
        row = int(np.argmax(out))
        rng = "0.." + ("C-1" if hi is None else str(hi))
        raise ValueError(
            f"{name} has label {int(lab[row])} at row {row}, outside the class range {rng}"
        )
    return lab


# ------------------------------------------------------------------ size guards
def _human(n: float) -> str:
    for unit in ("", " thousand", " million", " billion", " trillion"):
        if abs(n) < 1000:
            return f"{n:.3g}{unit}"
        n /= 1000
    return f"{n:.3g} quadrillion"


def check_budget(
    count: float, *, name: str, limit: float, what: str, override: str | None = None
) -> None:
    """Refuse a request whose ``count`` of units of work (pairs, permutations, cells,
    multiplets...) exceeds ``limit``, *before* anything is allocated.

    ``name`` is the argument(s) that set the size, ``what`` the unit counted, ``override``
    how a user who means it raises the limit (e.g. ``"pass max_pairs=..."``).

    Examples
    --------
    >>> check_budget(10, name="n_permutations", limit=100, what="permutations")
    >>> check_budget(10**12, name="B", limit=10**6, what="permutations")
    Traceback (most recent call last):
    ...
    ValueError: B asks for 1e+12 permutations (1 trillion), above the limit of 1e+06; reduce it
    """
    if not count <= limit:
        hint = f"; {override}" if override else "; reduce it"
        raise ValueError(
            f"{name} asks for {float(count):.3g} {what} ({_human(float(count))}), above the "
            f"limit of {_count(limit)}{hint}"
        )


def _count(n: float) -> str:
    """A limit as written: whole numbers below 10⁵ in full (4096, not 4.1e+03)."""
    f = float(n)
    return str(int(f)) if f.is_integer() and abs(f) < 1e5 else f"{f:.3g}"


def _bytes(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if n < 1024 or unit == "PiB":
            return f"{n:.3g} {unit}"
        n /= 1024
    return f"{n:.3g} PiB"  # pragma: no cover


def check_memory(
    nbytes: float, *, what: str, name: str, limit: float | None = None, override: str | None = None
) -> None:
    """Refuse a request whose estimated allocation ``nbytes`` exceeds ``limit`` (default
    :data:`DEFAULT_MEMORY_LIMIT`), before allocating; the message states both.

    Examples
    --------
    >>> check_memory(1e6, what="Gram matrix", name="x")
    """
    lim = DEFAULT_MEMORY_LIMIT if limit is None else limit
    if not nbytes <= lim:
        hint = f"; {override}" if override else ""
        raise ValueError(
            f"{name}: the {what} would need about {_bytes(float(nbytes))}, above the limit of "
            f"{_bytes(float(lim))}{hint}"
        )


def check_seconds(value: Any, name: str, *, allow_zero: bool = False) -> float:
    """A duration in seconds: a finite number > 0 (>= 0 with ``allow_zero``); NaN, inf
    and negative durations are refused (a loop waiting for NaN seconds never ends).

    Examples
    --------
    >>> check_seconds(2.5, "seconds")
    2.5
    """
    return check_float(value, name, low=0.0, inclusive=(allow_zero, True))


# ------------------------------------------------------------ constraints as data
# In the manner of scikit-learn's ``validate_params``: a long signature declares what each
# parameter accepts, once, as data (``@validate_params({"n_perm": [Size(limit=10**7, ...)],
# "cmi": [Options(...)], "targets": [Many(...), None]})``); the decorator checks every call
# before the body runs, and ``tests/families/test_param_constraints.py`` reads the same
# declarations to throw each constraint's own bad values at every declared function.


class Constraint:
    """What one parameter accepts.  Subclasses say which values they read
    (:meth:`reads`), check one (:meth:`check`: the value in canonical form, or a
    ``TypeError``/``ValueError`` naming the parameter), describe themselves in words and
    list values they must refuse (:meth:`bad_values`, for the tests)."""

    #: Checked after the others (it reads another parameter, e.g. a limit).
    depends: bool = False

    def reads(self, value: Any) -> bool:
        raise NotImplementedError

    def check(self, value: Any, name: str, args: Mapping[str, Any]) -> Any:
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError

    def bad_values(self) -> list[Any]:
        return []

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.describe()})"


def _is_number(value: Any, kind: type) -> bool:
    return not isinstance(value, bool | np.bool_) and isinstance(value, kind)


class Interval(Constraint):
    """A number of ``kind`` (``numbers.Integral`` or ``numbers.Real``) between ``low`` and
    ``high`` (``None``: unbounded; ``closed``: ``"both"``, ``"left"``, ``"right"`` or
    ``"neither"``).  Reals must be finite (NaN and inf are refused)."""

    def __init__(
        self,
        kind: type,
        low: float | None = None,
        high: float | None = None,
        *,
        closed: str = "both",
    ) -> None:
        if kind not in (numbers.Integral, numbers.Real):
            raise ValueError("kind must be numbers.Integral or numbers.Real")
        self.kind, self.low, self.high = kind, low, high
        self.closed = check_choice(closed, "closed", ("both", "left", "right", "neither"))

    @property
    def _incl(self) -> tuple[bool, bool]:
        return self.closed in ("both", "left"), self.closed in ("both", "right")

    def reads(self, value: Any) -> bool:
        return _is_number(value, numbers.Real)

    def check(self, value: Any, name: str, args: Mapping[str, Any]) -> Any:
        lo_in, hi_in = self._incl
        if self.kind is numbers.Integral:
            if _is_number(value, numbers.Real) and not _is_number(value, numbers.Integral):
                raise TypeError(f"{name} must be an integer, got {type(value).__name__} {value!r}")
            lo = None if self.low is None else int(math.ceil(self.low)) + (not lo_in)
            hi = None if self.high is None else int(math.floor(self.high)) - (not hi_in)
            return check_int(value, name, min_value=lo, max_value=hi)
        return check_float(value, name, low=self.low, high=self.high, inclusive=(lo_in, hi_in))

    def describe(self) -> str:
        what = "an integer" if self.kind is numbers.Integral else "a finite number"
        lo_in, hi_in = self._incl
        if self.low is not None and self.high is not None:
            left, right = "[" if lo_in else "(", "]" if hi_in else ")"
            return f"{what} in {left}{self.low:g}, {self.high:g}{right}"
        if self.low is not None:
            return f"{what} {'>=' if lo_in else '>'} {self.low:g}"
        if self.high is not None:
            return f"{what} {'<=' if hi_in else '<'} {self.high:g}"
        return what

    def bad_values(self) -> list[Any]:
        out: list[Any] = ["1", True, [1]]
        if self.kind is numbers.Integral:
            out.append(2.5)
            step = 1
        else:
            out += [math.nan, math.inf, -math.inf]
            step = 0.5
        lo_in, hi_in = self._incl
        if self.low is not None:
            out.append(self.low - step if lo_in else self.low)
        if self.high is not None:
            out.append(self.high + step if hi_in else self.high)
        return out


class Size(Interval):
    """A count a user types that multiplies into time or memory (surrogates, permutations,
    pages, points, restarts, channels...): an integer >= ``low``, refused above ``limit``
    (a number, or the name of the parameter that holds it, e.g. ``"max_multiplets"``)
    with the count, ``what`` it counts and how to override it, before anything is
    allocated (:func:`check_budget`)."""

    def __init__(
        self,
        low: int = 1,
        *,
        limit: float | str,
        what: str,
        override: str | None = None,
    ) -> None:
        super().__init__(numbers.Integral, low, None)
        self.limit, self.what = limit, what
        self.depends = isinstance(limit, str)
        self.override = override or (
            f"pass {limit}=... to allow more" if isinstance(limit, str) else None
        )

    def check(self, value: Any, name: str, args: Mapping[str, Any]) -> int:
        v = super().check(value, name, args)
        lim = args[self.limit] if isinstance(self.limit, str) else self.limit
        check_budget(v, name=name, limit=lim, what=self.what, override=self.override)
        return v

    def describe(self) -> str:
        lim = self.limit if isinstance(self.limit, str) else _count(self.limit)
        return f"an integer >= {self.low} ({self.what}, at most {lim})"

    def bad_values(self) -> list[Any]:
        huge = 10**15 if isinstance(self.limit, str) else int(self.limit) * 10 + 1
        return [*super().bad_values(), huge]


class Options(Constraint):
    """One of a set of strings."""

    def __init__(self, *choices: str) -> None:
        self.choices = tuple(choices)

    def reads(self, value: Any) -> bool:
        return isinstance(value, str)

    def check(self, value: Any, name: str, args: Mapping[str, Any]) -> str:
        return check_choice(value, name, self.choices)

    def describe(self) -> str:
        return "one of " + ", ".join(repr(c) for c in self.choices)

    def bad_values(self) -> list[Any]:
        return ["nope", "", 3, [self.choices[0]]]


class Flag(Constraint):
    """``True`` or ``False`` (numpy's bools too); never ``"yes"`` or 1."""

    def reads(self, value: Any) -> bool:
        return isinstance(value, bool | np.bool_)

    def check(self, value: Any, name: str, args: Mapping[str, Any]) -> bool:
        return bool(check_bool(value, name))

    def describe(self) -> str:
        return "True or False"

    def bad_values(self) -> list[Any]:
        return ["yes", "False", 1, 0, 1.0]


class Instance(Constraint):
    """An instance of ``types`` (``what`` says it in words, e.g. ``"a Layout (from
    make_layout)"``); ``collections.abc.Callable`` for a function."""

    def __init__(self, *types: type, what: str) -> None:
        self.types, self.what = types, what

    def reads(self, value: Any) -> bool:
        return isinstance(value, self.types)

    def check(self, value: Any, name: str, args: Mapping[str, Any]) -> Any:
        if not isinstance(value, self.types):
            raise TypeError(f"{name} must be {self.what}, got {type(value).__name__} {value!r:.60}")
        return value

    def describe(self) -> str:
        return self.what

    def bad_values(self) -> list[Any]:
        return [v for v in ("x", 5, 2.5) if not isinstance(v, self.types)]


def _sequence(value: Any) -> bool:
    return (
        not isinstance(value, str | bytes | Mapping)
        and hasattr(value, "__len__")
        and hasattr(value, "__iter__")
        and getattr(value, "ndim", 1) == 1
    )


class Pair(Constraint):
    """A pair ``(low, high)`` whose items meet ``item``, with ``low <= high`` when
    ``ordered``."""

    def __init__(self, item: Constraint, *, ordered: bool = True) -> None:
        self.item, self.ordered = item, ordered

    def reads(self, value: Any) -> bool:
        return _sequence(value)

    def check(self, value: Any, name: str, args: Mapping[str, Any]) -> tuple[Any, Any]:
        if not _sequence(value) or len(value) != 2:
            raise TypeError(
                f"{name} must be a pair (low, high), each {self.item.describe()}, "
                f"got {type(value).__name__} {value!r:.60}"
            )
        a, b = (self.item.check(v, name, args) for v in value)
        if self.ordered and a > b:
            raise ValueError(f"{name} must be (low, high) with low <= high, got {(a, b)}")
        return a, b

    def describe(self) -> str:
        return f"a pair (low, high), each {self.item.describe()}"

    def bad_values(self) -> list[Any]:
        good = self.item.bad_values()
        out: list[Any] = [(1, 2, 3), "ab", [good[0], good[0]]]
        if self.ordered and isinstance(self.item, Interval):
            lo = self.item.low if self.item.low is not None else 0
            out.append((lo + 5, lo + 2))
        return out


class Many(Constraint):
    """A list (tuple, 1-D array) of items that each meet ``item``: never a string (one
    string is a value, not a list of characters) or a mapping; at least ``min_len`` items;
    each item once with ``distinct``; at most ``limit`` items (a budget: the length is
    checked before any item is read, so a lazy 10⁹-long array is refused at once)."""

    def __init__(
        self,
        item: Constraint,
        *,
        min_len: int = 1,
        distinct: bool = False,
        limit: float | None = None,
        what: str = "values",
        override: str | None = None,
    ) -> None:
        self.item, self.min_len, self.distinct = item, min_len, distinct
        self.limit, self.what, self.override = limit, what, override

    def reads(self, value: Any) -> bool:
        return _sequence(value) or isinstance(value, str | bytes)

    def check(self, value: Any, name: str, args: Mapping[str, Any]) -> Any:
        if isinstance(value, str | bytes):
            raise TypeError(
                f"{name} must be a list of {self.what}, got the string {value[:40]!r}; "
                f"pass [{value[:40]!r}] for one"
            )
        if not _sequence(value):
            raise TypeError(
                f"{name} must be a list of {self.what}, got {type(value).__name__} {value!r:.60}"
            )
        n = len(value)
        if self.limit is not None:
            check_budget(n, name=name, limit=self.limit, what=self.what, override=self.override)
        if n < self.min_len:
            raise ValueError(
                f"{name} is empty" if n == 0 else f"{name} needs at least {self.min_len} items"
            )
        if isinstance(value, np.ndarray) and isinstance(self.item, Interval):
            return self._array(value, name)
        items = [self.item.check(v, name, args) for v in value]
        if self.distinct:
            seen: set[Any] = set()
            for v in items:
                if v in seen:
                    raise ValueError(f"{name} holds {v!r} more than once: give each value once")
                seen.add(v)
        return items

    def _array(self, value: np.ndarray, name: str) -> np.ndarray:
        it = self.item
        assert isinstance(it, Interval)
        integral = it.kind is numbers.Integral
        kinds = "iu" if integral else "iuf"
        if value.dtype.kind not in kinds:
            want = "integers" if integral else "real numbers"
            raise TypeError(f"{name} must hold {want}, got an array of {value.dtype}")
        a = np.asarray(value, dtype=np.int64 if integral else np.float64)
        if not integral and not np.all(np.isfinite(a)):
            raise ValueError(f"{name} contains NaN or inf")
        lo_in, hi_in = it._incl
        if it.low is not None and np.any(a < it.low if lo_in else a <= it.low):
            raise ValueError(f"{name} must hold values {'>=' if lo_in else '>'} {it.low:g}")
        if it.high is not None and np.any(a > it.high if hi_in else a >= it.high):
            raise ValueError(f"{name} must hold values {'<=' if hi_in else '<'} {it.high:g}")
        if self.distinct and np.unique(a).size != a.size:
            raise ValueError(f"{name} holds a value more than once: give each value once")
        return a

    def describe(self) -> str:
        return f"a list of {self.what}"

    def bad_values(self) -> list[Any]:
        out: list[Any] = ["abc", [self.item.bad_values()[0]]]
        if self.min_len >= 1:
            out.append([])
        if self.limit is not None:
            out.append(np.broadcast_to(np.int64(1), (int(self.limit) * 10 + 1,)))
        return out


Constraints = Mapping[str, Sequence[Any]]


def _check_one(value: Any, name: str, allowed: Sequence[Any], args: Mapping[str, Any]) -> Any:
    if value is None and any(c is None for c in allowed):
        return None
    cons = [c for c in allowed if c is not None]
    typed = [c for c in cons if c.reads(value)]
    first: Exception | None = None
    for c in typed:
        try:
            return c.check(value, name, args)
        except (TypeError, ValueError) as exc:
            first = first or exc
    if first is not None:
        raise first
    if len(cons) == 1 and not any(c is None for c in allowed):
        return cons[0].check(value, name, args)  # its own TypeError
    want = [c.describe() for c in cons] + (["None"] if any(c is None for c in allowed) else [])
    raise TypeError(f"{name} must be {' or '.join(want)}, got {type(value).__name__} {value!r:.60}")


def check_params(constraints: Constraints, args: Mapping[str, Any]) -> dict[str, Any]:
    """``args`` with every parameter that ``constraints`` declares checked (in canonical
    form); the first violation is a ``TypeError``/``ValueError`` naming the parameter.
    Parameters that read another one (a ``Size`` whose limit is a parameter) are checked
    after the rest.

    Examples
    --------
    >>> check_params({"k": [Interval(numbers.Integral, 1)], "m": [Options("a"), None]},
    ...              {"k": 3, "m": None})
    {'k': 3, 'm': None}
    """
    out = dict(args)
    order = sorted(
        constraints, key=lambda n: any(getattr(c, "depends", False) for c in constraints[n])
    )
    for name in order:
        if name in out:
            out[name] = _check_one(out[name], name, constraints[name], out)
    return out


_F = TypeVar("_F", bound=Callable[..., Any])


def validate_params(constraints: Constraints) -> Callable[[_F], _F]:
    """Decorator: check the declared parameters of every call before the body runs.

    ``constraints`` maps a parameter name to the list of what it accepts (constraints,
    and ``None`` where ``None`` is allowed); the declarations are kept on the function as
    ``__parameter_constraints__`` (:func:`parameter_constraints`) for the tests.

    Examples
    --------
    >>> @validate_params({"n": [Size(limit=100, what="draws")]})
    ... def draws(n=10):
    ...     return n
    >>> draws(n=1000)
    Traceback (most recent call last):
    ...
    ValueError: n asks for 1e+03 draws (1 thousand), above the limit of 100; reduce it
    """

    def deco(func: _F) -> _F:
        sig = inspect.signature(func)
        missing = set(constraints) - set(sig.parameters)
        if missing:
            raise TypeError(f"{func.__qualname__} declares constraints for {sorted(missing)}")

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            bound = sig.bind(*args, **kwargs)
            given = bound.arguments
            full = dict(given)
            for p in sig.parameters.values():
                if p.name not in full and p.default is not p.empty:
                    full[p.name] = p.default
            checked = check_params({k: v for k, v in constraints.items() if k in given}, full)
            for k in given:
                if k in constraints:
                    given[k] = checked[k]
            return func(*bound.args, **bound.kwargs)

        wrapper.__parameter_constraints__ = dict(constraints)  # type: ignore[attr-defined]
        return cast(_F, wrapper)

    return deco


def parameter_constraints(func: Any) -> dict[str, Sequence[Any]]:
    """The declarations :func:`validate_params` keeps on ``func`` (a class: on its
    ``__init__``); ``{}`` for an undeclared function."""
    target = func.__init__ if inspect.isclass(func) else func
    return dict(getattr(target, "__parameter_constraints__", {}))


# -------------------------------------------------------------------------- devices
def resolve_device(device: Any, name: str = "device") -> Any:
    """A ``torch.device`` that exists on this machine, or a ``ValueError`` naming ``name``
    (availability is checked, not only the spelling).

    Examples
    --------
    >>> resolve_device("cpu")  # doctest: +SKIP
    device(type='cpu')
    """
    import torch

    if isinstance(device, bool) or not isinstance(device, str | int | torch.device):
        raise TypeError(f"{name} must be a device name such as 'cpu' or 'cuda:0', got {device!r}")
    try:
        dev = torch.device(device)
    except (RuntimeError, TypeError) as exc:
        raise ValueError(
            f"{name} {device!r} is not a torch device (cpu, cuda, cuda:1, mps): {exc}"
        ) from exc
    if dev.type == "cuda":
        if not torch.cuda.is_available():
            raise ValueError(f"{name} {device!r}: CUDA is not available on this machine")
        if dev.index is not None and dev.index >= torch.cuda.device_count():
            raise ValueError(
                f"{name} {device!r}: this machine has {torch.cuda.device_count()} CUDA device(s)"
            )
    elif dev.type == "mps" and not torch.backends.mps.is_available():
        raise ValueError(f"{name} {device!r}: MPS is not available on this machine")
    elif dev.type not in ("cpu", "cuda", "mps"):
        raise ValueError(f"{name} {device!r}: only cpu, cuda and mps devices are supported")
    return dev
