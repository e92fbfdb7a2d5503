"""``infometer`` command-line interface (typer + rich).

Sub-command groups live in their own modules listed in :data:`SUBCOMMANDS`; each exposes
``register(app)``.  User errors print one line on stderr and exit with code 2.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from typing import Any

import typer
from rich.text import Text

from infometer import __version__

from . import _options as opt
from ._console import (  # noqa: F401  (fail, warn, user_errors: the modules' imports)
    _RESUMABLE,
    _command_name,
    _current_context,
    _first_line,
    _print_line,
    cell,
    cli_words,
    err,
    estimate_json,
    fail,
    out,
    print_json,
    say,
    table,
    user_errors,
    warn,
)

#: Modules that add sub-commands (skipped when not installed in this build).
SUBCOMMANDS: tuple[str, ...] = (
    "infometer.cli.demo",
    "infometer.cli.bench",
    "infometer.cli.seq",
    "infometer.cli.layers",
    "infometer.cli.text",
    "infometer.cli.pairwise",
    "infometer.cli.network",
    "infometer.cli.multi",
    "infometer.cli.complexity",
    "infometer.cli.extract",
)


def _usage_error_class() -> type[Exception]:
    try:
        from typer._click.exceptions import ClickException
    except ImportError:  # pragma: no cover - typer on plain click
        from click.exceptions import ClickException
    return ClickException


def _interrupted(ctx: Any) -> None:
    """Ctrl-C, wherever it came from in a command: one line on stderr, exit status 130.
    The one place the CLI handles it (every command goes through :class:`_Group`)."""
    line = "interrupted; run again to resume" if ctx.meta.get(_RESUMABLE) else "interrupted"
    err.print(Text(line), highlight=False, soft_wrap=True)
    raise typer.Exit(code=130)


class _Group(typer.core.TyperGroup):
    """The top-level command group: a bad option value (``--ci x``, an unknown flag) is one
    ``error:`` line on stderr with exit 2, like every other user error (no usage box);
    Ctrl-C in any command is one line and exit status 130 (:func:`_interrupted`)."""

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            _interrupted(ctx)

    def main(self, *args: Any, standalone_mode: bool = True, **kwargs: Any) -> Any:
        click_error = _usage_error_class()
        try:
            rv = super().main(*args, standalone_mode=False, **kwargs)
        except click_error as exc:
            if type(exc).__name__ == "NoArgsIsHelpError":  # bare ``infometer``: the help
                if not standalone_mode:
                    raise
                sys.exit(exc.exit_code)  # already printed; click's status (2) as before
            if not standalone_mode:
                raise
            message = " ".join(exc.format_message().split())
            ctx = getattr(exc, "ctx", None)
            where = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
            _print_line("error:", "bold red", message + where)
            sys.exit(exc.exit_code)
        except typer.Abort:
            if not standalone_mode:
                raise
            _print_line("error:", "bold red", "aborted")
            sys.exit(1)
        if standalone_mode:
            sys.exit(rv if isinstance(rv, int) else 0)
        return rv


app = typer.Typer(
    name="infometer",
    cls=_Group,
    help="Measure information (entropy, MI, CMI, KL) in data files, with error bars.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # plain help: fits a pipe, and a flag shows no <bool> type
)


def _version(value: bool) -> None:
    if value:
        out.print(f"infometer {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """infometer: information measures with honest error bars."""


def emit(est: Any, as_json: bool, extra: dict[str, Any] | None = None) -> None:
    """Print an Estimate as a line (and its warnings) or as JSON."""
    if as_json:
        print_json(estimate_json(est, extra))
        return
    out.print(repr(est), highlight=False, markup=False)
    reason = est.diagnostics.get("auto_reason")
    if reason:
        _print_line("auto:", "dim", cli_words(reason), out)


def _estimate(
    quantity: str,
    data: dict[str, Any],
    method: str,
    unit: str,
    ci: float | None,
    seed: int,
    discrete: bool | None,
    quiet: bool = False,
    dequantize: bool | None = None,
) -> Any:
    import warnings

    from infometer.core.api import estimate
    from infometer.core.progress import quiet as no_bars

    params = {} if dequantize is None else {"dequantize": dequantize}
    with warnings.catch_warnings(), no_bars(quiet):
        warnings.simplefilter("ignore")  # warnings are in diagnostics; printed below
        est = estimate(
            quantity,
            data,
            method=method,
            unit=unit,
            ci=ci,
            seed=seed,
            discrete=discrete,
            paired=quantity != "kl_divergence",
            **params,
        )
    for w in est.warnings:
        warn(w)
    return est


def _set_threads(threads: int | None) -> None:
    """``--threads``: torch's intra-op threads, only when given (torch is not imported else)."""
    if threads is None:
        return
    from infometer.core.data import check_int
    from infometer.core.training import set_threads

    set_threads(check_int(threads, "--threads", min_value=1))


