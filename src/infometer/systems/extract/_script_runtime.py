"""The runtime of compiled extraction scripts (embedded verbatim in every script).

A program is a dict of resolved rules (XPaths and rule names); :func:`run_program`
applies it to an HTML string.  This module imports nothing but ``lxml`` so its source can
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


def run_program(prog, html):
    """Triples that program ``prog`` extracts from ``html`` (a list of 3-string lists)."""
    root = lxml.html.document_fromstring(html)
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
