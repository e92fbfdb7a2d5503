"""LiteCoST at CPU size: Chain-of-Structured-Thought with a small trainable extractor.

CoST steps (the paper runs them with a strong LLM, then distils them into a 3B/7B SLM):

1. *schema* -- the query schema ``(Company, Year, metric...)`` chosen from the question
   (learned: one logistic unit per metric over hashed question words);
2. *extraction* -- every number span of the document is labelled with a metric or as a
   distractor (learned: a softmax over hashed context features), its unit normalised
   (:func:`~.documents.parse_amount`) and aligned to its company (section) and year
   (sentence);
3. *serialisation* into an SSO table (:mod:`.sso`);
4. *verification and refinement* -- cells the table lacks are re-extracted from the next
   best span of that company and year.

The answer is computed from the table.  Training is LiteCoST's two phases on generated
filings: supervised (cross-entropy on gold span labels and schemas) then GRPO-style
optimisation with A_i = (r_i - mean r)/std r over 8 sampled outputs per question and the
verl reward (format + answer + process; :mod:`.sso`), or without the process reward.
AS (mean 0-100 score) and PR (share of 100s) by Loong level (:func:`evaluate`).

Not the paper: no LLM teacher, no LoRA student, no GPT-4 judge; the extractor is a linear
model over hashed features (numpy), the judge an exact answer check.
"""

from __future__ import annotations

import re
import time
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from infometer.core.results import Result
from infometer.core.seeding import Seed, as_generator

from .documents import METRICS, NUMBER_RE, Filing, Question, parse_amount
from .sso import (
    SSO,
    SSOParseError,
    Table,
    answer_reward,
    answer_score,
    format_score,
    parse_output,
    process_reward,
    render_output,
    structure_score,
    total_reward,
)

__all__ = [
    "CLASSES",
    "Span",
    "spans_of",
    "Extractor",
    "run_cost",
    "answer_from_table",
    "gold_sso",
    "score_item",
    "train_extractor",
    "evaluate",
    "raw_text_answer",
    "Reader",
    "LiteCostResult",
]

CLASSES: tuple[str | None, ...] = (None, *METRICS)
DIM = 4096
_TOK = re.compile(r"[a-z&]+|\$|\d+")
_HEAD = re.compile(r"^(.+?) annual report\.$")
_YEAR = re.compile(r"\b(19\d\d|20\d\d)\b")


def _h(s: str) -> int:
    return zlib.crc32(s.encode()) % DIM


@dataclass(frozen=True)
class Span:
    """A number span with its features, alignment and gold label."""

    text: str
    start: int
    company: str
    year: int | None
    feats: tuple[int, ...]
    label: int  # index in CLASSES (0: distractor)
    value: float | None


def spans_of(filing: Filing) -> list[Span]:
    """Every number span of a filing, featurised and aligned (gold labels attached).

    Examples
    --------
    >>> from infometer.systems.extract.documents import make_filing
    >>> sp = spans_of(make_filing(2, seed=1))
    >>> sum(s.label > 0 for s in sp) == 2 * 3 * 4
    True
    """
    gold = {m.start: m for m in filing.mentions}
    out = []
    company = ""
    pos = 0
    for line in filing.text.split("\n"):
        m = _HEAD.match(line.strip())
        if m:
            company = m.group(1)
        years = [int(y) for y in _YEAR.findall(line)]
        for x in NUMBER_RE.finditer(line):
            txt = x.group(0)
            if _YEAR.fullmatch(txt):
                continue  # a bare year is alignment, not a candidate value
            left = _TOK.findall(line[: x.start()].lower())[-6:]
            right = _TOK.findall(line[x.end() :].lower())[:3]
            shape = _TOK.findall(txt.lower())
            f = ["bias"] + [f"L:{w}" for w in left] + [f"R:{w}" for w in right]
            f += [f"U:{w}" for w in shape if not w.isdigit()] + [f"LL:{w}" for w in left[-2:]]
            start = pos + x.start()
            lab = 0
            for gs, gm in gold.items():
                if gs <= start < gm.end or start <= gs < start + len(txt):
                    lab = CLASSES.index(gm.metric) if gm.metric else 0
                    break
            out.append(
                Span(
                    txt,
                    start,
                    company,
                    years[0] if years else None,
                    tuple(sorted({_h(s) for s in f})),
                    lab,
                    parse_amount(txt),
                )
            )
        pos += len(line) + 1
    return out


