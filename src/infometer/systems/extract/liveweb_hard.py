"""A LiveWeb-style benchmark that separates methods: words not on the page, values that
need the layout, A/B layouts and harder drifts.

:func:`~.liveweb.make_benchmark` quotes each page's literal label in its queries, so VGS
and per-page extraction both score 100 at every version.  This benchmark
(:func:`make_hard_benchmark`) adds, over the nine template families of :mod:`.sites`:

* ``literal`` / ``paraphrased`` queries on the same pages: the quoted attribute is the
  page's label, or words for it that share no word with it (:data:`~.sites.PARAPHRASES`);
* ``absent`` -- the queried field is shown *without a label* (value only): only the shape
  of its values can ground it (a year, a price, a duration);
* ``struck`` -- phones whose price may carry an old price, struck through and shown first
  (``<del>``, an inline ``line-through`` or a class the page's stylesheet strikes): the
  current price needs the rendering;
* ``ab_layout`` -- an A/B test: every second page of the group in another layout (tables
  as ``div`` grids, or another template);
* versions ``relabel`` (the site rewords every label), ``redesign`` (another template, new
  class names) and ``combined`` (class rename + wrapper + column order at once) after
  ``v0``.

:func:`run_hard_benchmark` serves every version on 127.0.0.1 and scores, for each
extractor configuration, VGS (wrapper induced on the group's first page at each version),
its ``stale`` wrapper from ``v0`` and ``per_page`` (stages 2-4 on every page), with the
bits of search each stage removes, by condition and by whether the attribute was found.
Matching: LiveWeb-IE's rule is unpublished; :func:`~.metrics.set_prf` (exact set match of
whitespace-normalised values) as in :mod:`.liveweb`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from infometer.core.results import Result
from infometer.core.seeding import Seed, derive, resolve_seed

from .liveweb import VGS, _apply_all, _path, _score
from .server import SiteServer, fetch
from .sites import (
    ALL_TEMPLATES,
    DETAIL_TEMPLATES,
    DOMAINS,
    PARAPHRASES,
    Layout,
    Page,
    drift,
    make_group,
    make_layout,
    rerender,
    version_clock,
)

__all__ = [
    "CONDITIONS",
    "HARD_VERSIONS",
    "HardQuery",
    "HardBenchmark",
    "make_hard_benchmark",
    "run_hard_benchmark",
    "HardResult",
]

CONDITIONS: tuple[str, ...] = ("literal", "paraphrased", "absent", "struck", "ab_layout")
HARD_VERSIONS: tuple[str, ...] = ("relabel", "redesign", "combined")
#: Templates that can show a field without its label, and the field hidden per domain.
_ABSENT_TEMPLATES = (
    "infobox",
    "kv_table",
    "colon_lines",
    "div_grid",
    "nested_list",
    "card_tables",
    "section_list",
)
_ABSENT_FIELD = {"book": "Year", "film": "Runtime", "phone": "Price", "university": "Founded"}
_TABLES = ("kv_table", "header_table", "card_tables", "transposed_table")
_TEXT = {
    1: "What is the {a} of the item on this page?",
    2: "Extract {a} of the item on this page.",
    3: "List the {a} of every item on this page.",
    4: "List {a} of every item on this page.",
}
#: Most pages one benchmark may hold (groups x pages x versions), checked before rendering.
MAX_PAGES = 50_000


@dataclass(frozen=True)
class HardQuery:
    """A query: its type, condition, the attributes it means and the words it uses."""

    qid: str
    qtype: int
    group: str
    condition: str
    attributes: tuple[str, ...]
    asked: tuple[str, ...]
    text: str


@dataclass
class HardBenchmark:
    """Pages of every version (``pages[version][group]``) and the queries."""

    pages: dict[str, dict[str, tuple[Page, ...]]]
    queries: list[HardQuery]
    kinds: dict[str, str] = field(default_factory=dict)  # group -> base/absent/struck/ab

    def served(self) -> dict[str, str]:
        """Every served path -> HTML."""
        return {
            _path(ver, g, i): p.html
            for ver, gs in self.pages.items()
            for g, ps in gs.items()
            for i, p in enumerate(ps)
        }

    def gold(self, query: HardQuery, page: Page) -> dict[str, list[str]]:
        """Gold values per asked word (the facts of ``v0``: drift never changes them)."""
        return {
            w: [v for v in (r.get(a) for r in page.records) if v]
            for a, w in zip(query.attributes, query.asked, strict=True)
        }

    def counts(self) -> dict[str, Any]:
        """Groups, queries, pages and queries by condition and type."""
        return {
            "groups": len(self.pages["v0"]),
            "queries": len(self.queries),
            "pages_per_version": sum(len(p) for p in self.pages["v0"].values()),
            "versions": list(self.pages),
            "by_condition": {c: sum(q.condition == c for q in self.queries) for c in CONDITIONS},
            "by_type": {t: sum(q.qtype == t for q in self.queries) for t in (1, 2, 3, 4)},
        }


def _quote(words: Sequence[str]) -> str:
    q = [f"'{w}'" for w in words]
    return q[0] if len(q) == 1 else ", ".join(q[:-1]) + " and " + q[-1]


def _version(lay: Layout, ver: str, seed: int) -> Layout:
    if ver == "v0":
        return lay
    if ver == "combined":
        return version_clock(lay, ("class_rename", "wrapper", "column_order"), seed=seed)[-1]
    return drift(lay, ver, seed=seed)


def make_hard_benchmark(
    *,
    pages_per_group: int = 4,
    seed: Seed = 0,
    versions: Sequence[str] = HARD_VERSIONS,
    templates: Sequence[str] = ALL_TEMPLATES,
    domains: Sequence[str] | None = None,
) -> HardBenchmark:
    """Groups and queries of every condition, rendered at ``v0`` and each version.

    Base groups: every template x domain, each with three literal and three paraphrased
    queries (one attribute, another, several with an image or link); ``absent`` groups
    (the templates that can show a bare value, two domains each: a one-attribute query in
    the literal name and one in other words); ``struck`` groups (phones, one per template,
    the three strike styles in turn: the price alone and with another field) and
    ``ab_layout`` groups (one per template: three literal queries).

    Parameters
    ----------
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).

    Examples
    --------
    >>> b = make_hard_benchmark(pages_per_group=2, versions=(), templates=["infobox"],
    ...                         domains=["book"])
    >>> sorted({q.condition for q in b.queries})
    ['ab_layout', 'absent', 'literal', 'paraphrased', 'struck']
    """
    doms = sorted(DOMAINS) if domains is None else list(domains)
    if isinstance(templates, str) or not templates or set(templates) - set(ALL_TEMPLATES):
        raise ValueError(
            f"templates must be a non-empty list among {ALL_TEMPLATES}, got {templates!r}"
        )
    if (
        isinstance(pages_per_group, bool)
        or not isinstance(pages_per_group, int | np.integer)
        or pages_per_group < 2
    ):
        raise ValueError(
            f"pages_per_group must be an integer >= 2 (a wrapper is written on the first "
            f"page and checked on the second), got {pages_per_group!r}"
        )
    bad = [d for d in doms if d not in DOMAINS] + [v for v in versions if v not in HARD_VERSIONS]
    if bad or not doms or isinstance(versions, str) or isinstance(domains, str):
        raise ValueError(
            f"unknown domains or versions {bad}; domains: {sorted(DOMAINS)}, versions: "
            f"{HARD_VERSIONS}"
        )
    n_groups = len(templates) * (len(doms) + 4)
    if n_groups * pages_per_group * (1 + len(versions)) > MAX_PAGES:
        raise ValueError(
            f"{n_groups} groups x {pages_per_group} pages x {1 + len(versions)} versions "
            f"exceeds the limit of {MAX_PAGES:,} pages (checked before rendering)"
        )
    seed = resolve_seed(seed)
    rng = derive(seed, 39)
    layouts: dict[str, list[Layout]] = {}
    base: dict[str, tuple[Page, ...]] = {}
    kinds: dict[str, str] = {}
    queries: list[HardQuery] = []

    def add(name: str, pages: Sequence[Page], lays: Sequence[Layout], kind: str) -> None:
        base[name] = tuple(pages)
        layouts[name] = list(lays)
        kinds[name] = kind

    def common(pages: Sequence[Page], labels: Sequence[str]) -> list[str]:
        out = [a for a in labels if all(r.get(a) for p in pages for r in p.records)]
        return out or list(labels)

    def query(name: str, t: str, cond: str, attrs: list[str], words: list[str]) -> None:
        multi = len(attrs) > 1
        qt = (2 if multi else 1) if t in DETAIL_TEMPLATES else (4 if multi else 3)
        k = sum(q.group == name for q in queries)
        queries.append(
            HardQuery(
                f"{name}-q{k}",
                qt,
                name,
                cond,
                tuple(attrs),
                tuple(words),
                _TEXT[qt].format(a=_quote(words)),
            )
        )

    def para(a: str) -> str:
        if a in ("image", "link"):
            return a
        return PARAPHRASES[a][int(rng.integers(len(PARAPHRASES[a])))]

    n = 0
    for t in templates:
        media = "link" if t in ("header_table", "transposed_table") else "image"
        for d in doms:
            n += 1
            g = make_group(
                d,
                t,
                pages_per_group,
                seed=seed * 1000 + n,
                records_per_page=(3, 5),
                name=f"{d}-{t}",
            )
            add(g.name, g.pages, [g.layout] * len(g), "base")
            cand = common(g.pages, g.layout.field_order)
            a1, a2 = (str(x) for x in rng.choice(cand, 2, replace=len(cand) < 2))
            for cond, w in (("literal", lambda a: a), ("paraphrased", para)):
                query(g.name, t, cond, [a1], [w(a1)])
                query(g.name, t, cond, [a2], [w(a2)])
                multi = list(dict.fromkeys([a1, a2]))
                query(g.name, t, cond, [*multi, media], [*[w(a) for a in multi], media])
        if t in _ABSENT_TEMPLATES:
            for k in range(2):
                d = doms[(len(queries) + k) % len(doms)]
                n += 1
                hidden = _ABSENT_FIELD[d]
                lay = replace(make_layout(d, t, seed=seed * 1000 + n), unlabeled=(hidden,))
                g = make_group(
                    d,
                    t,
                    pages_per_group,
                    seed=seed * 1000 + n,
                    records_per_page=(3, 5),
                    layout=lay,
                    name=f"{d}-{t}-absent",
                )
                add(g.name, g.pages, [lay] * len(g), "absent")
                query(g.name, t, "absent", [hidden], [hidden])
                query(g.name, t, "absent", [hidden], [para(hidden)])
        n += 1
        style = ("tag", "style", "css")[n % 3]
        lay = replace(make_layout("phone", t, seed=seed * 1000 + n), discount=style)
        g = make_group(
            "phone",
            t,
            pages_per_group,
            seed=seed * 1000 + n,
            records_per_page=(3, 5),
            layout=lay,
            name=f"phone-{t}-struck",
            discounts=0.7,
        )
        add(g.name, g.pages, [lay] * len(g), "struck")
        other = [a for a in common(g.pages, lay.field_order) if a != "Price"][:1]
        query(g.name, t, "struck", ["Price"], ["Price"])
        query(g.name, t, "struck", ["Price", *other, media], ["Price", *other, media])
        n += 1
        d = doms[n % len(doms)]
        g = make_group(
            d,
            t,
            pages_per_group,
            seed=seed * 1000 + n,
            records_per_page=(3, 5),
            name=f"{d}-{t}-ab",
        )
        alt = drift(g.layout, "grid" if t in _TABLES else "redesign", seed=seed)
        lays = [g.layout if i % 2 == 0 else alt for i in range(len(g))]
        pages = [p if i % 2 == 0 else rerender(p, alt)[0] for i, p in enumerate(g.pages)]
        add(g.name, pages, lays, "ab_layout")
        cand = common(g.pages, g.layout.field_order)
        a1, a2 = (str(x) for x in rng.choice(cand, 2, replace=len(cand) < 2))
        query(g.name, t, "ab_layout", [a1], [a1])
        query(g.name, t, "ab_layout", [a2], [a2])
        query(
            g.name,
            t,
            "ab_layout",
            list(dict.fromkeys([a1, a2, media])),
            list(dict.fromkeys([a1, a2, media])),
        )
    out: dict[str, dict[str, tuple[Page, ...]]] = {"v0": base}
    for ver in versions:
        out[ver] = {
            name: tuple(
                rerender(p, _version(lay, ver, seed))[0]
                for p, lay in zip(ps, layouts[name], strict=True)
            )
            for name, ps in base.items()
        }
    return HardBenchmark(out, queries, kinds)


@dataclass(frozen=True, eq=False, repr=False)
class HardResult(Result):
    """Rows per (extractor, method, version, query, page) and per-attribute stage logs."""

    rows: tuple[dict[str, Any], ...]
    bits: tuple[dict[str, Any], ...] = ()
    counts: dict[str, Any] = field(default_factory=dict)

    def to_frame(self) -> Any:
        """Tidy frame of every scored row."""
        import pandas as pd

        return pd.DataFrame(list(self.rows))

    def summary(self, version: str | None = "v0") -> Any:
        """F1 x100 by (extractor, method) and condition (and overall) at ``version``
        (``None``: by version instead of condition, over every condition)."""
        df = self.to_frame()
        if version is None:
            t = df.pivot_table(
                index=["extractor", "method"], columns="version", values="f1", aggfunc="mean"
            )
            return t * 100
        df = df[df.version == version]
        t = df.pivot_table(
            index=["extractor", "method"], columns="condition", values="f1", aggfunc="mean"
        )
        t["overall"] = df.groupby(["extractor", "method"]).f1.mean()
        return t * 100

    def bits_frame(self) -> Any:
        """Mean bits each stage removes, by extractor, condition and success."""
        import pandas as pd

        df = pd.DataFrame(list(self.bits))
        keys = ["extractor", "condition", "found"]
        return df.groupby(keys)[["typing", "region", "localisation", "total"]].mean()


def run_hard_benchmark(
    bench: HardBenchmark,
    extractors: dict[str, VGS],
    *,
    versions: Sequence[str] | None = None,
    progress: bool | None = None,
) -> HardResult:
    """Serve the benchmark and score each extractor's ``vgs``, ``stale`` and ``per_page``.

    Examples
    --------
    >>> b = make_hard_benchmark(pages_per_group=2, versions=(), templates=["kv_table"],
    ...                         domains=["film"])
    >>> r = run_hard_benchmark(b, {"lexical": VGS(render="html")}, progress=False)
    >>> float(r.summary().loc[("lexical", "vgs"), "literal"])
    100.0
    """
    from infometer.core.progress import progress_bar

    if not extractors:
        raise ValueError("extractors must name at least one VGS configuration")
    versions = list(versions or bench.pages)
    unknown = set(versions) - set(bench.pages)
    if unknown:
        raise ValueError(
            f"unknown versions {sorted(unknown)}; the benchmark has {list(bench.pages)}"
        )
    order = ["v0", *[v for v in versions if v != "v0"]]
    rows: list[dict[str, Any]] = []
    bits: list[dict[str, Any]] = []
    served = bench.served()
    # every page is fetched once over HTTP and read by every extractor and query
    srv = SiteServer(served, max_requests=len(served) + 10, idle_seconds=600).start()
    fetched: dict[str, str] = {}

    def get(path: str) -> str:
        if path not in fetched:
            fetched[path] = fetch(srv.url(path))
        return fetched[path]

    try:
        total = len(extractors) * len(order) * len(bench.queries)
        with progress_bar(
            total=total, desc="LiveWeb (hard)", unit="query", progress=progress
        ) as bar:
            for ename, ext in extractors.items():
                stale: dict[str, Any] = {}
                for ver in order:
                    for q in bench.queries:
                        ps = bench.pages[ver][q.group]
                        htmls = [get(_path(ver, q.group, i)) for i in range(len(ps))]
                        ext.logs = []
                        w = ext.induce(q.text, htmls[:2])
                        logs = list(ext.logs)
                        if ver == "v0":
                            stale[q.qid] = w
                        methods = {"vgs": w, "stale": stale[q.qid]}
                        f1_attr: dict[str, list[float]] = {a: [] for a in q.asked}
                        for i, page in enumerate(bench.pages["v0"][q.group]):
                            gold = bench.gold(q, page)
                            base = {
                                "extractor": ename,
                                "version": ver,
                                "condition": q.condition,
                                "qtype": q.qtype,
                                "query": q.qid,
                                "group": q.group,
                                "page": i,
                            }
                            for m, wr in methods.items():
                                pred = _apply_all(wr, htmls[i], None)
                                p, r, f = _score(pred, gold)
                                rows.append(
                                    {**base, "method": m, "precision": p, "recall": r, "f1": f}
                                )
                                if m == "vgs":
                                    for a in q.asked:
                                        f1_attr[a].append(
                                            _score({a: pred.get(a, [])}, {a: gold[a]})[2]
                                        )
                            pp = {a: ext.localise_values(htmls[i], a, None)[0] for a in q.asked}
                            p, r, f = _score(pp, gold)
                            rows.append(
                                {**base, "method": "per_page", "precision": p, "recall": r, "f1": f}
                            )
                        seen = set()
                        for lg in logs:
                            if lg.attribute in seen or lg.attribute not in f1_attr:
                                continue
                            seen.add(lg.attribute)
                            kind = lg.attribute if lg.attribute in ("image", "link") else "text"
                            bits.append(
                                {
                                    "extractor": ename,
                                    "version": ver,
                                    "condition": q.condition,
                                    "kind": kind,
                                    "found": bool(np.mean(f1_attr[lg.attribute]) >= 1.0),
                                    **lg.bits(),
                                }
                            )
                        if ver in versions:
                            bar.update(1)
    finally:
        srv.stop()
    rows = [r for r in rows if r["version"] in versions]
    bits = [b for b in bits if b["version"] in versions]
    return HardResult(tuple(rows), tuple(bits), bench.counts())
