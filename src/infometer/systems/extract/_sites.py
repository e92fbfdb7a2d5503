"""Semi-structured websites with exact ground truth, and a version clock of layout drift.

A *site* renders records of one domain (books, films, phones, universities) with one
layout *template*; a *group* is a set of structurally similar pages of that site (the same
template and class names, different records, row counts, optional fields and noise).
Every page carries the gold (subject, predicate, object) triples of the records that
rendered it, so any extractor is scored exactly.

Templates (``TEMPLATES``):

* ``infobox`` -- one record per page, ``<h1>`` subject and a ``dl/dt/dd`` box;
* ``kv_table`` -- one record per page, ``<h2>`` subject and a ``th | td`` key-value table;
* ``header_table`` -- several records, a table with a header row (subject in column 1);
* ``nested_list`` -- several records, ``ul > li`` with a nested ``ul`` of ``<b>Label:</b> v``;
* ``div_grid`` -- several records, cards of ``div`` rows (label div, value div).

Four more families (``EXTRA_TEMPLATES``; ``ALL_TEMPLATES`` holds all nine), added to test
script writers on layouts they never trained on:

* ``card_tables`` -- several records, one ``<table>`` per record with a ``<caption>``
  subject and ``th | td`` rows;
* ``transposed_table`` -- several records as the *columns* of one table (subjects in the
  header row, labels in the first column);
* ``section_list`` -- several records with no element around each: an ``<h3>`` subject
  followed by ``<p><strong>Label</strong> value</p>`` rows;
* ``colon_lines`` -- one record per page, ``<h1>`` subject and ``<p>Label: value</p>``
  lines (label and value in one text node).

Noise: a navigation list, 0-2 advertisement blocks before the content (so absolute
positions differ between pages of one group), a footer, random class names, optional
fields missing with probability 0.2.  The noise of a page depends on the page's seed only,
so re-rendering the same page under a drifted layout changes the layout and nothing else.

Drift (:func:`drift`, :func:`version_clock`): ``class_rename`` (every class name
re-drawn), ``wrapper`` (one more wrapper ``div`` around the content), ``column_order``
(the non-subject fields permuted), ``grid`` (tables rendered as ``div`` grids) and
``pagination`` (list pages split in two, the second reached by a ``rel=next`` link).
Harder drifts (``HARD_DRIFTS``): ``relabel`` (every label shown in other words, from
:data:`PARAPHRASES`) and ``redesign`` (another template of the same kind, new class names).

Layout-dependent values: with ``make_records(..., discounts=p)`` a price carries an old
price, rendered *before* the current one and struck through (``Layout.discount``:
``"tag"`` a ``<del>``, ``"style"`` an inline ``text-decoration``, ``"css"`` a class whose
rule is in the page's ``<style>``); the gold value is the current price only.
"""

from __future__ import annotations

import hashlib
import html as _html
import numbers
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from infometer.core.seeding import Seed, as_generator, derive, resolve_seed
from infometer.core.validation import (
    Instance,
    Interval,
    Many,
    Options,
    Pair,
    Size,
    validate_params,
)

from ._html import parse, text_of

__all__ = [
    "TEMPLATES",
    "EXTRA_TEMPLATES",
    "ALL_TEMPLATES",
    "DETAIL_TEMPLATES",
    "DRIFTS",
    "HARD_DRIFTS",
    "PARAPHRASES",
    "MAX_PAGES",
    "MAX_RECORDS",
    "DOMAINS",
    "Record",
    "Layout",
    "Page",
    "Group",
    "make_layout",
    "make_records",
    "render_page",
    "make_group",
    "make_sites",
    "drift",
    "version_clock",
    "rerender",
    "layout_signature",
    "template_extractor",
    "slug",
]

TEMPLATES: tuple[str, ...] = ("infobox", "kv_table", "header_table", "nested_list", "div_grid")
EXTRA_TEMPLATES: tuple[str, ...] = (
    "card_tables",
    "transposed_table",
    "section_list",
    "colon_lines",
)
ALL_TEMPLATES: tuple[str, ...] = TEMPLATES + EXTRA_TEMPLATES
DETAIL_TEMPLATES: tuple[str, ...] = ("infobox", "kv_table", "colon_lines")
DRIFTS: tuple[str, ...] = ("class_rename", "wrapper", "column_order", "grid", "pagination")
HARD_DRIFTS: tuple[str, ...] = ("relabel", "redesign")
#: Largest group (pages) and record count a caller may ask for: checked before rendering.
MAX_PAGES = 10_000
MAX_RECORDS = 1_000_000
#: Most records one page shows (``records_per_page``).
MAX_RECORDS_PER_PAGE = 10_000

_SYL = (
    "ka ri to mo na se lu vi de ra po ne shi ta ko mi zu ba ge lo an el or un ix "
    "bra cle dro fen gal hun jor kel mar nor pel quin ros sul tor vel wen yor zan"
).split()

