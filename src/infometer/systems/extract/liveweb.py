"""LiveWeb-IE at CPU size, and a staged grounding extractor in VGS's shape.

The benchmark (:func:`make_benchmark`): one group per template (detail pages: infobox,
key-value table; list pages: header table, nested list, div grid), served by a real HTTP
server on 127.0.0.1 (:mod:`.server`) under a version clock -- ``v0`` and one version per
drift kind (``class_rename``, ``wrapper``, ``column_order``, ``grid``, ``pagination``).
Queries of the four LiveWeb-IE types: I one attribute, one value; II several attributes,
one value each; III one attribute, a list; IV several attributes, lists.  Values are text,
image ``src`` or link ``href``.  Matching rule (LiveWeb-IE's is unpublished; stated here):
per (query, page) and attribute, set P/R/F1 of whitespace-normalised values (exact
string match, :func:`~.metrics.set_prf`), averaged over attributes, pages and queries, x100.

The extractor (:class:`VGS`), in VGS's four stages with substitutes for the (V)LMs:

1. *attribute parsing* -- the quoted attribute names of the query (keyword rule; VGS uses
   an LLM);
2. *region selection* -- the page is cut into regions: 1280 x 800 screen slabs with node
   boxes from headless Chromium when it is installed, else the top-level content blocks of
   the HTML (``VGS.region_source`` says which); each region is scored by the best
   similarity between the attribute and a node's text (MiniLM cosine, or a lexical ratio),
   in place of VGS's VLM over screenshots;
3. *node localisation* -- the label node most similar to the attribute and its value node
   (next sibling, rest of the parent's text, or the header's column); images: ``img``;
   links: record-title ``a[href]`` (in place of Set-of-Mark prompting);
4. *XPath synthesis* -- a reusable XPath written on the group's first page: label-anchored,
   class-keyed or index-keyed (anti-unified) variants, the first that reproduces the
   localised nodes and returns values on a second page of the group.

The wrapper (attribute -> XPath) is reused on the group's other pages; compared with the
per-page localisation (no reuse) and with wrappers induced before a drift.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from infometer.core.plot import finish, new_axes
from infometer.core.progress import progress_bar
from infometer.core.results import Result
from infometer.core.seeding import Seed, derive, resolve_seed
from infometer.core.validation import Many, Options, Size, validate_params
from infometer.systems.text._embed import minilm_sentence_encoder

from ._html import parse, text_of
from ._metrics import normalize_text, set_prf
from ._server import SiteServer, chromium_path, fetch, render_boxes
from ._sites import (
    DETAIL_TEMPLATES,
    DOMAINS,
    DRIFTS,
    TEMPLATES,
    Group,
    Page,
    drift,
    make_group,
    rerender,
)

__all__ = [
    "Query",
    "Benchmark",
    "make_benchmark",
    "parse_attributes",
    "Similarity",
    "VGS",
    "Wrapper",
    "run_benchmark",
    "LiveWebResult",
    "VALUE_TYPES",
    "shown_text",
    "struck_classes",
]

_QTEXT = {
    1: "What is the '{a}' of the item on this page?",
    2: "Extract {a} of the item on this page.",
    3: "List the '{a}' of every item on this page.",
    4: "List {a} of every item on this page.",
}


@dataclass(frozen=True)
class Query:
    """A LiveWeb-IE-style query on one page group."""

    qid: str
    qtype: int
    group: str
    attributes: tuple[str, ...]
    text: str


def _quote(attrs: Sequence[str]) -> str:
    q = [f"'{a}'" for a in attrs]
    return q[0] if len(q) == 1 else ", ".join(q[:-1]) + " and " + q[-1]


@dataclass
class Benchmark:
    """Groups, queries and the served paths of every version."""

    groups: dict[str, Group]
    queries: list[Query]
    versions: dict[str, dict[str, Group]] = field(default_factory=dict)

    def pages(self) -> dict[str, str]:
        """Every served path -> HTML (all versions, pagination parts included)."""
        out = {}
        for ver, gs in self.versions.items():
            for g in gs.values():
                for i, p in enumerate(self.groups[g.name].pages):  # v0 pages: all records
                    served = replace(p, url=_path(ver, g.name, i))
                    for part in rerender(served, g.layout):
                        out[_path(ver, g.name, i, part.part)] = part.html
        return out

    def gold(self, query: Query, page: Page) -> dict[str, list[str]]:
        """Gold values of each attribute of ``query`` on ``page`` (record order)."""
        out = {}
        for a in query.attributes:
            vals = [r.get(a) for r in page.records]
            out[a] = [v for v in vals if v]
        return out


def _path(ver: str, group: str, i: int, part: int = 0) -> str:
    return f"/{ver}/{group}/{i}" + (f"?page={part + 1}" if part else "")


#: Most pages per group of a benchmark (every template, every version, held in memory).
MAX_BENCH_PAGES = 10_000


@validate_params(
    {
        "pages_per_group": [
            Size(1, limit=MAX_BENCH_PAGES, what="pages per group (of each template and version)")
        ],
        "drifts": [Many(Options(*DRIFTS), min_len=0, what="drifts")],
    }
)
def make_benchmark(
    *, pages_per_group: int = 4, seed: Seed = 0, drifts: Sequence[str] = DRIFTS
) -> Benchmark:
    """One group per template, four query types, versions ``v0`` and one per drift.

    Parameters
    ----------
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).

    Examples
    --------
    >>> b = make_benchmark(pages_per_group=2)
    >>> sorted({q.qtype for q in b.queries})
    [1, 2, 3, 4]
    """
    seed = resolve_seed(seed)
    doms = sorted(DOMAINS)
    groups: dict[str, Group] = {}
    queries: list[Query] = []
    for k, t in enumerate(TEMPLATES):
        g = make_group(
            doms[k % len(doms)],
            t,
            pages_per_group,
            seed=seed * 97 + k,
            records_per_page=(3, 5),
            name=f"{doms[k % len(doms)]}-{t}",
        )
        groups[g.name] = g
        labels = list(g.layout.field_order)
        rng = derive(seed, k, 5)
        # attributes present on every record of the group's first page keep the queries fair
        common = [a for a in labels if all(r.get(a) for p in g.pages for r in p.records)]
        common = common or labels
        a1 = str(rng.choice(common))
        extra = [x for x in common if x != a1]
        many = [a1, str(rng.choice(extra))] if extra else [a1]
        if t in DETAIL_TEMPLATES:
            specs = [(1, [a1]), (1, ["image"]), (2, [*many, "link"])]
        else:
            media = ["link"] if t == "header_table" else ["image"]
            specs = [(3, [a1]), (3, ["link"]), (4, [*many, *media])]
        for j, (qt, attrs) in enumerate(specs):
            text = _QTEXT[qt].format(a=attrs[0] if qt in (1, 3) else _quote(attrs))
            queries.append(Query(f"{g.name}-q{j}", qt, g.name, tuple(attrs), text))
    b = Benchmark(groups, queries)
    b.versions["v0"] = groups
    for d in drifts:
        b.versions[d] = {
            n: Group(
                n,
                (lay := drift(g.layout, d, seed=seed)),
                tuple(rerender(p, lay)[0] for p in g.pages),
            )
            for n, g in groups.items()
        }
    return b


_QUOTED = re.compile(r"'([^']+)'")


def parse_attributes(query: str) -> list[str]:
    """Stage 1: the attributes a query asks for (its quoted names).

    Examples
    --------
    >>> parse_attributes("List 'Year', 'Price' and 'image' of every item.")
    ['Year', 'Price', 'image']
    """
    if not isinstance(query, str):
        raise TypeError(f"query must be a string, got {type(query).__name__}")
    attrs = _QUOTED.findall(query)
    if not attrs:
        raise ValueError(f"query names no attribute in quotes: {query!r}")
    return attrs


class Similarity:
    """Attribute-to-text similarity: ``"minilm"`` (cosine of MiniLM vectors) or ``"lexical"``.

    The lexical score is 1 for equal normalised strings, else ``0.9 * fuzz.ratio / 100``.
    """

    def __init__(self, kind: str = "lexical") -> None:
        if kind not in ("minilm", "lexical"):
            raise ValueError(f"similarity must be 'minilm' or 'lexical', got {kind!r}")
        self.kind = kind
        self._enc: Any = None

    def __call__(self, attr: str, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros(0)
        if self.kind == "minilm":
            if self._enc is None:
                self._enc = minilm_sentence_encoder()
            v = self._enc([attr, *texts])
            return v[1:] @ v[0]
        from rapidfuzz import fuzz

        a = normalize_text(attr)
        return np.array(
            [
                1.0 if normalize_text(t) == a else 0.9 * fuzz.ratio(a, normalize_text(t)) / 100
                for t in texts
            ]
        )


#: Value types for grounding an attribute without a label: type -> (type words, shape).
#: The words are generic (no label of the generated sites is among them but the nouns
#: that name a type, e.g. price, rating); the attribute is matched to them by the
#: extractor's similarity.
VALUE_TYPES: dict[str, tuple[tuple[str, ...], str]] = {
    "money": (("price", "cost", "money", "amount in dollars"), r"(?:US)?\$\s?\d[\d,]*(?:\.\d+)?"),
    "year": (("year", "date", "when"), r"(?:1[5-9]|20)\d\d"),
    "duration": (("duration", "time", "minutes"), r"\d+ min"),
    "score": (("rating", "score", "grade"), r"\d+(?:\.\d)?/10"),
    "data size": (("storage", "memory", "gigabytes"), r"\d+ [GMT]B"),
    "length in inches": (("display size", "inches", "diagonal"), r"\d+(?:\.\d)? in"),
    "electric charge": (("battery", "charge", "milliamp hours"), r"\d+ mAh"),
    "count": (("number", "count", "how many"), r"\d{1,3}(?:,\d{3})+|\d+"),
}


# --------------------------------------------------------------------- structure
def _els(root: Any) -> list[Any]:
    return [e for e in root.iter() if isinstance(e.tag, str)]


def _own_text(el: Any) -> str:
    return re.sub(r"\s+", " ", (el.text or "")).strip()


def _label_of(el: Any) -> str:
    """The label an element's own text states: before a colon (``"Year: 1999"`` ->
    ``"Year"``), or the whole text without a trailing colon."""
    t = _own_text(el)
    return t.split(":", 1)[0].strip() if ":" in t else t


def _blocks(root: Any) -> list[Any]:
    """Top-level content blocks: body's children, wrapper divs (one element child) unwrapped."""
    body = root.find("body")
    out = []
    stack = list(body) if body is not None else [root]
    for el in stack:
        if not isinstance(el.tag, str) or el.tag in ("script", "style"):
            continue
        while len([c for c in el if isinstance(c.tag, str)]) == 1:
            el = next(c for c in el if isinstance(c.tag, str))
        out.append(el)
    return out


