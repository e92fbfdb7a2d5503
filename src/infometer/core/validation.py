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

import numbers
from collections.abc import Sequence
from typing import Any

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
    "resolve_device",
    "DEFAULT_MEMORY_LIMIT",
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
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__} {value!r}")
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
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, got {type(value).__name__} {value!r}")
    v = float(value)
    if not np.isfinite(v):
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
    if value is None and allow_none:
        return None
    if isinstance(value, bool | np.bool_):
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
) -> np.ndarray:
    """A float64 array of real numbers, or an error naming ``name``.

    Refuses strings (also numbers written as strings), booleans, complex numbers (the
    imaginary part is never dropped silently), masked arrays with masked values (the
    hidden values are never used), ragged input, and, with ``finite``, NaN and inf.

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


def check_pmf(p: Any, name: str, *, ndim: int | None = None, atol: float | None = None):
    """A pmf or joint table (any shape): real, finite, >= 0, summing to 1 within ``atol``
    (the module's tolerance policy); returned renormalised exactly.

    Examples
    --------
    >>> check_pmf([[0.5, 0.0], [0.0, 0.5]], "joint").sum()
    np.float64(1.0)
    """
    a = check_real_array(p, name, ndim=ndim, what="probabilities")
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
    a = check_real_array(P, name, ndim=ndim, what="probabilities")
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
            f"limit of {float(limit):.3g}{hint}"
        )


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