#: Domain -> (subject kind, [(field label, value kind)]).
DOMAINS: dict[str, tuple[str, list[tuple[str, str]]]] = {
    "book": (
        "title",
        [
            ("Author", "person"),
            ("Year", "year"),
            ("Publisher", "org"),
            ("Pages", "int"),
            ("Genre", "genre"),
            ("Language", "lang"),
        ],
    ),
    "film": (
        "title",
        [
            ("Director", "person"),
            ("Released", "year"),
            ("Runtime", "minutes"),
            ("Country", "country"),
            ("Studio", "org"),
            ("Rating", "rating"),
        ],
    ),
    "phone": (
        "model",
        [
            ("Brand", "org"),
            ("Price", "price"),
            ("Storage", "storage"),
            ("Screen", "screen"),
            ("Battery", "battery"),
            ("Launch", "year"),
        ],
    ),
    "university": (
        "place",
        [
            ("City", "place"),
            ("Founded", "year"),
            ("Students", "int"),
            ("Rector", "person"),
            ("Type", "utype"),
            ("Motto", "motto"),
        ],
    ),
}

#: Label -> other words for it (no word, nor a long common substring, shared with the
#: label: a lexical matcher cannot find the label from them).  Used by the ``relabel``
#: drift (the site rewords its labels) and by paraphrased queries (the user's words).
PARAPHRASES: dict[str, tuple[str, ...]] = {
    "Author": ("writer", "novelist", "penned by"),
    "Year": ("publication date", "date of issue", "first printed"),
    "Publisher": ("imprint", "printing firm", "issued by"),
    "Pages": ("length", "extent", "leaf count"),
    "Genre": ("category", "literary form", "kind of book"),
    "Language": ("tongue", "idiom", "written in"),
    "Director": ("filmmaker", "helmer", "made by"),
    "Released": ("premiere", "came out", "first shown"),
    "Runtime": ("how long", "running length", "length in minutes"),
    "Country": ("homeland", "origin", "land of production"),
    "Studio": ("production company", "producer", "made at"),
    "Rating": ("score", "audience grade", "stars"),
    "Brand": ("maker", "manufacturer", "company"),
    "Price": ("cost", "how much", "amount to pay"),
    "Storage": ("memory", "capacity", "disk space"),
    "Screen": ("display", "diagonal", "panel size"),
    "Battery": ("power cell", "charge capacity", "accumulator"),
    "Launch": ("debut", "introduced", "on sale since"),
    "City": ("town", "location", "based in"),
    "Founded": ("established", "since", "year of creation"),
    "Students": ("enrolment", "pupils", "learners"),
    "Rector": ("head", "president", "chancellor"),
    "Type": ("kind", "category", "status"),
    "Motto": ("slogan", "maxim", "watchword"),
}

_GENRES = ("Mystery", "Poetry", "History", "Fantasy", "Biography", "Science", "Drama")
_LANGS = ("English", "French", "Hindi", "Korean", "Swahili", "Polish", "Quechua")
_COUNTRIES = ("Chile", "Norway", "Ghana", "Japan", "Peru", "Canada", "Laos", "Oman")
_UTYPES = ("Public", "Private", "Technical", "Open", "Research")


def slug(text: str) -> str:
    """Lower-case ASCII slug of ``text`` (``"Net Profit" -> "net-profit"``).

    Examples
    --------
    >>> slug("Net Profit")
    'net-profit'
    """
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def _word(rng: np.random.Generator, n: int | None = None) -> str:
    k = int(rng.integers(2, 4)) if n is None else n
    return "".join(rng.choice(_SYL) for _ in range(k)).capitalize()


def _value(kind: str, rng: np.random.Generator) -> str:
    if kind == "person":
        return f"{_word(rng)} {_word(rng)}"
    if kind == "org":
        return f"{_word(rng)} {rng.choice(['Press', 'Media', 'Labs', 'Group', 'House'])}"
    if kind == "place":
        return f"{_word(rng)}{rng.choice(['ville', 'burg', 'ford', 'polis', 'stad'])}"
    if kind == "title":
        return f"The {_word(rng)} {_word(rng)}"
    if kind == "model":
        return f"{_word(rng, 2)} {int(rng.integers(2, 99))}{rng.choice(['', ' Pro', ' Lite'])}"
    if kind == "year":
        return str(int(rng.integers(1890, 2025)))
    if kind == "int":
        return f"{int(rng.integers(90, 40000)):,}"
    if kind == "minutes":
        return f"{int(rng.integers(70, 200))} min"
    if kind == "rating":
        return f"{rng.integers(10, 100) / 10:.1f}/10"
    if kind == "price":
        return f"${int(rng.integers(99, 1999))}"
    if kind == "storage":
        return f"{int(2 ** rng.integers(4, 11))} GB"
    if kind == "screen":
        return f"{rng.integers(40, 75) / 10:.1f} in"
    if kind == "battery":
        return f"{int(rng.integers(20, 60)) * 100} mAh"
    if kind == "genre":
        return str(rng.choice(_GENRES))
    if kind == "lang":
        return str(rng.choice(_LANGS))
    if kind == "country":
        return str(rng.choice(_COUNTRIES))
    if kind == "utype":
        return str(rng.choice(_UTYPES))
    if kind == "motto":
        return f"{_word(rng)} et {_word(rng)}"
    raise ValueError(f"unknown value kind {kind!r}")


