"""``infometer multi QUANTITY FILE`` (TC, DTC, O-, S-, co-information, gradient
O-information of table columns), ``infometer pid FILE --sources a,b --target y`` and
``infometer multiplets FILE --size 3`` (every multiplet ranked, CSV and PNG)."""

from __future__ import annotations

import warnings
from pathlib import Path

import typer

from . import _options as opt
from ._console import cli_names, mark_resumable, print_json, say
from ._paths import check_out_dir

__all__ = ["register", "multi_cmd", "pid_cmd", "multiplets_cmd"]

QUANTITIES = {
    "o-information": "o_information",
    "total-correlation": "total_correlation",
    "dual-total-correlation": "dual_total_correlation",
    "s-information": "s_information",
    "co-information": "co_information",
    "gradient-o-information": "gradient_o_information",
}
_JSON = opt.JSON
_QUIET = opt.QUIET


def _warn(caught) -> None:
    from ._console import warn_summary

    # one line per cause, in the command's words: --dequantize, --discrete
    warn_summary([str(w.message) for w in caught if issubclass(w.category, UserWarning)])


def _figure(res, out_dir: str | None, name: str) -> Path | None:
    """``res.plot`` saved as ``OUT/name`` when ``--out`` is given (the figure closed)."""
    if out_dir is None:
        return None
    import matplotlib.pyplot as plt

    od = Path(out_dir)
    od.mkdir(parents=True, exist_ok=True)
    ax = res.plot(path=od / name)
    plt.close(getattr(ax, "figure", None) or plt.gcf())
    return od / name


def _files(*paths: Path | None) -> list[str]:
    return [str(p) for p in paths if p is not None]


def _names(spec: str | None, what: str) -> list[str] | None:
    if spec is None:
        return None
    names = [s.strip() for s in spec.split(",") if s.strip()]
    if not names:
        raise ValueError(f"{what} is empty; give comma-separated column names")
    return names


def multi_cmd(
    quantity: str = typer.Argument(..., help=", ".join(QUANTITIES)),
    file: str = typer.Argument(..., help="CSV/TSV, Parquet, .npy or JSONL table."),
    columns: str = opt.columns("Variables (comma-separated; default all)."),
    method: str = typer.Option(
        "auto",
        "--method",
        "-m",
        help="auto, plugin, miller_madow, nsb, ..., gaussian, gaussian_copula, ksg.",
    ),
    unit: str = opt.UNIT,
    ci: float = typer.Option(None, "--ci", help="Confidence level of an interval (e.g. 0.95)."),
    seed: int = opt.SEED,
    discrete: bool = opt.DISCRETE,
    out_dir: str = opt.out_dir(
        None, "Folder for gradient-o-information.png (gradient-o-information only)."
    ),
    permutations: int = typer.Option(
        None,
        "--permutations",
        "-B",
        help="Permutation test against mutual independence with B permuted data sets.",
    ),
    block: int = typer.Option(None, "--block", help="With --permutations: block length."),
    dequantize: bool = typer.Option(
        False,
        "--dequantize/--no-dequantize",
        help="--method ksg: spread tied (rounded) values over their rounding step first.",
    ),
    json_out: bool = _JSON,
    quiet: bool = _QUIET,
) -> None:
    """A multivariate information quantity of the columns of a table."""
    import infometer as im
    from infometer.core._io import read_table, select_columns
    from infometer.core.data import check_choice
    from infometer.core.progress import quiet as quiet_bars

    from .app import emit, out

    q = QUANTITIES[check_choice(quantity, "QUANTITY", tuple(QUANTITIES))]
    if out_dir is not None and q != "gradient_o_information":
        raise ValueError("--out: only gradient-o-information writes a figure")
    check_out_dir(out_dir, "--out")
    cli_names(X=file)
    df = select_columns(read_table(file), columns, "--columns", file)
    if permutations is not None:
        if q == "gradient_o_information":
            raise ValueError(
                "--permutations tests one number; for gradient-o-information use the "
                "Python im.multivariate_test(X, measure='gradient_o_information', index=i)"
            )
        if ci is not None:
            raise ValueError("--permutations and --ci are separate runs; pass one of them")
        _test(q, df, method, unit, seed, discrete, permutations, block, file, json_out, quiet)
        return
    if block is not None:
        raise ValueError("--block is for the permutation test; pass --permutations B too")
    with warnings.catch_warnings(record=True) as caught, quiet_bars(quiet):
        warnings.simplefilter("always")
        extra = {"dequantize": True} if dequantize else {}
        res = getattr(im, q)(
            df, method=method, unit=unit, ci=ci, seed=seed, discrete=discrete, **extra
        )
    _warn(caught)
    if q != "gradient_o_information":
        emit(res, json_out, {"file": file, "columns": list(df.columns)})
        return
    frame = res.to_frame()
    png = _figure(res, out_dir, "gradient-o-information.png")
    if json_out:
        rows = frame.to_dict(orient="records")
        print_json({"file": file, "quantity": q, "rows": rows, "files": _files(png)})
        return
    out.print(frame.to_string(index=False), highlight=False, markup=False)
    if png is not None:
        say(f"written: {png}")


