"""The harder LiveWeb-style benchmark: queries quote no word of the page where they say so,
struck-through prices are read as rendered, bare values are found by their shape, an A/B
layout defeats a wrapper from the first page and not per-page extraction, the variant
check on a second page, counts and bad input."""

from __future__ import annotations

from dataclasses import replace

import pytest

from infometer.systems.extract._html import parse
from infometer.systems.extract.liveweb import VGS, shown_text, struck_classes
from infometer.systems.extract.liveweb_hard import (
    CONDITIONS,
    make_hard_benchmark,
    run_hard_benchmark,
)
from infometer.systems.extract.metrics import normalize_text, set_prf
from infometer.systems.extract.sites import make_group, make_layout, rerender


@pytest.fixture(scope="module")
def bench():
    return make_hard_benchmark(
        pages_per_group=3,
        versions=("relabel",),
        templates=["div_grid"],
        domains=["book", "phone"],
    )


def test_benchmark_counts_and_paraphrases_quote_no_word_of_the_page(bench):
    c = bench.counts()
    # one template: 2 base groups (6 queries each), 2 absent (2), 1 struck (2), 1 A/B (3)
    assert c["groups"] == 2 + 2 + 1 + 1
    assert c["queries"] == 2 * 6 + 2 * 2 + 2 + 3
    assert set(c["by_condition"]) == set(CONDITIONS) and all(c["by_condition"].values())
    from rapidfuzz import fuzz

    for q in bench.queries:
        pages = bench.pages["v0"][q.group]
        lay = pages[0].layout
        shown = [normalize_text(lay.shown(k)) for k in lay.field_order]
        for a, w in zip(q.attributes, q.asked, strict=True):
            if w in ("image", "link"):
                continue
            b = normalize_text(w)
            if q.condition == "paraphrased" or (q.condition == "absent" and w != a):
                # no label of the page in the words, no word shared, below VGS's lexical
                # threshold (0.6 = 0.9 x ratio) against every label
                for lab in shown:
                    assert lab not in b and not set(lab.split()) & set(b.split()), (q.qid, w)
                    assert 0.9 * fuzz.ratio(lab, b) / 100 < 0.6, (q.qid, w, lab)
            if q.condition == "absent":  # the field's label is not on the page
                assert not any(f">{a}<" in p.html for p in pages)


def test_struck_prices_are_read_as_rendered():
    for style in ("tag", "style", "css"):
        g = make_group("phone", "infobox", 3, seed=2, discounts=1.0)
        lay = replace(g.layout, discount=style)
        for p in g.pages:
            q = rerender(p, lay)[0]
            root = parse(q.html)
            dd = root.xpath("//dt[.='Price']/following-sibling::dd[1]")
            if not dd:
                continue
            cur, old = dict(p.records[0].fields)["Price"], dict(p.records[0].old)["Price"]
            assert shown_text(dd[0]) == cur
            assert old in dd[0].text_content()  # the old price is on the page
            if style == "css":
                assert lay.old_class in struck_classes(root)


def test_bare_values_found_by_their_shape_and_only_with_value_types():
    lay = replace(make_layout("book", "div_grid", seed=4), unlabeled=("Year",))
    g = make_group("book", "div_grid", 3, seed=4, layout=lay)
    gold = [r.get("Year") for r in g.pages[0].records if r.get("Year")]
    plain = VGS(render="html").induce("List the 'Year' of every item.", [p.html for p in g.pages])
    assert "Year" not in plain  # no label to match
    typed = VGS(render="html", value_types=True)
    w = typed.induce("List the 'Year' of every item.", [p.html for p in g.pages])
    assert set_prf(w["Year"].apply(parse(g.pages[0].html)), gold).f1 == 1.0


def test_wrapper_check_on_a_second_page_keeps_the_label_variant_for_a_missing_field():
    """A field missing from the second page must not pass over the label-anchored XPath
    for a positional one that reads another field there."""
    for seed in range(200):
        g = make_group("film", "kv_table", 3, seed=seed)
        a = [r.get("Runtime") for p in g.pages for r in p.records]
        if a[0] and not a[1] and a[2]:
            break
    w = VGS(render="html").induce("What is the 'Runtime'?", [p.html for p in g.pages[:2]])
    assert w["Runtime"].variant == "label"
    for p in g.pages:
        want = [r.get("Runtime") for r in p.records if r.get("Runtime")]
        assert w["Runtime"].apply(parse(p.html)) == want


def test_run_separates_methods_on_ab_layouts_and_layout_cues(bench):
    ext = {
        "plain": VGS(render="html"),
        "cues": VGS(render="html", layout_cues=True, value_types=True),
    }
    r = run_hard_benchmark(bench, ext, progress=False)
    s = r.summary()
    for e in ext:
        assert s.loc[(e, "vgs"), "literal"] == pytest.approx(100.0)
        assert s.loc[(e, "per_page"), "literal"] == pytest.approx(100.0)
        # half the pages in another layout: the first page's wrapper misses them
        assert s.loc[(e, "per_page"), "ab_layout"] > s.loc[(e, "vgs"), "ab_layout"] + 20
    # the struck-through old price: read as rendered, the current price alone is found
    assert s.loc[("cues", "vgs"), "struck"] > s.loc[("plain", "vgs"), "struck"] + 20
    # the words of a paraphrase are not on the page: a lexical matcher finds no label
    assert s.loc[("plain", "vgs"), "paraphrased"] < 40
    by_ver = r.summary(None)
    assert by_ver.loc[("plain", "stale"), "relabel"] < by_ver.loc[("plain", "stale"), "v0"]
    bits = r.bits_frame()
    assert {"typing", "region", "localisation", "total"} <= set(bits.columns)
    for row in r.bits:
        assert row["typing"] + row["region"] + row["localisation"] == pytest.approx(row["total"])


def test_bad_input():
    with pytest.raises(ValueError, match="pages_per_group"):
        make_hard_benchmark(pages_per_group=1)
    with pytest.raises(ValueError, match="unknown domains or versions"):
        make_hard_benchmark(versions=("v9",))
    with pytest.raises(ValueError, match="templates"):
        make_hard_benchmark(templates=["carousel"])
    with pytest.raises(ValueError, match="limit"):
        make_hard_benchmark(pages_per_group=10_000)
    b = make_hard_benchmark(pages_per_group=2, versions=(), templates=["infobox"], domains=["book"])
    with pytest.raises(ValueError, match="extractors"):
        run_hard_benchmark(b, {})
    with pytest.raises(ValueError, match="unknown versions"):
        run_hard_benchmark(b, {"x": VGS(render="html")}, versions=["redesign"])