@dataclass(frozen=True)
class Record:
    """One entity: subject, ordered (label, value) fields, an image ``src`` and a link ``href``."""

    subject: str
    fields: tuple[tuple[str, str], ...]
    image: str
    link: str
    old: tuple[tuple[str, str], ...] = ()  # (label, former value): a struck-through old price

    def triples(self) -> list[tuple[str, str, str]]:
        """Gold (subject, predicate, object) triples of the record's text fields."""
        return [(self.subject, k, v) for k, v in self.fields]

    def get(self, label: str) -> str | None:
        """The value of field ``label`` (``"image"``/``"link"`` give ``src``/``href``)."""
        if label == "image":
            return self.image
        if label == "link":
            return self.link
        return dict(self.fields).get(label)


@validate_params(
    {
        "domain": [Options(*DOMAINS)],
        "n": [Size(0, limit=MAX_RECORDS, what="records")],
        "optional": [Interval(numbers.Real, 0, 1, closed="left")],
        "discounts": [Interval(numbers.Real, 0, 1, closed="both")],
    }
)
def make_records(
    domain: str, n: int, *, seed: Seed = 0, optional: float = 0.2, discounts: float = 0.0
) -> list[Record]:
    """``n`` records of ``domain``, each field missing with probability ``optional``.

    With ``discounts`` > 0 each price (value kind ``price``) carries, with that
    probability, an old price 10-50 % higher (``Record.old``), drawn from a stream of its
    own: the records are otherwise the same as with ``discounts=0``.

    Parameters
    ----------
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).

    Examples
    --------
    >>> recs = make_records("book", 2, seed=1)
    >>> len(recs), recs[0].fields[0][0]
    (2, 'Author')
    >>> [r.old for r in make_records("phone", 3, seed=2, discounts=1.0)][0][0][0]
    'Price'
    """
    seed = resolve_seed(seed) if discounts else seed
    rng = as_generator(seed)
    kind, spec = DOMAINS[domain]
    out, seen = [], set()
    while len(out) < n:
        subj = _value(kind, rng)
        if subj in seen:
            continue
        seen.add(subj)
        fields = tuple((lab, _value(k, rng)) for lab, k in spec if rng.random() >= optional) or (
            (spec[0][0], _value(spec[0][1], rng)),
        )
        s = slug(subj)
        out.append(Record(subj, fields, f"/img/{s}.png", f"/item/{s}"))
    if discounts > 0:
        drng = derive(seed, 13)  # seed is the resolved int here
        kinds = dict(spec)
        for i, r in enumerate(out):
            old = []
            for lab, v in r.fields:
                if kinds.get(lab) == "price" and drng.random() < discounts:
                    old.append((lab, f"${int(int(v[1:]) * drng.uniform(1.1, 1.5))}"))
            if old:
                out[i] = replace(r, old=tuple(old))
    return out


_ROLES = ("content", "title", "box", "label", "value", "row", "head", "list", "item", "card")


def _classes(rng: np.random.Generator, labels: Sequence[str]) -> dict[str, str]:
    pre = _word(rng, 1).lower()
    out = {r: f"{pre}-{r[:3]}{int(rng.integers(10, 99))}" for r in _ROLES}
    for lab in labels:
        out["f:" + lab] = f"{pre}-{slug(lab)[:4]}{int(rng.integers(10, 99))}"
    out["noise"] = f"x{int(rng.integers(100, 999))}"
    return out


@dataclass(frozen=True)
class Layout:
    """How a site renders: template, class names, wrappers, field order, grid, pagination."""

    domain: str
    template: str
    classes: tuple[tuple[str, str], ...]
    field_order: tuple[str, ...]
    wrappers: int = 0
    grid: bool = False
    paginate: bool = False
    version: int = 0
    drifts: tuple[str, ...] = ()
    labels: tuple[tuple[str, str], ...] = ()  # field -> the words the page shows for it
    discount: str = ""  # how an old price is struck: "" (not shown), "tag", "style", "css"
    unlabeled: tuple[str, ...] = ()  # fields shown without a label (value only)

    def cls(self, role: str) -> str:
        """Class name of ``role`` (``"f:Year"`` for a field)."""
        return dict(self.classes)[role]

    def shown(self, label: str) -> str:
        """The words the page shows for field ``label`` (itself unless relabelled)."""
        return dict(self.labels).get(label, label)

    @property
    def old_class(self) -> str:
        """Class of a struck old price when ``discount == "css"``."""
        return f"was-{self.cls('noise')}"


_LAYOUT = Instance(Layout, what="a Layout (from make_layout)")


@validate_params({"domain": [Options(*DOMAINS)], "template": [Options(*ALL_TEMPLATES)]})
def make_layout(domain: str, template: str, *, seed: Seed = 0) -> Layout:
    """A fresh layout of ``template`` for ``domain`` with random class names.

    Parameters
    ----------
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).

    Examples
    --------
    >>> make_layout("film", "infobox", seed=3).template
    'infobox'
    """
    labels = [lab for lab, _ in DOMAINS[domain][1]]
    rng = derive(resolve_seed(seed), 7)
    return Layout(domain, template, tuple(_classes(rng, labels).items()), tuple(labels))


#: ``redesign`` moves a site to the next template of the same kind (one record per page
#: or several).
_REDESIGN = {
    "infobox": "kv_table",
    "kv_table": "colon_lines",
    "colon_lines": "infobox",
    "header_table": "div_grid",
    "div_grid": "nested_list",
    "nested_list": "card_tables",
    "card_tables": "section_list",
    "section_list": "transposed_table",
    "transposed_table": "header_table",
}


