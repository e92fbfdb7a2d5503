"""Extraction past the training data: the tables of benchmarks/results/extract.md (issue 39).

    PYTHONPATH=src OPENBLAS_NUM_THREADS=1 .venv/bin/python \
        benchmarks/accuracy/extract_generalise.py --out /tmp/extract-generalise \
        [--parts loto,drift,liveweb,litecost,bits] [--seeds 3]

Parts (one JSON each in ``--out``, then the markdown tables on stdout); every script a
writer writes is scored by running it in the OS sandbox (:class:`~infometer.systems.
extract.sandbox.Sandbox`, bubblewrap + seccomp; training and the searches run the
programs in-process):

* ``loto`` -- leave-one-template-out over the nine template families: the composing
  writer (:mod:`infometer.systems.extract.writer`) against the slot policy, both searches
  and the per-page extractor (``--seeds`` seeds of train/test groups);
* ``drift`` -- scripts written before a drift (stale) and re-written after it;
* ``liveweb`` -- the harder LiveWeb-style benchmark (:mod:`~infometer.systems.extract.
  liveweb_hard`): literal / paraphrased / absent attribute names, struck-through prices,
  A/B layouts, relabel and redesign drifts, VGS against per-page extraction, bits per stage
  (``--similarity lexical,minilm``);
* ``litecost`` -- templated against paraphrased LiteCoST questions, side by side;
* ``bits`` -- where the channel-MI reading says something F1 does not (gold-free drift
  alarm; the clipped reading of the hard-coded script).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path
from typing import Any

#: The sizes of the leave-one-template-out and drift runs (per seed).
_RUN = {"train_groups": 2, "pages": 5, "steps": 400, "slot_steps": 300}


class _Sandbox:
    """The OS sandbox, each distinct (script, pages) run once: several writers often write
    the same program, and a stale script meets the same drifted pages for every writer."""

    def __init__(self) -> None:
        from infometer.systems.extract.sandbox import Sandbox

        self.sandbox = Sandbox()
        self.memo: dict[tuple[str, tuple[str, ...]], Any] = {}
        self.runs = 0

    def run(self, script: str, pages: Any) -> Any:
        key = (script, tuple(pages))
        if key not in self.memo:
            self.memo[key] = self.sandbox.run(script, list(pages))
            self.runs += 1
        return self.memo[key]


def _table(df: Any, fmt: str = "{:.3f}") -> str:
    cols = [str(c) for c in df.columns]
    idx = df.index.names if df.index.nlevels > 1 else [df.index.name or ""]
    lines = [
        "| " + " | ".join([*[str(i) for i in idx], *cols]) + " |",
        "|" + "---|" * (len(idx) + len(cols)),
    ]
    for key, row in df.iterrows():
        keys = key if isinstance(key, tuple) else (key,)
        vals = [fmt.format(v) if isinstance(v, float) else str(v) for v in row]
        lines.append("| " + " | ".join([*[str(k) for k in keys], *vals]) + " |")
    return "\n".join(lines)


def part_loto(seeds: int, progress: bool) -> dict[str, Any]:
    import pandas as pd

    from infometer.systems.extract.writer import leave_one_template_out

    frames, weights = [], []
    for s in range(seeds):
        r = leave_one_template_out(
            **_RUN, test_groups=2, seed=s, sandbox=_Sandbox(), progress=progress
        )
        df = r.to_frame().drop(columns=["program"])
        df["seed"] = s
        frames.append(df)
        weights.append(r.meta["weights"])
    df = pd.concat(frames)
    return {"rows": json.loads(df.to_json(orient="records")), "weights": weights}


def part_drift(seeds: int, progress: bool) -> dict[str, Any]:
    import pandas as pd

    from infometer.systems.extract.writer import drift_recovery

    frames = []
    for s in range(seeds):
        r = drift_recovery(**_RUN, test_groups=1, seed=s, sandbox=_Sandbox(), progress=progress)
        df = r.to_frame()
        df["seed"] = s
        frames.append(df)
    df = pd.concat(frames)
    return {"rows": json.loads(df.to_json(orient="records"))}


def show_loto(res: dict[str, Any]) -> None:
    import pandas as pd

    df = pd.DataFrame(res["rows"])
    hold = df[df.split == "Holdout"]
    t = hold.pivot_table(index="held_out", columns="writer", values="f1", aggfunc="mean")
    t.loc["mean"] = t.mean()
    print("### held-out template, Holdout F1 (mean over seeds, groups and examples)\n")
    print(_table(t))
    s = df.pivot_table(index="writer", columns="split", values="f1", aggfunc="mean")
    print("\n### all held-out templates together\n")
    print(_table(s))
    per_seed = hold.groupby(["writer", "seed"]).f1.mean().unstack()
    print("\n### per seed (Holdout)\n")
    print(_table(per_seed))


def show_drift(res: dict[str, Any]) -> None:
    import pandas as pd

    df = pd.DataFrame(res["rows"])
    t = df.pivot_table(index="drift", columns=["writer", "when"], values="f1", aggfunc="mean")
    t.columns = [f"{w} / {when}" for w, when in t.columns]
    print("### drift: stale vs re-written scripts, Holdout F1 on the drifted pages\n")
    print(_table(t))
    sub = df[(df.template == "kv_table") & (df.drift == "grid")]
    t2 = sub.pivot_table(index="writer", columns="when", values="f1", aggfunc="mean")
    print("\n### kv_table after table -> grid\n")
    print(_table(t2))


def part_liveweb(seeds: int, progress: bool, similarity: str = "lexical,minilm") -> dict[str, Any]:
    from infometer.systems.extract.liveweb import VGS
    from infometer.systems.extract.liveweb_hard import make_hard_benchmark, run_hard_benchmark

    bench = make_hard_benchmark(pages_per_group=4, seed=0)
    ext: dict[str, Any] = {}
    for sim in similarity.split(","):
        if sim == "lexical":
            ext["lexical"] = VGS(render="html", similarity="lexical")
            ext["lexical + stand-ins"] = VGS(
                render="html", similarity="lexical", layout_cues=True, value_types=True
            )
        else:  # MiniLM at the default threshold and a lower one (a sensitivity check)
            for thr in (0.6, 0.4):
                ext[f"minilm >= {thr} + stand-ins"] = VGS(
                    render="html",
                    similarity=sim,
                    min_similarity=thr,
                    layout_cues=True,
                    value_types=True,
                )
    res = run_hard_benchmark(bench, ext, progress=progress)
    return {"rows": list(res.rows), "bits": list(res.bits), "counts": res.counts}


def show_liveweb(res: dict[str, Any]) -> None:
    import pandas as pd

    print(f"counts: {json.dumps(res['counts'])}\n")
    df = pd.DataFrame(res["rows"])
    v0 = df[df.version == "v0"]
    t = v0.pivot_table(index=["extractor", "method"], columns="condition", values="f1") * 100
    t["overall"] = v0.groupby(["extractor", "method"]).f1.mean() * 100
    print("### v0: F1 x100 by condition\n")
    print(_table(t, "{:.1f}"))
    t = df.pivot_table(index=["extractor", "method"], columns="version", values="f1") * 100
    print("\n### by version (all conditions)\n")
    print(_table(t[[c for c in ("v0", "relabel", "redesign", "combined") if c in t]], "{:.1f}"))
    t = v0.pivot_table(index=["extractor", "method"], columns="qtype", values="f1") * 100
    t.columns = [f"type {c}" for c in t.columns]
    print("\n### v0 by query type\n")
    print(_table(t, "{:.1f}"))
    b = pd.DataFrame(res["bits"])
    b = b[(b.version == "v0") & (b.kind == "text")]
    cols = ["typing", "region", "localisation", "total"]
    t = b.groupby(["extractor", "condition", "found"])[cols].mean()
    t["n"] = b.groupby(["extractor", "condition", "found"]).size()
    print("\n### bits of search removed per stage (text attributes, v0), by found / not found\n")
    print(_table(t, "{:.2f}"))


def part_litecost(seeds: int, progress: bool) -> dict[str, Any]:
    from infometer.systems.extract.documents import make_corpus
    from infometer.systems.extract.litecost import Reader, evaluate, train_extractor
    from infometer.systems.extract.questions import (
        QuestionParser,
        answer_frame,
        paraphrase_corpus,
    )
    from infometer.systems.extract.sso import answer_score

    pm, pl = QuestionParser("minilm"), QuestionParser("lexical")
    rows = []
    for s in range(seeds):
        tr = make_corpus(12, seed=2 * s + 1, n_companies=3)
        te = make_corpus(12, seed=2 * s + 2, n_companies=3)
        ext, _ = train_extractor(tr, grpo_steps=200, process=False, seed=s, progress=progress)
        systems = {
            "raw text, keywords + template regexes": None,
            "SFT+GRPO, learned schema + template regexes": ext,
            "raw text + parser (MiniLM)": Reader(None, pm),
            "SFT+GRPO + parser (lexical)": Reader(ext, pl),
            "SFT+GRPO + parser (MiniLM)": Reader(ext, pm),
        }
        for wording, qs in (("templated", te), ("paraphrased", paraphrase_corpus(te, seed=s))):
            df = evaluate(systems, qs, progress=progress).to_frame()
            df["wording"], df["seed"] = wording, s
            rows += json.loads(df.to_json(orient="records"))
            for name, parser in (
                ("gold table + parser (MiniLM)", pm),
                ("gold table + parser (lexical)", pl),
            ):
                for q in qs:
                    f = parser.parse(q.text, q.filing.companies)
                    sc = answer_score(answer_frame(f, q.filing.table), q.answer)
                    rows.append(
                        {
                            "system": name,
                            "level": q.level,
                            "score": sc,
                            "perfect": float(sc >= 100),
                            "seconds": 0.0,
                            "wording": wording,
                            "seed": s,
                        }
                    )
    return {"rows": rows}


def show_litecost(res: dict[str, Any]) -> None:
    import pandas as pd

    df = pd.DataFrame(res["rows"])
    t = df.pivot_table(index="system", columns="wording", values="score")
    pr = df.pivot_table(index="system", columns="wording", values="perfect")
    t = t[["templated", "paraphrased"]]
    t["PR templated"], t["PR paraphrased"] = pr["templated"], pr["paraphrased"]
    print(
        "### AS (0-100) and PR, templated vs paraphrased "
        f"({len(df) // df.system.nunique() // 2} questions per wording)\n"
    )
    print(_table(t, "{:.2f}"))
    t = df.pivot_table(index=["system", "wording"], columns="level", values="score")
    t.columns = [f"L{c}" for c in t.columns]
    print("\n### AS by level\n")
    print(_table(t, "{:.1f}"))


def part_bits(seeds: int, progress: bool) -> dict[str, Any]:
    """A gold-free drift alarm: channel MI of a script's output on 12 pages before and after
    each drift, beside the F1 that needs gold."""
    import warnings

    from infometer.systems.extract.bridge import extraction_mutual_info, read_channel_mutual_info
    from infometer.systems.extract.metrics import fuzzy_f1
    from infometer.systems.extract.scribes import compile_script
    from infometer.systems.extract.sites import ALL_TEMPLATES, drift, make_group, rerender
    from infometer.systems.extract.writer import SCRIPT_DRIFTS, _groups_of, train_writer, write

    sb = _Sandbox()
    train = [g for t in ALL_TEMPLATES for g in _groups_of(t, 1, 4, 11)]
    pol, _ = train_writer(train, steps=300, seed=0, progress=progress)
    rows = []
    for k, t in enumerate(ALL_TEMPLATES):
        g = make_group(["book", "film", "phone", "university"][k % 4], t, 12, seed=500 + k)
        cand = write(pol, g.pages[0].html, context=[g.pages[1].html])
        script = compile_script(cand.program) if cand else "def main(html):\n    return []\n"

        def measure(pages: Any, script: str = script) -> tuple[float, dict[str, Any]]:
            htmls = [p.html for p in pages]  # the script runs once per page, in the sandbox
            out = {
                h: [list(x) for x in r.triples] if r.ok else []
                for h, r in zip(htmls, sb.run(script, htmls), strict=True)
            }
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                e = extraction_mutual_info(htmls, out.__getitem__, unit="bits", ci=None)
            f1 = [fuzzy_f1(out[h], p.gold()).f1 for h, p in zip(htmls, pages, strict=True)]
            return sum(f1) / len(f1), read_channel_mutual_info(e)

        f0, m0 = measure(g.pages)
        for d in SCRIPT_DRIFTS:
            lay = drift(g.layout, d)
            f1, m1 = measure([rerender(p, lay)[0] for p in g.pages])
            rows.append(
                {
                    "template": t,
                    "drift": d,
                    "f1_before": f0,
                    "f1_after": f1,
                    "bits_before": m0["bits"],
                    "bits_after": m1["bits"],
                    "raw_after": m1["raw_bits"],
                    "reading_after": m1["reading"],
                    "ceiling": m1["ceiling_bits"],
                }
            )
    return {"rows": rows}


def show_bits(res: dict[str, Any]) -> None:
    import pandas as pd

    df = pd.DataFrame(res["rows"])
    broke = df.f1_after < 0.5
    alarm = df.reading_after == "degenerate"
    print(
        "### gold-free drift alarm: stale composed script, 12 pages, ceiling log2 12 = "
        f"{df.ceiling.iloc[0]:.3f} bits\n"
    )
    t = pd.crosstab(broke.map({True: "F1 < 0.5 after", False: "F1 >= 0.5 after"}), df.reading_after)
    print(_table(t, "{}"))
    t = df.groupby("drift")[["f1_before", "f1_after", "bits_before", "bits_after"]].mean()
    print("\n### by drift (mean over the nine templates)\n")
    print(_table(t))
    miss = df[broke & ~alarm]
    print(
        f"\nbroken but not flagged (output still page-specific): {len(miss)} of {int(broke.sum())}"
    )
    print(
        _table(miss.set_index(["template", "drift"])[["f1_after", "bits_after", "reading_after"]])
    )


PARTS = {
    "loto": (part_loto, show_loto),
    "drift": (part_drift, show_drift),
    "liveweb": (part_liveweb, show_liveweb),
    "litecost": (part_litecost, show_litecost),
    "bits": (part_bits, show_bits),
}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="/tmp/extract-generalise")
    ap.add_argument("--parts", default=",".join(PARTS))
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--similarity", default="lexical,minilm")
    ap.add_argument("--progress", action="store_true")
    ap.add_argument("--show", action="store_true", help="only print the tables of --out")
    a = ap.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    for p in a.parts.split(","):
        if p not in PARTS:
            raise SystemExit(f"error: unknown part {p!r}; choose from {list(PARTS)}")
        run, show = PARTS[p]
        f = out / f"{p}.json"
        if not a.show:
            load0, t0, c0 = os.getloadavg(), time.time(), time.process_time()
            kw = {"similarity": a.similarity} if p == "liveweb" else {}
            res = run(a.seeds, a.progress, **kw)
            res["meta"] = {
                "loadavg_start": load0,
                "loadavg_end": os.getloadavg(),
                "wall_s": time.time() - t0,
                "cpu_s": time.process_time() - c0,
                "machine": f"{platform.machine()} {os.cpu_count()} CPUs",
                "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                "seeds": a.seeds,
            }
            f.write_text(json.dumps(res))
        res = json.loads(f.read_text())
        print(f"\n## {p}  {json.dumps(res.get('meta', {}))}\n")
        show(res)


if __name__ == "__main__":
    main()
