"""The CLI's consoles and printers, shared by every sub-command module.

* Text that comes from users or the library (column names, file names, messages) is
  printed as plain text, never read as console markup: ``dose[mg]`` stays ``dose[mg]``.
* Output written to a file or a pipe is 80 columns wide (``COLUMNS`` sets another width);
  tables made by :func:`table` fold a long cell onto more lines, never cut a name short.
* Progress bars go to a terminal only (``infometer.core.progress``: ``progress=None``).
* ``--json`` output goes through :func:`print_json` (one strict JSON document on stdout).
* Library messages reach the user in the command's words (:func:`cli_words`:
  ``pass discrete=True`` -> ``pass --discrete``); every ``warning:``/``error:`` line and
  ``auto:`` note is printed through it.
"""

from __future__ import annotations

import functools
import json
import os
import sys
from collections.abc import Callable
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
    "table",
    "print_json",
    "print_json_lines",
    "estimate_json",
    "summarize_warnings",
    "warn_summary",
    "cli_names",
    "fail",
    "warn",
    "user_errors",
]

#: Width of output that goes to a file or a pipe (no terminal to fit).
PIPE_WIDTH = 80


class _Console(Console):
    """A rich console whose width, when its output is not a terminal, is ``COLUMNS`` read
    when printing (not when the console was made), else :data:`PIPE_WIDTH`."""

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


#: Console markup is off: nothing printed is read as markup, so a column, file or message
#: holding ``[/red]`` or ``a[/x]`` prints as it is (a ``MarkupError`` used to end the
#: command); styles come from :class:`rich.text.Text` objects (:func:`say`, :func:`warn_line`).
out = _Console(highlight=False, markup=False)
err = _Console(stderr=True, highlight=False, markup=False)


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


#: Where a command lists the library arguments its options stand for (:func:`cli_names`).
_ALIASES = "infometer.aliases"


def cli_names(**names: str) -> None:
    """Say which library arguments the running command's options stand for, where the
    names differ and :data:`_PYTHON_NAMES` does not say it (``scales="--multiscale"``,
    ``X=file``): an error line that starts with the library's name says the option."""
    ctx = _current_context()
    if ctx is not None:
        ctx.meta.setdefault(_ALIASES, {}).update(names)


#: Library argument names whose CLI option has another name (the option's parameter name).
_PYTHON_NAMES = {"n_permutations": "permutations", "n_jobs": "jobs", "n_surrogates": "permutations"}


def cli_words(message: str) -> str:
    """Python argument words in a library message, said as the running command's flags --
    the one translation between the two interfaces: ``pass discrete=True`` -> ``pass
    --discrete``, ``discrete=False`` -> ``--continuous``, ``discrete=True/False`` ->
    ``--discrete/--continuous``, ``method='infosedd'`` -> ``--method infosedd``, ``pass
    method= explicitly`` -> ``pass --method explicitly``, and the argument a message starts
    with (``max_lag must be >= 1`` -> ``--max-lag must be >= 1``; others through
    :func:`cli_names`).  Only names that are options of the command being run are
    rewritten (outside a command the text is returned as it is).

    Examples
    --------
    >>> cli_words("pass discrete=True")  # no command running: unchanged
    'pass discrete=True'
    """
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
    aliases: dict[str, str] = ctx.meta.get(_ALIASES, {})
    # the registry's "unknown method 'x' for q" names the option that chose the estimator
    # (--method, or the one a command names with cli_names(registry_method="--cmi"))
    unknown = re.match(r"unknown method (?=['\"])", message)
    said = aliases.get("registry_method") or (flags["method"][0] if "method" in flags else None)
    if unknown is not None and said is not None:
        message = f"{said}: {message}"
    if "Dask scheduler" in message and "scheduler" in flags:  # unreachable, or not Dask
        message = f"{flags['scheduler'][0]}: {message}"
    lead = re.match(r"([A-Za-z_][A-Za-z0-9_]*)(?=[ :\[])", message)
    if lead is not None:
        word = lead.group(1)
        opt = word if word in flags else _PYTHON_NAMES.get(word, word)
        flag = aliases.get(word) or (flags[opt][0] if opt in flags else None)
        if flag is not None:
            message = flag + message[len(word) :]

    def one(on: str, off: str | None, value: str) -> str | None:
        if value in ("", "..."):
            return on if not value else f"{on} ..."
        if value == "True":
            return on
        if value == "False":
            return off
        if value == "None":
            return None
        return f"{on} {value.strip(chr(39) + chr(34))}"

    def swap(m: re.Match[str]) -> str:
        name, value = m.group(1), m.group(2) or ""
        name = name if name in flags else _PYTHON_NAMES.get(name, name)
        if name not in flags:
            return m.group(0)
        on, off = flags[name]
        quoted = value[:1] in ("'", '"')  # a path keeps its slashes: True/False splits
        said = [one(on, off, v) for v in ([value] if quoted or value == "/" else value.split("/"))]
        if any(s is None for s in said):
            return m.group(0)
        return "/".join(s for s in said if s is not None)

    # a Python value: a quoted string, True/False/None, a number or "..." -- not a bare word
    # ("kinds (x=continuous)" describes data, it names no argument); no sentence's full stop
    word = r"True|False|None|[+-]?\d+(?:\.\d+)?(?:e[+-]?\d+)?"
    value = rf"'[^']*'|\"[^\"]*\"|\.\.\.|(?:{word})(?:/(?:{word}))*"
    return re.sub(rf"(?<![\w.-])([a-z_]+)=(?:({value})|(?![\w'\"(\[]))", swap, message)


