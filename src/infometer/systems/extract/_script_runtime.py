"""The runtime of compiled extraction scripts (embedded verbatim in every script).

A program is a dict of resolved rules (XPaths and rule names); :func:`run_program`
applies it to an HTML string.  Two kinds: the slot programs of
:mod:`~infometer.systems.extract.scribes` (no ``kind`` key) and the composed programs of
:mod:`~infometer.systems.extract.writer` (``kind == "compose"``: record XPath, subject
rule, pair rule; :func:`run_compose`).  This module imports nothing but ``lxml`` so its source can
be pasted into a sandboxed script (see :func:`infometer.systems.extract.scribes.compile_script`)
and also run in-process during search and training: one implementation, two runners.
"""

import re

import lxml.html

_WS = re.compile(r"\s+")


def _txt(el):
    if el is None:
        return ""
    return _WS.sub(" ", el.text_content()).strip()


def _kids(el):
    return [c for c in el if isinstance(c.tag, str)]


def _value(lab_el, item, rule):
    if rule == "next_sibling":
        nxt = lab_el.getnext()
        while nxt is not None and not isinstance(nxt.tag, str):
            nxt = nxt.getnext()
        return _txt(nxt)
    if rule == "rest_text":
        whole, lab = _txt(item), _txt(lab_el)
        return whole[len(lab) :].strip() if whole.startswith(lab) and item is not lab_el else ""
    kids = _kids(item)
    return _txt(kids[1]) if len(kids) > 1 else ""


_HEADINGS = "preceding::*[self::h1 or self::h2 or self::h3 or self::h4][1]"


def _is_el(x):
    return isinstance(getattr(x, "tag", None), str)


def _first_text(el, path):
    hits = [h for h in el.xpath(path) if _is_el(h)]
    return _txt(hits[0]) if hits else ""


def _grid_rows(box):
    if box.tag == "table":
        return box.xpath("./tr|./thead/tr|./tbody/tr|./tfoot/tr")
    return _kids(box)


def _grid(box, orient):
    """Triples of a grid: header row and first column give labels and subjects."""
    rows = [_kids(r) for r in _grid_rows(box)]
    if len(rows) < 2:
        return []
    head = [_txt(c) for c in rows[0]]
    out = []
    for cells in rows[1:]:
        if not cells:
            continue
        first = _txt(cells[0])
        for j in range(1, min(len(cells), len(head))):
            if orient == "rows":
                subj, lab = first, head[j]
            else:
                subj, lab = head[j], first
            lab, val = lab.rstrip(":").strip(), _txt(cells[j])
            if subj and lab and val and lab != subj:
                out.append([subj, lab, val])
    return out


def _pair(lab_el, rule):
    """(label, value) of one label element under a pair rule."""
    if rule == "colon":
        whole = _txt(lab_el)
        k = whole.find(":")
        return (whole[:k], whole[k + 1 :]) if k > 0 else ("", "")
    if rule == "rest":
        parent = lab_el.getparent()
        return _txt(lab_el), (_value(lab_el, parent, "rest_text") if parent is not None else "")
    return _txt(lab_el), _value(lab_el, None, "next_sibling")


def run_compose(prog, root):
    """Triples of a composed program on a parsed page."""
    out = []
    subj_rule, pairs = prog["subject"], prog["pairs"]
    page_subj = _first_text(root, subj_rule["path"]) if subj_rule["rule"] == "page" else ""
    for rec in root.xpath(prog["records"]):
        if not _is_el(rec):
            continue
        if pairs["rule"] == "grid":
            out += _grid(rec, pairs["orient"])
            continue
        if subj_rule["rule"] == "page":
            subj = page_subj
        elif subj_rule["rule"] == "path":
            subj = _first_text(rec, subj_rule["path"])
        else:
            subj = _first_text(rec, _HEADINGS)
        if not subj:
            continue
        for lab_el in rec.xpath(pairs["path"]):
            if not _is_el(lab_el):
                continue
            lab, val = _pair(lab_el, pairs["rule"])
            lab, val = lab.rstrip(":").strip(), val.strip()
            if lab and val and lab != subj:
                out.append([subj, lab, val])
    return out


def run_program(prog, html):
    """Triples that program ``prog`` extracts from ``html`` (a list of 3-string lists)."""
    root = lxml.html.document_fromstring(html)
    if prog.get("kind") == "compose":
        return run_compose(prog, root)
    out = []
    heading = ""
    if prog["subject"] == "page_heading":
        hs = root.xpath(prog["heading"])
        heading = _txt(hs[0]) if hs else ""
    for rec in root.xpath(prog["container"]):
        if not isinstance(getattr(rec, "tag", None), str):
            continue
        kids = _kids(rec)
        if prog["subject"] == "page_heading":
            subj = heading
        elif prog["subject"] == "first_child":
            subj = _txt(kids[0]) if kids else ""
        else:
            hs = rec.xpath("preceding::*[self::h1 or self::h2 or self::h3][1]")
            subj = _txt(hs[0]) if hs else ""
        if not subj:
            continue
        if prog["predicate"] == "header_row":
            heads = [_txt(h) for h in rec.xpath("../*[1]/*")]
            if rec.xpath("../*[1]") == [rec]:
                continue  # the header row itself
            for j, cell in enumerate(kids):
                if j >= len(heads) or _txt(cell) == subj:
                    continue
                lab = heads[j].rstrip(":").strip()
                if prog["object"] == "aligned_cell":
                    val = _txt(cell)
                elif prog["object"] == "next_sibling":
                    val = _txt(kids[j + 1]) if j + 1 < len(kids) else ""
                else:
                    val = ""
                if lab and val:
                    out.append([subj, lab, val])
            continue
        for item in rec.xpath(prog["items"]):
            if not isinstance(getattr(item, "tag", None), str):
                continue
            if prog["predicate"] in ("dt", "th"):
                lab_el = item
            else:
                ik = _kids(item)
                if not ik:
                    continue
                lab_el = ik[0]
            lab = _txt(lab_el).rstrip(":").strip()
            val = _value(lab_el, item, prog["object"])
            if lab and val and lab != subj:
                out.append([subj, lab, val])
    return out