def _test(q, df, method, unit, seed, discrete, permutations, block, file, json_out, quiet):
    import infometer as im
    from infometer.core.progress import quiet as quiet_bars

    from .app import emit, out

    with warnings.catch_warnings(record=True) as caught, quiet_bars(quiet):
        warnings.simplefilter("always")
        res = im.multivariate_test(
            df,
            measure=q,
            method=method,
            unit=unit,
            seed=seed,
            discrete=discrete,
            n_permutations=permutations,
            block=block,
        )
    _warn(caught)
    extra = {
        "file": file,
        "columns": list(df.columns),
        "p_value": res.p_value,
        "n_permutations": res.n_permutations,
        "alternative": res.alternative,
        "scheme": res.scheme,
        "null_summary": res.null_summary,
    }
    emit(res.statistic, json_out, extra)
    if not json_out:
        out.print(
            f"p = {res.p_value:.4g} ({res.alternative}; {res.n_permutations} permutations, "
            f"{res.scheme}; null: mutual independence)",
            highlight=False,
            markup=False,
        )


def pid_cmd(
    file: str = typer.Argument(..., help="CSV/TSV, Parquet, .npy or JSONL table."),
    sources: str = typer.Option(
        None, "--sources", "-s", help="Source columns (comma-sep.; --all-pairs: default all)."
    ),
    target: str = typer.Option(..., "--target", "-t", help="The target column."),
    measure: str = typer.Option(None, "--measure", help="imin, mmi, broja, ccs, dep, isx."),
    method: str = typer.Option(
        "auto",
        "--method",
        "-m",
        help="auto, plugin or gaussian (--all-pairs: also gaussian_copula, miller_madow).",
    ),
    unit: str = opt.UNIT,
    ci: float = typer.Option(None, "--ci", help="Confidence level of each atom's interval."),
    seed: int = opt.SEED,
    discrete: bool = opt.DISCRETE,
    out_dir: str = opt.out_dir(
        None, "Folder for pid.png (the atoms; --all-pairs: pid-pairs.png, the heat map)."
    ),
    all_pairs: bool = typer.Option(
        False,
        "--all-pairs",
        help="The PID of every pair of sources (im.pid_pairs): from counts for symbols, "
        "Gaussian(-copula) MMI for numbers.",
    ),
    top: int = typer.Option(20, "--top", help="--all-pairs: rows printed (by |syn - red|)."),
    json_out: bool = _JSON,
    quiet: bool = _QUIET,
) -> None:
    """Partial information decomposition of I(sources; target); with --all-pairs, of
    every pair of sources (heat map of synergy - redundancy with --out)."""
    import infometer as im
    from infometer.core._io import read_table, select_columns
    from infometer.core.progress import quiet as quiet_bars
    from infometer.core.seeding import check_seed
    from infometer.core.validation import check_int

    from .app import out

    check_out_dir(out_dir, "--out")
    check_seed(seed, "--seed")  # whether or not --ci draws with it
    check_int(top, "--top", min_value=0)  # whether or not --all-pairs prints rows
    cli_names(X="--sources", sources="--sources")
    df = read_table(file)
    if target not in df.columns:
        raise ValueError(f"--target: {file} has no column {target!r}")
    if all_pairs:
        _pid_pairs(
            df,
            file,
            sources,
            target,
            measure,
            method,
            unit,
            ci,
            seed,
            discrete,
            out_dir,
            top,
            json_out,
            quiet,
        )
        return
    if sources is None:
        raise ValueError("--sources is required (or --all-pairs for every pair of columns)")
    names = _names(sources, "--sources")
    if target in names:
        raise ValueError(f"--target {target!r} is among the --sources")
    src = select_columns(df, ",".join(names), "--sources", file)
    with warnings.catch_warnings(record=True) as caught, quiet_bars(quiet):
        warnings.simplefilter("always")
        res = im.pid(
            src,
            df[target],
            measure=measure,
            method=method,
            unit=unit,
            ci=ci,
            seed=seed,
            discrete=discrete,
        )
    _warn(caught)
    frame = res.to_frame()
    png = _figure(res, out_dir, "pid.png")
    if json_out:
        print_json(
            {
                "file": file,
                "measure": res.measure,
                "method": res.method,
                "sources": list(res.sources),
                "target": target,
                "mutual_info": res.mutual_info.value,
                "unit": res.mutual_info.unit,
                "atoms": frame.to_dict(orient="records"),
                "files": _files(png),
            }
        )
        return
    say(
        f"PID ({res.measure}, {res.method}) of I({', '.join(res.sources)}; {target}) = "
        f"{res.mutual_info.value:.4g} {res.mutual_info.unit}"
    )
    cols = ["atom_names", "kind", "value"] + (["ci_low", "ci_high"] if ci else [])
    out.print(frame[cols].to_string(index=False), highlight=False, markup=False)
    if png is not None:
        say(f"written: {png}")


