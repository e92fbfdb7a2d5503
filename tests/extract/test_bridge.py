"""The bridge to information: layout entropy (log2 N for N sites with equally many pages;
log2 K for K templates only with one site each), channel MI of extractors (copying =
log2 N, constant = 0), rank agreement."""

from __future__ import annotations

import math
import warnings

import pytest

from infometer.systems.extract.bridge import (
    extraction_mutual_info,
    layout_entropy,
    rank_agreement,
    triples_text,
)
from infometer.systems.extract.scribes import Choice, resolve, run_choice
from infometer.systems.extract.sites import make_group, make_sites


@pytest.mark.parametrize("k", [1, 2, 4, 5, 10])
def test_layout_entropy_of_n_equiprobable_sites(k):
    # make_sites cycles the 5 templates: 10 sites hold each template twice, and the
    # entropy is log2 10 (a site's class names are part of its signature), not log2 5
    pages = [p for g in make_sites(k, 3, seed=2) for p in g.pages]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # plug-in on few samples warns; the value is exact
        h = float(layout_entropy(pages, unit="bits"))
    assert h == pytest.approx(math.log2(k), abs=1e-12)


def test_copying_carries_log2_n_and_constant_zero():
    g = make_group("book", "div_grid", 10, seed=3)
    htmls = [p.html for p in g.pages]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the copy saturates its ceiling and says so
        copy = extraction_mutual_info(htmls, lambda h: h, unit="bits", ci=None)
        const = extraction_mutual_info(htmls, lambda h: [("x", "y", "z")], unit="bits", ci=None)
    # the copy-bigram scorer gives a copied page ~0 probability under any other page, so
    # the InfoNCE estimate sits at its ceiling log2 N (within float rounding)
    assert float(copy) == pytest.approx(math.log2(10), abs=1e-6)
    assert copy.diagnostics["ceiling_bits"] == pytest.approx(math.log2(10))
    assert abs(float(const)) < 1e-12  # every page scores the constant output alike


def test_a_robust_script_carries_more_than_a_brittle_one():
    g = make_group("book", "div_grid", 10, seed=3)
    htmls = [p.html for p in g.pages]
    rest = ("repeat_richest", "first_child", "item_first_child", "next_sibling")
    good = resolve(Choice("class", *rest), htmls[0])
    brittle = resolve(Choice("index", *rest), htmls[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = extraction_mutual_info(htmls, lambda h: run_choice(good, h), unit="bits", ci=None)
        b = extraction_mutual_info(htmls, lambda h: run_choice(brittle, h), unit="bits", ci=None)
    assert float(a) > float(b) >= 0.0


def test_defaults_are_nats_without_an_interval():
    # the policy's defaults (issue 29): the same numbers as unit="bits", times ln 2
    pages = [p for g in make_sites(4, 2) for p in g.pages]
    h = layout_entropy(pages)
    assert h.unit == "nats" and float(h) == pytest.approx(math.log(4), abs=1e-12)
    htmls = [p.html for p in make_group("book", "div_grid", 6, seed=3).pages]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the copy saturates its ceiling and says so
        e = extraction_mutual_info(htmls, lambda h: h)
        b = extraction_mutual_info(htmls, lambda h: h, unit="bits")
    assert e.unit == "nats" and e.ci is None
    assert float(e) == pytest.approx(float(b) * math.log(2), rel=1e-12)


def test_helpers_and_bad_input():
    assert triples_text([("a", "b", "c"), ("d", "e", "f")]) == "a | b | c\nd | e | f"
    assert rank_agreement([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    with pytest.raises(ValueError, match="at least 3"):
        rank_agreement([1, 2], [1, 2])
    with pytest.raises(TypeError, match="extractor"):
        extraction_mutual_info(["a", "b"], "not callable")
    with pytest.raises(ValueError, match="pages"):
        layout_entropy([])


def test_channel_mi_read_with_its_bounds():
    """Clipped to [0, log2 N] with what it says; hand values on synthetic estimates, then
    the hard-coded script (returns page 0's triples everywhere): a large negative raw
    estimate, read as 0 bits of page-specific information -- as a constant output."""
    from infometer.core.estimate import Estimate
    from infometer.systems.extract.bridge import read_channel_mutual_info

    ceiling = math.log2(12)

    def est(bits):
        return Estimate(
            bits, "bits", "mc_loglik", "channel_mi", diagnostics={"ceiling_bits": ceiling}
        )

    r = read_channel_mutual_info(est(-541.0))
    assert (r["bits"], r["fraction"], r["clipped"], r["reading"]) == (0.0, 0.0, True, "degenerate")
    r = read_channel_mutual_info(est(ceiling / 2))
    assert r["fraction"] == pytest.approx(0.5) and r["reading"] == "partial" and not r["clipped"]
    assert read_channel_mutual_info(est(ceiling))["reading"] == "source-specific"
    nats = Estimate(
        math.log(2), "nats", "mc_loglik", "channel_mi", diagnostics={"ceiling_bits": ceiling}
    )
    assert read_channel_mutual_info(nats)["bits"] == pytest.approx(1.0)
    with pytest.raises(TypeError, match="Estimate"):
        read_channel_mutual_info(3.0)
    g = make_group("book", "div_grid", 8, seed=5)
    htmls = [p.html for p in g.pages]
    rule = ("repeat_richest", "first_child", "item_first_child", "next_sibling")
    lit = resolve(Choice("literal", *rule), htmls[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e = extraction_mutual_info(htmls, lambda h: run_choice(lit, h), unit="bits", ci=None)
    assert float(e) < -10  # no bound below: the critic is not the channel
    r = read_channel_mutual_info(e)
    assert r["bits"] == 0.0 and r["reading"] == "degenerate" and r["clipped"]