def _q_feats(q: str) -> np.ndarray:
    toks = _TOK.findall(q.lower())
    idx = (
        {_h("bias")}
        | {_h("Q:" + t) for t in toks}
        | {_h(f"QB:{a}_{b}") for a, b in zip(toks, toks[1:], strict=False)}
    )
    return np.array(sorted(idx))


@dataclass
class Extractor:
    """The trainable parts: span classifier ``W`` and schema units ``V`` (numpy)."""

    W: np.ndarray = field(default_factory=lambda: np.zeros((len(CLASSES), DIM)))
    V: np.ndarray = field(default_factory=lambda: np.zeros((len(METRICS), DIM)))

    def span_probs(self, spans: Sequence[Span]) -> np.ndarray:
        """(n_spans, n_classes) label probabilities."""
        z = np.stack([self.W[:, list(s.feats)].sum(axis=1) for s in spans])
        z = np.exp(z - z.max(axis=1, keepdims=True))
        return z / z.sum(axis=1, keepdims=True)

    def schema_probs(self, question: str) -> np.ndarray:
        """Probability that each metric belongs to the question's schema."""
        return 1.0 / (1.0 + np.exp(-self.V[:, _q_feats(question)].sum(axis=1)))


@dataclass(frozen=True)
class CostRun:
    """One CoST run: decisions, the table, the rendered output and the answer."""

    schema: tuple[str, ...]
    labels: np.ndarray
    cells: dict[tuple[str, int, str], float]
    output: str
    answer: Any
    refinements: int


def _table(schema: Sequence[str], cells: dict[tuple[str, int, str], float]) -> SSO:
    if not schema:
        return SSO()
    keys = sorted({(c, y) for c, y, _ in cells})
    rows = tuple((c, str(y), *[_cell(cells.get((c, y, m))) for m in schema]) for c, y in keys)
    t = Table(
        f"{', '.join(schema)} by company and year",
        "extracted from the filing",
        ("Company", "Year", *schema),
        rows,
    )
    return SSO(tables=(t,))


def _cell(v: float | None) -> str:
    return "" if v is None else f"{v:.0f}" if float(v).is_integer() else f"{v}"