@validate_params({"layout": [_LAYOUT], "kind": [Options(*DRIFTS, *HARD_DRIFTS)]})
def drift(layout: Layout, kind: str, *, seed: Seed = 0) -> Layout:
    """``layout`` after one drift of ``kind`` (facts unchanged, version + 1).

    Parameters
    ----------
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).

    Examples
    --------
    >>> lay = make_layout("book", "header_table")
    >>> drift(lay, "grid").grid, drift(lay, "wrapper").wrappers
    (True, 1)
    """
    kinds = DRIFTS + HARD_DRIFTS
    rng = derive(resolve_seed(seed), layout.version, kinds.index(kind))
    new: dict[str, Any] = {"version": layout.version + 1, "drifts": (*layout.drifts, kind)}
    if kind == "relabel":
        new["labels"] = tuple(
            (lab, PARAPHRASES[lab][int(rng.integers(len(PARAPHRASES[lab])))].capitalize())
            for lab in layout.field_order
        )
    elif kind == "redesign":
        new["template"] = _REDESIGN[layout.template]
        new["classes"] = tuple(_classes(rng, layout.field_order).items())
        new["grid"] = False
    elif kind == "class_rename":
        new["classes"] = tuple(_classes(rng, layout.field_order).items())
    elif kind == "wrapper":
        new["wrappers"] = layout.wrappers + 1
    elif kind == "column_order":
        order = list(layout.field_order)
        perm = order[::-1] if len(order) > 1 else order
        new["field_order"] = tuple(perm)
    elif kind == "grid":
        new["grid"] = True
    else:
        new["paginate"] = True
    return replace(layout, **new)


@validate_params(
    {"layout": [_LAYOUT], "kinds": [Many(Options(*DRIFTS, *HARD_DRIFTS), min_len=0, what="drifts")]}
)
def version_clock(
    layout: Layout, kinds: Sequence[str] = DRIFTS[:4], *, seed: Seed = 0
) -> list[Layout]:
    """Versions v0..vk: v0 is ``layout``, v_t applies ``kinds[t-1]`` on top of v_{t-1}.

    Parameters
    ----------
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).

    Examples
    --------
    >>> [v.version for v in version_clock(make_layout("book", "infobox"), ["wrapper"])]
    [0, 1]
    """
    seed = resolve_seed(seed)
    out = [layout]
    for k in kinds:
        out.append(drift(out[-1], k, seed=seed))
    return out


# ------------------------------------------------------------------------- rendering
def _e(s: str) -> str:
    return _html.escape(s, quote=True)


def _ordered(rec: Record, order: Sequence[str]) -> list[tuple[str, str]]:
    d = dict(rec.fields)
    return [(k, d[k]) for k in order if k in d]


def _value_html(lay: Layout, value: str, old: str | None) -> str:
    """A value, with its struck-through old price first when the layout shows one."""
    if old is None or not lay.discount:
        return _e(value)
    if lay.discount == "tag":
        return f"<del>{_e(old)}</del> {_e(value)}"
    if lay.discount == "style":
        return f'<span style="text-decoration: line-through">{_e(old)}</span> {_e(value)}'
    return f'<span class="{lay.old_class}">{_e(old)}</span> {_e(value)}'


def _fields(lay: Layout, rec: Record, *, labelled: bool = True) -> list[tuple[str, str, str]]:
    """(field, label HTML, value HTML) in the layout's order; ``labelled=False``: only the
    fields the layout shows without a label, ``True``: the others."""
    d, old = dict(rec.fields), dict(rec.old)
    return [
        (k, _e(lay.shown(k)), _value_html(lay, d[k], old.get(k)))
        for k in lay.field_order
        if k in d and (k in lay.unlabeled) != labelled
    ]


def _bare(lay: Layout, rec: Record, tag: str = "div") -> str:
    """Fields shown without a label: the value alone in an element of the field's class."""
    return "".join(
        f'<{tag} class="{lay.cls("f:" + k)}">{v}</{tag}>'
        for k, _, v in _fields(lay, rec, labelled=False)
    )


def _subject_html(rec: Record) -> str:
    return f'<a href="{_e(rec.link)}">{_e(rec.subject)}</a>'


def _grid_table(lay: Layout, head: list[str], rows: list[list[str]], row_cls: list[str]) -> str:
    """A header table or its div-grid drift; ``rows`` hold ready HTML cells."""
    c = lay.cls
    if lay.grid:
        h = "".join(f'<div class="{c("label")}">{x}</div>' for x in head)
        body = "".join(
            f'<div class="{c("row")} {rc}">'
            + "".join(f'<div class="{c("value")}">{x}</div>' for x in r)
            + "</div>"
            for r, rc in zip(rows, row_cls, strict=True)
        )
        return f'<div class="{c("box")}"><div class="{c("head")}">{h}</div>{body}</div>'
    h = "".join(f"<th>{x}</th>" for x in head)
    body = "".join(
        f'<tr class="{c("row")} {rc}">' + "".join(f"<td>{x}</td>" for x in r) + "</tr>"
        for r, rc in zip(rows, row_cls, strict=True)
    )
    return f'<table class="{c("box")}"><tr class="{c("head")}">{h}</tr>{body}</table>'


