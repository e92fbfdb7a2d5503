"""``infometer demo``: the main job on bundled real data.

Ranks the features of a real dataset that ships inside scikit-learn by their mutual
information with the target, with error bars, prints the table and saves a bar plot; for
images (the digits) the plot also shows the 8×8 map of information per pixel.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import typer

from infometer.core.estimate import round_to_error

from . import _options as opt

DATASETS = {
    "digits": (
        "load_digits",
        "UCI Optical Recognition of Handwritten Digits (1,797 8x8 images, pixel counts 0-16), "
        "bundled with scikit-learn",
    ),
    "breast-cancer": (
        "load_breast_cancer",
        "UCI Breast Cancer Wisconsin (Diagnostic) (569 tumours, 30 real-valued features), "
        "bundled with scikit-learn",
    ),
    "wine": (
        "load_wine",
        "UCI Wine recognition (178 wines, 13 chemical measurements), bundled with scikit-learn",
    ),
}


def load(name: str) -> tuple[Any, Any, str]:
    """Feature DataFrame, target Series and the dataset's source line."""
    import sklearn.datasets as ds

    loader, source = DATASETS[name]
    bunch = getattr(ds, loader)(as_frame=True)
    X = bunch.data
    if name == "digits":
        X = X.astype("int64")  # pixel intensities are counts 0..16: discrete symbols
    y = bunch.target.astype("int64")
    return X, y, source


def rank_features(
    X: Any,
    y: Any,
    *,
    method: str,
    unit: str,
    ci: float,
    seed: int,
    progress: bool | None = None,
    discrete: bool | None = None,
    **params: Any,
) -> list[dict[str, Any]]:
    """MI of every column of X with y, sorted from most to least informative
    (``discrete``: as :func:`infometer.mutual_info`'s; ``params``: the estimator's, e.g.
    ``dequantize``)."""
    from infometer.core.api import mutual_info
    from infometer.core.progress import progress_bar

    rows = []
    for col in progress_bar(X.columns, desc="estimating", unit="column", progress=progress):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est = mutual_info(
                X[col], y, method=method, unit=unit, ci=ci, seed=seed, discrete=discrete, **params
            )
        rows.append({"feature": str(col), "estimate": est})
    rows.sort(key=lambda r: -r["estimate"].value)
    return rows


def ranking_frame(rows: list[dict[str, Any]], name: str = "feature") -> Any:
    """The ranked estimates of :func:`rank_features` as a table (one row per column; the
    column names go in ``name``): value, unit, stderr, interval and method."""
    import pandas as pd

    from infometer.core.estimate import unit_factor

    def ci(e: Any, i: int) -> float | None:
        return None if e.ci is None else e.ci[i]

    def unclipped(e: Any) -> float | None:
        raw = e.diagnostics.get("ci_unclipped_nats")
        return None if raw is None else raw[0] * unit_factor("nats", e.unit)

    return pd.DataFrame(
        [
            {
                name: r["feature"],
                "value": r["estimate"].value,
                "unit": r["estimate"].unit,
                "stderr": r["estimate"].stderr,
                "ci_low": ci(r["estimate"], 0),
                "ci_high": ci(r["estimate"], 1),
                "ci_clipped": bool(r["estimate"].diagnostics.get("ci_clipped")),
                "ci_low_unclipped": unclipped(r["estimate"]),
                "negative": bool(r["estimate"].diagnostics.get("negative")),
                "method": r["estimate"].method,
            }
            for r in rows
        ]
    )


def ranking_table(rows: list[dict[str, Any]], title: str, name: str = "feature") -> Any:
    """A rich table of :func:`rank_features` rows: rank, name, value ± se and interval,
    each rounded to its error; names printed as they are (no console markup)."""
    from ._console import cell, table

    unit = rows[0]["estimate"].unit if rows else ""
    t = table(title=cell(title))
    for col in ("rank", name, unit, "± se", "CI", "method"):
        t.add_column(col, justify="right" if col not in (name, "method") else "left")
    marks: set[str] = set()
    for i, r in enumerate(rows, 1):
        e = r["estimate"]
        value, lo, hi = e.rounded()
        se = "" if e.stderr is None else round_to_error(e.value, e.stderr)[1]
        mark = "*" if e.diagnostics.get("ci_clipped") else ""
        mark = "†" if e.diagnostics.get("ci_below_zero") else mark
        marks.add(mark)
        cis = "" if lo is None else f"{lo}{mark if mark == '*' else ''} – {hi}"
        cis += "†" if mark == "†" and cis else ""
        if e.diagnostics.get("negative"):  # the value is kept (never clipped), and flagged
            value += "‡"
            marks.add("‡")
        t.add_row(str(i), cell(r["feature"]), value, se, cis, e.method)
    notes = {
        "*": "* lower bound clipped at 0 (MI >= 0; CSV: ci_low_unclipped)",
        "†": "† interval wholly below 0: estimator error, not a value MI can take",
        "‡": "‡ estimate below 0: estimation error around a true value >= 0 (not clipped; "
        "CSV: negative)",
    }
    if marks - {""}:
        t.caption = "\n".join(notes[m] for m in ("*", "†", "‡") if m in marks)
        t.caption_justify = "left"
    return t


