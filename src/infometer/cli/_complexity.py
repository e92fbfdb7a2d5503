"""``infometer complexity FILE``: entropy / complexity of a signal read from a table.

    infometer complexity signal.csv --measure permutation --order 5 --multiscale 20

FILE is a CSV/TSV, Parquet, NPY or JSONL table (``infometer.core._io.read_table``);
``--columns`` picks the signal (one column) when it has several.  With ``--multiscale S``
the measure is computed at scales 1..S and printed as a table (``--out DIR`` saves the
curve as ``DIR/multiscale.png``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from . import _options as opt

__all__ = ["register", "complexity_cmd"]


def _signal(path: Path, column: str | None) -> Any:
    from infometer.core._io import read_table, select_columns

    df = select_columns(read_table(path), column, "--columns", path)
    if df.shape[1] != 1:
        raise ValueError(
            f"{path} has {df.shape[1]} columns ({', '.join(map(str, df.columns[:10]))}); "
            "pick the signal (one column) with --columns"
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
    column: str | None = opt.columns("The column of FILE holding the signal (one)."),
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
            "--dequantize/--no-dequantize",
            help="sample/approximate/fuzzy: spread tied (rounded) values uniformly over "
            "their rounding step first (seeded).",
        ),
    ] = False,
    seed: Annotated[int, typer.Option(help="Seed of --dequantize.")] = 0,
    multiscale: Annotated[
        int | None, typer.Option(help="Compute at scales 1..S (multiscale entropy).")
    ] = None,
    method: Annotated[
        str, typer.Option("--scheme", help="Multiscale scheme: standard, composite, refined.")
    ] = "standard",
    unit: str = opt.UNIT,
    ci: Annotated[float | None, typer.Option(help="Confidence level of an interval.")] = None,
    out_dir: str | None = opt.out_dir(None, "Folder for multiscale.png (with --multiscale)."),
    json_out: bool = opt.JSON,
    quiet: bool = opt.QUIET,
) -> None:
    """Complexity of a signal (one measure, or its multiscale curve)."""
    import warnings

    from infometer.core.progress import quiet as silence
    from infometer.core.seeding import check_seed
    from infometer.core.validation import check_choice
    from infometer.measures.complexity import complexity
    from infometer.measures.complexity import multiscale as run_multiscale

    from ._console import cli_names, print_json, say, warn_summary
    from ._paths import check_out_dir
    from .app import emit, out

    cli_names(scales="--multiscale")
    check_seed(seed, "--seed")
    check_choice(method, "--scheme", ["standard", "composite", "refined"])
    if out_dir is not None and multiscale is None:
        raise ValueError("--out: the figure is the multiscale curve; pass --multiscale S too")
    check_out_dir(out_dir, "--out")
    x = _signal(file, column)
    params: dict[str, Any] = {
        k: v
        for k, v in {"order": order, "delay": delay, "r": r, "classes": classes}.items()
        if v is not None
    }
    if normalize:
        params["normalize"] = True
    if dequantize:
        from infometer.measures.complexity._estimators import DISTANCE_MEASURES

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
                x,
                measure,
                scales=multiscale,
                method=method,
                ci=ci,
                progress=False if quiet else None,
                **params,
            )
    warn_summary([str(w.message) for w in caught])  # one line per cause, not per scale
    if multiscale is None:
        emit(est, json_out)
        return
    df = res.to_frame()
    png = None
    if out_dir is not None:
        import matplotlib.pyplot as plt

        Path(out_dir).mkdir(parents=True, exist_ok=True)
        png = Path(out_dir) / "multiscale.png"
        plt.close(res.plot(path=png).figure)
    if json_out:
        print_json(
            {
                "measure": measure,
                "method": method,
                "unit": res.unit,
                "complexity_index": res.complexity_index,
                "rows": df.to_dict(orient="records"),
                "files": [] if png is None else [str(png)],
            }
        )
        return
    out.print(df.to_string(index=False), highlight=False, markup=False)
    say(f"complexity index (sum over scales): {res.complexity_index:.4g}")
    if png is not None:
        say(f"written: {png}")


def register(root: typer.Typer) -> None:
    """Mount ``complexity`` on the root app."""
    from .app import user_errors

    root.command("complexity")(user_errors(complexity_cmd))