def _kv_rows(lay: Layout, rec: Record) -> str:
    """A record's labelled fields as ``th | td`` rows, or label/value ``div`` rows (grid)."""
    c = lay.cls
    if lay.grid:
        return "".join(
            f'<div class="{c("row")} {c("f:" + k)}"><div class="{c("label")}">{lab}</div>'
            f'<div class="{c("value")}">{v}</div></div>'
            for k, lab, v in _fields(lay, rec)
        )
    return "".join(
        f'<tr class="{c("f:" + k)}"><th>{lab}</th><td>{v}</td></tr>'
        for k, lab, v in _fields(lay, rec)
    )


def _render_records(lay: Layout, recs: Sequence[Record]) -> str:
    c = lay.cls
    t = lay.template
    img = lambda r: f'<img src="{_e(r.image)}" alt="">'  # noqa: E731
    if t == "infobox":
        r = recs[0]
        items = "".join(
            f'<dt>{lab}</dt><dd class="{c("f:" + k)}">{v}</dd>' for k, lab, v in _fields(lay, r)
        )
        return (
            f'<h1 class="{c("title")}">{_subject_html(r)}</h1>{img(r)}{_bare(lay, r, "p")}'
            f'<dl class="{c("box")}">{items}</dl>'
        )
    if t == "kv_table":
        r = recs[0]
        items = _kv_rows(lay, r)
        tag = "div" if lay.grid else "table"
        box = f'<{tag} class="{c("box")}">{items}</{tag}>'
        return f'<h2 class="{c("title")}">{_subject_html(r)}</h2>{img(r)}{_bare(lay, r, "p")}{box}'
    if t == "colon_lines":
        r = recs[0]
        items = "".join(f'<p class="{c("f:" + k)}">{lab}: {v}</p>' for k, lab, v in _fields(lay, r))
        return (
            f'<h1 class="{c("title")}">{_subject_html(r)}</h1>{img(r)}{_bare(lay, r, "p")}'
            f'<div class="{c("box")}">{items}</div>'
        )
    if t == "header_table":
        cols = [k for k in lay.field_order if any(k in dict(r.fields) for r in recs)]
        head = ["Name", *[_e(lay.shown(k)) for k in cols]]
        rows = []
        for r in recs:
            d, old = dict(r.fields), dict(r.old)
            rows.append(
                [_subject_html(r)]
                + [_value_html(lay, d[k], old.get(k)) if k in d else "" for k in cols]
            )
        return _grid_table(lay, head, rows, [c("item")] * len(recs))
    if t == "transposed_table":
        cols = [k for k in lay.field_order if any(k in dict(r.fields) for r in recs)]
        head = ["", *[f"{_subject_html(r)}{img(r)}" for r in recs]]
        rows = []
        for k in cols:
            cells = []
            for r in recs:
                d, old = dict(r.fields), dict(r.old)
                cells.append(_value_html(lay, d[k], old.get(k)) if k in d else "")
            rows.append([_e(lay.shown(k)), *cells])
        cell = "div" if lay.grid else "td"
        first = "div" if lay.grid else "th"
        row_tag = "div" if lay.grid else "tr"
        h = "".join(f"<{first}>{x}</{first}>" for x in head)
        body = "".join(
            f'<{row_tag} class="{c("row")} {c("f:" + k)}"><{first}>{r[0]}</{first}>'
            + "".join(f"<{cell}>{x}</{cell}>" for x in r[1:])
            + f"</{row_tag}>"
            for k, r in zip(cols, rows, strict=True)
        )
        box = "div" if lay.grid else "table"
        return (
            f'<{box} class="{c("box")}"><{row_tag} class="{c("head")}">{h}</{row_tag}>'
            f"{body}</{box}>"
        )
    if t == "nested_list":
        lis = "".join(
            f'<li class="{c("item")}"><span class="{c("title")}">{_subject_html(r)}</span>{img(r)}'
            f'<ul class="{c("list")}">'
            + _bare(lay, r, "li")
            + "".join(
                f'<li class="{c("row")} {c("f:" + k)}"><b>{lab}:</b> {v}</li>'
                for k, lab, v in _fields(lay, r)
            )
            + "</ul></li>"
            for r in recs
        )
        return f'<ul class="{c("box")}">{lis}</ul>'
    if t == "div_grid":
        cards = "".join(
            f'<div class="{c("card")}"><div class="{c("title")}">{_subject_html(r)}</div>{img(r)}'
            + _bare(lay, r)
            + "".join(
                f'<div class="{c("row")} {c("f:" + k)}"><div class="{c("label")}">{lab}</div>'
                f'<div class="{c("value")}">{v}</div></div>'
                for k, lab, v in _fields(lay, r)
            )
            + "</div>"
            for r in recs
        )
        return f'<div class="{c("box")}">{cards}</div>'
    if t == "card_tables":
        if lay.grid:
            cards = "".join(
                f'<div class="{c("card")}"><div class="{c("title")}">{_subject_html(r)}</div>'
                f"{img(r)}{_bare(lay, r)}{_kv_rows(lay, r)}</div>"
                for r in recs
            )
        else:
            cards = "".join(
                f'<table class="{c("card")}"><caption class="{c("title")}">{_subject_html(r)}'
                f"{img(r)}</caption>"
                + "".join(
                    f'<tr class="{c("f:" + k)}"><td colspan="2">{v}</td></tr>'
                    for k, _, v in _fields(lay, r, labelled=False)
                )
                + f"{_kv_rows(lay, r)}</table>"
                for r in recs
            )
        return f'<div class="{c("box")}">{cards}</div>'
    if t == "section_list":
        secs = "".join(
            f'<h3 class="{c("title")}">{_subject_html(r)}</h3>{img(r)}{_bare(lay, r, "p")}'
            + "".join(
                f'<p class="{c("row")} {c("f:" + k)}"><strong>{lab}</strong> {v}</p>'
                for k, lab, v in _fields(lay, r)
            )
            for r in recs
        )
        return f'<div class="{c("box")}">{secs}</div>'
    raise ValueError(f"unknown template {t!r}")


