"""LiteCoST's structured output (SSO): grammar, parser, validators and the GRPO rewards.

Output (LiteCoST ``src/prompt.py``)::

    <reasoning>Step 1: ... Step 2: ... Step 3: ...</reasoning><answer>SSO</answer>

SSO records, joined by ``##`` and ending with ``<|COMPLETE|>``::

    ("entity"<|>name<|>type)   ("relationship"<|>head<|>relation<|>tail)
    ("table"<|>title<|>description)   ("header"<|>c1<|>c2...)   ("row"<|>v1<|>v2...)

Rewards as the released GRPO code computes them (``verl/utils/reward_score/cost.py``, read
by the brief), with deterministic matchers in place of the GPT-4o-mini judges:

* :func:`format_score` in {0, 1}: 1 only if the tags match, steps 1-3 are present and the
  SSO parses and validates (the paper describes a graded 0.5 / 1.0 format reward, and
  ``src/reward.py`` an additive 0.4/0.3/0.3 one; this is the verl version);
* :func:`structure_score`: tables ``100 * (0.2 [same header set] + 0.8 [same row count])``,
  graphs ``100 * (0.6 entity recall + 0.4 relation recall)``;
* :func:`answer_reward`: ``(0.3 S_struct + 0.7 S_sem) / 100``; S_sem, a GPT-4o-mini score
  in the code, is here the exact answer check of :func:`answer_score` (0-100);
* :func:`process_reward`: ``(#consistent of steps 1, 2) / 2 * λ`` with λ = 1 if the format
  is wrong, 1.5 if the answer scores 100, 0.5 otherwise; 0.5 outright when the gold trace
  has fewer than 3 steps.  Cons() (a judge in the code) is here: step 1 consistent iff the
  schema equals the gold schema, step 2 iff the extracted cells equal the gold cells;
* :func:`total_reward` = format + answer + process.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "SSOParseError",
    "Table",
    "SSO",
    "Output",
    "parse_sso",
    "parse_output",
    "serialize_sso",
    "render_output",
    "format_score",
    "structure_score",
    "answer_score",
    "answer_reward",
    "process_reward",
    "total_reward",
    "COMPLETE",
    "SEP",
]

COMPLETE = "<|COMPLETE|>"
SEP = "<|>"
_REC = re.compile(r'^\("(entity|relationship|table|header|row)"(.*)\)$', re.S)
_OUT = re.compile(r"^\s*<reasoning>(.*?)</reasoning>\s*<answer>(.*?)</answer>\s*$", re.S)
_STEP = re.compile(r"Step\s*(\d+)\s*:")


class SSOParseError(ValueError):
    """A structured output that does not parse or validate (the message says where)."""


@dataclass(frozen=True)
class Table:
    """One table of an SSO."""

    title: str
    description: str
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class SSO:
    """A parsed structured output: entities, relationships and tables."""

    entities: tuple[tuple[str, str], ...] = ()
    relationships: tuple[tuple[str, str, str], ...] = ()
    tables: tuple[Table, ...] = ()


@dataclass(frozen=True)
class Output:
    """A parsed model output: its reasoning steps and its SSO."""

    steps: dict[int, str] = field(default_factory=dict)
    sso: SSO = field(default_factory=SSO)


def parse_sso(text: str) -> SSO:
    """Parse and validate an SSO string.

    Validation: every record is well formed; ``header`` follows a ``table`` record and
    ``row`` records follow a ``header`` with as many cells; a table has a header;
    relationship heads and tails are declared entities; the text ends with
    ``<|COMPLETE|>``.

    Examples
    --------
    >>> s = parse_sso('("table"<|>T<|>d)##("header"<|>a<|>b)##("row"<|>1<|>2)<|COMPLETE|>')
    >>> s.tables[0].rows
    (('1', '2'),)
    """
    if not isinstance(text, str):
        raise TypeError(f"sso must be a string, got {type(text).__name__}")
    body = text.strip()
    if not body.endswith(COMPLETE):
        raise SSOParseError("the SSO does not end with <|COMPLETE|>")
    body = body[: -len(COMPLETE)].strip()
    if not body:
        raise SSOParseError("the SSO holds no records")
    ents: list[tuple[str, str]] = []
    rels: list[tuple[str, str, str]] = []
    tables: list[Table] = []
    cur: dict[str, Any] | None = None

    def close() -> None:
        if cur is not None:
            if cur["header"] is None:
                raise SSOParseError(f"table {cur['title']!r} has no header record")
            tables.append(Table(cur["title"], cur["desc"], cur["header"], tuple(cur["rows"])))

    for k, rec in enumerate(body.split("##")):
        rec = rec.strip()
        m = _REC.match(rec)
        if m is None:
            raise SSOParseError(f'record {k + 1} is not a ("kind"<|>...) record: {rec[:60]!r}')
        kind, rest = m.group(1), m.group(2)
        if rest and not rest.startswith(SEP):
            raise SSOParseError(f"record {k + 1} ({kind}): fields must be separated by <|>")
        parts = tuple(p.strip() for p in rest.split(SEP)[1:]) if rest else ()
        if kind == "entity":
            if len(parts) != 2:
                raise SSOParseError(f"record {k + 1}: an entity has 2 fields, got {len(parts)}")
            ents.append((parts[0], parts[1]))
        elif kind == "relationship":
            if len(parts) != 3:
                raise SSOParseError(
                    f"record {k + 1}: a relationship has 3 fields, got {len(parts)}"
                )
            rels.append((parts[0], parts[1], parts[2]))
        elif kind == "table":
            close()
            if len(parts) != 2:
                raise SSOParseError(f"record {k + 1}: a table has 2 fields, got {len(parts)}")
            cur = {"title": parts[0], "desc": parts[1], "header": None, "rows": []}
        elif kind == "header":
            if cur is None or cur["header"] is not None:
                raise SSOParseError(f"record {k + 1}: a header must follow a table record")
            if not parts:
                raise SSOParseError(f"record {k + 1}: an empty header")
            cur["header"] = parts
        else:
            if cur is None or cur["header"] is None:
                raise SSOParseError(f"record {k + 1}: a row must follow a header")
            if len(parts) != len(cur["header"]):
                raise SSOParseError(
                    f"record {k + 1}: a row of {len(parts)} cells under a header of "
                    f"{len(cur['header'])}"
                )
            cur["rows"].append(parts)
    close()
    names = {e[0] for e in ents}
    for h, r, t in rels:
        for x in (h, t):
            if x not in names:
                raise SSOParseError(
                    f"relationship ({h}, {r}, {t}) names {x!r}, not a declared entity"
                )
    return SSO(tuple(ents), tuple(rels), tuple(tables))


def parse_output(text: str) -> Output:
    """Parse ``<reasoning>Step 1: ...</reasoning><answer>SSO</answer>``.

    Examples
    --------
    >>> o = parse_output('<reasoning>Step 1: a Step 2: b Step 3: c</reasoning>'
    ...                  '<answer>("entity"<|>X<|>org)<|COMPLETE|></answer>')
    >>> sorted(o.steps), o.sso.entities
    ([1, 2, 3], (('X', 'org'),))
    """
    if not isinstance(text, str):
        raise TypeError(f"output must be a string, got {type(text).__name__}")
    m = _OUT.match(text)
    if m is None:
        raise SSOParseError(
            "the output is not <reasoning>...</reasoning><answer>...</answer> (a tag is "
            "missing, unclosed or repeated)"
        )
    reasoning, answer = m.group(1), m.group(2)
    if "<reasoning>" in reasoning or "<answer>" in answer:
        raise SSOParseError("nested <reasoning> or <answer> tags")
    marks = list(_STEP.finditer(reasoning))
    steps = {}
    for i, mk in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(reasoning)
        steps[int(mk.group(1))] = reasoning[mk.end() : end].strip()
    return Output(steps, parse_sso(answer))


def serialize_sso(sso: SSO) -> str:
    """The SSO string of a parsed SSO (``parse_sso(serialize_sso(s)) == s``)."""
    recs = [f'("entity"{SEP}{n}{SEP}{t})' for n, t in sso.entities]
    recs += [f'("relationship"{SEP}{h}{SEP}{r}{SEP}{t})' for h, r, t in sso.relationships]
    for tb in sso.tables:
        recs.append(f'("table"{SEP}{tb.title}{SEP}{tb.description})')
        recs.append('("header"' + "".join(SEP + h for h in tb.header) + ")")
        recs += ['("row"' + "".join(SEP + c for c in row) + ")" for row in tb.rows]
    return "##".join(recs) + COMPLETE


def render_output(steps: Sequence[str], sso: SSO) -> str:
    """A full output string: numbered steps in ``<reasoning>``, the SSO in ``<answer>``."""
    reasoning = " ".join(f"Step {i + 1}: {s}" for i, s in enumerate(steps))
    return f"<reasoning>{reasoning}</reasoning><answer>{serialize_sso(sso)}</answer>"


def format_score(text: str) -> float:
    """1.0 iff the tags match, steps 1-3 are present and the SSO parses; else 0.0.

    Examples
    --------
    >>> format_score("<reasoning>Step 1: x</reasoning><answer>oops")
    0.0
    """
    try:
        out = parse_output(text)
    except SSOParseError:
        return 0.0
    return 1.0 if all(k in out.steps for k in (1, 2, 3)) else 0.0


def structure_score(pred: SSO, gold: SSO) -> float:
    """S_struct in [0, 100] (tables if the gold has one, else the graph formula).

    Examples
    --------
    >>> t = Table("t", "", ("a", "b"), (("1", "2"),))
    >>> structure_score(SSO(tables=(t,)), SSO(tables=(t,)))
    100.0
    """
    if gold.tables:
        if not pred.tables:
            return 0.0
        g, p = gold.tables[0], pred.tables[0]
        same_h = {h.strip().lower() for h in g.header} == {h.strip().lower() for h in p.header}
        return 100.0 * (0.2 * same_h + 0.8 * (len(g.rows) == len(p.rows)))
    ge = {e[0].lower() for e in gold.entities}
    gr = {tuple(x.lower() for x in r) for r in gold.relationships}
    pe = {e[0].lower() for e in pred.entities}
    pr = {tuple(x.lower() for x in r) for r in pred.relationships}
    er = len(ge & pe) / len(ge) if ge else 1.0
    rr = len(gr & pr) / len(gr) if gr else 1.0
    return 100.0 * (0.6 * er + 0.4 * rr)


def answer_score(pred: Any, gold: Any) -> float:
    """The exact check that replaces the judge's 0-100 score.

    Numbers: 100 within 0.5 % relative (or 0.05 absolute); sets of names: 100 x Jaccard;
    strings: 100 if equal after case folding; ``None`` (no answer): 0.

    Examples
    --------
    >>> round(answer_score(("a", "b"), ("a", "c")), 2), answer_score(10.02, 10.0)
    (33.33, 100.0)
    """
    if pred is None:
        return 0.0
    if isinstance(gold, tuple | list | set | frozenset):
        if not isinstance(pred, tuple | list | set | frozenset):
            return 0.0
        g, p = {str(x).lower() for x in gold}, {str(x).lower() for x in pred}
        if not g and not p:
            return 100.0
        return 100.0 * len(g & p) / len(g | p)
    if isinstance(gold, int | float) and not isinstance(gold, bool):
        try:
            v = float(pred)
        except (TypeError, ValueError):
            return 0.0
        return 100.0 if abs(v - gold) <= max(0.05, 0.005 * abs(gold)) else 0.0
    return 100.0 if str(pred).strip().lower() == str(gold).strip().lower() else 0.0


def answer_reward(s_struct: float, s_sem: float) -> float:
    """``(0.3 S_struct + 0.7 S_sem) / 100`` (the code's outcome reward, in [0, 1])."""
    return (0.3 * s_struct + 0.7 * s_sem) / 100.0


def process_reward(
    consistent: Sequence[bool], *, fmt: float, s_sem: float, gold_steps: int
) -> float:
    """``(#consistent of steps 1 and 2) / 2 * λ`` (λ: 1 format wrong, 1.5 answer 100, else 0.5).

    Examples
    --------
    >>> process_reward([True, True], fmt=1.0, s_sem=100.0, gold_steps=3)
    1.5
    """
    if gold_steps < 3:
        return 0.5
    lam = 1.0 if fmt < 1.0 else (1.5 if s_sem >= 100.0 else 0.5)
    return sum(bool(c) for c in list(consistent)[:2]) / 2.0 * lam


def total_reward(fmt: float, ans: float, proc: float | None) -> float:
    """format + answer + process (``proc=None``: the no-process-reward ablation)."""
    return fmt + ans + (proc or 0.0)