def _title_links(root: Any) -> list[Any]:
    """``a[href]`` that title a record: inside h1-h3, a header cell or a table caption, or
    first child of a rich repeated record."""
    out = []
    for a in root.xpath("//a[@href]"):
        if a.get("rel") == "next":
            continue
        p = a.getparent()
        if p is None:
            continue
        if p.tag in ("h1", "h2", "h3", "th", "caption"):  # headings, header cells, captions
            out.append(a)
            continue
        rec = p.getparent()
        if rec is None or [c for c in rec if isinstance(c.tag, str)][:1] != [p]:
            continue
        kids = [c for c in rec if isinstance(c.tag, str)]
        par = rec.getparent()
        same = [
            x
            for x in (par if par is not None else [])
            if x.tag == rec.tag and x.get("class") == rec.get("class")
        ]
        if len(kids) >= 3 and len(same) >= 2:
            out.append(a)
    return out


def _anti_unify(paths: Sequence[str]) -> str | None:
    """One XPath for several absolute paths: differing indices dropped (div[2], div[3] -> div)."""
    split = [p.split("/") for p in paths]
    if len({len(s) for s in split}) != 1:
        return None
    out = []
    for steps in zip(*split, strict=True):
        if len(set(steps)) == 1:
            out.append(steps[0])
            continue
        bare = {re.sub(r"\[\d+\]$", "", s) for s in steps}
        if len(bare) != 1:
            return None
        out.append(bare.pop())
    return "/".join(out)