def _noise(lay: Layout, rng: np.random.Generator) -> tuple[str, str, str]:
    """Navigation, advertisements (before the content) and footer; random per page."""
    n = lay.cls("noise")
    nav = "".join(f'<li><a href="/s/{i}">{_word(rng)}</a></li>' for i in range(rng.integers(3, 6)))
    ads = "".join(
        f'<div class="ad-{n}{i}"><p>Buy {_word(rng)} now</p></div>'
        for i in range(int(rng.integers(0, 3)))
    )
    foot = f'<div class="foot-{n}"><p>(c) {_word(rng)} {int(rng.integers(2000, 2025))}</p></div>'
    return f'<div class="nav-{n}"><ul>{nav}</ul></div>', ads, foot


@dataclass(frozen=True)
class Page:
    """One rendered page: HTML, the records behind it, its layout and page seed."""

    html: str
    records: tuple[Record, ...]
    layout: Layout
    page_seed: int
    url: str = ""
    part: int = 0

    def gold(self) -> list[tuple[str, str, str]]:
        """Gold (subject, predicate, object) triples of the page."""
        return [(r.subject, self.layout.shown(k), v) for r in self.records for k, v in r.fields]

    @property
    def text(self) -> str:
        """The page's visible text, whitespace-normalised."""
        return _visible_text(self.html)


def _visible_text(html: str) -> str:
    txt = re.sub(r"<[^>]+>", " ", html)
    return re.sub(r"\s+", " ", _html.unescape(txt)).strip()


def render_page(
    records: Sequence[Record], layout: Layout, *, page_seed: int = 0, url: str = ""
) -> list[Page]:
    """Render ``records`` with ``layout``: one page, or two when the layout paginates.

    Examples
    --------
    >>> lay = make_layout("book", "infobox")
    >>> page = render_page(make_records("book", 1), lay)[0]
    >>> "<dl" in page.html and len(page.gold()) > 0
    True
    """
    if not records:
        raise ValueError("records must hold at least one record")
    if layout.template in DETAIL_TEMPLATES and len(records) != 1:
        raise ValueError(f"template {layout.template!r} renders exactly one record per page")
    parts = [list(records)]
    if layout.paginate and len(records) > 1:
        h = (len(records) + 1) // 2
        parts = [list(records[:h]), list(records[h:])]
    pages = []
    for i, part in enumerate(parts):
        rng = derive(page_seed, 11)  # same noise for every version
        nav, ads, foot = _noise(layout, rng)
        body = _render_records(layout, part)
        nxt = ""
        if i + 1 < len(parts):
            nxt = f'<a rel="next" href="{_e(url)}?page={i + 2}">next</a>'
        main = f'<div class="{layout.cls("content")}">{body}{nxt}</div>'
        css = ""
        if layout.discount == "css":
            css = f".{layout.old_class}{{text-decoration:line-through}}"
        for w in range(layout.wrappers):
            main = f'<div class="wrap{w}-{layout.cls("noise")}">{main}</div>'
        doc = (
            f"<!DOCTYPE html><html><head><title>{_e(layout.domain)}</title>"
            f"<style>p{{margin:0}}{css}</style><script>var t=1;</script></head>"
            f"<body>{nav}{ads}{main}{foot}</body></html>"
        )
        purl = url if i == 0 else f"{url}?page={i + 1}"
        pages.append(Page(doc, tuple(part), layout, page_seed, purl, i))
    return pages


def rerender(page: Page, layout: Layout) -> list[Page]:
    """The same records and noise as ``page`` under another ``layout`` (a drifted version).

    Examples
    --------
    >>> g = make_group("book", "infobox", 1)
    >>> new = rerender(g.pages[0], drift(g.layout, "class_rename"))[0]
    >>> new.gold() == g.pages[0].gold() and new.html != g.pages[0].html
    True
    """
    return render_page(page.records, layout, page_seed=page.page_seed, url=page.url)


@dataclass(frozen=True)
class Group:
    """A group of structurally similar pages of one site (one layout)."""

    name: str
    layout: Layout
    pages: tuple[Page, ...] = field(default_factory=tuple)

    def __len__(self) -> int:
        return len(self.pages)


