"""HTML parsing helpers shared by the extraction family (lxml, imported on first use)."""

from __future__ import annotations

import re
from typing import Any

__all__ = ["parse", "text_of", "require_lxml", "first_class", "has_class", "repeated_groups"]

_WS = re.compile(r"\s+")


def require_lxml() -> Any:
    """Import ``lxml.html`` or say which extra installs it."""
    try:
        import lxml.html
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "infometer.systems.extract needs lxml: pip install 'infometer[extract]'"
        ) from exc
    return lxml.html


def parse(html: Any, name: str = "html") -> Any:
    """Parse an HTML string (tolerant of malformed markup) into an lxml element.

    Raises ``TypeError`` for a non-string and ``ValueError`` for a document with no
    elements, naming the argument.
    """
    lh = require_lxml()
    if isinstance(html, bytes):
        html = html.decode("utf-8", errors="replace")
    if not isinstance(html, str):
        raise TypeError(f"{name} must be an HTML string, got {type(html).__name__}")
    if not html.strip():
        raise ValueError(f"{name} is empty: no HTML to parse")
    try:
        root = lh.document_fromstring(html)
    except Exception as exc:  # lxml raises ParserError for documents without elements
        raise ValueError(f"{name} could not be parsed as HTML: {exc}") from None
    return root


def text_of(el: Any) -> str:
    """Whitespace-normalised text content of an element (``""`` for ``None``)."""
    if el is None:
        return ""
    if isinstance(el, str):
        return _WS.sub(" ", el).strip()
    return _WS.sub(" ", el.text_content()).strip()


def first_class(el: Any) -> str:
    """The first class name of an element (``""`` without one)."""
    return (el.get("class") or "").split()[0] if el.get("class") else ""


def has_class(cls: str) -> str:
    """XPath predicate body: the element has class ``cls`` among its classes."""
    return f"contains(concat(' ', normalize-space(@class), ' '), ' {cls} ')"


def repeated_groups(root: Any) -> list[tuple[Any, str, str, list[Any]]]:
    """Repeated sibling groups: (parent, tag, first class, members) with >= 2 members."""
    out = []
    for el in root.iter():
        if not isinstance(el.tag, str):
            continue
        g: dict[tuple[str, str], list[Any]] = {}
        for c in el:
            if isinstance(c.tag, str):
                g.setdefault((c.tag, first_class(c)), []).append(c)
        out += [(el, t, c, m) for (t, c), m in g.items() if len(m) >= 2]
    return out
