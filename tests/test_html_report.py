"""The one report module (issue 37 §3): jinja2 templates under core/templates, every value
escaped, tables that sort, and no report markup written by hand anywhere else."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pandas as pd

from infometer.core import report

SRC = Path(report.__file__).resolve().parents[1]


def test_table_formats_escapes_and_sorts():
    df = pd.DataFrame(
        {"method": ["<script>alert(1)</script>", "b"], "error": [0.125, math.nan], "n": [3, 10]}
    )
    t = report.table(df, formats={"error": "{:+.2f}"}, left=("method",),
                     classes=lambda i, c: "fail" if c == "error" and i == 0 else None)  # fmt: skip
    assert [c.text for c in t.rows[0]] == ["<script>alert(1)</script>", "+0.12", "3"]
    assert t.rows[1][1].text == "–" and t.rows[1][1].sort is None  # NaN: a dash, sorts last
    assert t.rows[1][2].sort == 10.0 and t.rows[0][0].cls == "l"
    html = report.render("base.html.j2", title="x <y>", toc=[("a", "A & B")])
    assert "<title>x &lt;y&gt;</title>" in html and "A &amp; B" in html


def test_every_value_reaches_the_page_escaped(tmp_path):
    from infometer.systems.extract.bench import write_html

    results = {
        "litecost": {
            "size": "small",
            "seconds": 1.0,
            "result": {
                "by_level": [{"system": "<b>s</b>", "level": 1, "AS": 50.0}],
                "overall": [{"system": "<b>s</b>", "AS": np.float64(50.0)}],
            },
        }
    }
    text = write_html(results, tmp_path / "r.html").read_text()
    assert "&lt;b&gt;s&lt;/b&gt;" in text and "<b>s</b>" not in text
    assert 'class="sortable"' in text and "<h2>LiteCoST</h2>" in text
    assert re.search(r'src="data:image/png;base64,', text)
    assert not re.search(r'(src|href)="(https?:)?//', text)  # self-contained


def test_anchor():
    assert report.anchor("LiveWeb-IE / VGS") == "s-liveweb-ie-vgs"
    assert report.anchor("family te-var") == "s-family-te-var"


def test_no_report_is_written_by_hand_elsewhere():
    # report pages are templates: no module builds <table>/<h2> markup in strings (the
    # synthetic web sites of systems/extract are the data of extraction, not reports)
    allowed = {SRC / "systems" / "extract" / "_sites.py"}
    offenders = [
        str(p.relative_to(SRC))
        for p in SRC.rglob("*.py")
        if p not in allowed and re.search(r"<(table|h2|tr)\b", p.read_text(encoding="utf-8"))
    ]
    assert offenders == []
    templates = sorted(p.name for p in report.TEMPLATES.glob("*.j2"))
    assert {"base.html.j2", "bench.html.j2", "extract.html.j2", "macros.html.j2"} <= set(templates)
    for name in ("bench.html.j2", "extract.html.j2"):
        assert '{% extends "base.html.j2" %}' in (report.TEMPLATES / name).read_text()