def run_cost(
    question: Question,
    spans: Sequence[Span],
    ext: Extractor,
    *,
    rng: np.random.Generator | None = None,
    refine: bool = True,
    parser: Any = None,
) -> CostRun:
    """Run the CoST steps: greedy decisions, or sampled ones with ``rng`` (GRPO rollouts).

    With ``parser`` (a :class:`~.questions.QuestionParser`) the schema step takes the
    parsed metrics instead of the learned schema units and the answer is computed from
    the parsed frame (:func:`~.questions.answer_frame`): nothing reads the question's
    sentence frame or its ``level`` field.

    Examples
    --------
    >>> from infometer.systems.extract.documents import make_filing, make_questions
    >>> q = make_questions(make_filing(2, seed=1), per_level=1)[0]
    >>> run_cost(q, spans_of(q.filing), Extractor()).answer is None   # untrained: no schema
    True
    """
    frame = None
    if parser is not None:
        frame = parser.parse(question.text, list(dict.fromkeys(s.company for s in spans)))
        schema = tuple(m for m in METRICS if m in frame.metrics)
    else:
        ps = ext.schema_probs(question.text)
        bits = ps > 0.5 if rng is None else rng.random(len(ps)) < ps
        schema = tuple(m for m, b in zip(METRICS, bits, strict=True) if b)
    P = ext.span_probs(spans)
    if rng is None:
        labels = P.argmax(axis=1)
    else:
        cum = P.cumsum(axis=1)
        labels = (rng.random((len(spans), 1)) > cum).sum(axis=1)
        labels = np.minimum(labels, len(CLASSES) - 1)
    cells: dict[tuple[str, int, str], float] = {}
    for s, lab in zip(spans, labels, strict=True):
        m = CLASSES[lab]
        if m in schema and s.year is not None and s.value is not None:
            cells.setdefault((s.company, s.year, m), s.value)
    n_ref = 0
    if refine and schema:
        # verification: every (company, year) row must hold every schema metric
        rows = {(c, y) for c, y, _ in cells}
        for c, y in rows:
            for m in schema:
                if (c, y, m) in cells:
                    continue
                j = CLASSES.index(m)
                cand = [
                    (P[i, j], i)
                    for i, s in enumerate(spans)
                    if s.company == c and s.year == y and s.value is not None
                ]
                if cand:
                    cells[(c, y, m)] = spans[max(cand)[1]].value  # type: ignore[assignment]
                    n_ref += 1
    sso = _table(schema, cells)
    steps = [
        f"schema ({', '.join(('Company', 'Year', *schema))})",
        f"extracted {len(cells)} cells, units normalised, aligned to company and year",
        f"serialised one table; verified, {n_ref} cells refined",
    ]
    out = (
        render_output(steps, sso)
        if sso.tables
        else (
            f"<reasoning>Step 1: {steps[0]} Step 2: none Step 3: none</reasoning><answer></answer>"
        )
    )
    if frame is not None:
        from .questions import answer_frame

        ans = answer_frame(frame, cells)
    else:
        ans = answer_from_table(question.text, question.level, schema, cells)
    return CostRun(schema, labels, cells, out, ans, n_ref)


_WHICH2 = re.compile(r"in (\d{4}): (.+) or (.+)\?$")
_ABOVE = re.compile(r"above (.+?) in (\d{4})\?$")
_CHAIN = re.compile(r"highest .+ in (\d{4}) change from (\d{4}) to (\d{4})\?$")


def answer_from_table(
    question: str, level: int, schema: Sequence[str], cells: dict[tuple[str, int, str], float]
) -> Any:
    """Answer a Loong-style question from extracted cells (``None`` if it cannot).

    The question's companies, years and threshold are read from its text; its metrics
    come from the schema (the learned step), ordered by where they occur in the question.

    Examples
    --------
    >>> cells = {("A Corp", 2022, "Revenue"): 5.0, ("B Corp", 2022, "Revenue"): 7.0}
    >>> answer_from_table("Which company had the higher revenue in 2022: A Corp or B Corp?",
    ...                   2, ["Revenue"], cells)
    'B Corp'
    """
    ql = question.lower()
    mets = sorted(schema, key=lambda m: ql.find(m.lower()) if m.lower() in ql else 10**6)
    if not mets:
        return None
    comps = sorted({c for c, _, _ in cells})
    try:
        if level == 1:
            y = int(_YEAR.findall(question)[-1])
            c = next((c for c in comps if c in question), None)
            return cells.get((c, y, mets[0])) if c else None
        if level == 2:
            m = _WHICH2.search(question)
            if not m:
                return None
            y, a, b = int(m.group(1)), m.group(2), m.group(3)
            va, vb = cells.get((a, y, mets[0])), cells.get((b, y, mets[0]))
            if va is None or vb is None:
                return None
            return a if va > vb else b
        if level == 3:
            m = _ABOVE.search(question)
            if not m:
                return None
            thr, y = parse_amount(m.group(1)), int(m.group(2))
            return tuple(sorted(c for c in comps if cells.get((c, y, mets[0]), -1) > thr))
        m = _CHAIN.search(question)
        if not m or len(mets) < 2:
            return None
        y, y0, y1 = int(m.group(1)), int(m.group(2)), int(m.group(3))
        cand = [c for c in comps if (c, y, mets[1]) in cells]
        if not cand:
            return None
        top = max(cand, key=lambda c: cells[(c, y, mets[1])])
        a, b = cells.get((top, y0, mets[0])), cells.get((top, y1, mets[0]))
        if a is None or b is None or a == 0:
            return None
        return round(100.0 * (b - a) / a, 1)
    except (IndexError, ValueError, TypeError):
        return None