@validate_params(
    {
        "domain": [Options(*DOMAINS)],
        "template": [Options(*ALL_TEMPLATES)],
        "n_pages": [Size(1, limit=MAX_PAGES, what="pages")],
        "records_per_page": [Pair(Size(1, limit=MAX_RECORDS_PER_PAGE, what="records on a page"))],
        "layout": [_LAYOUT, None],
        "name": [Instance(str, what="a name"), None],
    }
)
def make_group(
    domain: str,
    template: str,
    n_pages: int,
    *,
    seed: Seed = 0,
    records_per_page: tuple[int, int] = (2, 6),
    layout: Layout | None = None,
    name: str | None = None,
    discounts: float = 0.0,
) -> Group:
    """``n_pages`` pages of one site sharing ``template`` (records differ page to page).

    ``discounts``: the probability that a price carries a struck-through old price (shown
    only by a layout with ``discount`` set; see :func:`make_records`).  ``n_pages`` (at
    most :data:`MAX_PAGES`) and ``records_per_page`` (``(lo, hi)``, 1 <= lo <= hi, at
    most :data:`MAX_RECORDS` records in all) are checked before anything is rendered.

    Parameters
    ----------
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).

    Examples
    --------
    >>> g = make_group("phone", "div_grid", 3, seed=2)
    >>> len(g), g.layout.template
    (3, 'div_grid')
    """
    try:
        lo, hi = (int(x) for x in records_per_page)
    except (TypeError, ValueError):
        raise ValueError(
            f"records_per_page must be two integers (lo, hi), got {records_per_page!r}"
        ) from None
    if not 1 <= lo <= hi:
        raise ValueError(f"records_per_page must satisfy 1 <= lo <= hi, got {records_per_page!r}")
    if n_pages * hi > MAX_RECORDS:
        raise ValueError(
            f"n_pages x records_per_page = {n_pages:,} x {hi:,} exceeds the limit of "
            f"{MAX_RECORDS:,} records (checked before the pages are rendered)"
        )
    seed = resolve_seed(seed)
    lay = layout or make_layout(domain, template, seed=seed)
    template = lay.template
    rng = derive(seed, 3)
    per = [
        1 if template in DETAIL_TEMPLATES else int(rng.integers(lo, hi + 1)) for _ in range(n_pages)
    ]
    recs = make_records(lay.domain, sum(per), seed=seed, discounts=discounts)
    pages, k = [], 0
    gname = name or f"{domain}-{template}-{seed}"
    for i, m in enumerate(per):
        pages.append(
            render_page(recs[k : k + m], lay, page_seed=seed * 1000 + i, url=f"/{gname}/{i}")[0]
        )
        k += m
    return Group(gname, lay, tuple(pages))


