"""HTML reports: one template engine (jinja2), one page layout, figures inline.

Every HTML report infometer writes (the benchmark report of ``infometer report``, the
extraction benchmark's of ``infometer extract bench``) is a jinja2 template in
``core/templates/`` that extends ``base.html.j2``: one style sheet, a table of contents,
tables whose columns sort on a click (a few lines of inline script), figures as PNG data
URIs.  A report is therefore one self-contained file: nothing is fetched when it is opened.
Templates escape every value (``autoescape``); the callers pass data, never markup.

Examples
--------
>>> import pandas as pd
>>> t = table(pd.DataFrame({"method": ["a", "b"], "error": [0.1, -0.25]}),
...           formats={"error": "{:+.2f}"}, left=("method",))
>>> [c.text for c in t.rows[1]]
['b', '-0.25']
>>> html = render("base.html.j2", title="A report", toc=[])
>>> html.startswith("<!DOCTYPE html>") and "<title>A report</title>" in html
True
"""

from __future__ import annotations

import base64
import io
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

__all__ = ["Cell", "Table", "table", "figure_uri", "anchor", "render", "write", "TEMPLATES"]

#: The folder of the report templates.
TEMPLATES = Path(__file__).with_name("templates")


@dataclass(frozen=True)
class Cell:
    """One table cell: its text, CSS class (``"fail"``, ``"ok"``, ``"l"`` ...) and the
    value a column sort uses (a number where the text is a formatted number)."""

    text: str
    cls: str = ""
    sort: float | str | None = None


@dataclass
class Table:
    """A table for a template: column names, rows of :class:`Cell`, an optional caption."""

    columns: list[str]
    rows: list[list[Cell]]
    left: frozenset[str] = field(default_factory=frozenset)
    caption: str = ""

    def __len__(self) -> int:
        return len(self.rows)


def _is_missing(v: Any) -> bool:
    if v is None:
        return True
    try:
        return isinstance(v, float | int) and not math.isfinite(float(v))
    except (TypeError, ValueError):
        return False


def table(
    data: Any,
    *,
    formats: Mapping[str, str] | None = None,
    classes: Callable[[int, str], str | None] | None = None,
    left: Iterable[str] = ("task", "method"),
    caption: str = "",
    missing: str = "–",
) -> Table:
    """A :class:`Table` from a DataFrame or a list of dicts (the first row's keys).

    Parameters
    ----------
    data
        ``pandas.DataFrame`` or a sequence of mappings.
    formats
        Column -> ``str.format`` pattern for its values (``"{:.3f}"``).
    classes
        ``classes(row_index, column)`` -> a CSS class for that cell (``"fail"``...).
    left
        Columns aligned left (text); the others are right-aligned numbers.
    caption
        Shown above the table.
    missing
        The text of a missing or non-finite value.

    Returns
    -------
    Table
    """
    formats = dict(formats or {})
    if hasattr(data, "to_dict") and hasattr(data, "columns"):
        columns = [str(c) for c in data.columns]
        records: Sequence[Mapping[str, Any]] = [
            dict(zip(columns, r, strict=True)) for r in data.itertuples(index=False)
        ]
    else:
        records = list(data)
        columns = [str(c) for c in records[0]] if records else []
    left = frozenset(left)
    rows = []
    for i, rec in enumerate(records):
        cells = []
        for c in columns:
            v = rec.get(c)
            if hasattr(v, "item") and not isinstance(v, str):  # numpy scalars
                v = v.item()
            if _is_missing(v):
                text, key = missing, None
            elif c in formats:
                text, key = formats[c].format(v), float(v) if _number(v) else str(v)
            elif isinstance(v, float):
                text, key = f"{v:.4g}", v
            else:
                text, key = str(v), float(v) if _number(v) else str(v)
            cls = " ".join(
                k for k in ("l" if c in left else "", (classes(i, c) if classes else None)) if k
            )
            cells.append(Cell(text, cls, key))
        rows.append(cells)
    return Table(columns, rows, left, caption)


def _number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def figure_uri(fig: Any, *, dpi: int = 110) -> str:
    """A matplotlib figure as a PNG data URI (the figure is closed)."""
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight")
    plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


@lru_cache(maxsize=1)
def _environment():
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters["anchor"] = anchor
    return env


def anchor(text: str) -> str:
    """An id for ``href="#..."``: letters, digits and dashes.

    Examples
    --------
    >>> anchor("LiveWeb-IE / VGS")
    's-liveweb-ie-vgs'
    """
    out = "".join(ch if ch.isalnum() else "-" for ch in str(text).lower())
    return "s-" + "-".join(p for p in out.split("-") if p)


def render(template: str, **context: Any) -> str:
    """Render ``core/templates/<template>`` with ``context`` (every value escaped)."""
    return _environment().get_template(template).render(**context)


def write(path: str | Path, template: str, **context: Any) -> Path:
    """Render ``template`` and write it to ``path`` (UTF-8; parent folders made)."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render(template, **context), encoding="utf-8")
    return out