def _has_class(c: str) -> str:
    return f"contains(concat(' ', normalize-space(@class), ' '), ' {c} ')"


def _xq(s: str) -> str:
    return "'" + s + "'" if "'" not in s else '"' + s + '"'


@dataclass(frozen=True)
class Wrapper:
    """A reusable extraction rule of one attribute: XPath(s), how to read values, variant."""

    attribute: str
    mode: str  # "xpath" or "column"
    xpath: str
    read: str  # "text", "rest", "@src", "@href"
    variant: str  # "label", "class", "index"
    label: str = ""
    shown: bool = False  # read text as rendered: struck-through descendants dropped

    def apply(self, root: Any) -> list[str]:
        """Values this wrapper extracts from a parsed page."""
        try:
            if self.mode == "column":
                out = []
                for h in root.xpath(self.xpath):
                    row = h.getparent()
                    j = [c for c in row if isinstance(c.tag, str)].index(h)
                    for r in row.itersiblings():
                        cells = [c for c in r if isinstance(c.tag, str)]
                        if j < len(cells):
                            out.append(_read(cells[j], "text", shown=self.shown))
                return [v for v in out if v]
            nodes = root.xpath(self.xpath)
        except Exception:  # a drifted page can make an XPath invalid or empty
            return []
        return [v for v in (_read(n, self.read, self.label, self.shown) for n in nodes) if v]


_STRUCK_RULE = re.compile(r"\.([\w-]+)\s*\{[^}]*line-through[^}]*\}")


def struck_classes(root: Any) -> set[str]:
    """Classes that the page's own ``<style>`` rules strike through (``text-decoration:
    line-through``): a CPU stand-in for reading the rendered page's decoration."""
    out: set[str] = set()
    for st in root.getroottree().getroot().iter("style"):
        out |= set(_STRUCK_RULE.findall(st.text or ""))
    return out


