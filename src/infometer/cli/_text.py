"""``infometer text``: channel MI of compressors, MIG sentence selection, the needle evaluation.

* ``channel-mi --contexts FILE --summaries FILE [--queries FILE] --scorer PATH|builtin`` --
  I(X;Z|Q) of each compressor label in the summaries file, as a table or JSON lines;
* ``select --contexts FILE [--queries FILE] --budget N`` -- MIG sentence selection under a
  token budget, written as a summaries file that ``channel-mi`` reads;
* ``needle [--contexts N] [--rates 4,8,16,32]`` -- MIG token merging against relevance-only
  merging and mean pooling on generated needle-in-a-haystack contexts.

Files are JSON lines (see :mod:`infometer.systems.text._files`); nothing is downloaded: the
scorer is a local causal-LM folder or the built-in word-level LM, MiniLM comes from its package.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Annotated, Any

import typer

from . import _options as opt
from ._console import cell, estimate_json, print_json, say, table, user_errors, warn

__all__ = ["register", "app"]

app = typer.Typer(
    help="Text: channel MI of compressors (bits per token), MIG context compression.",
    no_args_is_help=True,
    rich_markup_mode=None,
)

_Contexts = Annotated[Path, typer.Option("--contexts", help="JSONL: one context per line.")]
_Queries = Annotated[
    Path | None, typer.Option("--queries", help="JSONL: one query per context (optional).")
]


def _table(title: str, columns: list[str], rows: list[list[str]]) -> None:
    from ._console import out

    t = table(*columns, title=cell(title))
    for r in rows:
        t.add_row(*(cell(c) for c in r))
    out.print(t)


def _f(v: Any, nd: int = 3) -> str:
    if v is None:
        return "-"
    return f"{float(v):.{nd}f}"


@app.command("channel-mi")
@user_errors
def channel_mi_cmd(
    contexts: _Contexts,
    summaries: Annotated[
        Path,
        typer.Option(
            "--summaries", help='JSONL: {"context": id, "summary": ..., "compressor": label}.'
        ),
    ],
    scorer: Annotated[
        str, typer.Option("--scorer", help="Local causal-LM folder, or 'builtin'.")
    ] = "builtin",
    queries: _Queries = None,
    unit: str = opt.UNIT,
    ci: Annotated[float, typer.Option(help="Level of the interval over contexts.")] = 0.95,
    template: Annotated[
        str | None, typer.Option(help="Prompt with {context} and {query} fields.")
    ] = None,
    batch_size: Annotated[int, typer.Option(help="Pairs per forward pass (LM scorer).")] = 16,
    device: Annotated[str, typer.Option(help="Torch device of the LM scorer.")] = "cpu",
    out_dir: str | None = opt.out_dir(None, "Folder for channel-mi.png comparing the labels."),
    json_out: bool = opt.JSON,
    quiet: bool = opt.QUIET,
) -> None:
    """I(X;Z|Q) of each compressor (summary label) and its bits per summary token."""
    from infometer.systems.text._files import read_channel_files
    from infometer.systems.text._measure import channel_mutual_info_of_summaries
    from infometer.systems.text._scorers import as_scorer

    from ._paths import check_out_dir

    check_out_dir(out_dir, "--out")  # before the scorer runs
    import re

    from infometer.core.validation import check_int

    _check_inputs(contexts=contexts, summaries=summaries, queries=queries)
    check_int(batch_size, "--batch-size", min_value=1)
    if not isinstance(device, str) or not re.fullmatch(r"cpu|mps|cuda(:\d+)?", device):
        raise ValueError(f"--device must be cpu, cuda, cuda:N or mps, got {device!r}")
    files = read_channel_files(contexts, summaries, queries)
    kw = {"batch_size": batch_size, "device": device, "progress": False if quiet else None}
    sc = as_scorer(scorer, files.contexts, **kw)
    results = {}
    for label, (z, src) in files.groups.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # recorded in diagnostics, printed below
            results[label] = channel_mutual_info_of_summaries(
                files.contexts,
                z,
                src,
                sc,
                queries=files.queries,
                template=template,
                unit=unit,
                ci=ci,
            )
    png = None
    if out_dir is not None:
        Path(out_dir).mkdir(parents=True, exist_ok=True)
        png = Path(out_dir) / "channel-mi.png"
        _plot(results, png)
    if json_out:
        print_json(
            {
                "scorer": scorer,
                "unit": next(iter(results.values())).unit,
                "compressors": [
                    estimate_json(est, {"compressor": label}) for label, est in results.items()
                ],
                "files": [] if png is None else [str(png)],
            }
        )
        return
    rows = []
    flagged = False
    for label, est in results.items():
        d = est.diagnostics
        value, lo, hi = est.rounded()
        ci_txt = "-" if lo is None else f"{lo}–{hi}"
        ceiling = d["ceiling_bits"] if est.unit == "bits" else d["ceiling_nats"]
        neg = "*" if d.get("negative") else ""
        flagged = flagged or bool(neg)
        rows.append(
            [
                label,
                value + neg,
                ci_txt,
                _f(ceiling),
                _f(d.get("bits_per_token"), 4),
                _f(d.get("mean_tokens"), 1),
                str(d["n_summaries"]),
            ]
        )
        for w in est.warnings:
            warn(f"{label}: {w}")
    first = next(iter(results.values()))
    unit_name = first.unit
    _table(
        f"I(X;Z|Q) in {unit_name}, scorer {scorer}; bits per token counted in "
        f"{first.diagnostics.get('token_unit', 'tokens')}",
        [
            "compressor",
            f"MI [{unit_name}]",
            f"{round(ci * 100)}% CI",
            "log N",
            "bits/tok",
            "tokens",
            "n",
        ],
        rows,
    )
    if flagged:
        say("* negative estimate (not clipped): see the warning above")
    if png is not None:
        say(f"written: {png}")


def _plot(results: dict[str, Any], path: Path) -> None:
    import pandas as pd

    from infometer.core.plot import close
    from infometer.systems.text._measure import plot_compressors

    rows = []
    for label, est in results.items():
        b = est.to("bits")
        rows.append(
            {
                "compressor": label,
                "mi_bits": b.value,
                "ci_low_bits": None if b.ci is None else b.ci[0],
                "ci_high_bits": None if b.ci is None else b.ci[1],
                "ceiling_bits": est.diagnostics["ceiling_bits"],
                "bits_per_token": est.diagnostics.get("bits_per_token"),
            }
        )
    df = pd.DataFrame(rows)
    df.attrs["token_unit"] = next(iter(results.values())).diagnostics.get("token_unit")
    close(plot_compressors(df, path=path))


def _check_inputs(**files: Path | None) -> None:
    """Each given input file exists, or a ``ValueError`` naming its option."""
    for name, path in files.items():
        if path is not None and not Path(path).is_file():
            raise ValueError(f"--{name}: no such file {str(path)!r}")


@app.command("select")
@user_errors
def select_cmd(
    contexts: _Contexts,
    budget: Annotated[int, typer.Option(help="Most words per summary.")],
    queries: _Queries = None,
    alpha: Annotated[float, typer.Option(help="Weight of relevance to the query.")] = 1.0,
    beta: Annotated[float, typer.Option(help="Weight of redundancy with kept sentences.")] = 1.0,
    out_dir: str | None = opt.out_dir(
        None, "Folder for summaries.jsonl (default: the summaries on stdout)."
    ),
) -> None:
    """MIG sentence selection (MiniLM) under a word budget; summaries as JSON lines, the
    file that ``channel-mi --summaries`` reads."""
    from infometer.systems.text._compressors import MIGSelect
    from infometer.systems.text._files import read_contexts, read_queries

    from ._paths import check_out_dir

    check_out_dir(out_dir, "--out")
    _check_inputs(contexts=contexts, queries=queries)
    ctx, ids, index = read_contexts(contexts)
    q = None if queries is None else read_queries(queries, ids, index)
    comp = MIGSelect(budget, alpha=alpha, beta=beta)
    lines = []
    for k, x in enumerate(ctx):
        z = comp(x, None if q is None else q[k])
        lines.append(json.dumps({"context": ids[k], "summary": z, "compressor": comp.name}))
    text = "\n".join(lines) + "\n"
    if out_dir is None:
        say(text.rstrip("\n"))
        return
    Path(out_dir).mkdir(parents=True, exist_ok=True)
    (Path(out_dir) / "summaries.jsonl").write_text(text, encoding="utf-8")
    say(f"written: {Path(out_dir) / 'summaries.jsonl'}")


@app.command("needle")
@user_errors
def needle_cmd(
    n_contexts: Annotated[int, typer.Option("--n-contexts", help="Generated contexts (N).")] = 24,
    rates: Annotated[str, typer.Option(help="Compression rates, comma-separated.")] = "4,8,16,32",
    scorer: Annotated[
        str, typer.Option("--scorer", help="Scorer of the readouts: 'builtin' or a folder.")
    ] = "builtin",
    seed: int = opt.SEED,
    out_dir: str | None = opt.out_dir(None, "Folder for needle.csv and needle.png."),
    json_out: bool = opt.JSON,
    quiet: bool = opt.QUIET,
) -> None:
    """MIG token merging vs relevance-only merging and mean pooling on needle contexts."""
    from infometer.core.plot import close
    from infometer.core.validation import check_int
    from infometer.systems.text._needle import needle_eval, plot_needle

    from ._paths import check_out_dir

    check_out_dir(out_dir, "--out")
    check_int(n_contexts, "--n-contexts", min_value=1)
    try:
        rs = [int(r) for r in rates.split(",") if r.strip()]
    except ValueError:
        raise ValueError(f"--rates must be integers, comma-separated, got {rates!r}") from None
    if not rs:
        raise ValueError("--rates is empty")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = needle_eval(
            n_contexts, rs, scorer=scorer, ci=0.95, seed=seed, progress=False if quiet else None
        )
    files = []
    if out_dir is not None:
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        df.to_csv(out / "needle.csv", index=False)
        png = out / "needle.png"
        close(plot_needle(df, path=png))
        files = [str(out / "needle.csv"), str(png)]
    if json_out:
        print_json({"contexts": n_contexts, "rows": df.to_dict(orient="records"), "files": files})
        return
    cols = ["method", "rate", "memory_vectors", "retention", "hit_rate", "recall", "mi_bits"]
    cols += ["bits_per_vector"]
    ceiling = df["ceiling_bits"].iloc[0]
    _table(
        f"Needle in a haystack, {n_contexts} contexts (ceiling {ceiling:.2f} bits)",
        cols,
        [
            [str(r[c]) if isinstance(r[c], str) else _f(r[c]) for c in cols]
            for _, r in df.iterrows()
        ],
    )
    if files:
        say("written: " + ", ".join(files))


def register(root: typer.Typer) -> None:
    """Mount the ``text`` group on the root app."""
    root.add_typer(app, name="text")