_METHOD = opt.METHOD
_UNIT = opt.UNIT
_CI = typer.Option(None, "--ci", help="Confidence level for an interval, e.g. 0.95.")
_JSON = opt.JSON
_SEED = opt.SEED
_QUIET = opt.QUIET
_THREADS = typer.Option(
    None,
    "--threads",
    help="torch intra-op threads for trained estimators (neural, infosedd; default 1).",
)
_DISCRETE = opt.DISCRETE
_DEQUANTIZE = opt.DEQUANTIZE


@app.command("entropy")
@user_errors
def entropy_cmd(
    file: str = typer.Argument(..., help="CSV/TSV, Parquet, .npy or JSONL file."),
    columns: str = opt.COLUMNS,
    method: str = _METHOD,
    unit: str = _UNIT,
    ci: float = _CI,
    json_out: bool = _JSON,
    seed: int = _SEED,
    discrete: bool = _DISCRETE,
    dequantize: bool = _DEQUANTIZE,
    quiet: bool = _QUIET,
    threads: int = _THREADS,
) -> None:
    """Entropy of the selected columns (taken together as one variable)."""
    from infometer.core.io import read_table, select_columns

    df = select_columns(read_table(file), columns, "--columns", file)
    _set_threads(threads)
    est = _estimate("entropy", {"x": df}, method, unit, ci, seed, discrete, quiet, dequantize)
    emit(est, json_out, {"file": file, "columns": list(df.columns)})


@app.command("mi")
@user_errors
def mi_cmd(
    file: str = typer.Argument(..., help="CSV/TSV, Parquet, .npy or JSONL file."),
    x: str = typer.Option(..., "--x", help="Column(s) of X, comma-separated."),
    y: str = typer.Option(..., "--y", help="Column(s) of Y, comma-separated."),
    given: str = typer.Option(None, "--given", help="Column(s) of Z for I(X;Y|Z)."),
    method: str = _METHOD,
    unit: str = _UNIT,
    ci: float = _CI,
    json_out: bool = _JSON,
    seed: int = _SEED,
    discrete: bool = _DISCRETE,
    dequantize: bool = _DEQUANTIZE,
    quiet: bool = _QUIET,
    threads: int = _THREADS,
) -> None:
    """Mutual information I(X;Y), or I(X;Y|Z) with --given."""
    from infometer.core.io import read_table, select_columns

    df = read_table(file)
    data = {"x": select_columns(df, x, "--x", file), "y": select_columns(df, y, "--y", file)}
    quantity = "mutual_info"
    if given:
        data["z"] = select_columns(df, given, "--given", file)
        quantity = "cond_mutual_info"
    _set_threads(threads)
    est = _estimate(quantity, data, method, unit, ci, seed, discrete, quiet, dequantize)
    emit(est, json_out, {"file": file, "x": x, "y": y, "given": given})