def shown_text(node: Any, struck: set[str] | None = None) -> str:
    """Text of ``node`` as a reader of the rendered page sees it current: without the text
    of ``del``/``s``/``strike`` elements, inline ``line-through`` styles and classes the
    page's stylesheet strikes through (:func:`struck_classes`).

    Examples
    --------
    >>> shown_text(parse("<p>Price: <del>$9</del> $7</p>").find(".//p"))
    'Price: $7'
    """
    struck = struck_classes(node) if struck is None else struck

    def is_struck(el: Any) -> bool:
        if not isinstance(el.tag, str):
            return False
        if el.tag in ("del", "s", "strike"):
            return True
        if "line-through" in (el.get("style") or "").replace(" ", ""):
            return True
        return bool(struck & set((el.get("class") or "").split()))

    parts: list[str] = []

    def walk(el: Any) -> None:
        if is_struck(el):
            return
        if isinstance(el.tag, str):
            parts.append(el.text or "")
            for ch in el:
                walk(ch)
                parts.append(ch.tail or "")

    walk(node)
    return re.sub(r"\s+", " ", "".join(parts)).strip()


def _read(node: Any, how: str, label: str = "", shown: bool = False) -> str:
    if isinstance(node, str):
        return re.sub(r"\s+", " ", node).strip()
    if how == "@src":
        return node.get("src", "")
    if how == "@href":
        return node.get("href", "")
    t = shown_text(node) if shown else text_of(node)
    if how == "colon":
        return t.split(":", 1)[1].strip() if ":" in t else ""
    if how == "rest":
        for k in node:
            if isinstance(k.tag, str):
                lab = text_of(k)
                return t[len(lab) :].strip() if t.startswith(lab) else ""
        return ""
    return t


@dataclass
class StageLog:
    """Candidate counts of one attribute through the stages (for the bits of search)."""

    attribute: str
    n_page: int
    n_typed: int
    n_region: int
    n_final: int

    def bits(self) -> dict[str, float]:
        """log2 reductions: typing, region selection, localisation, and their total."""
        lg = lambda n: math.log2(max(n, 1))  # noqa: E731
        return {
            "typing": lg(self.n_page) - lg(self.n_typed),
            "region": lg(self.n_typed) - lg(self.n_region),
            "localisation": lg(self.n_region) - lg(self.n_final),
            "total": lg(self.n_page) - lg(self.n_final),
        }


