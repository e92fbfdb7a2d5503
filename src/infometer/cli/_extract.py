"""``infometer extract``: information extraction, measured (SCRIBES, LiveWeb-IE/VGS, LiteCoST).

* ``score --script FILE [--template T] [--pages N] [--allow-unisolated]`` -- run a
  ``main(html)`` script in the OS sandbox on a generated page group and print its fuzzy F1
  per page and group reward;
* ``bench [--out DIR] [--parts ...] [--size small|full]`` -- the three systems and the
  bridge end to end on generated data, one JSON per part (resumable) and ``report.html``;
* ``serve [--seconds S]`` -- serve the generated drifting sites on 127.0.0.1 until idle.

Nothing is downloaded; everything runs offline on generated data.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from . import _options as opt
from ._console import cell, cli_names, mark_resumable, print_json, say, table, user_errors

__all__ = ["register", "app"]

app = typer.Typer(
    help="Information extraction, measured: scripts, drifting sites, structured outputs.",
    no_args_is_help=True,
    rich_markup_mode=None,
)

_Seed = Annotated[int, typer.Option(help="Seed of the generated data and training.")]


def _table(title: str, rows: list[dict[str, Any]]) -> None:
    from ._console import out

    if not rows:
        return
    t = table(*[str(c) for c in rows[0]], title=cell(title))
    for r in rows:
        t.add_row(*[cell(f"{v:.3g}" if isinstance(v, float) else v) for v in r.values()])
    out.print(t)


@app.command("score")
@user_errors
def score_cmd(
    script: Annotated[Path, typer.Option("--script", help="Python file defining main(html).")],
    template: Annotated[str, typer.Option(help="Layout template of the generated group.")] = (
        "div_grid"
    ),
    domain: Annotated[str, typer.Option(help="Domain of the records.")] = "book",
    pages: Annotated[int, typer.Option(help="Pages in the group.")] = 4,
    cpu_seconds: Annotated[int, typer.Option(help="CPU-time limit per page.")] = 4,
    memory_mb: Annotated[int, typer.Option(help="Memory the script may add.")] = 256,
    allow_unisolated: Annotated[
        bool,
        typer.Option(
            "--allow-unisolated",
            help="Run the script even where the OS sandbox (bubblewrap + seccomp) cannot be "
            "made: resource limits and Python guards only, it can read your files.",
        ),
    ] = False,
    seed: _Seed = 0,
    json_out: bool = opt.JSON,
) -> None:
    """Fuzzy F1 (Hungarian) of a script on each page of a generated group, and its reward.

    The script runs in the OS sandbox of ``infometer.systems.extract._sandbox`` (no network, no
    files but a read-only minimal root, no processes, limits); where it cannot be made the
    script is refused unless ``--allow-unisolated`` is given.
    """
    from infometer.systems.extract._metrics import fuzzy_f1
    from infometer.systems.extract._sandbox import Sandbox, SandboxUnavailableError
    from infometer.systems.extract._sites import make_group
    from infometer.systems.extract.scribes import group_reward

    from ._console import fail

    cli_names(n_pages="--pages")
    if not script.is_file():
        raise ValueError(f"--script {str(script)!r} is not a file")
    code = script.read_text()
    g = make_group(domain, template, pages, seed=seed)
    try:
        with Sandbox(
            cpu_seconds=cpu_seconds, memory_mb=memory_mb, allow_unisolated=allow_unisolated
        ) as sb:
            res = sb.run(code, [p.html for p in g.pages])
    except SandboxUnavailableError as exc:
        fail(str(exc).splitlines()[0])
    outs = [list(r.triples) if r.ok else [] for r in res]
    golds = [p.gold() for p in g.pages]
    rows = []
    for i, (r, o, gd) in enumerate(zip(res, outs, golds, strict=True)):
        f = fuzzy_f1(o, gd)
        rows.append(
            {
                "page": i,
                "ok": r.ok,
                "precision": f.precision,
                "recall": f.recall,
                "f1": f.f1,
                "error": r.error,
            }
        )
    summary = {
        "group": g.name,
        "pages": len(g),
        "group_reward_greedy": group_reward(outs, golds),
        "mean_f1_hungarian": sum(r["f1"] for r in rows) / len(rows),
        "per_page": rows,
    }
    if json_out:
        print_json(summary)
        return
    _table(f"script on {g.name}", rows)
    say(
        f"group reward (greedy) = {summary['group_reward_greedy']:.4f}; "
        f"mean F1 (Hungarian) = {summary['mean_f1_hungarian']:.4f}"
    )


@app.command("bench")
@user_errors
def bench_cmd(
    out_dir: str = opt.out_dir("extract-bench", "Folder for the JSON parts and report.html."),
    parts: Annotated[
        str, typer.Option(help="Comma-separated: scribes,litecost,liveweb,bridge.")
    ] = ("scribes,litecost,liveweb,bridge"),
    size: Annotated[
        str, typer.Option(help="tiny (smoke test), small (under a minute) or full.")
    ] = "small",
    render: Annotated[str, typer.Option(help="LiveWeb regions: html, chromium or auto.")] = "html",
    similarity: Annotated[
        str, typer.Option(help="LiveWeb region/label scoring: lexical or minilm.")
    ] = "lexical",
    resume: Annotated[bool, typer.Option(help="Reuse parts already in --out.")] = True,
    seed: _Seed = 0,
    json_out: bool = opt.JSON,
    quiet: bool = opt.QUIET,
) -> None:
    """Run the systems end to end (resumable) and write one table and chart per system."""
    from infometer.systems.extract.bench import run

    from ._console import fail
    from ._paths import check_out_dir

    check_out_dir(out_dir, "--out")
    cli_names(out="--out", parts="--parts", size="--size", render="--render")
    mark_resumable()  # Ctrl-C: "interrupted; run again to resume" (finished parts are kept)
    out = Path(out_dir)
    names = [p.strip() for p in parts.split(",")]
    if not any(names):
        raise ValueError(f"--parts {parts!r} names no part; give e.g. --parts scribes,bridge")
    if "" in names:
        raise ValueError(f"--parts {parts!r} has an empty name between commas")
    try:
        res = run(
            out,
            parts=names,
            size=size,
            seed=seed,
            render=render,
            similarity=similarity,
            resume=resume,
            progress=False if quiet else None,
        )
    except RuntimeError as exc:
        fail(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
    if json_out:
        print_json({"report": str(out / "report.html"), **res})
        return
    for p, r in res.items():
        body = r["result"]
        if p == "scribes":
            _table("SCRIBES: fuzzy F1", body["summary"])
        elif p == "litecost":
            _table("LiteCoST: AS / PR", body["overall"])
        elif p == "liveweb":
            _table(
                f"LiveWeb-IE: F1 x100 (regions: {body['region_source']}, "
                f"scoring: {body['similarity']})",
                body["f1"],
            )
        else:
            _table("channel MI of extraction scripts", body["channel_mi"])
    say(f"report: {out / 'report.html'}")


@app.command("serve")
@user_errors
def serve_cmd(
    seconds: Annotated[float, typer.Option(help="Stop after this many idle seconds.")] = 60.0,
    pages: Annotated[int, typer.Option(help="Pages per group.")] = 4,
    max_requests: Annotated[int, typer.Option(help="Stop after this many requests.")] = 5000,
    seed: _Seed = 0,
    json_out: bool = opt.JSON,
) -> None:
    """Serve the generated drifting sites on 127.0.0.1 until idle (prints the URLs)."""
    from infometer.core.validation import check_int, check_seconds
    from infometer.systems.extract._server import SiteServer
    from infometer.systems.extract.liveweb import make_benchmark

    cli_names(n_pages="--pages", pages_per_group="--pages", idle_seconds="--seconds")
    check_seconds(seconds, "--seconds")  # NaN or inf never stop, < 0 stops at once
    check_int(max_requests, "--max-requests", min_value=1)
    b = make_benchmark(pages_per_group=pages, seed=seed)
    srv = SiteServer(b.pages(), idle_seconds=seconds, max_requests=max_requests).start()
    info = {
        "base": srv.url(""),
        "versions": list(b.versions),
        "example": srv.url(f"/v0/{next(iter(b.groups))}/0"),
        "queries": [q.__dict__ for q in b.queries],
    }
    if json_out:
        print_json(info)
    else:
        say(
            f"serving {len(srv.pages)} pages at {info['base']} (e.g. {info['example']}); "
            f"stops after {seconds:g} s idle"
        )
    try:
        while not srv.stopped.wait(0.5):
            pass
    finally:  # Ctrl-C too: the server stops, then the CLI's one handler exits with 130
        srv.stop()


def register(root: typer.Typer) -> None:
    """Mount the ``extract`` group on the root app."""
    root.add_typer(app, name="extract")
