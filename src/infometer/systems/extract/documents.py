"""Long filings-like documents rendered from known tables, with Loong-style questions.

A document holds one section per company ("annual report" prose).  Every figure of the
company's table (metric x year) is written in a sentence with a varied unit
("$1.2 million", "$1,200,000", "USD 1.2M", "1.2 billion dollars", "1,204 employees",
"a headcount of 1.2 thousand") among distractor sentences that also carry numbers
(guidance, office space, share counts, analysts' expectations of the same metric).
Every number span is annotated with the (company, year, metric) it states or ``None``,
so extraction, unit normalisation and alignment are scored exactly.

Questions follow the four Loong levels: 1 *locate* (one value), 2 *compare* (which of two
companies is higher), 3 *cluster* (the set of companies above a threshold), 4 *chain*
(the change of one metric for the company that is highest in another).  Answers are exact.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from infometer.core.seeding import Seed, derive, resolve_seed

from .sites import _word

__all__ = [
    "METRICS",
    "LEVELS",
    "NUMBER_RE",
    "Mention",
    "Filing",
    "Question",
    "make_filing",
    "make_questions",
    "make_corpus",
    "parse_amount",
    "format_amount",
]

#: metric -> kind ("money" or "count").
METRICS: dict[str, str] = {
    "Revenue": "money",
    "Net profit": "money",
    "R&D spend": "money",
    "Employees": "count",
}
LEVELS: dict[int, str] = {1: "locate", 2: "compare", 3: "cluster", 4: "chain"}

#: Every number span the documents write (amounts with their unit words).
NUMBER_RE = re.compile(
    r"(?:USD\s|\$)?\d[\d,]*(?:\.\d+)?(?:\s?(?:million|billion|thousand|M\b|bn\b|k\b))?"
    r"(?:\s(?:dollars|employees|people|square feet|shares))?"
)

_SCALE = {"thousand": 1e3, "k": 1e3, "million": 1e6, "m": 1e6, "billion": 1e9, "bn": 1e9}


def parse_amount(span: str) -> float | None:
    """The number a span states, units applied (``"$1.2 million" -> 1200000.0``).

    Examples
    --------
    >>> parse_amount("USD 3.5M"), parse_amount("1,204 employees"), parse_amount("n/a")
    (3500000.0, 1204.0, None)
    """
    m = re.search(r"\d[\d,]*(?:\.\d+)?", span)
    if m is None:
        return None
    v = float(m.group(0).replace(",", ""))
    rest = span[m.end() :].strip().lower()
    w = re.match(r"(million|billion|thousand|m\b|bn\b|k\b)", rest)
    if w:
        v *= _SCALE[w.group(1)]
    return round(v, 6)


def format_amount(value: float, kind: str, style: int) -> str:
    """Write ``value`` in one of several unit styles (``style`` modulo the count)."""
    if kind == "count":
        styles = [f"{int(value):,} employees", f"a headcount of {value / 1e3:.1f} thousand"]
        if value % 100 != 0:
            styles = styles[:1]
        return styles[style % len(styles)]
    m = value / 1e6
    styles = [f"${m:.1f} million", f"${int(value):,}", f"USD {m:.1f}M"]
    if value >= 1e9 and value % 1e7 == 0:
        styles.append(f"{value / 1e9:.2f} billion dollars")
    return styles[style % len(styles)]


@dataclass(frozen=True)
class Mention:
    """One number span of a document and what it states (``metric`` None: a distractor)."""

    start: int
    end: int
    text: str
    company: str
    year: int | None
    metric: str | None
    value: float | None


@dataclass(frozen=True)
class Filing:
    """A generated document: text, its gold table and every annotated number span."""

    text: str
    table: dict[tuple[str, int, str], float]
    companies: tuple[str, ...]
    years: tuple[int, ...]
    mentions: tuple[Mention, ...]
    seed: int = 0

    def value(self, company: str, year: int, metric: str) -> float:
        """The gold value of one cell."""
        return self.table[(company, year, metric)]


@dataclass(frozen=True)
class Question:
    """A Loong-style question with its exact answer and gold structure."""

    text: str
    level: int
    answer: Any
    metrics: tuple[str, ...]
    years: tuple[int, ...]
    filing: Filing = field(repr=False, compare=False, default=None)  # type: ignore[assignment]

    @property
    def schema(self) -> tuple[str, ...]:
        """The gold query schema (table header)."""
        return ("Company", "Year", *self.metrics)


_REPORT = [
    "In {y}, {c} reported {m} of {v}.",
    "{c}'s {ml} for fiscal {y} came to {v}.",
    "For the year {y} the company's {ml} reached {v}, management said.",
]
_COUNT = [
    "At the end of {y}, {c} had {v}.",
    "In {y} the workforce of {c} stood at {v}.",
]
_DISTRACT = [
    "Analysts had expected {ml} of {v} in {y}.",
    "The company leases {n} square feet of office space.",
    "In {y}, {c} repurchased {n} shares.",
    "Guidance for {y} pointed to {ml} near {v}.",
    "The board met {k} times in {y} to review strategy.",
]


def _company(rng: np.random.Generator, taken: set[str]) -> str:
    while True:
        name = f"{_word(rng)} {rng.choice(['Corp', 'Holdings', 'Industries', 'Systems'])}"
        if name not in taken:
            taken.add(name)
            return name


def make_filing(
    n_companies: int = 4,
    years: tuple[int, ...] = (2021, 2022, 2023),
    *,
    distractors: float = 0.6,
    seed: Seed = 0,
) -> Filing:
    """One long document over ``n_companies`` x ``years`` x :data:`METRICS`, seeded.

    Parameters
    ----------
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).

    Examples
    --------
    >>> f = make_filing(2, (2022, 2023), seed=1)
    >>> len(f.table), all(m.text in f.text for m in f.mentions)
    (16, True)
    """
    if n_companies < 2:
        raise ValueError(f"n_companies must be at least 2, got {n_companies}")
    seed = resolve_seed(seed)
    rng = derive(seed, 29)
    taken: set[str] = set()
    comps = tuple(_company(rng, taken) for _ in range(n_companies))
    table: dict[tuple[str, int, str], float] = {}
    for c in comps:
        base = float(rng.uniform(5e6, 3e9))
        staff = float(rng.integers(50, 40000))
        for y in years:
            g = float(rng.uniform(0.8, 1.3))
            base *= g
            rev = round(base / 1e5) * 1e5
            table[(c, y, "Revenue")] = rev
            table[(c, y, "Net profit")] = max(1e5, round(rev * rng.uniform(0.02, 0.25) / 1e5) * 1e5)
            table[(c, y, "R&D spend")] = max(1e5, round(rev * rng.uniform(0.03, 0.15) / 1e5) * 1e5)
            staff = float(max(10, int(staff * rng.uniform(0.85, 1.2))))
            table[(c, y, "Employees")] = staff
    parts: list[str] = []
    mentions: list[Mention] = []
    pos = 0

    def emit(s: str, spans: list[tuple[str, str, int | None, str | None, float | None]]) -> None:
        nonlocal pos
        for text, comp, y, met, val in spans:
            i = s.index(text)
            mentions.append(Mention(pos + i, pos + i + len(text), text, comp, y, met, val))
        parts.append(s)
        pos += len(s) + 1

    for c in comps:
        emit(f"\n{c} annual report.", [])
        emit(
            f"{c} was founded in {int(rng.integers(1950, 2015))} and is headquartered in "
            f"{_word(rng)}ville.",
            [],
        )
        cells = [(y, m) for y in years for m in METRICS]
        rng.shuffle(cells)
        for y, m in cells:
            v = table[(c, y, m)]
            vs = format_amount(v, METRICS[m], int(rng.integers(0, 4)))
            tpl = _COUNT if METRICS[m] == "count" else _REPORT
            s = str(rng.choice(tpl)).format(y=y, c=c, m=m.lower(), ml=m.lower(), v=vs)
            s = s[0].upper() + s[1:]
            emit(s, [(vs, c, y, m, v)])
            if rng.random() < distractors:
                d = str(rng.choice(_DISTRACT))
                fake_m = str(rng.choice([k for k, t in METRICS.items() if t == "money"]))
                fv = format_amount(
                    max(1e5, round(table[(c, y, fake_m)] * rng.uniform(0.7, 1.3) / 1e5) * 1e5),
                    "money",
                    int(rng.integers(0, 3)),
                )
                n = f"{int(rng.integers(1000, 90000)):,}"
                k = str(int(rng.integers(3, 12)))
                s = d.format(y=y, c=c, ml=fake_m.lower(), v=fv, n=n, k=k)
                spans = []
                if "{v}" in d:
                    spans.append((fv, c, y, None, None))
                if "{n}" in d:
                    unit = " square feet" if "square" in d else " shares"
                    spans.append((n + unit, c, y, None, None))
                emit(s, spans)
    text = "\n".join(parts)
    return Filing(text, table, comps, tuple(years), tuple(mentions), seed)


def _fmt(v: float) -> float:
    return float(round(v, 6))


def make_questions(filing: Filing, *, seed: Seed = 0, per_level: int = 2) -> list[Question]:
    """``per_level`` questions of each Loong level with exact answers.

    Parameters
    ----------
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).

    Examples
    --------
    >>> qs = make_questions(make_filing(3, seed=2), per_level=1)
    >>> [q.level for q in qs]
    [1, 2, 3, 4]
    """
    rng = derive(resolve_seed(seed), filing.seed, 31)
    cs, ys = list(filing.companies), list(filing.years)
    mets = list(METRICS)
    out: list[Question] = []
    t = filing.table
    for _ in range(per_level):
        c, y, m = str(rng.choice(cs)), int(rng.choice(ys)), str(rng.choice(mets))
        out.append(
            Question(
                f"What was the {m.lower()} of {c} in {y}?",
                1,
                _fmt(t[(c, y, m)]),
                (m,),
                (y,),
                filing,
            )
        )
    for _ in range(per_level):
        a, b = (str(x) for x in rng.choice(cs, 2, replace=False))
        y, m = int(rng.choice(ys)), str(rng.choice(mets))
        ans = a if t[(a, y, m)] > t[(b, y, m)] else b
        out.append(
            Question(
                f"Which company had the higher {m.lower()} in {y}: {a} or {b}?",
                2,
                ans,
                (m,),
                (y,),
                filing,
            )
        )
    for _ in range(per_level):
        y, m = int(rng.choice(ys)), str(rng.choice(mets))
        vals = sorted(t[(c, y, m)] for c in cs)
        thr = (vals[len(vals) // 2 - 1] + vals[len(vals) // 2]) / 2
        thr_s = (
            format_amount(round(thr / 1e5) * 1e5, METRICS[m], 0)
            if METRICS[m] == "money"
            else f"{int(thr):,}"
        )
        thr_v = parse_amount(thr_s)
        ans = tuple(sorted(c for c in cs if t[(c, y, m)] > thr_v))
        out.append(
            Question(
                f"Which companies reported {m.lower()} above {thr_s} in {y}?",
                3,
                ans,
                (m,),
                (y,),
                filing,
            )
        )
    for _ in range(per_level):
        y = int(rng.choice(ys[1:]))
        m1, m2 = (str(x) for x in rng.choice(mets, 2, replace=False))
        top = max(cs, key=lambda c: t[(c, y, m2)])
        ch = 100.0 * (t[(top, y, m1)] - t[(top, y - 1, m1)]) / t[(top, y - 1, m1)]
        out.append(
            Question(
                f"By what percentage did the {m1.lower()} of the company with the highest "
                f"{m2.lower()} in {y} change from {y - 1} to {y}?",
                4,
                round(ch, 1),
                (m1, m2),
                (y - 1, y),
                filing,
            )
        )
    return out


def make_corpus(
    n_documents: int, *, seed: Seed = 0, per_level: int = 2, n_companies: int = 4
) -> list[Question]:
    """Questions over ``n_documents`` generated filings (seeded).

    Parameters
    ----------
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).

    Examples
    --------
    >>> len(make_corpus(2, per_level=1))
    8
    """
    if n_documents < 1:
        raise ValueError(f"n_documents must be positive, got {n_documents}")
    out: list[Question] = []
    seed = resolve_seed(seed)
    for d in range(n_documents):
        f = make_filing(n_companies, seed=seed * 10_007 + d)
        out += make_questions(f, seed=seed, per_level=per_level)
    return out
