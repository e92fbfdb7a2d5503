"""The CLI's consoles and printers, shared by every sub-command module.

* Text that comes from users or the library (column names, file names, messages) is
  printed as plain text, never read as console markup: ``dose[mg]`` stays ``dose[mg]``.
* Output written to a file or a pipe is not wrapped at 80 columns (a table keeps its
  estimator names whole); ``COLUMNS`` still sets a width when given.
* ``--json`` output goes through :func:`print_json` (one JSON document on stdout).
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from rich.console import Console, ConsoleDimensions
from rich.text import Text

__all__ = [
    "out",
    "err",
    "say",
    "note",
    "warn_line",
    "error_line",
    "cell",
    "print_json",
    "summarize_warnings",
    "warn_summary",
]

#: Width of output that goes to a file or a pipe (no terminal to fit).
PIPE_WIDTH = 1000


class _Console(Console):
    """A rich console that does not wrap at 80 columns when its output is not a terminal."""

    @property
    def size(self) -> ConsoleDimensions:
        dims = Console.size.fget(self)  # type: ignore[attr-defined]
        if self.is_terminal:
            return dims
        # read COLUMNS now, not when the console was made (rich fixes its width from the
        # COLUMNS of the moment it is created, which may be another command's)
        cols = os.environ.get("COLUMNS", "")
        return ConsoleDimensions(int(cols) if cols.isdigit() else PIPE_WIDTH, dims.height)

    @size.setter
    def size(self, new_size: tuple[int, int]) -> None:
        Console.size.fset(self, new_size)  # type: ignore[attr-defined]


out = _Console(highlight=False)
err = _Console(stderr=True, highlight=False)


def _line(tag: str, style: str, message: Any) -> Text:
    return Text.assemble((tag, style), " ", str(message)) if tag else Text(str(message), style)


def _current_context() -> Any:
    """The running command's context (typer vendors click in newer versions), or None."""
    try:
        from typer._click.globals import get_current_context
    except ImportError:  # pragma: no cover - typer on plain click
        from click import get_current_context
    return get_current_context(silent=True)


#: Where a command says that it keeps finished work (see :func:`mark_resumable`).
_RESUMABLE = "infometer.resumable"


def mark_resumable() -> None:
    """Say that the running command keeps its finished work (a store, an ``--out`` folder
    of parts): Ctrl-C then prints "interrupted; run again to resume" instead of
    "interrupted" (``app._interrupted``, the one handler).  Call it once the command knows
    it has a store."""
    ctx = _current_context()
    if ctx is not None:
        ctx.meta[_RESUMABLE] = True


def _cli_option_words(message: str) -> str:
    """Python argument words in a library message, said as the running command's flags:
    ``pass discrete=True`` -> ``pass --discrete``, ``method='infosedd'`` -> ``--method
    infosedd``.  Only names that are options of the command being run are rewritten."""
    import re

    ctx = _current_context()
    if ctx is None:
        return message
    flags: dict[str, tuple[str, str | None]] = {}
    for p in ctx.command.params:
        opts = [o for o in getattr(p, "opts", []) if o.startswith("--")]
        if not opts or p.name is None:
            continue
        neg = [o for o in getattr(p, "secondary_opts", []) if o.startswith("--")]
        flags[p.name] = (opts[0], neg[0] if neg else None)

    def swap(m: re.Match[str]) -> str:
        name, value = m.group(1), m.group(2)
        if name not in flags:
            return m.group(0)
        on, off = flags[name]
        if value == "True":
            return on
        if value == "False":
            return off or m.group(0)
        if value == "None":
            return m.group(0)
        return f"{on} {value.strip(chr(39) + chr(34))}"

    return re.sub(r"\b([a-z_]+)=('[^']*'|\"[^\"]*\"|[\w.+-]+)", swap, message)


def say(message: Any, style: str = "", console: Console | None = None) -> None:
    """Print ``message`` as plain text (no markup) on stdout, or on ``console``."""
    (console or out).print(Text(str(message), style=style), soft_wrap=True)


def note(message: Any) -> None:
    """A dim remark on stderr (progress notes, skipped items): plain text."""
    err.print(Text(str(message), style="dim"), soft_wrap=True)


def warn_line(message: Any) -> None:
    """One ``warning:`` line on stderr, ``message`` as plain text."""
    err.print(_line("warning:", "yellow", _cli_option_words(str(message))), soft_wrap=True)


def error_line(message: Any) -> None:
    """One ``error:`` line on stderr, ``message`` as plain text."""
    err.print(_line("error:", "bold red", _cli_option_words(str(message))), soft_wrap=True)


def cell(value: Any) -> Text:
    """A table cell holding ``value`` as plain text (rich reads ``str`` cells as markup)."""
    return value if isinstance(value, Text) else Text(str(value))


def print_json(obj: Any) -> None:
    """One JSON document on stdout (numpy scalars made plain; a NaN or an infinity is
    ``null``, named with its reason under ``"nonfinite"``: ``results.json_document``)."""
    from infometer.core.results import json_document

    sys.stdout.write(json.dumps(json_document(obj), allow_nan=False) + "\n")
    sys.stdout.flush()


def _cause(message: str) -> str:
    """What a warning is about, without its particulars (names, numbers, quoted text)."""
    import re

    key = re.sub(r"'[^']*'|\"[^\"]*\"|\[[^\]]*\]", "…", message)
    key = re.sub(r"[-+]?\d[\d.eE+-]*", "#", key)
    return re.sub(r"^[^:]{0,60}: ", "", key)  # "column a: ..." and "column b: ..." alike


def summarize_warnings(messages: list[str], limit: int = 5) -> list[str]:
    """One line per cause: identical messages once, and messages that differ only in names
    or numbers as the first of them with how many more there are; at most ``limit`` lines.

    Examples
    --------
    >>> summarize_warnings(["x: 3 ties", "y: 5 ties", "x: 3 ties", "other"])
    ['x: 3 ties (and 1 more like it)', 'other']
    """
    groups: dict[str, list[str]] = {}
    for m in messages:
        groups.setdefault(_cause(str(m)), [])
        if str(m) not in groups[_cause(str(m))]:
            groups[_cause(str(m))].append(str(m))
    lines = []
    for msgs in groups.values():
        more = len(msgs) - 1
        lines.append(msgs[0] + (f" (and {more} more like it)" if more else ""))
    if len(lines) > limit:
        rest = len(lines) - limit + 1
        lines = lines[: limit - 1] + [f"{rest} more kinds of warning"]
    return lines


def warn_summary(messages: list[str], limit: int = 5) -> None:
    """Print :func:`summarize_warnings` of ``messages``, one ``warning:`` line each."""
    for line in summarize_warnings(messages, limit):
        warn_line(line)
