"""``infometer network FILE --method mte --max-lag 5 --cmi gaussian --out DIR``.

Infers a directed, lagged network from the columns of a table (rows = time steps) and
writes ``edges.csv`` (source, target, lag, estimate, p_value, p_corrected; PCMCI+ adds
``link``: ``-->``, ``o-o`` unoriented or ``x-x`` conflicting, lag 0 contemporaneous),
``adjacency.csv`` (labelled n x n, largest edge estimate), ``targets.csv`` (per target:
own lags, omnibus TE / PCMCI parents) and ``network.png``; ``--json`` prints the edge
list and the file paths as one JSON object.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import typer

from . import _options as opt
from ._console import mark_resumable

__all__ = ["register", "network_cmd"]


def network_cmd(
    file: str = typer.Argument(..., help="CSV/TSV, Parquet, .npy or JSONL table (rows = time)."),
    out_dir: str = opt.out_dir("network-out", "Folder for the CSV and PNG files."),
    method: str = typer.Option(
        "mte", "--method", "-m", help="mte, bivariate_te, pcmci or pcmciplus."
    ),
    max_lag: int = typer.Option(5, "--max-lag", help="Largest source lag."),
    min_lag: int = typer.Option(
        None, "--min-lag", help="Smallest source lag (default 1; pcmciplus 0)."
    ),
    tau_min: int = typer.Option(
        None, "--tau-min", help="Tigramite's name for --min-lag (0: contemporaneous links)."
    ),
    cmi: str = typer.Option("auto", "--cmi", help="gaussian, ksg1, plugin, ... or auto."),
    alpha: float = typer.Option(0.05, "--alpha", help="Significance level of the network."),
    correction: str = typer.Option(
        None,
        "--correction",
        help="fdr_bh, fdr_by (over every target / link), fwer (network-wide) or none "
        "(default fdr_bh; pcmciplus none).",
    ),
    permutations: int = typer.Option(200, "--permutations", "-B", help="Permutations per test."),
    pc_alpha: float = typer.Option(
        None, "--pc-alpha", help="PCMCI: PC1 level (default 0.2; pcmciplus uses --alpha)."
    ),
    null: str = typer.Option("permutation", "--null", help="permutation or local."),
    columns: str = opt.columns("Only these columns (comma-separated)."),
    jobs: int = opt.jobs(1, "Per-target jobs on this many processes."),
    scheduler: str = typer.Option(None, "--scheduler", help="Dask scheduler address."),
    store: str = typer.Option(
        None, "--store", help="Keep per-target results here; a re-run resumes (default none)."
    ),
    seed: int = opt.SEED,
    discrete: bool = opt.DISCRETE,
    quiet: bool = opt.QUIET,
    unit: str = opt.UNIT,
    json_out: bool = opt.JSON,
) -> None:
    """Infer a lagged network (multivariate TE, bivariate TE, PCMCI) or, with PCMCI+, a
    network with contemporaneous links from time series."""
    import matplotlib.pyplot as plt

    from infometer.core._io import read_table
    from infometer.core.parallel import Execution
    from infometer.measures.dynamics import infer_network

    from ._console import (
        cell,
        cli_names,
        cli_words,
        note,
        out,
        print_json,
        say,
        table,
        warn_summary,
    )
    from ._paths import check_out_dir

    check_out_dir(out_dir, "--out")
    check_out_dir(store, "--store")
    cli_names(data=file, registry_method="--cmi")
    df = read_table(file)
    if columns:
        wanted = [c.strip() for c in columns.split(",") if c.strip()]
        missing = [c for c in wanted if c not in df.columns]
        if missing:
            raise ValueError(f"--columns: no column {missing[0]!r} in {file}")
        df = df[wanted]
    if store is not None:
        mark_resumable()  # Ctrl-C: "interrupted; run again to resume", exit 130
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        net = infer_network(
            df,
            method=method,
            max_lag=max_lag,
            min_lag=min_lag,
            tau_min=tau_min,
            cmi=cmi,
            alpha=alpha,
            correction=correction,
            n_permutations=permutations,
            pc_alpha=pc_alpha,
            null=null,
            execution=Execution(
                n_jobs=jobs,
                scheduler=scheduler,
                store=store,
                progress=False if quiet else None,
            ),
            unit=unit,
            seed=seed,
            discrete=discrete,
        )
    od = Path(out_dir)
    od.mkdir(parents=True, exist_ok=True)
    files = {
        "edges": str(od / "edges.csv"),
        "adjacency": str(od / "adjacency.csv"),
        "targets": str(od / "targets.csv"),
        "plot": str(od / "network.png"),
    }
    import pandas as pd

    net.edges.to_csv(files["edges"], index=False)
    pd.DataFrame(net.adjacency, index=list(net.nodes), columns=list(net.nodes)).to_csv(
        files["adjacency"]
    )
    net.targets.to_csv(files["targets"], index=False)
    try:
        plt.close(net.plot(path=files["plot"]).figure)
    except ImportError as exc:  # networkx is an extra: the CSV files are written anyway
        note(f"no network.png: {exc}")
        del files["plot"]
    notes = [str(w.message) for w in caught]
    if json_out:
        doc = {
            "method": net.method,
            "cmi": net.cmi,
            "max_lag": net.max_lag,
            "alpha": net.alpha,
            "correction": net.correction,
            "unit": net.diagnostics["unit"],
            "nodes": list(net.nodes),
            "edges": net.edges.to_dict(orient="records"),
            "files": files,
            "warnings": [cli_words(n) for n in notes],
        }
        print_json(doc)
        return
    warn_summary(notes)
    unit_name = net.diagnostics["unit"]
    link = "link" in net.edges
    t = table(
        title=f"{net.method} ({net.cmi}): {len(net.edges)} edges among {len(net.nodes)} series"
    )
    for c in ("source", "target", "lag", f"estimate ({unit_name})", "p", "p corrected"):
        t.add_column(c)
    if link:
        t.add_column("link")
    for r in net.edges.itertuples(index=False):
        t.add_row(
            cell(r.source),
            cell(r.target),
            str(r.lag),
            f"{r.estimate:.4f}",
            f"{r.p_value:.3g}",
            f"{r.p_corrected:.3g}",
            *((str(r.link),) if link else ()),
        )
    out.print(t)
    say(f"written: {', '.join(files.values())}")


def register(app: typer.Typer) -> None:
    """Mount ``network`` (user errors: one line, exit code 2)."""
    from .app import user_errors

    app.command("network")(user_errors(network_cmd))