def _pid_pairs(
    df,
    file,
    sources,
    target,
    measure,
    method,
    unit,
    ci,
    seed,
    discrete,
    out_dir,
    top,
    json_out,
    quiet,
) -> None:
    import infometer as im
    from infometer.core._io import select_columns
    from infometer.core.progress import quiet as quiet_bars
    from infometer.core.validation import check_int

    from .app import out

    top = check_int(top, "--top", min_value=1)
    if sources is None:
        names = [c for c in df.columns if c != target]
    else:
        names = _names(sources, "--sources")
        if target in names:
            raise ValueError(f"--target {target!r} is among the --sources")
    from infometer.measures.multivariate._pairs import METHODS

    method = str(method).lower()
    if method not in METHODS:
        raise ValueError(f"--method {method!r}: --all-pairs takes {', '.join(METHODS)}")
    src = select_columns(df, ",".join(map(str, names)), "--sources", file)
    with warnings.catch_warnings(record=True) as caught, quiet_bars(quiet):
        warnings.simplefilter("always")
        res = im.pid_pairs(
            src,
            df[target],
            measure=measure or "mmi",
            method=method,
            unit=unit,
            ci=ci,
            seed=seed,
            discrete=discrete,
            progress=None if not quiet else False,
        )
    _warn(caught)
    frame = res.to_frame()
    png = _figure(res, out_dir, "pid-pairs.png")
    if json_out:
        print_json(
            {
                "file": file,
                "measure": res.measure,
                "method": res.method,
                "target": target,
                "unit": res.unit,
                "n": res.n,
                "pairs": frame.to_dict(orient="records"),
                "files": _files(png),
            }
        )
        return
    order = (frame.synergy - frame.redundancy).abs().sort_values(ascending=False).index
    say(
        f"{res.measure.upper()} PID ({res.method}) of every pair of {len(res.names)} "
        f"sources about {target}: {len(frame)} pairs, top {min(top, len(frame))} by "
        f"|synergy - redundancy| ({res.unit})"
    )
    cols = ["source_i", "source_j", "redundancy", "unique_i", "unique_j", "synergy"]
    out.print(frame.loc[order[:top], cols].to_string(index=False), highlight=False, markup=False)
    if png is not None:
        say(f"written: {png}")


