"""HTML parsing helpers shared by the extraction family (lxml, imported on first use)."""

from __future__ import annotations

import re
from typing import Any

__all__ = ["parse", "text_of", "require_lxml"]

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