class VGS:
    """The staged grounding extractor.

    Parameters
    ----------
    similarity
        ``"lexical"`` or ``"minilm"`` (:class:`Similarity`) or a ``Similarity``.
    render
        ``"auto"`` (Chromium when installed, else the HTML structure), ``"chromium"`` or
        ``"html"``.
    prefer
        Order in which XPath variants are tried.
    min_similarity
        A label below this similarity to the attribute is not localised (the attribute is
        taken as absent from the page, and the next page of the group is tried).
    layout_cues
        Read values as the rendered page shows them current: struck-through text
        (``del``/``s``, inline or stylesheet ``line-through``) dropped (:func:`shown_text`;
        a CPU stand-in for seeing the rendering, which VGS's VLM does).
    value_types
        Where no label matches, ground the attribute by the *shape* of its values: the
        attribute is matched (by ``similarity``) to the type words of :data:`VALUE_TYPES`
        and the nodes whose text has that type's shape are localised (a stand-in for a
        VLM's knowledge that a price looks like ``$199``).

    Examples
    --------
    >>> from infometer.systems.extract._sites import make_group
    >>> g = make_group("film", "infobox", 2, seed=1)
    >>> w = VGS(render="html").induce("What is the 'image'?", [p.html for p in g.pages])
    >>> w["image"].read, w["image"].variant
    ('@src', 'class')
    """

    def __init__(
        self,
        *,
        similarity: str | Similarity = "lexical",
        render: str = "auto",
        prefer: Sequence[str] = ("label", "class", "index"),
        min_similarity: float = 0.6,
        layout_cues: bool = False,
        value_types: bool = False,
    ) -> None:
        self.min_similarity = float(min_similarity)
        self.layout_cues = bool(layout_cues)
        self.value_types = bool(value_types)
        self.sim = similarity if isinstance(similarity, Similarity) else Similarity(similarity)
        if render not in ("auto", "chromium", "html"):
            raise ValueError(f"render must be 'auto', 'chromium' or 'html', got {render!r}")
        if render == "chromium" and chromium_path() is None:
            raise RuntimeError("render='chromium' but headless Chromium is not installed")
        self.region_source = (
            "chromium" if render == "chromium" or (render == "auto" and chromium_path()) else "html"
        )
        bad = set(prefer) - {"label", "class", "index"}
        if bad or not prefer:
            raise ValueError(f"prefer must order 'label', 'class', 'index', got {list(prefer)}")
        self.prefer = tuple(prefer)
        self.logs: list[StageLog] = []
        self._boxes: dict[str, dict[int, tuple[int, int, int, int]]] = {}

    # -- stage 2
    def regions(self, root: Any, url: str | None) -> list[list[Any]]:
        """Regions of a page: lists of elements."""
        els = _els(root)
        if self.region_source == "chromium" and url is not None:
            if url not in self._boxes:
                self._boxes[url] = render_boxes(url)
            boxes = self._boxes[url]
            by = {}
            for e in els:
                nid = e.get("data-nid")
                b = boxes.get(int(nid)) if nid is not None else None
                if b is not None:  # broken images render 0 x 0 but keep their place
                    by.setdefault(b[1] // 800, []).append(e)
            return [by[k] for k in sorted(by)] or [els]
        return [list(b.iter()) for b in _blocks(root)] or [els]

    # -- stage 3
    def localise(self, root: Any, attr: str, region: list[Any]) -> tuple[list[Any], str, Any]:
        """Value nodes of ``attr`` in ``region``: (nodes, how to read them, label node)."""
        if attr == "image":
            return [e for e in region if e.tag == "img"], "@src", None
        if attr == "link":
            tl = set(_title_links(root))
            return [e for e in region if e in tl], "@href", None
        labels = [e for e in region if _own_text(e) and len(_label_of(e)) < 40]
        s = self.sim(attr, [_label_of(e) for e in labels])
        if not labels or s.max() < self.min_similarity:
            if self.value_types:
                return self._typed_values(attr, region), "text", None
            return [], "label" if labels else "text", None
        best = labels[int(np.argmax(s))]
        same = [e for e in labels if _label_of(e) == _label_of(best) and e.tag == best.tag]
        return same, "label", best

    def _typed_values(self, attr: str, region: list[Any]) -> list[Any]:
        """Nodes of ``region`` whose text has the shape of the attribute's value type."""
        names = list(VALUE_TYPES)
        words = [w for n in names for w in VALUE_TYPES[n][0]]
        owner = [n for n in names for _ in VALUE_TYPES[n][0]]
        sim = self.sim(attr, words)
        if not len(sim) or sim.max() < 0.3:
            return []
        shape = re.compile(VALUE_TYPES[owner[int(np.argmax(sim))]][1])
        struck = struck_classes(region[0]) if (region and self.layout_cues) else set()
        read = (lambda e: shown_text(e, struck)) if self.layout_cues else text_of  # noqa: E731
        hits = [e for e in region if isinstance(e.tag, str) and shape.fullmatch(read(e))]
        hit = set(hits)
        # the innermost: a node none of whose descendants also has the shape
        return [e for e in hits if not any(d in hit for d in e.iterdescendants())]

    def _typed(self, root: Any, attr: str) -> list[Any]:
        if attr == "image":
            return root.xpath("//img")
        if attr == "link":
            return root.xpath("//a[@href]")
        return [e for e in _els(root) if _own_text(e)]

    def _choose_region(self, attr: str, regions: list[list[Any]], root: Any) -> list[Any]:
        if self.value_types and attr not in ("image", "link"):
            texts = [[_label_of(e) for e in r if _own_text(e)] for r in regions]
            best = max((float(self.sim(attr, t).max()) for t in texts if t), default=0.0)
            if best < self.min_similarity:  # no label anywhere: the region of most values
                counts = [len(self._typed_values(attr, r)) for r in regions]
                return regions[int(np.argmax(counts))]

        def score(reg: list[Any]) -> float:
            if attr == "image":
                return float(sum(e.tag == "img" for e in reg))
            if attr == "link":
                tl = set(_title_links(root))
                return float(sum(e in tl for e in reg))
            texts = [_own_text(e).rstrip(":") for e in reg if _own_text(e)]
            return float(self.sim(attr, texts).max()) if texts else -1.0

        return regions[int(np.argmax([score(r) for r in regions]))]

    # -- stage 4
    def synthesize(
        self, attr: str, root: Any, nodes: list[Any], how: str, label: Any
    ) -> tuple[list[Wrapper], list[str]]:
        """XPath variants for the localised nodes (preference order) and their values.

        A variant is kept only if its values on this page cover the localised ones; within
        a variant the most specific (fewest values) comes first.  The values returned are
        those of the first variant.
        """
        if not nodes:
            return [], []
        tree = root.getroottree()
        cands: list[Wrapper] = []
        if how == "label":
            t = _own_text(label)
            parent = label.getparent()
            siblings = [c for c in parent if isinstance(c.tag, str)]
            rows_after = [r for r in parent.itersiblings() if isinstance(r.tag, str)]
            is_header = (
                len(siblings) >= 3
                and bool(rows_after)
                and all(c.tag == label.tag and _own_text(c) for c in siblings)
                and not any(t in [_own_text(c) for c in r] for r in rows_after)
            )
            lab_x = f"//{label.tag}[normalize-space()={_xq(t)}]"
            lab = _label_of(label)
            inline = ":" in t and text_of(label).startswith(lab + ":")
            inline = inline and len(text_of(label)) > len(lab) + 1
            row_header = (
                not is_header
                and siblings[:1] == [label]
                and len(siblings) >= 3
                and len({c.tag for c in siblings[1:]}) == 1
            )
            if inline:  # "Label: value" in one node
                lab_x = f"//{label.tag}[starts-with(normalize-space(), {_xq(lab + ':')})]"
                cands.append(Wrapper(attr, "xpath", lab_x, "colon", "label"))
                expected = [_read(n, "colon", shown=self.layout_cues) for n in nodes]
                cands += [Wrapper(attr, "xpath", x, "colon", "class") for x in _class_xpaths(nodes)]
                au = _anti_unify([tree.getpath(n) for n in nodes])
                if au:
                    cands.append(Wrapper(attr, "xpath", au, "colon", "index"))
            elif row_header:  # the label heads a row: the row's other cells are values
                target = [c for n in nodes for c in n.itersiblings() if isinstance(c.tag, str)]
                cands.append(
                    Wrapper(attr, "xpath", lab_x + "/following-sibling::*", "text", "label")
                )
                expected = [_read(v, "text", shown=self.layout_cues) for v in target]
                cands += [Wrapper(attr, "xpath", x, "text", "class") for x in _class_xpaths(target)]
                au = _anti_unify([tree.getpath(v) for v in target])
                if au:
                    cands.append(Wrapper(attr, "xpath", au, "text", "index"))
            elif is_header:
                j = siblings.index(label)
                expected = []
                for r in rows_after:
                    cells = [c for c in r if isinstance(c.tag, str)]
                    if j < len(cells) and text_of(cells[j]):
                        expected.append(_read(cells[j], "text", shown=self.layout_cues))
                cands.append(Wrapper(attr, "column", lab_x, "text", "label"))
                for how_ in ("class", "index"):
                    cands.append(
                        Wrapper(attr, "xpath", _rows_xpath(parent, j + 1, how_), "text", how_)
                    )
            else:
                vals = [n.getnext() for n in nodes]
                if all(v is not None for v in vals):
                    cands.append(
                        Wrapper(attr, "xpath", lab_x + "/following-sibling::*[1]", "text", "label")
                    )
                    target, read = vals, "text"
                else:
                    cands.append(Wrapper(attr, "xpath", lab_x + "/parent::*", "rest", "label"))
                    target, read = [n.getparent() for n in nodes], "rest"
                expected = [_read(v, read, shown=self.layout_cues) for v in target]
                cands += [Wrapper(attr, "xpath", x, read, "class") for x in _class_xpaths(target)]
                au = _anti_unify([tree.getpath(v) for v in target])
                if au:
                    cands.append(Wrapper(attr, "xpath", au, read, "index"))
        else:
            expected = [_read(n, how, shown=self.layout_cues) for n in nodes]
            cands += [Wrapper(attr, "xpath", x, how, "class") for x in _class_xpaths(nodes)]
            au = _anti_unify([tree.getpath(n) for n in nodes])
            if au:
                cands.append(Wrapper(attr, "xpath", au, how, "index"))
        if self.layout_cues:  # every variant reads the text as rendered
            cands = [replace(c, shown=True) for c in cands]
        want = [v for v in expected if v]
        order = {v: i for i, v in enumerate(self.prefer)}
        kept = []
        for c in cands:
            got = c.apply(root)
            # it must cover the localised nodes (they lie in one region; the XPath is
            # meant to generalise to the page's other records)
            if c.variant in order and got and not (Counter(want) - Counter(got)):
                kept.append((order[c.variant], len(got), c, got))
        kept.sort(key=lambda t: (t[0], t[1]))  # preferred variant, then the most specific
        return [c for _, _, c, _ in kept], (kept[0][3] if kept else [])

    def localise_values(
        self, html: str, attr: str, url: str | None = None
    ) -> tuple[list[str], list[Wrapper]]:
        """Stages 2-4 on one page: the values found and the wrapper candidates."""
        root = parse(html)
        regions = self.regions(root, url)
        reg = self._choose_region(attr, regions, root)
        nodes, how, label = self.localise(root, attr, reg)
        wr, vals = self.synthesize(attr, root, nodes, how, label)
        typed = self._typed(root, attr)
        self.logs.append(
            StageLog(
                attr,
                len(_els(root)),
                len(typed),
                len([e for e in reg if e in set(typed)]),
                max(len(vals), 1),
            )
        )
        return vals, wr

    def induce(
        self, query_text: str, pages: Sequence[str], urls: Sequence[str | None] | None = None
    ) -> dict[str, Wrapper]:
        """A wrapper per attribute from the group's first page, checked on a second.

        ``pages`` are the group's pages (the first two suffice); ``urls`` their served
        addresses (for Chromium regions).  The check: stages 2-3 run on the second page
        too, and the first variant (preference order) whose values there equal the values
        localised there is the wrapper; without such a variant, the first that returns
        values on the second page; where nothing is localised on the second page (the
        field is missing there, or not found), the first variant -- so a field missing
        from the second page does not pass over the label-anchored variant for a
        positional one that reads another field there.
        """
        urls = list(urls) if urls is not None else [None] * len(pages)
        attrs = parse_attributes(query_text)
        roots = [parse(h) for h in pages]
        out = {}
        for a in attrs:
            # the first page of the group; a page lacking the attribute passes to the next
            for k in range(len(pages)):
                _, cands = self.localise_values(pages[k], a, urls[k])
                if cands:
                    break
            others = [j for j in range(len(roots)) if j != k][:1]
            if not cands:
                continue
            if not others:
                out[a] = cands[0]
                continue
            j = others[0]
            n_logs = len(self.logs)
            seen, _ = self.localise_values(pages[j], a, urls[j])
            del self.logs[n_logs:]  # the check is not a stage of the first page
            got = [c.apply(roots[j]) for c in cands]  # each reproduces page k's values
            if not seen:  # missing there, or not found there: the preferred variant
                out[a] = cands[0]
                continue
            agree = [c for c, g in zip(cands, got, strict=True) if Counter(g) == Counter(seen)]
            some = [c for c, g in zip(cands, got, strict=True) if g]
            out[a] = (agree or some or cands)[0]
        return out


def _class_xpaths(nodes: Sequence[Any]) -> list[str]:
    """Class-keyed XPaths of a node set: by a class of the nodes or of an ancestor (<= 3 up)."""
    out = []
    tag = nodes[0].tag
    if any(n.tag != tag for n in nodes):
        return out
    common = set.intersection(*[set((n.get("class") or "").split()) for n in nodes])
    out += [f"//{tag}[{_has_class(c)}]" for c in sorted(common)]
    for up in (1, 2, 3):
        ancs = []
        for n in nodes:
            a = n
            for _ in range(up):
                a = a.getparent() if a is not None else None
            ancs.append(a)
        if any(a is None for a in ancs) or len({a.tag for a in ancs}) != 1:
            break
        shared = set.intersection(*[set((a.get("class") or "").split()) for a in ancs])
        if not shared:
            continue
        tree = nodes[0].getroottree()
        rels = [tree.getpath(n)[len(tree.getpath(a)) :] for n, a in zip(nodes, ancs, strict=True)]
        rel = _anti_unify(rels) if len(set(rels)) > 1 else rels[0]
        if rel is None:
            continue
        out += [f"//{ancs[0].tag}[{_has_class(c)}]{rel}" for c in sorted(shared)]
    return out


def _rows_xpath(head_row: Any, j: int, how: str) -> str:
    tree = head_row.getroottree()
    rows = [r for r in head_row.itersiblings() if isinstance(r.tag, str)]
    if how == "class" and rows and rows[0].get("class"):
        c = rows[0].get("class").split()[0]
        return f"//{rows[0].tag}[{_has_class(c)}]/*[{j}]"
    au = (
        _anti_unify([tree.getpath(r) for r in rows])
        if len(rows) > 1
        else (tree.getpath(rows[0]) if rows else None)
    )
    return f"{au}/*[{j}]" if au else tree.getpath(head_row) + f"/*[{j}]"


def _apply_all(
    wrappers: dict[str, Wrapper], html: str, follow: Callable[[str], str | None] | None
) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {a: [] for a in wrappers}
    seen = 0
    while html is not None and seen < 10:
        root = parse(html)
        for a, w in wrappers.items():
            out[a] += w.apply(root)
        nxt = root.xpath("//a[@rel='next']/@href")
        html = follow(str(nxt[0])) if (nxt and follow) else None
        seen += 1
    return out


def _score(pred: dict[str, list[str]], gold: dict[str, list[str]]) -> tuple[float, float, float]:
    rs = [set_prf(pred.get(a, []), g) for a, g in gold.items()]
    return (
        float(np.mean([r.precision for r in rs])),
        float(np.mean([r.recall for r in rs])),
        float(np.mean([r.f1 for r in rs])),
    )


@dataclass(frozen=True, eq=False, repr=False)
class LiveWebResult(Result):
    """Per (method, version, query, page) P/R/F1 and the stage logs."""

    rows: tuple[dict[str, Any], ...]
    bits: tuple[dict[str, Any], ...] = ()
    region_source: str = "html"

    def to_frame(self) -> Any:
        """Tidy frame of every scored (method, version, query, page)."""
        import pandas as pd

        return pd.DataFrame(list(self.rows))

    def summary(self) -> Any:
        """F1 x100 by method, version and query type (and overall)."""
        df = self.to_frame()
        t = (
            df.pivot_table(
                index=["method", "version"], columns="qtype", values="f1", aggfunc="mean"
            )
            * 100
        )
        t["overall"] = df.groupby(["method", "version"])["f1"].mean() * 100
        return t

    def bits_frame(self) -> Any:
        """Mean bits of search each stage removes, by attribute kind."""
        import pandas as pd

        df = pd.DataFrame(list(self.bits)).drop(columns=["qtype", "version"])
        return df.groupby("kind").mean(numeric_only=True)

    def plot(self, ax: Any = None, path: Any = None) -> Any:
        """Overall F1 by version for each method."""
        fig, ax = new_axes(ax, figsize=(7, 3.5))
        s = self.summary()["overall"].unstack(0)
        x = np.arange(len(s.index))
        w = 0.8 / max(len(s.columns), 1)
        for k, m in enumerate(s.columns):
            ax.bar(x + k * w, s[m].to_numpy(), width=w, label=m)
        ax.set_xticks(x + 0.4 - w / 2, s.index, rotation=15)
        ax.set_ylabel("F1 x100 (set match)")
        ax.set_ylim(0, 105)
        ax.legend(frameon=False, fontsize=8)
        ax.set_title(f"LiveWeb-IE analogue under drift (regions: {self.region_source})")
        return finish(ax, path)


def run_benchmark(
    bench: Benchmark,
    *,
    extractor: VGS | None = None,
    versions: Sequence[str] | None = None,
    progress: bool | None = None,
    server: SiteServer | None = None,
) -> LiveWebResult:
    """Serve the benchmark on 127.0.0.1 and score VGS, its stale wrapper and per-page runs.

    Methods: ``vgs`` (wrapper written on the first page of the group at this version,
    reused), ``stale`` (the wrapper written at ``v0``, applied after the drift), and
    ``per_page`` (stages 2-4 on every page, nothing reused).

    Examples
    --------
    >>> b = make_benchmark(pages_per_group=2, drifts=("wrapper",))
    >>> res = run_benchmark(b, extractor=VGS(render="html"))
    >>> float(res.summary().loc[("vgs", "wrapper"), "overall"])
    100.0
    """
    ext = extractor or VGS()
    versions = list(versions or bench.versions)
    unknown = set(versions) - set(bench.versions)
    if unknown:
        raise ValueError(
            f"unknown versions {sorted(unknown)}; the benchmark has {list(bench.versions)}"
        )
    rows: list[dict[str, Any]] = []
    bits: list[dict[str, Any]] = []
    own = server is None
    srv = server or SiteServer(bench.pages(), idle_seconds=300).start()
    try:

        def get(ver: str, g: str, i: int) -> str:
            return fetch(srv.url(_path(ver, g, i)))

        def follow(href: str) -> str | None:
            return fetch(srv.url(href))

        stale: dict[str, dict[str, Wrapper]] = {}
        total = len(versions) * len(bench.queries)
        with progress_bar(total=total, desc="LiveWeb-IE", unit="query", progress=progress) as bar:
            for ver in ["v0", *[v for v in versions if v != "v0"]]:
                for q in bench.queries:
                    g = bench.versions[ver][q.group]
                    htmls = [get(ver, q.group, i) for i in range(len(g))]
                    urls = [srv.url(_path(ver, q.group, i)) for i in range(len(g))]
                    ext.logs = []
                    w = ext.induce(q.text, htmls[:2], urls[:2])
                    for lg in ext.logs[: len(q.attributes)]:
                        kind = lg.attribute if lg.attribute in ("image", "link") else "text"
                        bits.append({"version": ver, "qtype": q.qtype, "kind": kind, **lg.bits()})
                    if ver == "v0":
                        stale[q.qid] = w
                    methods: dict[str, Any] = {"vgs": w, "stale": stale[q.qid]}
                    for i, page in enumerate(bench.groups[q.group].pages):
                        gold = bench.gold(q, page)  # facts of v0: drift never changes them
                        for m, wr in methods.items():
                            pred = _apply_all(wr, htmls[i], follow)
                            p, r, f = _score(pred, gold)
                            rows.append(
                                {
                                    "method": m,
                                    "version": ver,
                                    "qtype": q.qtype,
                                    "query": q.qid,
                                    "page": i,
                                    "precision": p,
                                    "recall": r,
                                    "f1": f,
                                }
                            )
                        # per-page: stages 2-4 on this page, nothing reused
                        pp = {}
                        for a in q.attributes:
                            vals, _ = ext.localise_values(htmls[i], a, None)
                            pp[a] = vals
                        p, r, f = _score(pp, gold)
                        rows.append(
                            {
                                "method": "per_page",
                                "version": ver,
                                "qtype": q.qtype,
                                "query": q.qid,
                                "page": i,
                                "precision": p,
                                "recall": r,
                                "f1": f,
                            }
                        )
                    if ver in versions:
                        bar.update(1)
    finally:
        if own:
            srv.stop()
    rows = [r for r in rows if r["version"] in versions]
    bits = [b for b in bits if b["version"] in versions]
    return LiveWebResult(tuple(rows), tuple(bits), ext.region_source)
