"""The CLI's shared options: one spelling, one default and one help text per meaning.

The policy (docs/cli.md, "One spelling per option"; ``tests/cli/test_cli_flags.py`` walks
every command and holds each command to it):

* ``--unit/-u`` defaults to nats everywhere, as the Python API does (``--unit bits``).
* ``--quiet/-q`` is the one switch of progress bars; bars are drawn only when stderr is a
  terminal, so a pipe or a log file never receives bar frames.
* ``--jobs/-j`` is the number of local workers (processes or threads) of a command that
  runs work in parallel; ``--scheduler`` a Dask scheduler instead.
* ``--columns/-c`` selects columns of a table (a command that needs one column says so).
* ``--out/-o DIR`` is the folder that receives every file a command writes, under fixed
  names; no option names a single output file, except ``report``'s ``--output/-o FILE``
  (its whole job is that one HTML file).
* ``--json`` prints one strict JSON document (no NaN/Infinity: ``null`` and a
  ``"nonfinite"`` entry naming each one's path and why: ``core.results.json_document``).
"""

from __future__ import annotations

from typing import Any

import typer

__all__ = [
    "COLUMNS",
    "DEQUANTIZE",
    "DISCRETE",
    "JSON",
    "METHOD",
    "QUIET",
    "SEED",
    "UNIT",
    "columns",
    "jobs",
    "out_dir",
]

UNIT: Any = typer.Option("nats", "--unit", "-u", help="nats (the default), bits or hartleys.")
QUIET: Any = typer.Option(
    False, "--quiet", "-q", help="No progress bar (bars are drawn on a terminal only)."
)
JSON: Any = typer.Option(False, "--json", help="Print the result as one JSON document.")
SEED: Any = typer.Option(0, "--seed", help="Seed for anything random.")
METHOD: Any = typer.Option("auto", "--method", "-m", help="Estimator name, or 'auto'.")
DISCRETE: Any = typer.Option(
    None, "--discrete/--continuous", help="Force columns to symbols / numbers (default: by dtype)."
)
DEQUANTIZE: Any = typer.Option(
    None,
    "--dequantize/--no-dequantize",
    help="kNN methods: spread tied (rounded) values uniformly over their rounding step "
    "(default: --method auto does it for tied data, explicit methods do not).",
)
COLUMNS: Any = typer.Option(None, "--columns", "-c", help="Comma-separated columns (default all).")


def columns(help: str) -> Any:
    """``--columns/-c`` with a command's own help text."""
    return typer.Option(None, "--columns", "-c", help=help)


def jobs(default: int | None, help: str) -> Any:
    """``--jobs/-j``: local workers (``default`` None: the command's own choice)."""
    return typer.Option(default, "--jobs", "-j", help=help)


def out_dir(default: str | None, help: str) -> Any:
    """``--out/-o DIR``: the folder for every file the command writes."""
    return typer.Option(default, "--out", "-o", help=help)