def register(app: typer.Typer) -> None:
    """Mount ``infometer demo``."""
    from .app import user_errors

    @app.command("demo")
    @user_errors
    def demo(
        dataset: str = typer.Option(
            "digits", "--dataset", "-d", help=f"One of: {', '.join(DATASETS)}."
        ),
        method: str = typer.Option("auto", "--method", "-m", help="Estimator, or 'auto'."),
        unit: str = opt.UNIT,
        ci: float = typer.Option(0.95, "--ci", help="Confidence level of the error bars."),
        top: int = typer.Option(0, "--top", help="Show only the N most informative (0 = all)."),
        out_dir: str = opt.out_dir("demo-out", "Folder for the PNG and CSV files."),
        seed: int = opt.SEED,
        quiet: bool = opt.QUIET,
        json_out: bool = opt.JSON,
    ) -> None:
        """Rank a real dataset's features by their information about the target."""
        from infometer.core.plot import bar_with_errors, bars_beside_map
        from infometer.core.validation import check_int

        from ._console import note, out, print_json, say, warn_summary
        from ._paths import check_out_dir

        if dataset not in DATASETS:
            raise ValueError(f"--dataset must be one of {', '.join(DATASETS)}, got {dataset!r}")
        check_int(top, "--top", min_value=0)
        check_out_dir(out_dir, "--out")
        X, y, source = load(dataset)
        header = [
            f"{dataset}: {source}",
            f"{X.shape[0]} samples, {X.shape[1]} features, target with {y.nunique()} classes",
        ]
        rows = rank_features(
            X, y, method=method, unit=unit, ci=ci, seed=seed, progress=False if quiet else None
        )
        warn_summary([w for r in rows for w in r["estimate"].warnings])
        shown = rows[:top] if top > 0 else rows
        e0 = rows[0]["estimate"]
        chosen: dict[str, list[str]] = {}
        for r in rows:
            reason = r["estimate"].diagnostics.get("auto_reason")
            if reason:
                chosen.setdefault(r["estimate"].method, []).append(reason)
        od = Path(out_dir)
        od.mkdir(parents=True, exist_ok=True)
        table = ranking_frame(rows)
        csv = od / f"{dataset}_mi.csv"
        table.to_csv(csv, index=False)
        plot_rows = shown[:40]
        level = f"{round(100 * ci)}% CI"
        bars = dict(
            labels=[r["feature"] for r in plot_rows],
            values=[r["estimate"].value for r in plot_rows],
            lows=[
                r["estimate"].ci[0] if r["estimate"].ci else r["estimate"].value for r in plot_rows
            ],
            highs=[
                r["estimate"].ci[1] if r["estimate"].ci else r["estimate"].value for r in plot_rows
            ],
            title=f"{dataset}: information each feature carries about the target"
            + (f" (top {len(plot_rows)} of {len(rows)})" if len(plot_rows) < len(rows) else ""),
            xlabel=f"I(feature; target) [{e0.unit}], bars: {level}",
            path=od / f"{dataset}_mi.png",
        )
        grid = pixel_grid({r["feature"]: r["estimate"].value for r in rows})
        if grid is None:
            png = bar_with_errors(**bars)
        else:  # images: where in the picture the information about the label is
            png = bars_beside_map(
                **bars,
                grid=grid,
                map_title=f"{e0.unit} per pixel about the label ({grid.shape[0]}×{grid.shape[1]})",
                unit=f"I(pixel; label) [{e0.unit}]",
            )
        if json_out:
            print_json(
                {
                    "dataset": dataset,
                    "source": source,
                    "unit": e0.unit,
                    "ci_level": ci,
                    "ranking": table.to_dict(orient="records"),
                    "files": [str(csv), str(png)],
                }
            )
            return
        say(header[0], style="bold")
        say(header[1])
        title = f"I(feature; target) in {e0.unit}, {level}"
        out.print(ranking_table(shown, title))
        for m, reasons in chosen.items():
            note(f"auto chose {m} for {len(reasons)} features, e.g. {reasons[0]}")
        say(f"table: {csv}")
        say(f"plot:  {png}")


def pixel_grid(values: dict[str, float]) -> Any:
    """Values of features named ``pixel_<row>_<col>`` laid out as an image, else ``None``.

    ``None`` unless every feature is such a pixel and together they fill the rectangle.
    """
    import re

    import numpy as np

    cells = {}
    for name, v in values.items():
        m = re.fullmatch(r"pixel_(\d+)_(\d+)", name)
        if m is None:
            return None
        cells[int(m[1]), int(m[2])] = v
    if not cells:
        return None
    rows = 1 + max(r for r, _ in cells)
    cols = 1 + max(c for _, c in cells)
    if len(cells) != rows * cols:
        return None
    grid = np.full((rows, cols), np.nan)
    for (r, c), v in cells.items():
        grid[r, c] = v
    return grid