def gold_sso(question: Question) -> SSO:
    """The gold SSO of a question: its schema over every company and year of the filing.

    Examples
    --------
    >>> from infometer.systems.extract.documents import make_filing, make_questions
    >>> q = make_questions(make_filing(2, seed=1), per_level=1)[0]
    >>> gold_sso(q).tables[0].header[:2]
    ('Company', 'Year')
    """
    f = question.filing
    cells = {
        (c, y, m): f.table[(c, y, m)]
        for c in f.companies
        for y in f.years
        for m in question.metrics
    }
    return _table(question.metrics, cells)


def gold_output(question: Question) -> str:
    """The gold output string (three steps and the gold SSO)."""
    return render_output(
        [f"schema ({', '.join(question.schema)})", "extracted the cells", "serialised"],
        gold_sso(question),
    )


def score_item(question: Question, run: CostRun, *, process: bool = True) -> dict[str, float]:
    """The verl rewards of one run and its 0-100 answer score.

    Examples
    --------
    >>> from infometer.systems.extract.documents import make_filing, make_questions
    >>> q = make_questions(make_filing(2, seed=1), per_level=1)[0]
    >>> score_item(q, run_cost(q, spans_of(q.filing), Extractor()))["format"]
    0.0
    """
    fmt = format_score(run.output)
    try:
        pred = parse_output(run.output).sso
    except SSOParseError:
        pred = SSO()
    s_struct = structure_score(pred, gold_sso(question))
    s_sem = answer_score(run.answer, question.answer)
    f = question.filing
    gold_cells = {(c, y, m) for c in f.companies for y in f.years for m in question.metrics}
    got = {k for k, v in run.cells.items() if k[2] in question.metrics and f.table.get(k) == v}
    cons = [
        set(run.schema) == set(question.metrics),
        got == gold_cells and len(run.cells) == len(gold_cells),
    ]
    proc = process_reward(cons, fmt=fmt, s_sem=s_sem, gold_steps=3) if process else None
    ans = answer_reward(s_struct, s_sem)
    return {
        "format": fmt,
        "structure": s_struct,
        "score": s_sem,
        "answer": ans,
        "process": proc if proc is not None else 0.0,
        "total": total_reward(fmt, ans, proc),
    }


def _sft(
    ext: Extractor,
    items: Sequence[tuple[Question, list[Span]]],
    lr: float,
    epochs: int,
    rng: np.random.Generator,
) -> None:
    seen: set[int] = set()
    for _ in range(epochs):
        for k in rng.permutation(len(items)):
            q, spans = items[k]
            y = np.zeros(len(METRICS))
            y[[list(METRICS).index(m) for m in q.metrics]] = 1
            qi = _q_feats(q.text)
            ext.V[:, qi] += lr * (y - ext.schema_probs(q.text))[:, None]
            if id(spans) in seen:
                continue
            seen.add(id(spans))
            P = ext.span_probs(spans)
            for s, p in zip(spans, P, strict=True):
                g = -p
                g[s.label] += 1.0
                ext.W[:, list(s.feats)] += lr * g[:, None]


@dataclass(eq=False, repr=False)
class TrainLog(Result):
    """Mean reward per GRPO step."""

    rewards: list[float] = field(default_factory=list)


