"""Questions in words the generator does not write, and a reader that is not keyed to them.

The Loong-style questions of :func:`~.documents.make_questions` come from four templates,
and LiteCoST's answering step (:func:`~.litecost.answer_from_table`) reads them with
regular expressions written for those templates plus the question's ``level`` field.
Here:

* :func:`paraphrase_question` -- the same question (same answer, metrics, years, level)
  in other words: the metric named by a synonym that shares no word with its name
  (:data:`METRIC_WORDS`), other sentence frames with the clauses reordered (the two
  companies swapped, the ranking metric before or after the changing one), thresholds in
  other units (``$1.2 million`` -> ``USD 1,200,000``, ``1,200 thousand dollars``,
  ``US$ 1.2mn``; head counts as ``people``).  Deterministic by ``seed``; no sentence frame
  of the generator survives (tested).
* :class:`QuestionParser` -- reads any wording into a :class:`Frame`: companies (names
  known from the document), years, amounts (any unit words, :func:`parse_quantities`),
  the operation from *what* the question holds (a threshold: filter; two companies:
  compare; no company and two years: change; else look-up), the metrics by semantic
  similarity of the question's word n-grams to the schema's column names (MiniLM cosine,
  or a lexical ratio for contrast), and, for a change question, which metric ranks the
  companies (the one nearest a superlative: *highest, largest, most, top, led, ...*).
  No sentence frame and no ``level`` field is read.
* :func:`answer_frame` -- the answer from a table of cells and a frame.

What is a stand-in: the parser is rules over entities plus MiniLM similarity, not an LLM;
the superlative and comparative word lists are small English lexicons (stated here, not
learned); MiniLM's notion of similarity decides which synonyms are understood.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from infometer.core.seeding import Seed, derive, resolve_seed

from .documents import METRICS, Question

__all__ = [
    "METRIC_WORDS",
    "paraphrase_question",
    "paraphrase_corpus",
    "parse_quantities",
    "Frame",
    "QuestionParser",
    "answer_frame",
    "TEMPLATE_PATTERNS",
]

#: Metric -> words for it that share no word with its name (the paraphrases use them).
METRIC_WORDS: dict[str, tuple[str, ...]] = {
    "Revenue": ("sales", "turnover", "top line", "total sales"),
    "Net profit": ("income after costs", "earnings", "bottom line", "after-tax income"),
    "R&D spend": (
        "research budget",
        "research and development outlays",
        "innovation spending",
        "money put into research",
    ),
    "Employees": ("headcount", "workforce", "staff numbers", "people on the payroll"),
}

#: The generator's four sentence frames (a paraphrase matches none of them).
TEMPLATE_PATTERNS: tuple[re.Pattern[str], ...] = (
    re.compile(r"^What was the .+ of .+ in \d{4}\?$"),
    re.compile(r"^Which company had the higher .+ in \d{4}: .+ or .+\?$"),
    re.compile(r"^Which companies reported .+ above .+ in \d{4}\?$"),
    re.compile(r"^By what percentage did the .+ of the company with the highest .+ change from"),
)

_L1 = (
    "How much {w} did {c} report for {y}?",
    "For fiscal {y}, what {w} did {c} post?",
    "{c}, {y}: what was its {w}?",
    "Give the {w} figure of {c} in {y}.",
)
_L2 = (
    "Between {a} and {b}, which one posted more {w} in {y}?",
    "In {y}, did {b} or {a} come out ahead on {w}?",
    "Whose {w} was bigger in {y}, {a}'s or {b}'s?",
)
_L3 = (
    "List every company whose {w} in {y} exceeded {t}.",
    "In {y}, which firms had {w} of more than {t}?",
    "Name the companies with {y} {w} over {t}.",
)
_L4 = (
    "Take the company with the highest {w2} in {y}: by what percent did its {w1} move "
    "between {y0} and {y}?",
    "Between {y0} and {y}, how much in percent did {w1} change at the firm that led all "
    "companies in {w2} in {y}?",
    "What was the percentage change in {w1} from {y0} to {y} for whichever company had the "
    "largest {w2} in {y}?",
)

_SCALE = {
    "thousand": 1e3,
    "k": 1e3,
    "million": 1e6,
    "mn": 1e6,
    "m": 1e6,
    "mio": 1e6,
    "billion": 1e9,
    "bn": 1e9,
    "b": 1e9,
}
_QTY = re.compile(
    r"(?:(?:US\$|USD|\$)\s?)?(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    r"(?:\s?(thousand|million|billion|mio|mn|bn|[kmb])\b)?",
    re.IGNORECASE,
)
_YEAR = re.compile(r"\b(19\d\d|20\d\d)\b")


def _threshold_words(value: float, kind: str, style: int) -> str:
    if kind == "count":
        return f"{int(value):,} people"
    styles = [
        f"{value / 1e6:g} million dollars",
        f"USD {int(value):,}",
        f"US$ {value / 1e6:g}mn",
        f"{int(value / 1e3):,} thousand dollars",
    ]
    return styles[style % len(styles)]


def paraphrase_question(question: Question, *, seed: Seed = 0) -> Question:
    """The same question in other words (same answer, metrics, years and level).

    The wording is drawn from a stream keyed by ``seed`` and the question's text.

    Parameters
    ----------
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).

    Examples
    --------
    >>> from infometer.systems.extract.documents import make_filing, make_questions
    >>> q = make_questions(make_filing(3, seed=2), per_level=1)[0]
    >>> p = paraphrase_question(q, seed=1)
    >>> p.answer == q.answer and p.text != q.text and "revenue" not in p.text.lower()
    True
    """
    if not isinstance(question, Question):
        raise TypeError(f"question must be a Question, got {type(question).__name__}")
    rng = derive(resolve_seed(seed), question.text)
    pick = lambda xs: xs[int(rng.integers(len(xs)))]  # noqa: E731
    word = lambda m: pick(METRIC_WORDS[m])  # noqa: E731
    f = question.filing
    comps = [c for c in sorted(f.companies, key=question.text.find) if c in question.text]
    y = question.years[-1]
    if question.level == 1:
        text = pick(_L1).format(w=word(question.metrics[0]), c=comps[0], y=y)
    elif question.level == 2:
        a, b = comps[:2]
        text = pick(_L2).format(w=word(question.metrics[0]), a=a, b=b, y=y)
    elif question.level == 3:
        m = question.metrics[0]
        span = question.text[question.text.index(" above ") + 7 : question.text.rindex(" in ")]
        thr = parse_quantities(span)[0][2]
        t = _threshold_words(thr, METRICS[m], int(rng.integers(4)))
        text = pick(_L3).format(w=word(m), y=y, t=t)
    else:
        m1, m2 = question.metrics
        text = pick(_L4).format(w1=word(m1), w2=word(m2), y=y, y0=question.years[0])
    text = text[0].upper() + text[1:]
    return replace(question, text=text)


def paraphrase_corpus(questions: Sequence[Question], *, seed: Seed = 0) -> list[Question]:
    """:func:`paraphrase_question` of every question (one root seed for the corpus).

    Parameters
    ----------
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).

    Examples
    --------
    >>> from infometer.systems.extract.documents import make_corpus
    >>> qs = make_corpus(1, per_level=1)
    >>> [p.level for p in paraphrase_corpus(qs)] == [q.level for q in qs]
    True
    """
    root = resolve_seed(seed)
    return [paraphrase_question(q, seed=root) for q in questions]


def parse_quantities(text: str) -> list[tuple[int, int, float]]:
    """Amounts in ``text`` with any unit words: (start, end, value); bare years skipped.

    Examples
    --------
    >>> [v for _, _, v in parse_quantities("over US$ 1.2mn or 1,500 thousand dollars in 2022")]
    [1200000.0, 1500000.0]
    """
    out = []
    for m in _QTY.finditer(text):
        num, scale = m.group(1), m.group(2)
        whole = m.group(0)
        if (
            scale is None
            and "," not in num
            and not whole.lstrip().startswith(("$", "US", "USD"))
            and _YEAR.fullmatch(num)
        ):
            continue  # a year
        v = float(num.replace(",", ""))
        if scale:
            v *= _SCALE[scale.lower()]
        out.append((m.start(), m.end(), round(v, 6)))
    return out


@dataclass(frozen=True)
class Frame:
    """What a question asks, read from its content (no sentence frame, no level field).

    ``operation``: ``"lookup"``, ``"compare"``, ``"filter"`` or ``"change"``;
    ``metrics``: one metric, or (changing, ranking) for a change; ``direction``: ``"max"``
    or ``"min"`` (which way a comparison or ranking goes).
    """

    operation: str
    metrics: tuple[str, ...]
    companies: tuple[str, ...]
    years: tuple[int, ...]
    threshold: float | None = None
    direction: str = "max"


_WORD = re.compile(r"[A-Za-z&][A-Za-z&'-]*")
_STOP = frozenset(
    "a an the of in on at for to from by and or but with did does do was were is are be "
    "been what which who whose how much many its it their his her this that these those "
    "every each all any one ones had has have than more over above below under between "
    "whichever give list name take come came out ahead figure report reported post posted "
    "move change changed percent percentage bigger larger highest largest led lowest top "
    "most least less fewer lower smaller firms firm companies company year fiscal".split()
)
_SUPERLATIVE = frozenset(
    "highest largest biggest greatest most top led leading maximum best".split()
)
_LOWER = frozenset("lower less smaller fewer least lowest minimum".split())


class QuestionParser:
    """Read a question into a :class:`Frame` (see the module docstring).

    Parameters
    ----------
    similarity
        ``"minilm"`` (cosine of the bundled MiniLM sentence vectors; extra ``text``) or
        ``"lexical"`` (rapidfuzz's ratio of normalised strings).
    metrics
        The schema's metric columns (default: the filings' four).

    Examples
    --------
    >>> p = QuestionParser("lexical")
    >>> f = p.parse("Which company had the higher revenue in 2022: A Corp or B Corp?",
    ...             ["A Corp", "B Corp"])
    >>> f.operation, f.metrics, f.companies, f.years
    ('compare', ('Revenue',), ('A Corp', 'B Corp'), (2022,))
    """

    def __init__(self, similarity: str = "minilm", metrics: Sequence[str] = tuple(METRICS)):
        if similarity not in ("minilm", "lexical"):
            raise ValueError(f"similarity must be 'minilm' or 'lexical', got {similarity!r}")
        if isinstance(metrics, str) or not metrics:
            raise ValueError(f"metrics must be a non-empty list of names, got {metrics!r}")
        self.similarity = similarity
        self.metrics = tuple(metrics)
        self._enc: Any = None

    def _sim(self, phrases: Sequence[str], anchors: Sequence[str]) -> np.ndarray:
        if not phrases:
            return np.zeros((0, len(anchors)))
        if self.similarity == "minilm":
            if self._enc is None:
                from infometer.systems.text.embed import minilm_sentence_encoder

                self._enc = minilm_sentence_encoder()
            return self._enc(list(phrases)) @ self._enc(list(anchors)).T
        from rapidfuzz import fuzz

        from .metrics import normalize_text

        return np.array(
            [
                [fuzz.ratio(normalize_text(p), normalize_text(a)) / 100 for a in anchors]
                for p in phrases
            ]
        )

    def parse(self, text: str, companies: Sequence[str]) -> Frame:
        """The frame of question ``text``; ``companies``: the names the document holds."""
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"text must be a non-empty question, got {text!r}")
        taken: list[tuple[int, int]] = []
        found: list[tuple[int, str]] = []
        low = text.lower()
        for c in sorted(set(companies), key=len, reverse=True):
            k = low.find(c.lower())
            if k >= 0 and not any(a < k + len(c) and k < b for a, b in taken):
                found.append((k, c))
                taken.append((k, k + len(c)))
        comps = tuple(c for _, c in sorted(found))
        free = lambda a, b: not any(x < b and a < y for x, y in taken)  # noqa: E731
        thr = None
        for a, b, v in parse_quantities(text):  # amounts first: "$2098.2 million" is no year
            if free(a, b):
                thr = v if thr is None else thr
                taken.append((a, b))
        years = []
        for m in _YEAR.finditer(text):
            if free(m.start(), m.end()):
                years.append(int(m.group(1)))
                taken.append((m.start(), m.end()))
        words = [(m.start(), m.end(), m.group(0)) for m in _WORD.finditer(text)]
        words = [w for w in words if free(w[0], w[1])]
        lower_words = [re.sub(r"'s?$", "", w[2].lower()) for w in words]
        if thr is not None:
            op = "filter"
        elif len(comps) >= 2:
            op = "compare"
        elif not comps and len(set(years)) >= 2:
            op = "change"
        else:
            op = "lookup"
        direction = "min" if any(w in _LOWER for w in lower_words) else "max"
        # candidate mentions: n-grams of up to 4 words, not starting or ending on a
        # function word, scored against the schema's column names
        grams = []
        for i in range(len(words)):
            for n in range(1, 5):
                j = i + n
                if j > len(words):
                    break
                if lower_words[i] in _STOP or lower_words[j - 1] in _STOP:
                    continue
                grams.append((i, j, text[words[i][0] : words[j - 1][1]]))
        anchors = [*self.metrics, "company", "year"]
        S = self._sim([g[2] for g in grams], anchors)
        k = 2 if op == "change" else 1
        picks: list[tuple[str, int, int]] = []
        order = np.argsort(-S[:, : len(self.metrics)], axis=None) if len(grams) else []
        for flat in order:
            gi, mi = divmod(int(flat), len(self.metrics))
            if S[gi].argmax() >= len(self.metrics):
                continue  # the phrase names the company or year column, not a metric
            i, j, _ = grams[gi]
            m = self.metrics[mi]
            if any(m == p[0] or (i < pj and pi < j) for p in picks for pi, pj in [p[1:]]):
                continue
            picks.append((m, i, j))
            if len(picks) == k:
                break
        mets = tuple(p[0] for p in sorted(picks, key=lambda p: p[1]))
        if op == "change" and len(picks) == 2:
            sup = [i for i, w in enumerate(lower_words) if w in _SUPERLATIVE]
            if sup:
                dist = {p[0]: min(abs(p[1] - s) for s in sup) for p in picks}
                rank = min(picks, key=lambda p: dist[p[0]])[0]
                mets = (next(p[0] for p in picks if p[0] != rank), rank)
        return Frame(op, mets, comps, tuple(years), thr, direction)


def answer_frame(frame: Frame, cells: dict[tuple[str, int, str], float]) -> Any:
    """The answer of a frame from (company, year, metric) -> value cells (``None`` if the
    cells lack what it needs).

    Examples
    --------
    >>> cells = {("A", 2022, "Revenue"): 5.0, ("B", 2022, "Revenue"): 7.0}
    >>> answer_frame(Frame("compare", ("Revenue",), ("A", "B"), (2022,)), cells)
    'B'
    """
    if not frame.metrics or not frame.years:
        return None
    pick = max if frame.direction == "max" else min
    comps = sorted({c for c, _, _ in cells})
    m = frame.metrics[0]
    y = max(frame.years)
    if frame.operation == "lookup":
        if not frame.companies:
            return None
        return cells.get((frame.companies[0], y, m))
    if frame.operation == "compare":
        pair = frame.companies[:2]
        vals = {c: cells.get((c, y, m)) for c in pair}
        if len(pair) < 2 or any(v is None for v in vals.values()):
            return None
        return pick(pair, key=lambda c: vals[c])
    if frame.operation == "filter":
        if frame.threshold is None:
            return None
        return tuple(sorted(c for c in comps if cells.get((c, y, m), -1) > frame.threshold))
    if len(frame.metrics) < 2:
        return None
    y0, rank = min(frame.years), frame.metrics[1]
    cand = [c for c in comps if (c, y, rank) in cells]
    if not cand:
        return None
    top = pick(cand, key=lambda c: cells[(c, y, rank)])
    a, b = cells.get((top, y0, m)), cells.get((top, y, m))
    if a is None or b is None or a == 0:
        return None
    return round(100.0 * (b - a) / a, 1)
