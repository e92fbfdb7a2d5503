"""``infometer matrix`` (all-pairs MI of a table) and ``infometer rank`` (columns vs a target).

``matrix FILE -o OUT`` writes ``matrix.csv`` (labelled P x P), ``edges.csv`` (one row per
pair, with p- and q-values when ``--permutations`` is given), ``heatmap.png`` (clustered
order) and, with ``--network aracne|clr``, ``network.csv`` and ``network.png`` (small
graphs).  Finished blocks are kept in ``OUT/store``: re-running the same command after an
interruption computes only the missing blocks.  ``--scheduler tcp://HOST:PORT`` runs the
blocks on a Dask cluster (the store must then be on a filesystem the workers can read).

``rank FILE --target COL -o OUT`` ranks every other column by its information about the
target with error bars (table, ``rank.csv``, ``rank.png``); ``--select mrmr --k 20``
also picks a set of features (``selected.csv``).
"""

from __future__ import annotations

import importlib.util
import warnings
from pathlib import Path

import typer

from . import _options as opt
from ._console import cell, mark_resumable, note, print_json, say, table, warn_summary

__all__ = ["register", "matrix_cmd", "rank_cmd"]


def _columns(spec: str | None) -> list[str] | None:
    if not spec:
        return None
    return [c.strip() for c in spec.split(",") if c.strip()]


def _close(ax) -> None:
    """Close a saved figure (a command draws each once)."""
    import matplotlib.pyplot as plt

    plt.close(ax.figure)