def train_extractor(
    train: Sequence[Question],
    *,
    sft_items: int = 16,
    sft_epochs: int = 2,
    grpo_steps: int = 60,
    rollouts: int = 8,
    lr_sft: float = 0.1,
    lr_grpo: float = 0.05,
    process: bool = True,
    seed: Seed = 0,
    progress: bool | None = None,
) -> tuple[Extractor, TrainLog]:
    """SFT on the first ``sft_items`` questions, then ``grpo_steps`` group-relative steps.

    ``grpo_steps=0`` gives the SFT-only model; ``process=False`` the ablation without the
    process reward.

    Parameters
    ----------
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).

    Examples
    --------
    >>> from infometer.systems.extract.documents import make_corpus
    >>> ext, log = train_extractor(make_corpus(1, per_level=1), grpo_steps=2, rollouts=2)
    >>> len(log.rewards)
    2
    """
    if not train:
        raise ValueError("train must hold at least one question")
    if rollouts < 2:
        raise ValueError(
            f"rollouts must be at least 2 (the advantage is group-relative), got {rollouts}"
        )
    from infometer.core.progress import progress_bar

    rng = as_generator(seed)
    cache: dict[int, list[Span]] = {}
    items = []
    for q in train:
        key = id(q.filing)
        if key not in cache:
            cache[key] = spans_of(q.filing)
        items.append((q, cache[key]))
    ext = Extractor()
    _sft(ext, items[:sft_items], lr_sft, sft_epochs, rng)
    log = TrainLog()
    with progress_bar(
        total=grpo_steps, desc="LiteCoST GRPO", unit="step", progress=progress
    ) as bar:
        for _ in range(grpo_steps):
            q, spans = items[int(rng.integers(len(items)))]
            runs = [run_cost(q, spans, ext, rng=rng) for _ in range(rollouts)]
            r = np.array([score_item(q, ru, process=process)["total"] for ru in runs])
            adv = (r - r.mean()) / (r.std() + 1e-6)
            log.rewards.append(float(r.mean()))
            bar.update(1)
            if r.std() < 1e-9:
                continue
            ps = ext.schema_probs(q.text)
            P = ext.span_probs(spans)
            qi = _q_feats(q.text)
            gV = np.zeros(len(METRICS))
            gW = np.zeros((len(spans), len(CLASSES)))
            for ru, a in zip(runs, adv, strict=True):
                bits = np.array([m in ru.schema for m in METRICS], dtype=float)
                gV += a * (bits - ps)
                oh = np.zeros_like(P)
                oh[np.arange(len(spans)), ru.labels] = 1.0
                gW += a * (oh - P)
            ext.V[:, qi] += lr_grpo * (gV / rollouts)[:, None]
            for s, g in zip(spans, gW, strict=True):
                ext.W[:, list(s.feats)] += lr_grpo * (g / rollouts)[:, None]
    return ext, log


def raw_text_answer(question: Question, *, parser: Any = None) -> Any:
    """Answer from the raw text, no structure: for each needed cell take the first amount
    in a sentence of the company's section that names the metric and the year.

    Metrics come from the question's words (a keyword rule), as a reader without a
    schema step would; distractor sentences that name the metric fool it.  With
    ``parser`` (a :class:`~.questions.QuestionParser`) the metrics and the answer come
    from the parsed frame instead of the keyword rule and the template regexes.

    Examples
    --------
    >>> from infometer.systems.extract.documents import make_filing, make_questions
    >>> q = make_questions(make_filing(2, seed=1), per_level=1)[0]
    >>> isinstance(raw_text_answer(q), float)
    True
    """
    f = question.filing
    ql = question.text.lower()
    frame = None
    if parser is not None:
        frame = parser.parse(question.text, f.companies)
        mets = list(frame.metrics)
    else:
        mets = [m for m in METRICS if m.lower() in ql]
    cells: dict[tuple[str, int, str], float] = {}
    company = ""
    for line in f.text.split("\n"):
        h = _HEAD.match(line.strip())
        if h:
            company = h.group(1)
        low = line.lower()
        ys = _YEAR.findall(line)
        for m in mets:
            key = "employees" if m == "Employees" else m.lower()
            if key not in low or not ys:
                continue
            for x in NUMBER_RE.finditer(line):
                if _YEAR.fullmatch(x.group(0)):
                    continue
                v = parse_amount(x.group(0))
                if v is not None:
                    cells.setdefault((company, int(ys[0]), m), v)
                    break
    if frame is not None:
        from .questions import answer_frame

        return answer_frame(frame, cells)
    return answer_from_table(question.text, question.level, mets, cells)


