"""End-to-end runs of the three systems and the bridge, resumable, with a JSON and HTML report.

:func:`run` executes the parts listed in :data:`PARTS` (``scribes``, ``litecost``,
``liveweb``, ``bridge``) at a size (``"tiny"`` a smoke test, ``"small"`` a quick look,
``"full"`` for benchmarks/results/extract.md), writing ``<out>/<part>.json`` as each part
finishes.  A part already in the folder is read back, not re-run, so an interrupted run
loses at most the part in progress.  The folder is a store of the one store service
(:mod:`infometer.core.store`): its identity (size, seed, render, similarity, the infometer
version) is written before the first part and checked on every run, so parts of other
settings are never mixed into one report, and each part is checksummed.
:func:`write_html` renders one table and one chart per system into ``<out>/report.html``
(self-contained: charts are inline PNGs).
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from infometer.core.report import anchor, figure_uri, table, write
from infometer.core.seeding import Seed, resolve_seed
from infometer.core.store import ResultStore
from infometer.core.validation import Flag, Instance, Many, Options, validate_params
from infometer.systems.text._compressors import LeadK

from ._documents import make_corpus
from ._metrics import fuzzy_f1
from ._sites import TEMPLATES, make_group, make_sites
from ._sso import parse_output, serialize_sso
from .bridge import (
    extraction_mutual_info,
    layout_entropy,
    rank_agreement,
    read_channel_mutual_info,
)
from .litecost import evaluate, run_cost, spans_of, train_extractor
from .liveweb import VGS, chromium_path, make_benchmark, run_benchmark

__all__ = ["PARTS", "SIZES", "run", "run_part", "write_html"]

PARTS: tuple[str, ...] = ("scribes", "litecost", "liveweb", "bridge")
SIZES: dict[str, dict[str, int]] = {
    "tiny": {"groups": 2, "pages": 2, "steps": 10, "docs": 1, "grpo": 4, "seeds": 1, "lw_pages": 2},
    "small": {
        "groups": 5,
        "pages": 3,
        "steps": 150,
        "docs": 3,
        "grpo": 60,
        "seeds": 1,
        "lw_pages": 2,
    },
    "full": {
        "groups": 15,
        "pages": 5,
        "steps": 600,
        "docs": 12,
        "grpo": 200,
        "seeds": 3,
        "lw_pages": 4,
    },
}


def _records(df: Any) -> list[dict[str, Any]]:
    df = df.reset_index()
    df.columns = [str(c) for c in df.columns]
    return json.loads(df.to_json(orient="records"))


def _scribes(cfg: dict[str, int], seed: int, progress: bool | None) -> dict[str, Any]:
    from .scribes import evaluate, page_features, search_program, token_costs, train_policy

    rows, tok, by_size = [], [], []
    for s in range(cfg["seeds"]):
        train = make_sites(cfg["groups"], cfg["pages"], seed=1000 * seed + 2 * s + 1)
        test = make_sites(cfg["groups"], cfg["pages"], seed=1000 * seed + 2 * s + 2)
        pg, _ = train_policy(train, reward="group", steps=cfg["steps"], seed=s, progress=progress)
        ps, _ = train_policy(train, reward="self", steps=cfg["steps"], seed=s, progress=progress)
        writers = {
            "GRPO (group reward)": lambda g, i, p=pg: p.greedy(page_features(g.pages[i].html)),
            "GRPO (self-score only)": lambda g, i, p=ps: p.greedy(page_features(g.pages[i].html)),
            "search (example gold)": lambda g, i, s=s: search_program(
                g.pages[i].html, g.pages[i].gold(), seed=s * 100 + i
            ),
        }
        res = evaluate(writers, test, progress=progress)
        df = res.to_frame()
        df["seed"] = s
        rows += _records(df.drop(columns=["program"]))
        if s == 0:  # F1 by group size: one group per template at each size
            for size in (2, 4, 8):
                gs = make_sites(5, size, seed=1000 * seed + 50 + size)
                sw = {k: writers[k] for k in ("GRPO (group reward)", "search (example gold)")}
                d2 = evaluate(sw, gs, progress=progress).to_frame()
                by_size += _records(d2.drop(columns=["program"]))
    for size in (1, 2, 4, 8, 13):
        for t in ("header_table", "div_grid", "infobox"):
            tok.append({"template": t, **token_costs(make_group("book", t, size, seed=seed))})
    import pandas as pd

    df = pd.DataFrame(rows)
    summary = df.pivot_table(index="writer", columns="split", values="f1", aggfunc="mean")
    by_t = df[df.split == "Holdout"].pivot_table(
        index="template", columns="writer", values="f1", aggfunc="mean"
    )
    bs = pd.DataFrame(by_size)
    size_t = bs[bs.split == "Holdout"].pivot_table(
        index="group_size", columns="writer", values="f1", aggfunc="mean"
    )
    return {
        "summary": _records(summary),
        "holdout_by_group_size": _records(size_t),
        "holdout_by_template": _records(by_t),
        "tokens": tok,
        "n_scripts": int((df.split == "All").sum()),
    }


def _litecost(cfg: dict[str, int], seed: int, progress: bool | None) -> dict[str, Any]:
    import pandas as pd

    rows = []
    for s in range(cfg["seeds"]):
        tr = make_corpus(cfg["docs"], seed=1000 * seed + 2 * s + 1, n_companies=3)
        te = make_corpus(cfg["docs"], seed=1000 * seed + 2 * s + 2, n_companies=3)
        sft, _ = train_extractor(tr, grpo_steps=0, seed=s, progress=progress)
        full, _ = train_extractor(tr, grpo_steps=cfg["grpo"], seed=s, progress=progress)
        nop, _ = train_extractor(
            tr, grpo_steps=cfg["grpo"], process=False, seed=s, progress=progress
        )
        res = evaluate(
            {"raw text": None, "SFT": sft, "SFT+GRPO": full, "SFT+GRPO, no process reward": nop},
            te,
            progress=progress,
        )
        df = res.to_frame()
        df["seed"] = s
        rows += _records(df)
    df = pd.DataFrame(rows)
    g = df.groupby(["system", "level"])
    summ = g.agg(AS=("score", "mean"), PR=("perfect", "mean"), ms=("seconds", "mean"))
    summ["ms"] *= 1000
    overall = df.groupby("system").agg(
        AS=("score", "mean"), PR=("perfect", "mean"), ms=("seconds", "mean")
    )
    overall["ms"] *= 1000
    return {
        "by_level": _records(summ),
        "overall": _records(overall),
        "n_items": int(len(df) / df.system.nunique()),
    }


def _liveweb(
    cfg: dict[str, int], seed: int, progress: bool | None, render: str, similarity: str
) -> dict[str, Any]:

    b = make_benchmark(pages_per_group=cfg["lw_pages"], seed=seed)
    ext = VGS(render=render, similarity=similarity)
    t0 = time.perf_counter()
    res = run_benchmark(b, extractor=ext, progress=progress)
    import warnings

    import infometer as im

    df = res.to_frame()
    st = df[df.method == "stale"]
    codes = {v: i for i, v in enumerate(sorted(set(st.version)))}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # few samples per cell: the plug-in warns
        mi = im.mutual_info(
            np.array([codes[v] for v in st.version]),
            (st.f1.to_numpy() >= 1.0).astype(int),
            method="plugin",
            discrete=True,
            unit="bits",
        )
    summ = res.summary()
    summ.columns = [
        f"type {c}" if isinstance(c, int | np.integer) else str(c) for c in summ.columns
    ]
    return {
        "f1": _records(summ.round(1)),
        "bits": _records(res.bits_frame().round(2)),
        "region_source": res.region_source,
        "similarity": similarity,
        "n_queries": len(b.queries),
        "mi_version_success_bits": float(mi),
        "seconds": time.perf_counter() - t0,
    }


def _bridge(cfg: dict[str, int], seed: int, progress: bool | None) -> dict[str, Any]:
    import warnings

    from .scribes import Choice, resolve, run_choice

    pages = [p for g in make_sites(len(TEMPLATES), cfg["pages"], seed=seed) for p in g.pages]
    rows = []
    rest = {
        "div_grid": ("repeat_richest", "first_child", "item_first_child", "next_sibling"),
        "header_table": ("repeat_richest", "first_child", "header_row", "aligned_cell"),
    }
    variants = {
        "class-keyed rules": lambda r: Choice("class", *r),
        "index-keyed rules": lambda r: Choice("index", *r),
        "hard-coded (literal)": lambda r: Choice("literal", *r),
        "rest-of-text object rule": lambda r: Choice("class", *r[:3], "rest_text"),
        "wrong predicate rule": lambda r: Choice("class", r[0], r[1], "dt", r[3]),
    }
    for t, r in rest.items():
        g = make_group("book", t, 12, seed=seed + 5)
        htmls = [p.html for p in g.pages]
        ext = {k: resolve(v(r), htmls[0]) for k, v in variants.items()}
        ext["copy the page"] = "copy"
        ext["constant"] = "const"
        for name, prog in ext.items():
            if prog == "copy":
                f = lambda h: h  # noqa: E731
            elif prog == "const":
                f = lambda h: [("item", "field", "value")]  # noqa: E731
            else:
                f = lambda h, p=prog: run_choice(p, h)  # noqa: E731
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                e = extraction_mutual_info(htmls, f, unit="bits", ci=None)
            out = [f(h) for h in htmls]
            f1 = float(
                np.mean(
                    [
                        fuzzy_f1(o, p.gold()).f1 if not isinstance(o, str) else 0.0
                        for o, p in zip(out, g.pages, strict=True)
                    ]
                )
            )
            rows.append(
                {
                    "template": t,
                    "extractor": name,
                    "f1": f1,
                    "mi_bits": float(e),
                    "bits_per_token": e.diagnostics.get("bits_per_token"),
                    "ceiling_bits": e.diagnostics["ceiling_bits"],
                    # clipped to [0, log2 N] with what it says (read_channel_mutual_info)
                    "mi_bits_read": read_channel_mutual_info(e)["bits"],
                    "mi_reading": read_channel_mutual_info(e)["reading"],
                }
            )
    rows += _litecost_mi(seed)
    ranks = {}
    for t in rest:
        sub = [x for x in rows if x["template"] == t and x["extractor"] != "copy the page"]
        ranks[t] = rank_agreement([x["f1"] for x in sub], [x["mi_bits"] for x in sub])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        h = float(layout_entropy(pages, unit="bits"))
    return {
        "channel_mi": rows,
        "spearman_f1_vs_mi": ranks,
        "layout_entropy_bits": h,
        "layout_templates": len(TEMPLATES),
    }


def _litecost_mi(seed: int) -> list[dict[str, Any]]:
    """I(filing; structure | question): SSO of a trained extractor vs lead-k sentences."""
    import warnings

    ext, _ = train_extractor(
        make_corpus(4, seed=seed + 11, n_companies=3), grpo_steps=40, seed=seed
    )
    test = [q for q in make_corpus(12, seed=seed + 12, n_companies=3, per_level=1) if q.level == 1]
    by_text = {q.filing.text: (q, spans_of(q.filing)) for q in test}

    def sso(text: str, question: str | None = None) -> str:
        q, sp = by_text[text]
        run = run_cost(q, sp, ext)

        return serialize_sso(parse_output(run.output).sso) if run.schema else ""

    texts, qs = [q.filing.text for q in test], [q.text for q in test]
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e = extraction_mutual_info(texts, sso, queries=qs, unit="bits", ci=None)
        tok = e.diagnostics.get("mean_tokens") or 0.0
        lead = LeadK(max(1, int(round(tok / 12))))  # ~12 words per sentence: same budget
        e2 = extraction_mutual_info(
            texts, lambda t, q=None: lead(t, q), queries=qs, unit="bits", ci=None
        )
    for name, est in (("LiteCoST SSO table", e), (f"{lead.name} sentences", e2)):
        out.append(
            {
                "template": "filing (L1 questions)",
                "extractor": name,
                "f1": None,
                "mi_bits": float(est),
                "bits_per_token": est.diagnostics.get("bits_per_token"),
                "ceiling_bits": est.diagnostics["ceiling_bits"],
            }
        )
    return out


#: What :func:`run` and :func:`run_part` accept, declared once.
_RUN_PARAMS = {
    "size": [Options(*SIZES)],
    "render": [Options("html", "chromium", "auto")],
    "similarity": [Options("lexical", "minilm")],
    "progress": [Flag(), None],
}


@validate_params({**_RUN_PARAMS, "part": [Options(*PARTS)]})
def run_part(
    part: str,
    *,
    size: str = "small",
    seed: Seed = 0,
    progress: bool | None = None,
    render: str = "html",
    similarity: str = "lexical",
) -> dict[str, Any]:
    """Run one part and return its JSON-ready result.

    Parameters
    ----------
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).

    Examples
    --------
    >>> r = run_part("litecost", size="tiny", progress=False)
    >>> sorted(r["result"])
    ['by_level', 'n_items', 'overall']
    """
    if part not in PARTS:
        raise ValueError(f"part must be one of {PARTS}, got {part!r}")
    if size not in SIZES:
        raise ValueError(f"size must be one of {sorted(SIZES)}, got {size!r}")
    cfg = SIZES[size]
    seed = resolve_seed(seed)  # recorded in the part's JSON: pass it to repeat a seed=None run
    t0 = time.perf_counter()
    if part == "scribes":
        out = _scribes(cfg, seed, progress)
    elif part == "litecost":
        out = _litecost(cfg, seed, progress)
    elif part == "liveweb":
        out = _liveweb(cfg, seed, progress, render, similarity)
    else:
        out = _bridge(cfg, seed, progress)
    return {
        "part": part,
        "size": size,
        "seed": seed,
        "render": render,
        "similarity": similarity,
        "seconds": time.perf_counter() - t0,
        "result": out,
    }


@validate_params(
    {
        **_RUN_PARAMS,
        "out": [Instance(str, Path, what="a folder path")],
        "parts": [Many(Options(*PARTS), distinct=True, what="parts")],
        "resume": [Flag()],
    }
)
def run(
    out: str | Path,
    *,
    parts: Sequence[str] = PARTS,
    size: str = "small",
    seed: Seed = 0,
    render: str = "html",
    similarity: str = "lexical",
    resume: bool = True,
    progress: bool | None = None,
) -> dict[str, Any]:
    """Run ``parts`` into folder ``out`` (one JSON per part, resumable) and write the report.

    ``out`` must be missing, empty or a folder this function wrote with the same ``size``,
    ``seed``, ``render`` and ``similarity`` (another is refused with a ``ValueError`` that
    says what differs); ``resume=False`` computes the parts again in the same folder.
    Parameters
    ----------
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).

    Examples
    --------
    >>> import tempfile
    >>> r = run(tempfile.mkdtemp(), parts=["bridge"], size="small")  # doctest: +SKIP
    """
    if render == "chromium" and "liveweb" in parts:
        if chromium_path() is None:
            raise ValueError("render='chromium' but headless Chromium is not installed here")
    seed = resolve_seed(seed)

    results = {}
    with ResultStore(
        out,
        kind="extract-bench",
        params={"size": size, "seed": seed, "render": render, "similarity": similarity},
        files={".": "|".join(rf"{p}\.json" for p in PARTS)},
        argument="out",
    ) as st:
        for p in parts:
            name = f"{p}.json"
            if resume and st.has(name):
                results[p] = st.get_json(name, required=("part", "seconds", "result"))
                continue
            r = run_part(
                p, size=size, seed=seed, progress=progress, render=render, similarity=similarity
            )
            st.put_json(name, r, indent=1)  # atomic: a killed run leaves no part or all of it
            results[p] = r
        write_html(results, st.path / "report.html")
    return results


# ---------------------------------------------------------------------------- HTML
def _table(rows: list[dict[str, Any]]):
    return table(rows, formats={}, left=()) if rows else table([])


def _chart(labels: list[str], series: dict[str, list[float]], ylabel: str, title: str) -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 3.2))
    x = np.arange(len(labels))
    w = 0.8 / max(len(series), 1)
    for k, (name, vals) in enumerate(series.items()):
        ax.bar(x + k * w, [np.nan if v is None else v for v in vals], width=w, label=name)
    ax.set_xticks(x + 0.4 - w / 2, labels, rotation=12, fontsize=9)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    top = np.nanmax([v for vals in series.values() for v in vals if v is not None] or [1.0])
    ax.set_ylim(min(0.0, ax.get_ylim()[0]), top * 1.3)
    ax.legend(frameon=False, fontsize=9, ncol=max(len(series), 1), loc="upper center")
    fig.tight_layout()
    return figure_uri(fig, dpi=90)


def _section(title: str, chart: str, chart_title: str, tables, paragraphs=()) -> dict:
    return {
        "title": title,
        "chart": chart,
        "chart_title": chart_title,
        "tables": [(sub, _table(rows)) for sub, rows in tables],
        "paragraphs": list(paragraphs),
    }


def _sections(results: dict[str, Any]) -> list[dict]:
    out = []
    if "scribes" in results:
        r = results["scribes"]["result"]
        s = r["summary"]
        t = "SCRIBES analogue: All / Example / Holdout"
        ch = _chart(
            [x["writer"] for x in s],
            {k: [x.get(k) for x in s] for k in ("All", "Example", "Holdout")},
            "fuzzy F1",
            t,
        )
        tables = [
            ("", s),
            ("Holdout F1 by template", r["holdout_by_template"]),
            ("Holdout F1 by group size", r.get("holdout_by_group_size", [])),
            ("Tokens per triple", r["tokens"]),
        ]
        out.append(_section("SCRIBES", ch, t, tables))
    if "litecost" in results:
        r = results["litecost"]["result"]
        bl = r["by_level"]
        systems = list(dict.fromkeys(x["system"] for x in bl))
        t = "LiteCoST analogue: average score by Loong level"
        ch = _chart(
            [f"L{lv}" for lv in (1, 2, 3, 4)],
            {
                s: [
                    next((x["AS"] for x in bl if x["system"] == s and x["level"] == lv), None)
                    for lv in (1, 2, 3, 4)
                ]
                for s in systems
            },
            "AS (0-100)",
            t,
        )
        out.append(_section("LiteCoST", ch, t, [("", r["overall"]), ("", bl)]))
    if "liveweb" in results:
        r = results["liveweb"]["result"]
        f1 = r["f1"]
        vers = list(dict.fromkeys(x["version"] for x in f1))
        meths = list(dict.fromkeys(x["method"] for x in f1))
        t = f"LiveWeb-IE analogue under drift (regions: {r['region_source']})"
        ch = _chart(
            vers,
            {
                m: [
                    next((x["overall"] for x in f1 if x["method"] == m and x["version"] == v), None)
                    for v in vers
                ]
                for m in meths
            },
            "F1 x100",
            t,
        )
        tables = [("", f1), ("Bits of search removed", r["bits"])]
        out.append(_section("LiveWeb-IE / VGS", ch, t, tables))
    if "bridge" in results:
        r = results["bridge"]["result"]
        rows = r["channel_mi"]
        names = list(dict.fromkeys(x["extractor"] for x in rows))
        t = "I(page; extraction) of extraction scripts"
        ch = _chart(
            names,
            {
                tp: [
                    next(
                        (x["mi_bits"] for x in rows if x["extractor"] == n and x["template"] == tp),
                        None,
                    )
                    for n in names
                ]
                for tp in dict.fromkeys(x["template"] for x in rows)
            },
            "channel MI (bits)",
            t,
        )
        sp = ", ".join(f"{k}: {v:.2f}" for k, v in r["spearman_f1_vs_mi"].items())
        text = (
            f"Layout entropy: {r['layout_entropy_bits']:.3f} bits over "
            f"{r['layout_templates']} templates. Spearman(F1, channel MI): {sp}."
        )
        out.append(_section("Bridge to information", ch, t, [("", rows)], [text]))
    return out


def write_html(results: dict[str, Any], path: str | Path) -> Path:
    """A self-contained HTML report: a table and a chart per system
    (the ``extract.html.j2`` template of :mod:`infometer.core.report`).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = write_html({}, pathlib.Path(tempfile.mkdtemp()) / "r.html")
    >>> p.read_text().startswith("<!DOCTYPE html>")
    True
    """
    meta = ", ".join(f"{k}: {v['size']} size, {v['seconds']:.1f} s" for k, v in results.items())
    sections = _sections(results)
    toc = [(anchor(s["title"]), s["title"]) for s in sections]
    return write(path, "extract.html.j2", title="infometer extract", meta=meta,
                 sections=sections, toc=toc)  # fmt: skip