@validate_params(
    {
        "n_groups": [Size(1, limit=MAX_PAGES, what="site groups")],
        "pages_per_group": [Size(1, limit=MAX_PAGES, what="pages per group")],
        "templates": [Many(Options(*ALL_TEMPLATES), what="templates")],
    }
)
def make_sites(
    n_groups: int,
    pages_per_group: int,
    *,
    seed: Seed = 0,
    templates: Sequence[str] = TEMPLATES,
) -> list[Group]:
    """``n_groups`` groups cycling through domains and ``templates``, seeded.

    Parameters
    ----------
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).

    Examples
    --------
    >>> [g.layout.template for g in make_sites(2, 2)]
    ['infobox', 'kv_table']
    """
    if n_groups * pages_per_group > MAX_PAGES:
        raise ValueError(
            f"n_groups x pages_per_group = {n_groups * pages_per_group:,} exceeds the limit "
            f"of {MAX_PAGES:,} pages (checked before the pages are rendered)"
        )
    if isinstance(templates, str) or not templates:
        raise ValueError(f"templates must be a non-empty list of template names, got {templates!r}")
    doms = sorted(DOMAINS)
    seed = resolve_seed(seed)
    return [
        make_group(
            doms[(i // len(templates)) % len(doms)],
            templates[i % len(templates)],
            pages_per_group,
            seed=seed * 100_003 + i,
        )
        for i in range(n_groups)
    ]


# --------------------------------------------------------------- layout signatures
def layout_signature(html: str) -> str:
    """A hash of a page's DOM shape: tags and classes, text dropped, repeats collapsed.

    Only the first class of an element counts, and none of a repeated sibling's (field
    rows carry field-specific classes); noise blocks (navigation, advertisements,
    footer) are skipped and each distinct child shape counts once (in order of first
    appearance), so pages of one template and site share a signature.

    Examples
    --------
    >>> g = make_group("book", "header_table", 2)
    >>> layout_signature(g.pages[0].html) == layout_signature(g.pages[1].html)
    True
    """
    root = parse(html, name="html")
    body = root.find("body")
    node = body if body is not None else root

    def shape(el: Any, repeated: bool = False) -> str:
        elems = [c for c in el if isinstance(c.tag, str)]
        tags = [c.tag for c in elems]
        kids: list[str] = []
        for ch in elems:
            s = shape(ch, tags.count(ch.tag) > 1)
            if s not in kids:
                kids.append(s)
        cls = (el.get("class") or "").split()
        keep = [x for x in cls if not re.match(r"^(ad|nav|foot)-", x)]
        if len(cls) != len(keep):
            return ""  # a noise block
        name = el.tag if repeated else f"{el.tag}.{'.'.join(keep[:1])}"
        return f"{name}({','.join(k for k in kids if k)})"

    return hashlib.sha1(shape(node).encode()).hexdigest()[:16]


# ------------------------------------------------------------ the generator's own
@validate_params({"layout": [_LAYOUT]})
def template_extractor(layout: Layout) -> Any:
    """The extractor that knows ``layout``: ``f(html) -> triples``, F1 = 1 on its pages.

    It reads the page through the layout's own class names (not the records), so it
    checks rendering and parsing end to end; a drifted page breaks it as it should.  A
    struck-through old price is skipped (the layout says how it is struck); a field shown
    without a label is named by its class.

    Examples
    --------
    >>> g = make_group("book", "kv_table", 1)
    >>> f = template_extractor(g.layout)
    >>> sorted(f(g.pages[0].html)) == sorted(g.pages[0].gold())
    True
    """
    c = layout.cls
    struck = (
        "ancestor::del or ancestor::*[contains(@style, 'line-through')] or "
        f"ancestor::*[contains(concat(' ', normalize-space(@class), ' '), ' {layout.old_class} ')]"
    )
    bare_cls = {c("f:" + k): layout.shown(k) for k in layout.unlabeled}

    def by_class(root: Any, name: str) -> list[Any]:
        return root.xpath(f".//*[contains(concat(' ', normalize-space(@class), ' '), ' {name} ')]")

    def val(el: Any) -> str:
        """Text of a value element without a struck-through old price."""
        if el is None or not layout.discount:
            return text_of(el)
        return text_of(" ".join(el.xpath(f".//text()[not({struck})]")))

    def is_bare(el: Any) -> str | None:
        for k in (el.get("class") or "").split():
            if k in bare_cls:
                return bare_cls[k]
        return None

    def bare(subj: str, scope: Any) -> list[tuple[str, str, str]]:
        out = []
        for el in scope.iter():
            lab = is_bare(el) if isinstance(el.tag, str) else None
            if lab is not None:
                out.append((subj, lab, val(el)))
        return out

    def grid_rows(box: Any) -> list[Any]:
        return [r for r in box if isinstance(r.tag, str)]

    def run(html: str) -> list[tuple[str, str, str]]:
        root = parse(html)
        out: list[tuple[str, str, str]] = []
        t = layout.template
        if t in DETAIL_TEMPLATES:
            subj = text_of(by_class(root, c("title"))[0])
            box = by_class(root, c("box"))[0]
            if t == "infobox":
                pairs = [(text_of(dt), val(dt.getnext())) for dt in box.iter("dt")]
            elif t == "colon_lines":
                pairs = []
                for p in grid_rows(box):
                    lab, _, rest = text_of(p).partition(":")
                    pairs.append((lab, val(p)[len(lab) + 1 :].strip()))
            elif layout.grid:
                pairs = [(text_of(r[0]), val(r[1])) for r in box]
            else:
                pairs = [(text_of(tr[0]), val(tr[1])) for tr in box.iter("tr")]
            return [(subj, k, v) for k, v in pairs] + bare(subj, root)
        if t == "header_table":
            for box in by_class(root, c("box")):
                head_el = by_class(box, c("head"))[0]
                head = [text_of(h) for h in head_el]
                for row in by_class(box, c("row")):
                    cells = [val(x) for x in row]
                    out += [
                        (cells[0], h, v) for h, v in zip(head[1:], cells[1:], strict=False) if v
                    ]
            return out
        if t == "transposed_table":
            for box in by_class(root, c("box")):
                subjects = [text_of(h) for h in by_class(box, c("head"))[0]][1:]
                for row in by_class(box, c("row")):
                    cells = [x for x in row if isinstance(x.tag, str)]
                    lab = text_of(cells[0])
                    out += [
                        (s, lab, val(x))
                        for s, x in zip(subjects, cells[1:], strict=False)
                        if val(x)
                    ]
            return out
        if t == "section_list":
            subj = ""
            for box in by_class(root, c("box")):
                for el in grid_rows(box):
                    if el.tag == "h3":
                        subj = text_of(el)
                    elif is_bare(el) is not None:
                        out += bare(subj, el)
                    elif el.tag == "p":
                        lab = text_of(el[0])
                        out.append((subj, lab, val(el)[len(lab) :].strip()))
            return out
        for rec in by_class(root, c("item") if t == "nested_list" else c("card")):
            kids = grid_rows(rec)
            subj = text_of(kids[0])
            out += bare(subj, rec)
            if t == "nested_list":
                for li in rec.find("ul"):
                    if is_bare(li) is not None:
                        continue
                    lab = text_of(li[0]).rstrip(":")
                    out.append((subj, lab, val(li)[len(text_of(li[0])) :].strip()))
            elif t == "card_tables" and not layout.grid:
                out += [
                    (subj, text_of(tr[0]), val(tr[1]))
                    for tr in rec.iter("tr")
                    if is_bare(tr) is None
                ]
            else:
                for row in kids[2:]:
                    if is_bare(row) is None:
                        out.append((subj, text_of(row[0]), val(row[1])))
        return out

    return run
