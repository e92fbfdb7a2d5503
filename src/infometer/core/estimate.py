"""The result type every estimator returns.

An :class:`Estimate` is a number of nats (or bits, ...) together with what is
known about how far it can be trusted: a standard error, a confidence interval,
the method and parameters that produced it, and diagnostics (warnings, ties,
saturation, the choice made by ``method="auto"``).  It behaves like a float.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from infometer.core.results import Result, json_safe

__all__ = [
    "Estimate",
    "UNITS",
    "VALUE_UNITS",
    "unit_factor",
    "resolve_unit",
    "round_to_error",
]

#: Known unit names and the logarithm base they stand for.
UNITS: dict[str, float] = {"nats": math.e, "bits": 2.0, "hartleys": 10.0}
#: Units that are not information units: values of decisions (value of information,
#: persuasion value) in the utility units of the user's own problem.  They have no log
#: base, so they never convert to or from nats/bits.
VALUE_UNITS: tuple[str, ...] = ("utility",)
_CANONICAL = frozenset(UNITS) | frozenset(VALUE_UNITS)
_ALIASES = {
    "nat": "nats",
    "bit": "bits",
    "shannons": "bits",
    "hartley": "hartleys",
    "dits": "hartleys",
    "utils": "utility",
    "utilities": "utility",
}


def _canonical_unit(unit: str) -> str:
    if type(unit) is str and unit in _CANONICAL:  # already canonical: nothing to strip
        return unit
    if not isinstance(unit, str):
        raise TypeError(
            f"unit must be a string such as 'nats' or 'bits', got {type(unit).__name__}"
        )
    u = unit.strip().lower()
    u = _ALIASES.get(u, u)
    if u in UNITS or u in VALUE_UNITS:
        return u
    if u.startswith("base-"):
        try:
            b = float(u[5:])
        except ValueError:
            b = -1.0
        if b > 0 and b != 1 and math.isfinite(b) and math.isfinite(math.log(b)):
            return f"base-{u[5:]}"
    raise ValueError(
        f"unit {unit!r} is not known; use one of {sorted(UNITS)} "
        "or 'base-B' for a finite log base B > 0, B != 1 "
        f"(or {list(VALUE_UNITS)} for values of decisions)"
    )


def _unit_base(unit: str) -> float:
    u = _canonical_unit(unit)
    return UNITS[u] if u in UNITS else float(u[5:])


def resolve_unit(unit: str | None = "nats", base: float | None = None) -> str:
    """Return the canonical unit name for a ``unit=`` / ``base=`` pair.

    ``base`` wins when given (2 -> bits, e -> nats, 10 -> hartleys, else ``base-B``);
    ``unit`` is still checked, so a typo next to ``base=`` is not silently ignored.
    """
    name = _canonical_unit("nats" if unit is None else unit)
    if name in VALUE_UNITS:
        raise ValueError(
            f"unit {unit!r} is for values of decisions (utility units), "
            "not for information quantities; use 'nats', 'bits', 'hartleys' or 'base-B'"
        )
    if base is None:
        return name
    if isinstance(base, bool) or not isinstance(base, int | float | np.integer | np.floating):
        raise TypeError(f"base must be a number, got {type(base).__name__}")
    b = float(base)
    if not (b > 0 and b != 1 and math.isfinite(b)):
        raise ValueError(f"base must be a finite number > 0 and != 1, got {base}")
    for name, val in UNITS.items():
        if math.isclose(b, val, rel_tol=0, abs_tol=1e-12):
            return name
    return f"base-{b:g}"


def unit_factor(src: str, dst: str) -> float:
    """Multiplier that converts a value in ``src`` units into ``dst`` units.

    A value unit (``"utility"``) converts only to itself: a value of information in the
    problem's utility units is not a number of nats.
    """
    s, d = _canonical_unit(src), _canonical_unit(dst)
    if s in VALUE_UNITS or d in VALUE_UNITS:
        if s == d:
            return 1.0
        raise ValueError(
            f"cannot convert {s!r} to {d!r}: a value in the decision problem's utility "
            "units is not an amount of information"
        )
    return math.log(_unit_base(s)) / math.log(_unit_base(d))


def _stored_number(v: Any, key: str) -> float:
    """A number of a stored estimate: a real number, or "nan"/"inf"/"-inf" (the strings
    that ``to_dict`` wrote before non-finite numbers became ``null`` + ``"nonfinite"``)."""
    if isinstance(v, str) and v in ("nan", "inf", "-inf"):
        return float(v)
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise TypeError(f"d[{key!r}] must be a number, got {type(v).__name__} {v!r}")
    return float(v)


def _fmt(v: float) -> str:
    if not math.isfinite(v):
        return str(v)
    a = abs(v)
    if v == int(v) and a < 1e5:  # an integer (an exact count, a utility of 8): no ".000"
        return str(int(v))
    if a != 0 and (a < 1e-3 or a >= 1e5):
        return f"{v:.3e}"
    return f"{v:.3f}" if a < 100 else f"{v:.1f}"


def round_to_error(value: float, error: float | None) -> tuple[str, str | None]:
    """``value`` and ``error`` as strings, rounded to the error's two significant digits.

    ``error`` is a standard error (or an interval's half-width); ``None`` or a non-finite
    one prints ``value`` as :class:`Estimate` does without one.  An error below 1e-12 of
    the value is floating-point noise on an exact number: it prints as ``"0"``.

    Examples
    --------
    >>> round_to_error(0.693147, 0.0123)
    ('0.693', '0.012')
    >>> round_to_error(8.0, 1.282e-16)
    ('8', '0')
    >>> round_to_error(1234.5678, 37.0)
    ('1235', '37')
    >>> round_to_error(2.5e-7, 3.1e-9)
    ('2.500e-07', '3.1e-09')
    """
    if error is None or not math.isfinite(error) or not math.isfinite(value):
        return _fmt(value), None
    error = abs(error)
    if error <= 1e-12 * max(1.0, abs(value)):
        return _fmt(value), "0"
    top = math.floor(math.log10(error))
    decimals = 1 - top
    if decimals > 6 or abs(value) >= 1e6:  # tiny errors or huge values: scientific
        digits = max(math.floor(math.log10(abs(value))) - top + 1, 1) if value else 1
        return f"{value:.{digits}e}", f"{error:.1e}"
    d = max(decimals, 0)
    scale = 10.0 ** (-decimals) if decimals < 0 else 1.0
    v = round(value / scale) * scale if decimals < 0 else value
    e = round(error / scale) * scale if decimals < 0 else error
    return f"{v:.{d}f}", f"{e:.{d}f}"


def _restore_nonfinite(d: dict[str, Any]) -> dict[str, Any]:
    """``d`` with each number named in ``d["nonfinite"]`` (``to_dict``'s ``null`` + reason)
    put back as a float; a bad entry is a ``ValueError`` naming it."""
    why = d.get("nonfinite")
    if not why:
        return d
    if not isinstance(why, dict):
        raise TypeError(f"d['nonfinite'] must be a dict of path -> reason, got {why!r}")
    import copy

    out = copy.deepcopy({k: v for k, v in d.items() if k != "nonfinite"})
    for path, reason in why.items():
        if reason not in ("nan", "inf", "-inf") or not isinstance(path, str):
            raise ValueError(f"d['nonfinite'][{path!r}] must be 'nan', 'inf' or '-inf'")
        *up, last = path.split("/")
        box: Any = out
        try:
            for key in up:
                box = box[int(key)] if isinstance(box, list) else box[key]
            if isinstance(box, list):
                box[int(last)] = float(reason)
            else:
                box[last] = float(reason)
        except (KeyError, IndexError, ValueError, TypeError):
            raise ValueError(f"d['nonfinite'] names {path!r}, which d does not have") from None
    return out


@dataclass(frozen=True, eq=False, repr=False)
class Estimate(Result):
    """An information quantity with its uncertainty and provenance.

    Parameters
    ----------
    value
        The point estimate, in ``unit``.
    unit
        ``"nats"``, ``"bits"``, ``"hartleys"`` or ``"base-B"``; ``"utility"`` for values of
        decisions (value of information, persuasion value) in the problem's own utility
        units, which never convert to information units.
    method
        Registered estimator name that produced the value (after ``auto`` resolved).
    quantity
        What was estimated: ``"entropy"``, ``"mutual_info"``, ``"cond_mutual_info"``,
        ``"kl_divergence"``, ... (later families add their own names).
    params
        The estimator's parameters as used (defaults filled in).
    n
        Number of samples the estimate used (``None`` for exact computations).
    stderr
        Standard error in ``unit``; ``None`` unless requested or native to the method.
    ci
        ``(low, high)`` confidence interval in ``unit``; ``None`` unless requested.
    ci_level
        Nominal coverage of ``ci`` (e.g. ``0.95``).
    diagnostics
        Free-form, JSON-safe facts about the run: ``warnings`` (list of str),
        ``auto_reason``, ties fraction, saturation flags, convergence, ...

    Examples
    --------
    >>> e = Estimate(0.6931, "nats", "plugin", "entropy", n=100)
    >>> round(e.to("bits").value, 4)
    0.9999
    >>> float(e) + 1
    1.6931
    """

    value: float
    unit: str = "nats"
    method: str = ""
    quantity: str = ""
    params: dict[str, Any] = field(default_factory=dict)
    n: int | None = None
    stderr: float | None = None
    ci: tuple[float, float] | None = None
    ci_level: float | None = None
    diagnostics: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "value", float(self.value))
        object.__setattr__(self, "unit", _canonical_unit(self.unit))
        if self.stderr is not None:
            object.__setattr__(self, "stderr", float(self.stderr))
        if self.ci is not None:
            lo, hi = self.ci
            object.__setattr__(self, "ci", (float(lo), float(hi)))
        if self.n is not None:
            object.__setattr__(self, "n", int(self.n))

    # ------------------------------------------------------------------ units
    def to(self, unit: str) -> Estimate:
        """Return the same estimate expressed in another unit (exact conversion)."""
        dst = _canonical_unit(unit)
        f = unit_factor(self.unit, dst)
        return replace(
            self,
            value=self.value * f,
            unit=dst,
            stderr=None if self.stderr is None else self.stderr * f,
            ci=None if self.ci is None else (self.ci[0] * f, self.ci[1] * f),
        )

    @property
    def warnings(self) -> list[str]:
        """Warnings raised while computing this estimate."""
        return list(self.diagnostics.get("warnings", []))

    # ------------------------------------------------------------- float-like
    def __float__(self) -> float:
        return self.value

    def __int__(self) -> int:
        return int(self.value)

    def __round__(self, ndigits: int | None = None) -> float:
        return round(self.value, ndigits) if ndigits is not None else round(self.value)

    def __bool__(self) -> bool:
        return self.value != 0.0

    # Equality and hashing (docs/api.md): an Estimate is float-like.  It equals a real
    # number x when value == x, and another Estimate when every field is equal; it hashes
    # as its value, so a == b implies hash(a) == hash(b) (NaN hashes as 0, whatever object
    # holds it, so an Estimate of NaN equals and hashes as itself).
    def __hash__(self) -> int:
        return 0 if math.isnan(self.value) else hash(self.value)

    @staticmethod
    def _other(o: Any) -> float:
        return float(o)

    def __eq__(self, o: object) -> bool:
        if isinstance(o, Estimate):
            return self.to_dict() == o.to_dict()
        if isinstance(o, numbers.Number):  # numpy scalars too; strings and arrays are not
            return self.value == o
        return NotImplemented

    def __lt__(self, o: Any) -> bool:
        return self.value < self._other(o)

    def __le__(self, o: Any) -> bool:
        return self.value <= self._other(o)

    def __gt__(self, o: Any) -> bool:
        return self.value > self._other(o)

    def __ge__(self, o: Any) -> bool:
        return self.value >= self._other(o)

    def __add__(self, o: Any) -> float:
        return self.value + self._other(o)

    __radd__ = __add__

    def __sub__(self, o: Any) -> float:
        return self.value - self._other(o)

    def __rsub__(self, o: Any) -> float:
        return self._other(o) - self.value

    def __mul__(self, o: Any) -> float:
        return self.value * self._other(o)

    __rmul__ = __mul__

    def __truediv__(self, o: Any) -> float:
        return self.value / self._other(o)

    def __rtruediv__(self, o: Any) -> float:
        return self._other(o) / self.value

    def __neg__(self) -> float:
        return -self.value

    def __abs__(self) -> float:
        return abs(self.value)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return np.asarray(self.value, dtype=dtype)

    # ----------------------------------------------------------- serialising
    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict; :meth:`from_dict` inverts it.

        A non-finite number is ``null``, named with its reason under ``"nonfinite"``
        (``{"value": None, ..., "nonfinite": {"value": "nan"}}``).
        """
        why: dict[str, str] = {}
        out = {
            "value": json_safe(self.value, why, "value"),
            "unit": self.unit,
            "method": self.method,
            "quantity": self.quantity,
            "params": json_safe(self.params, why, "params"),
            "n": self.n,
            "stderr": json_safe(self.stderr, why, "stderr"),
            "ci": None if self.ci is None else json_safe(list(self.ci), why, "ci"),
            "ci_level": self.ci_level,
            "diagnostics": json_safe(self.diagnostics, why, "diagnostics"),
        }
        if why:
            out["nonfinite"] = why
        return out

    def to_frame(self) -> Any:
        """One row: value, unit, stderr, ci_low, ci_high, ci_level, method, quantity, n."""
        import pandas as pd

        lo, hi = (None, None) if self.ci is None else self.ci
        return pd.DataFrame(
            [
                {
                    "value": self.value,
                    "unit": self.unit,
                    "stderr": self.stderr,
                    "ci_low": lo,
                    "ci_high": hi,
                    "ci_level": self.ci_level,
                    "method": self.method,
                    "quantity": self.quantity,
                    "n": self.n,
                }
            ]
        )

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Estimate:
        """Rebuild an :class:`Estimate` from :meth:`to_dict` output.

        Every field is checked: a bad one is a ``TypeError``/``ValueError`` naming it
        (``d['value']``, ``d['ci']``, ...), never a bare ``float()`` error.  Other keys (a
        CLI's ``compressor`` column, say) are ignored.

        Examples
        --------
        >>> e = Estimate.from_dict({"value": 0.5, "unit": "bits", "method": "plugin"})
        >>> e.value, e.unit
        (0.5, 'bits')
        """
        if not isinstance(d, dict):
            raise TypeError(f"from_dict needs a dict (to_dict's output), got {type(d).__name__}")
        d = _restore_nonfinite(d)
        if "value" not in d:
            raise ValueError("from_dict needs a dict with at least a 'value' key")
        ci = d.get("ci")
        if ci is not None and (not isinstance(ci, list | tuple) or len(ci) != 2):
            raise ValueError(f"d['ci'] must be a pair [low, high] or None, got {ci!r}")
        n = d.get("n")
        if n is not None and (isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 0):
            raise ValueError(f"d['n'] must be a non-negative integer or None, got {n!r}")
        level = d.get("ci_level")
        if level is not None:
            level = _stored_number(level, "ci_level")
            if not 0.0 < level < 1.0:
                raise ValueError(f"d['ci_level'] must be in (0, 1), got {level!r}")
        for key in ("unit", "method", "quantity"):
            if key in d and not isinstance(d[key], str):
                raise TypeError(f"d[{key!r}] must be a string, got {d[key]!r}")
        for key in ("params", "diagnostics"):
            if d.get(key) is not None and not isinstance(d[key], dict):
                raise TypeError(f"d[{key!r}] must be a dict or None, got {type(d[key]).__name__}")
        stderr = d.get("stderr")
        try:
            unit = _canonical_unit(d.get("unit", "nats"))
        except ValueError as exc:
            raise ValueError(f"d['unit']: {exc}") from None
        return cls(
            value=_stored_number(d["value"], "value"),
            unit=unit,
            method=d.get("method", ""),
            quantity=d.get("quantity", ""),
            params=dict(d.get("params") or {}),
            n=n,
            stderr=None if stderr is None else _stored_number(stderr, "stderr"),
            ci=None if ci is None else tuple(_stored_number(c, "ci") for c in ci),
            ci_level=level,
            diagnostics=dict(d.get("diagnostics") or {}),
        )

    def rounded(self) -> tuple[str, str | None, str | None]:
        """``(value, ci_low, ci_high)`` as strings rounded to the estimate's error (its
        standard error, else the interval's half-width; see :func:`round_to_error`).

        Examples
        --------
        >>> Estimate(0.69314, stderr=0.0213, ci=(0.6514, 0.7349), ci_level=0.95).rounded()
        ('0.693', '0.651', '0.735')
        >>> Estimate(3.0).rounded()
        ('3', None, None)
        """
        error = self.stderr
        if error is None and self.ci is not None:
            error = (self.ci[1] - self.ci[0]) / 2
        value, _ = round_to_error(self.value, error)
        if self.ci is None:
            return value, None, None
        if error is None or not math.isfinite(error) or error == 0:
            return value, _fmt(self.ci[0]), _fmt(self.ci[1])
        lo, _ = round_to_error(self.ci[0], error)
        hi, _ = round_to_error(self.ci[1], error)
        return value, lo, hi

    def __format__(self, spec: str) -> str:
        """``format(est, ".3f")`` and f-strings format the value; ``f"{est}"`` is the repr.

        Examples
        --------
        >>> e = Estimate(0.693147, "nats", "plugin", n=100)
        >>> f"{e:.3f} {e.unit}"
        '0.693 nats'
        >>> f"{e}"
        '0.693 nats [plugin, n=100]'
        """
        return repr(self) if not spec else format(self.value, spec)

    def __repr__(self) -> str:
        value, lo, hi = self.rounded()
        s = f"{value} {self.unit}"
        if self.stderr is not None:
            s += f" ± {round_to_error(self.value, self.stderr)[1] or _fmt(self.stderr)}"
            if self.diagnostics.get("stderr_kind") == "monte_carlo":
                s += " (Monte Carlo only)"
        if self.ci is not None:
            lvl = f"{round(100 * self.ci_level):d}% " if self.ci_level else ""
            note = ""
            if self.diagnostics.get("ci_clipped"):
                note = ", lower bound clipped at 0"
            elif self.diagnostics.get("ci_below_zero"):
                note = ", wholly below 0: estimator error"
            s += f" ({lvl}CI {lo}–{hi}{note})"
        tag = self.method or "?"
        if self.n is not None:
            tag += f", n={self.n}"
        return f"{s} [{tag}]"

    __str__ = __repr__
