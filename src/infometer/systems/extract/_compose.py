"""Script composition from a page's own structure: candidate programs and their features.

A *composed program* (run by :func:`~._script_runtime.run_compose`) is

* ``records`` -- an XPath of record elements, from a repeated-sibling group of the page
  (each member a record: cards, list items, table rows, field rows of a detail page) or of
  grid containers (tables / ``div`` boxes of equal-length rows);
* ``subject`` -- where a record's subject is: a path inside the record (``path``), a
  heading of the page (``page``), the nearest heading before the record (``preceding``),
  or the grid's header row / first column (grids);
* ``pairs`` -- how (label, value) pairs are read: label elements at a relative path and
  the value as the next sibling (``sibling``), the rest of the parent's text (``rest``),
  the text after a colon in one node (``colon``), or by grid alignment (``grid``, rows or
  columns).

Every path is *generalised*: the instances seen on the example page (every record's
label elements, every record) are anti-unified -- a step keeps a class that all instances
share, or a position that all share, or neither -- in one of three anchor styles:
``class`` (classes where shared), ``tag`` (tags and shared positions only) and ``index``
(absolute positions from the root, the brittle style an ablation needs).

:func:`compose` enumerates the candidates of one example page (pruned to those that
extract something from it, one per distinct output and style); :func:`features` reads a
candidate's outputs on the example pages (the example and any context pages, no gold)
into the vector the writer's policy scores.  No template is named anywhere here.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from . import _script_runtime as rt
from ._html import first_class, has_class, parse, repeated_groups

__all__ = ["Candidate", "compose", "run_candidate", "features", "FEATURES", "ANCHORS", "RULES"]

ANCHORS: tuple[str, ...] = ("class", "tag", "index")
RULES: tuple[str, ...] = ("sibling", "rest", "colon", "grid_rows", "grid_cols")
SUBJECTS: tuple[str, ...] = ("path", "page", "preceding", "grid")
#: Most label-path groups and subject paths kept per record group (first in page order).
_MAX_LABEL_PATHS = 8
_MAX_SUBJECT_PATHS = 3
_SAMPLE = 8  # records sampled per group to generalise paths
_LABEL_CHARS = 60
_COLON = re.compile(r"^[^:]{1,40}:\s*\S")

FEATURES: tuple[str, ...] = (
    "bias",
    "log_triples",
    "pages_with_output",
    "label_recurs",
    "value_recurs",
    "labels_once_per_record",
    "labels_shared_across_pages",
    "subject_is_link",
    "subject_is_label",
    "subject_is_value",
    "label_has_digit",
    "value_has_digit",
    "label_length",
    "value_length",
    "text_covered",
    *[f"anchor_{a}" for a in ANCHORS],
)


@dataclass(frozen=True)
class Candidate:
    """One composed program and how it was built (anchor style, pair rule, subject rule)."""

    program: dict[str, Any]
    anchor: str
    rule: str
    subject: str

    @property
    def key(self) -> str:
        """A canonical string of the program (equal programs, equal keys)."""
        return json.dumps(self.program, sort_keys=True)


# ------------------------------------------------------------------ generalisation
def _steps(top: Any, el: Any) -> list[tuple[str, tuple[str, ...], int]]:
    """(tag, classes, position among same-tag siblings) of each step from ``top`` down to
    ``el`` (``top`` excluded)."""
    chain = []
    while el is not None and el is not top:
        p = el.getparent()
        same = [x for x in p if x.tag == el.tag] if p is not None else [el]
        chain.append((el.tag, tuple((el.get("class") or "").split()), same.index(el) + 1))
        el = p
    return chain[::-1]


def _generalise(
    instances: Sequence[Sequence[tuple[str, tuple[str, ...], int]]], anchor: str
) -> str:
    """One relative XPath for instances with the same tag path (anti-unification)."""
    if not instances or not instances[0]:
        return "."
    out = []
    for k, (tag, classes, pos) in enumerate(instances[0]):
        pred = ""
        if anchor == "class":
            common = set(classes).intersection(*[set(s[k][1]) for s in instances[1:]])
            keep = [c for c in classes if c in common]
            if keep:
                pred = f"[{has_class(keep[0])}]"
        if not pred and all(s[k][2] == pos for s in instances):
            pred = f"[{pos}]"
        out.append(tag + pred)
    return "./" + "/".join(out)


def _abs_tags(el: Any) -> str:
    """The absolute tag path of an element, every position dropped."""
    return re.sub(r"\[\d+\]", "", el.getroottree().getpath(el))


def _records_xpath(parent: Any, tag: str, cls: str, members: list[Any], anchor: str) -> str | None:
    if anchor == "class":
        if cls:
            return f"//{tag}[{has_class(cls)}]"
        pc = first_class(parent)
        return f"//{parent.tag}[{has_class(pc)}]/{tag}" if pc else None
    if anchor == "tag":
        return _abs_tags(members[0])
    same = [x for x in parent if x.tag == tag]
    k = same.index(members[0]) + 1
    base = f"{parent.getroottree().getpath(parent)}/{tag}"
    return base if k == 1 else f"{base}[position() >= {k}]"


def _element_xpath(el: Any, anchor: str) -> str | None:
    """Absolute XPath of one (grid container or heading) element."""
    if anchor == "class":
        c = first_class(el)
        return f"//{el.tag}[{has_class(c)}]" if c else None
    if anchor == "tag":
        return _abs_tags(el)
    return el.getroottree().getpath(el)


# ---------------------------------------------------------------------- candidates
def _own_short(el: Any) -> bool:
    t = rt._txt(el)
    return 0 < len(t) <= _LABEL_CHARS


def _label_instances(member: Any) -> dict[tuple[str, tuple[str, ...]], list[Any]]:
    """(rule, tag path) -> label elements in one record."""
    out: dict[tuple[str, tuple[str, ...]], list[Any]] = {}
    for e in member.iter():
        if not isinstance(e.tag, str) or not _own_short(e):
            continue
        tags = tuple(s[0] for s in _steps(member, e))
        nxt = e.getnext()
        while nxt is not None and not isinstance(nxt.tag, str):
            nxt = nxt.getnext()
        if nxt is not None and rt._txt(nxt):
            out.setdefault(("sibling", tags), []).append(e)
        p = e.getparent()
        if e is not member and p is not None and rt._kids(p)[:1] == [e]:
            whole, lab = rt._txt(p), rt._txt(e)
            if whole.startswith(lab) and len(whole) > len(lab) + 1:
                out.setdefault(("rest", tags), []).append(e)
        if ":" in (e.text or "") and _COLON.match(rt._txt(e)):
            out.setdefault(("colon", tags), []).append(e)
    return out


def _subject_paths(members: list[Any]) -> list[list[list[tuple[str, tuple[str, ...], int]]]]:
    """Instances of descendant paths that occur once, with text, in most records."""
    per: dict[tuple[str, ...], list[list[tuple[str, tuple[str, ...], int]]]] = {}
    order: list[tuple[str, ...]] = []
    for m in members:
        seen: Counter[tuple[str, ...]] = Counter()
        found: dict[tuple[str, ...], list[tuple[str, tuple[str, ...], int]]] = {}
        for d in m.iterdescendants():
            if not isinstance(d.tag, str):
                continue
            st = _steps(m, d)
            tags = tuple(s[0] for s in st)
            seen[tags] += 1
            if rt._txt(d):
                found.setdefault(tags, st)
        for tags, st in found.items():
            if seen[tags] == 1:
                if tags not in per:
                    order.append(tags)
                per.setdefault(tags, []).append(st)
    need = max(1, math.ceil(0.8 * len(members)))
    return [per[t] for t in order if len(per[t]) >= need][:_MAX_SUBJECT_PATHS]


def _page_headings(root: Any) -> list[Any]:
    """Headings that can title the whole page: the only one of their level on it (a level
    that repeats titles sections, and would give every record to the first of them)."""
    out = []
    for h in ("h1", "h2", "h3"):
        hs = root.xpath(f"//{h}")
        if len(hs) == 1 and rt._txt(hs[0]):
            out.append(hs[0])
    return out


def _grids(root: Any) -> list[Any]:
    """Containers of >= 2 rows, most rows as long as the first (>= 2 cells)."""
    out = []
    for el in root.iter():
        if not isinstance(el.tag, str):
            continue
        rows = [rt._kids(r) for r in rt._grid_rows(el)]
        if len(rows) < 2 or len(rows[0]) < 2:
            continue
        if sum(len(r) == len(rows[0]) for r in rows) >= max(2, math.ceil(0.8 * len(rows))):
            out.append(el)
    return out


def _heading_xpath(h: Any, anchor: str) -> str:
    if anchor == "class" and first_class(h):
        return f"//{h.tag}[{has_class(first_class(h))}]"
    if anchor == "index":
        return h.getroottree().getpath(h)
    return f"(//{h.tag})[1]"


def _record_groups(root: Any) -> list[tuple[Any, str, str, list[Any]]]:
    """Repeated siblings by (tag, first class), and by tag alone where classes differ
    (field rows that each carry their own class)."""
    out = repeated_groups(root)
    for el in root.iter():
        if not isinstance(el.tag, str):
            continue
        by_tag: dict[str, list[Any]] = {}
        for c in el:
            if isinstance(c.tag, str):
                by_tag.setdefault(c.tag, []).append(c)
        for tag, m in by_tag.items():
            if len(m) >= 2 and len({first_class(x) for x in m}) > 1:
                out.append((el, tag, "", m))
    return out


def _raw_candidates(root: Any) -> list[Candidate]:
    out: list[Candidate] = []
    headings = _page_headings(root)
    seen_records: set[tuple[str, str]] = set()
    for parent, tag, cls, members in _record_groups(root):
        if tag in ("script", "style", "head", "meta", "link"):
            continue
        sample = members[:_SAMPLE]
        inst: dict[tuple[str, tuple[str, ...]], list[tuple[Any, list[Any]]]] = {}
        for m in sample:
            for key, els in _label_instances(m).items():
                inst.setdefault(key, []).append((m, els))
        need = max(1, math.ceil(0.5 * len(sample)))
        label_groups = [
            (key, [_steps(m, e) for m, els in lists for e in els])
            for key, lists in inst.items()
            if len(lists) >= need
        ]
        # the label elements of each record: keep the groups with most instances
        label_groups.sort(key=lambda kv: -len(kv[1]))
        label_groups = label_groups[:_MAX_LABEL_PATHS]
        if not label_groups:
            continue
        subj_paths = _subject_paths(sample)
        in_member = {id(x) for m in members for x in m.iter()}
        page_heads = [h for h in headings if id(h) not in in_member]
        has_preceding = bool(members[0].xpath(rt._HEADINGS))
        for anchor in ANCHORS:
            rx = _records_xpath(parent, tag, cls, members, anchor)
            if rx is None or (anchor, rx) in seen_records:
                continue
            seen_records.add((anchor, rx))
            subjects: list[tuple[str, dict[str, str]]] = [
                ("path", {"rule": "path", "path": _generalise(p, anchor)}) for p in subj_paths
            ]
            subjects += [
                ("page", {"rule": "page", "path": _heading_xpath(h, anchor)}) for h in page_heads
            ]
            if has_preceding:
                subjects.append(("preceding", {"rule": "preceding"}))
            for (rule, _), steps in label_groups:
                path = _generalise(steps, anchor)
                for sname, subj in subjects:
                    prog = {
                        "kind": "compose",
                        "records": rx,
                        "subject": subj,
                        "pairs": {"rule": rule, "path": path},
                    }
                    out.append(Candidate(prog, anchor, rule, sname))
    for box in _grids(root):
        for anchor in ANCHORS:
            bx = _element_xpath(box, anchor)
            if bx is None:
                continue
            for orient in ("rows", "cols"):
                prog = {
                    "kind": "compose",
                    "records": bx,
                    "subject": {"rule": "grid"},
                    "pairs": {"rule": "grid", "orient": orient},
                }
                out.append(Candidate(prog, anchor, f"grid_{orient}", "grid"))
    return out


def run_candidate(program: dict[str, Any] | None, root: Any) -> list[list[str]]:
    """Triples of a composed program on a parsed page (``[]`` if the program fails)."""
    if program is None:
        return []
    try:
        return rt.run_compose(program, root)
    except Exception:  # an XPath that a drifted page makes invalid scores 0
        return []


def compose(
    html: str, *, context: Sequence[str] = (), max_candidates: int = 2000
) -> list[tuple[Candidate, list[list[list[str]]]]]:
    """Candidate programs of an example page and their outputs on the example pages.

    Parameters
    ----------
    html
        The example page.
    context
        Other pages of the group, unlabelled (their HTML only): outputs there feed the
        features that compare pages (labels recur, values differ).
    max_candidates
        At most this many candidates are composed before pruning (in page order).

    Returns
    -------
    list of (Candidate, outputs)
        ``outputs[k]`` is the candidate's triples on page k (0 the example, then the
        context); only candidates with output on the example page, one per distinct output
        on the example pages and anchor style.
    """
    roots = [parse(html, name="html")] + [parse(h, name="context page") for h in context]
    out = []
    seen: set[tuple[str, str]] = set()
    for cand in _raw_candidates(roots[0])[:max_candidates]:
        outs = [run_candidate(cand.program, r) for r in roots]
        if not outs[0]:
            continue
        sig = (cand.anchor, json.dumps(outs))
        if sig in seen:
            continue
        seen.add(sig)
        out.append((cand, outs))
    return out


# ------------------------------------------------------------------------ features
def _norm(s: str) -> str:
    return re.sub(r"\s+", " ", s).strip().lower()


def features(
    cand: Candidate, outputs: Sequence[Sequence[Sequence[str]]], roots: Sequence[Any]
) -> list[float]:
    """The policy's view of a candidate: what its outputs on the example pages look like.

    Gold-free: the outputs of the candidate on the example page and the context pages,
    the text of the pages (links and coverage) and how the program was built.
    """
    trip = [(k, tuple(t)) for k, o in enumerate(outputs) for t in o]
    n_pages = max(len(outputs), 1)
    units: dict[tuple[int, str], list[tuple[str, str]]] = {}
    for k, (s, lab, v) in trip:
        units.setdefault((k, s), []).append((_norm(lab), _norm(v)))
    lab_units: Counter[str] = Counter()
    val_units: Counter[str] = Counter()
    for pairs in units.values():
        for lab in {lab for lab, _ in pairs}:
            lab_units[lab] += 1
        for v in {v for _, v in pairs}:
            val_units[v] += 1
    n = max(len(trip), 1)
    pairs_all = [p for ps in units.values() for p in ps]
    label_recurs = sum(lab_units[lab] >= 2 for lab, _ in pairs_all) / n
    value_recurs = sum(val_units[v] >= 2 for _, v in pairs_all) / n
    # a record states each label once: (page, subject, label) repeated means the
    # subjects are assigned wrongly (e.g. every field given to the first heading)
    slots = Counter((k, s, _norm(lab)) for k, (s, lab, _) in trip)
    distinct = sum(slots[(k, s, _norm(lab))] == 1 for k, (s, lab, _) in trip) / n
    page_labels = [{_norm(t[1]) for t in o} for o in outputs]
    if len(page_labels) > 1 and page_labels[0]:
        shared = sum(
            len(page_labels[0] & other) / max(len(page_labels[0] | other), 1)
            for other in page_labels[1:]
        ) / (len(page_labels) - 1)
    else:
        shared = 0.0
    links = [{_norm(rt._txt(a)) for a in r.xpath("//a[@href]")} for r in roots]
    labels_set = {lab for lab, _ in pairs_all}
    values_set = {v for _, v in pairs_all}
    subj_link = sum(_norm(t[0]) in links[k] for k, t in trip) / n
    subj_label = sum(_norm(t[0]) in labels_set for _, t in trip) / n
    subj_value = sum(_norm(t[0]) in values_set for _, t in trip) / n
    lab_digit = sum(any(ch.isdigit() for ch in t[1]) for _, t in trip) / n
    val_digit = sum(any(ch.isdigit() for ch in t[2]) for _, t in trip) / n
    lab_len = min(1.0, sum(len(t[1]) for _, t in trip) / n / 30)
    val_len = min(1.0, sum(len(t[2]) for _, t in trip) / n / 30)
    cover = []
    for k, r in enumerate(roots):
        body = r.find("body")
        total = len(rt._txt(body if body is not None else r))
        got = {x for t in outputs[k] for x in t}
        cover.append(min(1.0, sum(len(x) for x in got) / max(total, 1)))
    f = [
        1.0,
        math.log1p(len(trip) / n_pages) / 4,
        sum(bool(o) for o in outputs) / n_pages,
        label_recurs,
        value_recurs,
        distinct,
        shared,
        subj_link,
        subj_label,
        subj_value,
        lab_digit,
        val_digit,
        lab_len,
        val_len,
        sum(cover) / len(cover) if cover else 0.0,
    ]
    f += [float(cand.anchor == a) for a in ANCHORS]
    return f