def _fit(message: str, console: Console) -> str:
    """``message`` folded at spaces to the width of ``console`` when it is stdout (80
    columns on a pipe), later lines indented two spaces; a word longer than the width (a
    path) stays whole.  Lines on stderr stay one per message (``grep warning:`` finds each
    whole)."""
    import textwrap

    if console is not out:
        return message
    width = max(40, console.width)
    return "\n".join(
        textwrap.fill(
            part,
            width,
            subsequent_indent="  ",
            break_long_words=False,
            break_on_hyphens=False,
        )
        if len(part) > width
        else part
        for part in message.split("\n")
    )


def _print_line(tag: str, style: str, message: str, console: Console | None = None) -> None:
    """``tag message`` on one line (on stdout: folded to its width); ``message`` is plain
    text, never console markup (a column named ``dose[mg]`` or ``a[/x]`` prints as it is)."""
    console = console or err
    text = _fit(f"{tag} {message}", console)
    line = Text.assemble((tag, style), text[len(tag) :])
    console.print(line, highlight=False, soft_wrap=True)


def fail(message: str) -> None:
    """Print a one-line error (plain text, the command's flag names) and exit with status 2."""
    import typer

    _print_line("error:", "bold red", cli_words(str(message)))
    raise typer.Exit(code=2)


def warn(message: str) -> None:
    """Print one ``warning:`` line on stderr (plain text, the command's flag names)."""
    _print_line("warning:", "yellow", cli_words(str(message)))


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def user_errors(func: Callable[..., Any]) -> Callable[..., Any]:
    """Turn the library's ValueError/TypeError (bad input), OSError and a missing optional
    dependency into a one-line error, exit 2."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from infometer.core._extras import missing_extra
        from infometer.core.progress import quiet

        try:
            with quiet(bool(kwargs.get("quiet"))):  # --quiet: no bar anywhere below
                return func(*args, **kwargs)
        except ImportError as exc:
            named = missing_extra(exc, f"infometer {_command_name()}")
            fail(_first_line(named or exc))
        except (ValueError, TypeError, OSError) as exc:
            fail(_first_line(exc))

    return wrapper


def _command_name() -> str:
    ctx = _current_context()
    if ctx is None:
        return "this command"
    return " ".join(ctx.command_path.split()[1:]) or "this command"


def say(message: Any, style: str = "", console: Console | None = None) -> None:
    """Print ``message`` as plain text (no markup) on stdout (folded at spaces to its
    width, 80 columns on a pipe), or on ``console``."""
    console = console or out
    console.print(Text(_fit(str(message), console), style=style), soft_wrap=True)


def note(message: Any) -> None:
    """A dim remark on stderr (progress notes, skipped items, ``auto`` choices): plain
    text, in the command's words."""
    err.print(Text(cli_words(str(message)), style="dim"), soft_wrap=True)


def warn_line(message: Any) -> None:
    """One ``warning:`` line on stderr, ``message`` as plain text."""
    err.print(_line("warning:", "yellow", cli_words(str(message))), soft_wrap=True)


def error_line(message: Any) -> None:
    """One ``error:`` line on stderr, ``message`` as plain text."""
    err.print(_line("error:", "bold red", cli_words(str(message))), soft_wrap=True)


def table(*headers: Any, **kwargs: Any) -> Any:
    """A rich ``Table`` whose cells fold (wrap inside a word) rather than end in an ellipsis:
    a name never loses its end when the table is narrowed to the output's width."""
    from rich.table import Column, Table

    cols = [h if isinstance(h, Column) else Column(str(h), overflow="fold") for h in headers]
    t = Table(*cols, **kwargs)
    add_column = t.add_column

    def folding(*args: Any, **kw: Any) -> None:
        kw.setdefault("overflow", "fold")
        add_column(*args, **kw)

    t.add_column = folding  # type: ignore[method-assign]
    return t


def cell(value: Any) -> Text:
    """A table cell holding ``value`` as plain text (rich reads ``str`` cells as markup)."""
    return value if isinstance(value, Text) else Text(str(value))


def estimate_json(est: Any, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """An Estimate as the CLI prints it with ``--json``: :meth:`Estimate.to_dict` with its
    numbers as numbers (``to_dict`` spells a NaN ``"nan"``; :func:`print_json` makes it
    ``null`` named under ``"nonfinite"``), plus ``extra``."""
    d = est.to_dict()
    diag = d.get("diagnostics", {})
    for key in ("warnings", "auto_reason"):  # said for this interface, as on stderr
        if isinstance(diag.get(key), list):
            diag[key] = [cli_words(str(w)) for w in diag[key]]
        elif isinstance(diag.get(key), str):
            diag[key] = cli_words(diag[key])
    d["value"], d["stderr"] = est.value, est.stderr
    d["ci"] = None if est.ci is None else list(est.ci)
    d.update(extra or {})
    return d


def print_json(obj: Any) -> None:
    """One JSON document on stdout (numpy scalars made plain; a NaN or an infinity is
    ``null``, named with its reason under ``"nonfinite"``: ``results.json_document``)."""
    from infometer.core.results import json_document

    sys.stdout.write(json.dumps(json_document(obj), allow_nan=False) + "\n")
    sys.stdout.flush()


def print_json_lines(rows: Any) -> None:
    """One strict JSON document per row (``--json`` of the commands that stream rows)."""
    for row in rows:
        print_json(row)


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
