"""SCRIBES' HTML de-duplication (``preprocessing.py`` of the released code, as the brief reads it).

1. ``script``, ``style``, ``meta``, ``link``, ``noscript`` and comments are dropped, and
   only structural attributes are kept (``id``, ``class``, ``data-*``, ``href``, ``src``,
   ``rel``, ``alt``, ``colspan``, ``rowspan``);
2. inside list- and table-like containers (``ul ol dl table thead tbody tfoot tr select``
   -- and, our addition for the div-grid template, any element with four or more
   children of one (tag, classes)), children are grouped by (tag, classes): the first
   three of each group stay, the rest become one comment ``... n more <tag> elements ...``.
"""

from __future__ import annotations

import re
from typing import Any

from ._html import parse

__all__ = ["dedup_html", "count_tokens", "KEEP_ATTRS", "KEEP_PER_GROUP"]

KEEP_ATTRS = ("id", "class", "href", "src", "rel", "alt", "colspan", "rowspan")
KEEP_PER_GROUP = 3
_DROP = ("script", "style", "meta", "link", "noscript")
_LISTY = {"ul", "ol", "dl", "table", "thead", "tbody", "tfoot", "tr", "select"}
_TOKEN = re.compile(r"\w+|[^\w\s]")


def count_tokens(text: str) -> int:
    """Word-and-punctuation tokens of ``text`` (a tokenizer-free stand-in for LLM tokens).

    Examples
    --------
    >>> count_tokens('<td class="a">12 GB</td>')
    14
    """
    return len(_TOKEN.findall(text))


def dedup_html(html: str, *, keep: int = KEEP_PER_GROUP) -> str:
    """The de-duplicated HTML a script writer is shown.

    Examples
    --------
    >>> h = "<ul>" + "".join(f"<li>{i}</li>" for i in range(6)) + "</ul>"
    >>> dedup_html(h)[12:]
    '<ul><li>0</li><li>1</li><li>2</li><!-- ... 3 more <li> elements ... --></ul></body></html>'
    """
    import lxml.etree as et

    if not isinstance(keep, int) or keep < 1:
        raise ValueError(f"keep must be a positive integer, got {keep!r}")
    root = parse(html)
    for el in list(root.iter()):
        if not isinstance(el.tag, str):
            if isinstance(el, et._Comment) and el.getparent() is not None:
                el.drop_tree()
            continue
        if el.tag in _DROP and el.getparent() is not None:
            el.drop_tree()
            continue
        for a in list(el.attrib):
            if a not in KEEP_ATTRS and not a.startswith("data-"):
                del el.attrib[a]
    for el in list(root.iter()):
        if not isinstance(el.tag, str):
            continue
        kids = [c for c in el if isinstance(c.tag, str)]
        groups: dict[tuple[str, str], list[Any]] = {}
        for c in kids:
            groups.setdefault((c.tag, c.get("class", "")), []).append(c)
        listy = el.tag in _LISTY or any(len(v) >= 4 for v in groups.values())
        if not listy:
            continue
        for (tag, _), members in groups.items():
            if len(members) <= keep:
                continue
            extra = members[keep:]
            com = et.Comment(f" ... {len(extra)} more <{tag}> elements ... ")
            extra[0].addprevious(com)
            for c in extra:
                c.drop_tree()
    head = root.find("head")
    if head is not None and len(head) == 0 and not (head.text or "").strip():
        root.remove(head)
    elif head is not None:
        for t in head.findall("title"):
            head.remove(t)
        if len(head) == 0:
            root.remove(head)
    return et.tostring(root, encoding="unicode", method="html")