def matrix_cmd(
    file: str = typer.Argument(..., help="CSV/TSV, Parquet, .npy or JSONL table; - for stdin."),
    out_dir: str = opt.out_dir("matrix-out", "Folder for the CSV and PNG files."),
    method: str = typer.Option(
        "auto",
        "--method",
        "-m",
        help="auto, ksg (ksg1), copula (gaussian_copula), or any MI method.",
    ),
    columns: str = opt.columns("Only these columns (comma-separated)."),
    given: str = typer.Option(None, "--given", help="Condition on these columns: I(X;Y|Z)."),
    permutations: int = typer.Option(
        0, "--permutations", "-B", help="Permutation test per pair with B permutations."
    ),
    correction: str = typer.Option(
        "fdr_bh",
        "--correction",
        help="Over every pair: fdr_bh, fdr_by, fwer (Holm) or none (per pair).",
    ),
    alpha: float = typer.Option(0.05, "--alpha", help="Level of the significant pairs."),
    network: str = typer.Option("none", "--network", help="none, aracne or clr."),
    unit: str = opt.UNIT,
    k: int = typer.Option(None, "--k", help="Neighbours of the kNN estimators (default 3)."),
    dequantize: bool = opt.DEQUANTIZE,
    ranks: bool = typer.Option(False, "--ranks", help="Rank-transform continuous columns first."),
    nan: str = typer.Option("error", "--nan", help="error, drop_rows or drop_columns."),
    scheduler: str = typer.Option(
        None, "--scheduler", help="Dask scheduler address, e.g. tcp://HOST:8786."
    ),
    jobs: int = opt.jobs(None, "Local threads (default: the physical cores)."),
    block_size: int = typer.Option(None, "--block-size", help="Columns per block."),
    store: str = typer.Option(None, "--store", help="Block store folder (default OUT/store)."),
    seed: int = opt.SEED,
    discrete: bool = opt.DISCRETE,
    quiet: bool = opt.QUIET,
    json_out: bool = opt.JSON,
) -> None:
    """Mutual information between every pair of columns of a table (matrix, edges, heatmap)."""

    from infometer.core._io import read_table
    from infometer.core.data import check_choice
    from infometer.core.parallel import Execution
    from infometer.core.validation import check_int
    from infometer.workflows.allpairs import pairwise
    from infometer.workflows.allpairs._network import MAX_PLOT_NODES, aracne, clr

    from ._paths import check_out_dir
    from .app import out

    check_choice(network, "--network", ("none", "aracne", "clr"))
    check_int(permutations, "--permutations", min_value=0)
    if k is not None:
        check_int(k, "--k", min_value=1)
    check_out_dir(out_dir, "--out")
    check_out_dir(store, "--store")
    df = read_table(file)
    od = Path(out_dir)  # made once the options have passed the library's checks
    params = {} if k is None else {"k": k}
    if dequantize is not None:
        params["dequantize"] = dequantize
    if store is None and (scheduler is not None or importlib.util.find_spec("pyarrow")):
        store = str(od / "store")
    elif store is None:
        note("pyarrow is not installed: no resumable block store (pip install 'infometer[io]')")
    if store is not None:
        mark_resumable()  # Ctrl-C: "interrupted; run again to resume", exit 130
    client = None
    if scheduler is not None:  # before the store is made: an unreachable cluster fails at once
        from infometer.core.parallel import connect

        client, _ = connect(scheduler)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            res = pairwise(
                df,
                method=method,
                columns=_columns(columns),
                given=_columns(given),
                unit=unit,
                n_permutations=permutations,
                correction=correction,
                alpha=alpha,
                ranks=ranks,
                nan=nan,
                discrete=discrete,
                seed=seed,
                block_size=block_size,
                execution=Execution(
                    n_jobs=jobs,
                    scheduler=client,  # None without --scheduler
                    store=store,
                    progress=False if quiet else None,
                ),
                **params,
            )
        finally:
            if client is not None:
                client.close()
    warn_summary([str(w.message) for w in caught if issubclass(w.category, UserWarning)])
    od.mkdir(parents=True, exist_ok=True)
    res.matrix.to_csv(od / "matrix.csv")
    res.edges.to_csv(od / "edges.csv", index=False)
    png = od / "heatmap.png"
    _close(res.heatmap(path=png, title=f"{Path(file).name}: pairwise MI ({res.unit})"))
    done = res.diagnostics["blocks"]
    lines = [
        f"{res.matrix.shape[0]} columns, {len(res.edges)} pairs, n={res.n}; methods: "
        + ", ".join(f"{m} ({c})" for m, c in res.diagnostics["methods"].items())
        + f"; blocks computed {done['computed']}, already stored {done['already_stored']}"
    ]
    t = table(title=cell(f"strongest pairs ({res.unit})"))
    cols = ["x", "y", "value", "method"] + (["q_value"] if permutations else [])
    for c in cols:
        t.add_column(c, justify="right" if c in ("value", "q_value") else "left")
    for _, r in res.edges.head(15).iterrows():
        t.add_row(*[cell(f"{r[c]:.4g}" if isinstance(r[c], float) else r[c]) for c in cols])
    files = [od / "matrix.csv", od / "edges.csv", png]
    n_sig = n_net = None
    if permutations:
        sig = res.significant_edges
        sig.to_csv(od / "significant_edges.csv", index=False)
        files.append(od / "significant_edges.csv")
        n_sig = len(sig)
        lines.append(f"{len(sig)} pairs significant at {correction} {alpha:g}")
    if network != "none":
        net = aracne(res) if network == "aracne" else clr(res)
        net.edges.to_csv(od / "network.csv", index=False)
        files.append(od / "network.csv")
        try:
            _close(net.plot(path=od / "network.png"))
            files.append(od / "network.png")
        except ValueError:
            note(f"network has over {MAX_PLOT_NODES} nodes: no drawing")
        except ImportError as exc:  # networkx is an extra: the CSV files are written anyway
            note(f"no network.png: {exc}")
        n_net = len(net.edges)
        lines.append(f"{network}: {len(net.edges)} edges")
    if json_out:
        print_json(
            {
                "file": file,
                "unit": res.unit,
                "n": res.n,
                "columns": [str(c) for c in res.matrix.columns],
                "methods": res.diagnostics["methods"],
                "edges": res.edges.to_dict(orient="records"),
                "significant_edges": n_sig,
                "network_edges": n_net,
                "files": [str(f) for f in files],
            }
        )
        return
    say(lines[0])
    out.print(t)
    for line in lines[1:]:
        say(line)
    say("written: " + ", ".join(str(f) for f in files))