@dataclass(frozen=True, eq=False, repr=False)
class LiteCostResult(Result):
    """Per-item scores of several LiteCoST variants on test questions."""

    rows: tuple[dict[str, Any], ...]

    def to_frame(self) -> Any:
        """Tidy frame: system, level, score (0-100), perfect, seconds."""
        import pandas as pd

        return pd.DataFrame(list(self.rows))

    def summary(self) -> Any:
        """AS (mean score) and PR (share of 100s) by system and Loong level."""
        df = self.to_frame()
        g = df.groupby(["system", "level"])
        out = g.agg(AS=("score", "mean"), PR=("perfect", "mean"), seconds=("seconds", "mean"))
        return out.reset_index()

    def plot(self, ax: Any = None, path: Any = None) -> Any:
        """AS by level for each system."""
        from infometer.core.plot import finish, new_axes

        fig, ax = new_axes(ax, figsize=(6, 3.5))
        s = self.summary()
        systems = list(dict.fromkeys(s["system"]))
        levels = sorted(s["level"].unique())
        w = 0.8 / len(systems)
        for k, name in enumerate(systems):
            d = s[s.system == name].set_index("level").reindex(levels)
            ax.bar(np.arange(len(levels)) + k * w, d["AS"], width=w, label=name)
        ax.set_xticks(np.arange(len(levels)) + 0.4 - w / 2, [f"L{lv}" for lv in levels])
        ax.set_ylabel("AS (0-100, exact check)")
        ax.set_ylim(0, 105)
        ax.legend(frameon=False, fontsize=8)
        ax.set_title("LiteCoST analogue: average score by Loong level")
        return finish(ax, path)


@dataclass(frozen=True)
class Reader:
    """A system of :func:`evaluate` that reads questions with a parser.

    ``extractor`` ``None`` reads cells from the raw text (:func:`raw_text_answer`), else
    from the CoST table; ``parser`` (a :class:`~.questions.QuestionParser`) gives the
    schema and the answer, not keyed to the question templates.
    """

    extractor: Extractor | None
    parser: Any


def evaluate(
    systems: dict[str, Extractor | Reader | None],
    test: Sequence[Question],
    *,
    progress: bool | None = None,
) -> LiteCostResult:
    """Score each system on ``test`` (``None``: the raw-text reader; a :class:`Reader`:
    a system that parses the question instead of matching its template).

    Examples
    --------
    >>> from infometer.systems.extract.documents import make_corpus
    >>> r = evaluate({"raw": None}, make_corpus(1, per_level=1))
    >>> sorted(r.summary().level.tolist())
    [1, 2, 3, 4]
    """
    from infometer.core.progress import progress_bar

    cache: dict[int, list[Span]] = {}
    rows = []
    with progress_bar(
        total=len(systems) * len(test), desc="LiteCoST evaluation", unit="item", progress=progress
    ) as bar:
        for name, ext in systems.items():
            for q in test:
                t0 = time.perf_counter()
                parser = ext.parser if isinstance(ext, Reader) else None
                core = ext.extractor if isinstance(ext, Reader) else ext
                if core is None:
                    ans = raw_text_answer(q, parser=parser)
                else:
                    key = id(q.filing)
                    if key not in cache:
                        cache[key] = spans_of(q.filing)
                    ans = run_cost(q, cache[key], core, parser=parser).answer
                dt = time.perf_counter() - t0
                sc = answer_score(ans, q.answer)
                rows.append(
                    {
                        "system": name,
                        "level": q.level,
                        "score": sc,
                        "perfect": float(sc >= 100.0),
                        "seconds": dt,
                    }
                )
                bar.update(1)
    return LiteCostResult(tuple(rows))
