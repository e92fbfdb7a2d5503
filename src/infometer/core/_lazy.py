"""The one lazy-import mechanism of infometer (PEP 562).

A package that keeps ``import infometer`` light (no numpy, scipy, numba, torch... until a
name is used) lists its lazy names in one table and gets its module-level ``__getattr__``
and ``__dir__`` from :func:`attach`::

    from typing import TYPE_CHECKING

    from infometer.core._lazy import attach

    if TYPE_CHECKING:  # what a type checker (and a reader) sees: the same names, statically
        from .network import NetworkResult, infer_network
        from . import simulate

    __getattr__, __dir__ = attach(
        __name__,
        {"infer_network": ".network", "NetworkResult": ".network"},
        modules={"simulate": ".simulate"},
    )

Each entry of the table is ``name -> module``: the attribute ``name`` of that module; each
entry of ``modules`` is ``name -> module``: that module itself.  A module path that starts
with a dot is relative to the package.  The first access imports, caches the
value in the package (later accesses are plain attribute reads) and returns it; an
``ImportError`` of an optional dependency becomes a
:class:`~infometer.core._extras.MissingExtraError` that names the extra to install
(``pip install 'infometer[torch]'``).

``tests/test_lazy.py`` checks that the ``TYPE_CHECKING`` imports of every package that
calls :func:`attach` name exactly the entries of its table, from the same modules.

:func:`lazy_module` is the other half: a module object whose import waits for its first
attribute (compiled kernels that load numba, used inside functions of a module that
registering a family imports).
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Callable, Iterable, Mapping
from types import ModuleType
from typing import Any

from infometer.core._extras import MissingExtraError, missing_extra

__all__ = ["attach", "lazy_module"]


def _load(package: str, module: str, name: str | None) -> Any:
    """Import ``module`` (relative to ``package`` when it starts with a dot) and return its
    attribute ``name`` (the module itself for None); an optional dependency that is missing
    is a MissingExtraError naming the extra."""
    try:
        mod = importlib.import_module(module, package)
        return mod if name is None else getattr(mod, name)
    except ImportError as exc:
        what = f"{package}.{name or module.lstrip('.')}"
        inner = getattr(exc, "lazy_name", None)
        if inner is not None:  # raised by a nested lazy package: name what was asked for
            named = MissingExtraError(str(exc).replace(inner, what, 1), name=exc.name)
            named.lazy_name = what  # type: ignore[attr-defined]
            raise named from exc.__cause__
        named = missing_extra(exc, what)
        if named is None:
            raise
        named.lazy_name = what  # type: ignore[attr-defined]
        raise named from exc


def attach(
    package: str,
    table: Mapping[str, str],
    *,
    modules: Mapping[str, str] | None = None,
    public: Iterable[str] | None = None,
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for the package ``package`` whose lazy names are ``table``.

    Parameters
    ----------
    package
        The package's ``__name__``.
    table
        Lazy name -> the module that holds it (``".network"``, or an absolute path).
    modules
        Lazy name -> the module that is the value (``"simulate": ".simulate"``).
    public
        The names ``dir()`` lists; default: the package's ``__all__`` when it has one,
        else its globals and the lazy names.

    Returns
    -------
    tuple
        The package's ``__getattr__`` and ``__dir__``.

    Examples
    --------
    >>> import types, sys
    >>> pkg = types.ModuleType("demo_pkg")
    >>> sys.modules["demo_pkg"] = pkg
    >>> pkg.__getattr__, pkg.__dir__ = attach("demo_pkg", {"sqrt": "math"})
    >>> pkg.sqrt(9.0), "sqrt" in vars(pkg)   # imported on first use, then cached
    (3.0, True)
    """
    entries: dict[str, tuple[str, str | None]] = {n: (m, n) for n, m in table.items()}
    entries.update({n: (m, None) for n, m in (modules or {}).items()})
    names = None if public is None else sorted(public)

    def __getattr__(name: str) -> Any:
        try:
            module, attr = entries[name]
        except KeyError:
            raise AttributeError(f"module {package!r} has no attribute {name!r}") from None
        value = _load(package, module, attr)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        if names is not None:
            return list(names)
        mod = sys.modules[package]
        exported = getattr(mod, "__all__", None)
        if exported is not None:
            return sorted(exported)
        return sorted({*vars(mod), *entries})

    __getattr__.lazy_table = entries  # type: ignore[attr-defined]  # read by tests/test_lazy.py
    return __getattr__, __dir__


class _LazyModule(ModuleType):
    """A stand-in that imports its module on first attribute access, then forwards.

    Each attribute is kept on the stand-in once read: a module's ``__getattr__`` runs only
    after the ordinary lookup has failed (an ``AttributeError`` raised and caught, ~1 µs),
    which kernels called in a loop of small calls would pay every time.  So a name the
    target module rebinds later is not seen through the stand-in (the kernel modules
    loaded this way never rebind theirs).
    """

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.__dict__["_lazy_target"] = None

    def __getattr__(self, attr: str) -> Any:
        target = self.__dict__["_lazy_target"]
        if target is None:
            target = importlib.import_module(self.__name__)
            self.__dict__["_lazy_target"] = target
        value = getattr(target, attr)
        self.__dict__[attr] = value
        return value


def lazy_module(name: str, package: str | None = None) -> ModuleType:
    """The module ``name`` (relative to ``package`` when it starts with a dot), imported
    when one of its attributes is first used.

    Examples
    --------
    >>> m = lazy_module("json")
    >>> m.dumps([1])
    '[1]'
    """
    return _LazyModule(importlib.util.resolve_name(name, package) if package else name)