def rank_cmd(
    file: str = typer.Argument(..., help="CSV/TSV, Parquet, .npy or JSONL table; - for stdin."),
    target: str = typer.Option(..., "--target", "-t", help="The target column."),
    method: str = typer.Option("auto", "--method", "-m", help="Estimator, or 'auto'."),
    select: str = typer.Option(
        None, "--select", help="Also choose features: mrmr, jmi, relevance."
    ),
    k: int = typer.Option(20, "--keep", help="How many features --select keeps."),
    columns: str = opt.columns("Candidate columns (comma-separated; default all)."),
    unit: str = opt.UNIT,
    ci: float = typer.Option(0.95, "--ci", help="Confidence level of the error bars."),
    top: int = typer.Option(0, "--top", help="Show only the N most informative (0 = all)."),
    out_dir: str = opt.out_dir("rank-out", "Folder for the CSV and PNG files."),
    seed: int = opt.SEED,
    discrete: bool = opt.DISCRETE,
    dequantize: bool = opt.DEQUANTIZE,
    quiet: bool = opt.QUIET,
    json_out: bool = opt.JSON,
) -> None:
    """Rank columns by their information about a target, with error bars (and select features)."""
    from infometer.core._io import read_table, select_columns
    from infometer.core.data import check_choice
    from infometer.core.plot import bar_with_errors
    from infometer.core.validation import check_int
    from infometer.workflows.allpairs._select import CRITERIA, select_features

    from ._demo import rank_features, ranking_frame, ranking_table
    from ._paths import check_out_dir
    from .app import out

    check_int(top, "--top", min_value=0)
    check_int(k, "--keep", min_value=1)
    check_out_dir(out_dir, "--out")
    df = read_table(file)
    if target not in df.columns:
        real = ", ".join(map(str, df.columns[:30])) + (" ..." if df.shape[1] > 30 else "")
        raise ValueError(f"--target: {file} has no column {target!r}; columns are: {real}")
    if select is not None:
        check_choice(select, "--select", CRITERIA)
    X = select_columns(df.drop(columns=[target]), columns, "--columns", file)
    if X.shape[1] == 0:
        raise ValueError(f"{file} has no column besides the target {target!r}")
    y = df[target]
    extra = {} if dequantize is None else {"dequantize": dequantize}
    rows = rank_features(
        X,
        y,
        method=method,
        unit=unit,
        ci=ci,
        seed=seed,
        progress=False if quiet else None,
        discrete=discrete,
        **extra,
    )
    e0 = rows[0]["estimate"]
    shown = rows[:top] if top > 0 else rows
    warn_summary([w for r in rows for w in r["estimate"].warnings])
    t = ranking_table(shown, f"I(column; {target}) in {e0.unit}, {round(100 * ci)}% CI", "column")
    od = Path(out_dir)
    od.mkdir(parents=True, exist_ok=True)
    table = ranking_frame(rows, "column")
    table.to_csv(od / "rank.csv", index=False)
    files = [od / "rank.csv"]
    chosen: list[str] = []
    if select is not None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sel = select_features(
                X,
                y,
                k=min(k, X.shape[1]),
                criterion=select,
                method=method,
                unit=unit,
                seed=seed,
                discrete=discrete,
                discrete_target=discrete,
            )
        sel.table.to_csv(od / "selected.csv", index=False)
        files.append(od / "selected.csv")
        chosen = [str(c) for c in sel.selected]
    plot_rows = shown[:40]
    png = bar_with_errors(
        [r["feature"] for r in plot_rows],
        [r["estimate"].value for r in plot_rows],
        [r["estimate"].ci[0] if r["estimate"].ci else r["estimate"].value for r in plot_rows],
        [r["estimate"].ci[1] if r["estimate"].ci else r["estimate"].value for r in plot_rows],
        title=f"{Path(file).name}: information each column carries about {target}",
        xlabel=f"I(column; {target}) [{e0.unit}], bars: {round(100 * ci)}% CI",
        path=od / "rank.png",
        marked=chosen,
        marked_label=f"selected by {select}" if select else None,
    )
    files.insert(1, png)
    if json_out:
        print_json(
            {
                "file": file,
                "target": target,
                "unit": e0.unit,
                "ci_level": ci,
                "ranking": table.to_dict(orient="records"),
                "selected": chosen if select else None,
                "criterion": select,
                "files": [str(f) for f in files],
            }
        )
        return
    out.print(t)
    if select is not None:
        say(f"{select} selection of {len(chosen)}: " + ", ".join(chosen))
    say("written: " + ", ".join(str(f) for f in files))


def register(app: typer.Typer) -> None:
    """Mount ``matrix`` and ``rank`` (user errors: one line, exit code 2)."""
    from .app import user_errors

    app.command("matrix")(user_errors(matrix_cmd))
    app.command("rank")(user_errors(rank_cmd))
