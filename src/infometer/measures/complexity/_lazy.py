"""The compiled kernels, imported on first use: registering the family (which every
registry lookup does) must not load numba (``tests/test_import_light.py``)."""

from __future__ import annotations

from typing import Any


class _Kernels:
    def __getattr__(self, name: str) -> Any:
        from . import _kernels

        return getattr(_kernels, name)


#: ``K.ordinal_histogram(...)`` etc.: :mod:`._kernels`, loaded when first called.
K = _Kernels()
