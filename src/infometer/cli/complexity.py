"""``infometer complexity FILE``: entropy / complexity of a signal read from a table.

    infometer complexity signal.csv --measure permutation --order 5 --multiscale 20

FILE is a CSV/TSV, Parquet, NPY or JSONL table (``infometer.core.io.read_table``); ``--column``
picks the signal when it has several columns.  With ``--multiscale S`` the measure is
computed at scales 1..S and printed as a table (``--plot`` saves the curve).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

__all__ = ["register", "complexity_cmd"]


def _signal(path: Path, column: str | None) -> Any:
    from infometer.core.io import read_table, select_columns

    df = select_columns(read_table(path), column, "--column", path)
    if df.shape[1] != 1:
        raise ValueError(
            f"{path} has {df.shape[1]} columns ({', '.join(map(str, df.columns[:10]))}); "
            "pick the signal with --column"
        )
    return df.iloc[:, 0].to_numpy()


def complexity_cmd(
    file: Annotated[Path, typer.Argument(help="Table holding the signal (CSV, Parquet, NPY...).")],
    measure: Annotated[
        str,
        typer.Option(
            help="permutation, weighted_permutation, modified_permutation, dispersion, "
            "sample, approximate, fuzzy, spectral, svd, statistical_complexity."
        ),
    ] = "permutation",
    column: Annotated[str | None, typer.Option(help="Column of FILE holding the signal.")] = None,
    order: Annotated[int | None, typer.Option(help="Embedding dimension m.")] = None,
    delay: Annotated[int | None, typer.Option(help="Embedding delay (samples).")] = None,
    r: Annotated[float | None, typer.Option(help="Tolerance as a multiple of sd(x).")] = None,
    classes: Annotated[int | None, typer.Option(help="Dispersion classes.")] = None,
    normalize: Annotated[
        bool, typer.Option("--normalize", help="Fraction of the maximum.")
    ] = False,
    dequantize: Annotated[
        bool,
        typer.Option(
            "--dequantize",
            help="sample/approximate/fuzzy: spread tied (rounded) values uniformly over "
            "their rounding step first (seeded).",
        ),
    ] = False,
    seed: Annotated[int, typer.Option(help="Seed of --dequantize.")] = 0,
    multiscale: Annotated[
        int | None, typer.Option(help="Compute at scales 1..S (multiscale entropy).")
    ] = None,
    method: Annotated[
        str, typer.Option(help="Multiscale scheme: standard, composite, refined.")
    ] = "standard",
    unit: Annotated[str, typer.Option(help="nats, bits or hartleys.")] = "nats",
    ci: Annotated[float | None, typer.Option(help="Confidence level of an interval.")] = None,
    plot: Annotated[Path | None, typer.Option(help="Save the multiscale curve as a PNG.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
) -> None:
    """Complexity of a signal (one measure, or its multiscale curve)."""
    import warnings

    from infometer.core.progress import quiet as silence
    from infometer.measures.complexity import complexity
    from infometer.measures.complexity import multiscale as run_multiscale

    from ._console import cli_names, warn_line
    from ._paths import check_out_file
    from .app import emit, out

    check_out_file(plot, "--plot")
    cli_names(scales="--multiscale")
    x = _signal(file, column)
    params: dict[str, Any] = {
        k: v
        for k, v in {"order": order, "delay": delay, "r": r, "classes": classes}.items()
        if v is not None
    }
    if normalize:
        params["normalize"] = True
    if dequantize:
        from infometer.measures.complexity.estimators import DISTANCE_MEASURES

        if measure not in DISTANCE_MEASURES:
            raise ValueError(
                f"--dequantize applies to the measures that compare distances "
                f"({', '.join(DISTANCE_MEASURES)}), not to --measure {measure}"
            )
        params.update(dequantize=True, seed=seed)
    with warnings.catch_warnings(record=True) as caught, silence(quiet):
        warnings.simplefilter("always")
        if multiscale is None:
            est = complexity(x, measure, unit=unit, ci=ci, **params)
        else:
            if unit != "nats":
                raise ValueError("--unit: multiscale values are printed in nats (or normalised)")
            res = run_multiscale(
                x, measure, scales=multiscale, method=method, ci=ci, progress=not quiet, **params
            )
    for w in caught:
        warn_line(w.message)
    if multiscale is None:
        emit(est, as_json)
        return
    df = res.to_frame()
    if plot is not None:
        res.plot(path=plot)
    if as_json:
        sys.stdout.write(
            json.dumps(
                {
                    "measure": measure,
                    "method": method,
                    "unit": res.unit,
                    "complexity_index": res.complexity_index,
                    "rows": df.to_dict(orient="records"),
                }
            )
            + "\n"
        )
        return
    out.print(df.to_string(index=False), highlight=False, markup=False)
    out.print(f"complexity index (sum over scales): {res.complexity_index:.4g}", highlight=False)


def register(root: typer.Typer) -> None:
    """Mount ``complexity`` on the root app."""
    from .app import user_errors

    root.command("complexity")(user_errors(complexity_cmd))