def multiplets_cmd(
    file: str = typer.Argument(..., help="CSV/TSV, Parquet, .npy or JSONL table."),
    size: int = typer.Option(3, "--size", help="Smallest multiplet size (>= 3)."),
    max_size: int = typer.Option(None, "--max-size", help="Largest size (default --size)."),
    measure: str = typer.Option(
        "o_information",
        "--measure",
        help="o_information, total_correlation, dual_total_correlation, s_information, "
        "co_information.",
    ),
    method: str = typer.Option(
        "auto",
        "--method",
        "-m",
        help="auto (symbols: miller_madow; numbers: gaussian_copula), gaussian_copula, "
        "gaussian, plugin or miller_madow.",
    ),
    columns: str = opt.columns("Variables (comma-separated; default all)."),
    discrete: bool = opt.DISCRETE,
    permutations: int = typer.Option(
        0,
        "--permutations",
        "-B",
        help="Permuted data sets (null: mutual independence) for p-values.",
    ),
    correction: str = typer.Option(
        "fwer",
        "--correction",
        help="fwer (max-statistic per size x sizes), fdr_bh, fdr_by or none.",
    ),
    alpha: float = typer.Option(0.05, "--alpha", help="Level of the significant column."),
    top: int = typer.Option(20, "--top", help="Rows shown (and plotted)."),
    unit: str = opt.UNIT,
    out_dir: str = opt.out_dir("multiplets-out", "Folder for the CSV and PNG files."),
    seed: int = opt.SEED,
    search: str = typer.Option(
        "exhaustive", "--search", help="exhaustive, greedy or beam (grow the best triplets)."
    ),
    beam_width: int = typer.Option(10, "--beam-width", help="Multiplets kept per size (beam)."),
    objective: str = typer.Option(
        "synergy", "--objective", help="What greedy/beam seek: synergy or redundancy."
    ),
    jobs: int = typer.Option(
        1,
        "--jobs",
        "-j",
        help="Local processes (exhaustive chunks; greedy/beam surrogate searches).",
    ),
    store: str = typer.Option(
        None, "--store", help="Folder keeping finished chunks (an exhaustive sweep resumes)."
    ),
    json_out: bool = _JSON,
    quiet: bool = _QUIET,
) -> None:
    """Every multiplet of the columns ranked by O-information (or TC, DTC, ...), or the
    best ones found by a greedy/beam search."""
    import infometer as im
    from infometer.core._io import read_table, select_columns
    from infometer.core.progress import quiet as quiet_bars
    from infometer.core.validation import check_int

    from .app import out

    check_int(top, "--top", min_value=1)
    check_out_dir(out_dir, "--out")
    check_out_dir(store, "--store")
    cli_names(X=file, sizes="--size/--max-size", max_multiplets="--size/--max-size")
    df = select_columns(read_table(file), columns, "--columns", file)
    sizes = (size, size if max_size is None else max_size)
    if store is not None:
        mark_resumable()  # Ctrl-C: "interrupted; run again to resume", exit 130
    with warnings.catch_warnings(record=True) as caught, quiet_bars(quiet):
        warnings.simplefilter("always")
        res = im.multiplets(
            df,
            measure=measure,
            sizes=sizes,
            method=method,
            n_permutations=permutations,
            correction=correction,
            alpha=alpha,
            unit=unit,
            seed=seed,
            search=search,
            beam_width=beam_width,
            objective=objective,
            n_jobs=jobs,
            store=store,
            discrete=discrete,
        )
    _warn(caught)
    od = Path(out_dir)
    od.mkdir(parents=True, exist_ok=True)
    frame = res.to_frame()
    frame.assign(multiplet=[",".join(m) for m in frame["multiplet"]]).to_csv(
        od / "multiplets.csv", index=False
    )
    import matplotlib.pyplot as plt

    for name, kw in (("multiplets.png", {"top": top}), ("pairs.png", {"kind": "pairs"})):
        plt.close(res.plot(path=od / name, **kw).figure)
    files = [od / "multiplets.csv", od / "multiplets.png", od / "pairs.png"]
    shown = frame.head(top)
    if json_out:
        rows = shown.assign(multiplet=[list(m) for m in shown["multiplet"]])
        print_json(
            {
                "file": file,
                "measure": res.measure,
                "method": res.method,
                "n": res.n,
                "multiplets": len(frame),
                "search": search,
                "evaluated": res.diagnostics.get("evaluated", len(frame)),
                "permutations": permutations,
                "null": "mutual independence" if permutations else None,
                "top": rows.to_dict(orient="records"),
                "files": _files(*files),
            }
        )
        return
    found = (
        ""
        if search == "exhaustive"
        else f" kept by a {search} search ({res.diagnostics['evaluated']} evaluated)"
    )
    out.print(
        f"{len(frame)} multiplets of {len(res.names)} variables{found}, n={res.n} "
        f"({res.measure}, {res.method})",
        highlight=False,
    )
    out.print(
        shown.assign(multiplet=[",".join(m) for m in shown["multiplet"]]).to_string(index=False),
        highlight=False,
        markup=False,
    )
    if permutations:
        say(
            f"p_value, p_fwer (max-statistic), q_value: a permutation test against mutual "
            f"independence of the variables ({permutations} permuted data sets); a small "
            "p says the multiplet is not independent, not that its value is large"
        )
    say("written: " + ", ".join(_files(*files)))


def register(app: typer.Typer) -> None:
    """Mount ``multi``, ``pid`` and ``multiplets`` (user errors: one line, exit code 2)."""
    from .app import user_errors

    app.command("multi")(user_errors(multi_cmd))
    app.command("pid")(user_errors(pid_cmd))
    app.command("multiplets")(user_errors(multiplets_cmd))