@app.command("kl")
@user_errors
def kl_cmd(
    p_file: str = typer.Argument(..., help="Samples of P."),
    q_file: str = typer.Argument(..., help="Samples of Q."),
    columns: str = opt.COLUMNS,
    method: str = _METHOD,
    unit: str = _UNIT,
    ci: float = _CI,
    json_out: bool = _JSON,
    seed: int = _SEED,
    discrete: bool = _DISCRETE,
    dequantize: bool = _DEQUANTIZE,
    quiet: bool = _QUIET,
    threads: int = _THREADS,
) -> None:
    """KL divergence D(P||Q) between the samples in two files."""
    from infometer.core.io import read_table, select_columns

    p = select_columns(read_table(p_file), columns, "--columns", p_file)
    q = select_columns(read_table(q_file), columns, "--columns", q_file)
    _set_threads(threads)
    data = {"p": p, "q": q}
    est = _estimate("kl_divergence", data, method, unit, ci, seed, discrete, quiet, dequantize)
    emit(est, json_out, {"p_file": p_file, "q_file": q_file})


@app.command("methods")
def methods_cmd(
    quantity: str = typer.Argument(None, help="Only this quantity."),
    json_out: bool = typer.Option(False, "--json", help="One JSON list of the estimators."),
) -> None:
    """List the registered estimators."""
    from infometer.core import registry

    if quantity is not None and quantity not in registry.quantities():
        fail(f"unknown quantity {quantity!r}; known: {', '.join(registry.quantities())}")
    rows = [
        {
            "quantity": s.quantity,
            "method": s.name,
            "data": sorted(s.kinds),
            "family": s.family,
            "summary": s.summary,
        }
        for s in registry.specs(quantity)
    ]
    if json_out:
        print_json(rows)
        return
    _methods_table(rows)


def _methods_table(rows: list[dict[str, Any]]) -> None:
    """One table per quantity, 80 columns wide in a pipe: every method name whole, the
    summary wrapped beside it; data kinds as letters (c continuous, d discrete, m mixed)."""
    kinds = {"continuous": "c", "discrete": "d", "mixed": "m"}
    by: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        by.setdefault(r["quantity"], []).append(r)
    width = max(len(r["method"]) for r in rows)
    for i, (q, rs) in enumerate(by.items()):
        if i:
            say("")
        t = table(title=f"{q} ({len(rs)})", title_justify="left", box=None, pad_edge=False)
        t.add_column("method", no_wrap=True, min_width=width)
        t.add_column("data", no_wrap=True)
        t.add_column("family", no_wrap=True)
        t.add_column("summary", ratio=1)
        for r in rs:
            data = "/".join(kinds.get(k, k) for k in r["data"])
            t.add_row(cell(r["method"]), data, cell(r["family"]), cell(r["summary"]))
        out.print(t)
    say("")
    say("data: c continuous, d discrete, m mixed; --json lists every field", style="dim")


def _mount() -> None:
    for mod in SUBCOMMANDS:
        if importlib.util.find_spec(mod) is not None:
            importlib.import_module(mod).register(app)


_mount()


def main() -> None:
    """Console-script entry point: user errors are one ``error:`` line (exit 2); anything
    unexpected is one line too (exit 1; ``INFOMETER_DEBUG=1`` shows the traceback)."""
    import os

    try:
        app()
    except KeyboardInterrupt:
        _print_line("error:", "bold red", "interrupted")
        sys.exit(130)
    except Exception as exc:  # the last resort: never a traceback for a user
        if os.environ.get("INFOMETER_DEBUG"):
            raise
        from infometer.core._extras import missing_extra

        named = missing_extra(exc, "this command")
        if named is not None:  # an optional dependency, not a bug
            _print_line("error:", "bold red", _first_line(named))
            sys.exit(2)
        msg = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        _print_line(
            "error:",
            "bold red",
            f"{type(exc).__name__}{': ' + msg if msg else ''} "
            "(an internal error: please report it; INFOMETER_DEBUG=1 shows the traceback)",
        )
        sys.exit(1)


if __name__ == "__main__":
    main()
