"""``infometer`` command-line interface (typer + rich).

Sub-command groups live in their own modules listed in :data:`SUBCOMMANDS`; each exposes
``register(app)``.  User errors print one line on stderr and exit with code 2.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import json
import sys
from collections.abc import Callable
from typing import Any

import typer
from rich.console import Console

from .. import __version__

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

app = typer.Typer(
    name="infometer",
    help="Measure information (entropy, MI, CMI, KL) in data files, with error bars.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
out = Console()
err = Console(stderr=True)


def fail(message: str) -> None:
    """Print a one-line error and exit with status 2."""
    err.print(f"[bold red]error:[/] {message}", highlight=False, soft_wrap=True)
    raise typer.Exit(code=2)


def user_errors(func: Callable[..., Any]) -> Callable[..., Any]:
    """Turn the library's ValueError/TypeError (bad input) into a one-line error, exit 2."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except (ValueError, TypeError, OSError) as exc:
            fail(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)

    return wrapper


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
        d = est.to_dict()
        if extra:
            d.update(extra)
        sys.stdout.write(json.dumps(d) + "\n")
        return
    out.print(repr(est), highlight=False, markup=False)
    reason = est.diagnostics.get("auto_reason")
    if reason:
        out.print(f"[dim]auto: {reason}[/]", highlight=False)


def _estimate(
    quantity: str,
    data: dict[str, Any],
    method: str,
    unit: str,
    ci: float | None,
    seed: int,
    discrete: bool | None,
    quiet: bool = False,
) -> Any:
    import warnings

    from ..api import estimate
    from ..progress import quiet as no_bars

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
        )
    for w in est.warnings:
        err.print(f"[yellow]warning:[/] {w}", highlight=False, soft_wrap=True)
    return est


_METHOD = typer.Option("auto", "--method", "-m", help="Estimator name, or 'auto'.")
_UNIT = typer.Option("nats", "--unit", "-u", help="nats, bits or hartleys.")
_CI = typer.Option(None, "--ci", help="Confidence level for an interval, e.g. 0.95.")
_JSON = typer.Option(False, "--json", help="Print the Estimate as JSON.")
_SEED = typer.Option(0, "--seed", help="Seed for anything random.")
_QUIET = typer.Option(False, "--quiet", "-q", help="No progress bar.")
_DISCRETE = typer.Option(
    None, "--discrete/--continuous", help="Force columns to symbols / numbers (default: by dtype)."
)


@app.command("entropy")
@user_errors
def entropy_cmd(
    file: str = typer.Argument(..., help="CSV/TSV, Parquet, .npy or JSONL file."),
    columns: str = typer.Option(
        None, "--columns", "-c", help="Comma-separated columns (default all)."
    ),
    method: str = _METHOD,
    unit: str = _UNIT,
    ci: float = _CI,
    json_out: bool = _JSON,
    seed: int = _SEED,
    discrete: bool = _DISCRETE,
    quiet: bool = _QUIET,
) -> None:
    """Entropy of the selected columns (taken together as one variable)."""
    from ..io import read_table, select_columns

    df = select_columns(read_table(file), columns, "--columns", file)
    est = _estimate("entropy", {"x": df}, method, unit, ci, seed, discrete, quiet)
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
    quiet: bool = _QUIET,
) -> None:
    """Mutual information I(X;Y), or I(X;Y|Z) with --given."""
    from ..io import read_table, select_columns

    df = read_table(file)
    data = {"x": select_columns(df, x, "--x", file), "y": select_columns(df, y, "--y", file)}
    quantity = "mutual_info"
    if given:
        data["z"] = select_columns(df, given, "--given", file)
        quantity = "cond_mutual_info"
    est = _estimate(quantity, data, method, unit, ci, seed, discrete, quiet)
    emit(est, json_out, {"file": file, "x": x, "y": y, "given": given})


@app.command("kl")
@user_errors
def kl_cmd(
    p_file: str = typer.Argument(..., help="Samples of P."),
    q_file: str = typer.Argument(..., help="Samples of Q."),
    columns: str = typer.Option(
        None, "--columns", "-c", help="Comma-separated columns (default all)."
    ),
    method: str = _METHOD,
    unit: str = _UNIT,
    ci: float = _CI,
    json_out: bool = _JSON,
    seed: int = _SEED,
    discrete: bool = _DISCRETE,
    quiet: bool = _QUIET,
) -> None:
    """KL divergence D(P||Q) between the samples in two files."""
    from ..io import read_table, select_columns

    p = select_columns(read_table(p_file), columns, "--columns", p_file)
    q = select_columns(read_table(q_file), columns, "--columns", q_file)
    est = _estimate("kl_divergence", {"p": p, "q": q}, method, unit, ci, seed, discrete, quiet)
    emit(est, json_out, {"p_file": p_file, "q_file": q_file})


@app.command("methods")
def methods_cmd(quantity: str = typer.Argument(None, help="Only this quantity.")) -> None:
    """List the registered estimators."""
    from rich.table import Table

    from .. import registry

    if quantity is not None and quantity not in registry.quantities():
        fail(f"unknown quantity {quantity!r}; known: {', '.join(registry.quantities())}")
    t = Table("quantity", "method", "data", "family", "summary")
    for s in registry.specs(quantity):
        t.add_row(s.quantity, s.name, "/".join(sorted(s.kinds)), s.family, s.summary)
    out.print(t)


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
        err.print("[bold red]error:[/] interrupted", highlight=False)
        sys.exit(130)
    except Exception as exc:  # the last resort: never a traceback for a user
        if os.environ.get("INFOMETER_DEBUG"):
            raise
        msg = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        err.print(
            f"[bold red]error:[/] {type(exc).__name__}{': ' + msg if msg else ''} "
            "(an internal error: please report it; INFOMETER_DEBUG=1 shows the traceback)",
            highlight=False,
            soft_wrap=True,
        )
        sys.exit(1)


if __name__ == "__main__":
    main()
