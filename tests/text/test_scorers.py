"""Scorers: the built-in copy-bigram LM (normalised, hand-checked value) and the Hugging Face
causal-LM scorer on a tiny random GPT-2 saved in a temp dir (no download)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from infometer import InfometerWarning
from infometer.systems.text import (
    CopyBigramScorer,
    HFScorer,
    as_scorer,
    channel_mutual_info,
    score_matrix,
)
from infometer.systems.text.scorers import make_prompt, word_tokens

from .conftest import build_tiny_gpt2

CORPUS = [
    "the cat sat on the mat .",
    "the dog sat on the rug .",
    "a cat ran to the dog .",
]


# ---------------------------------------------------------------------- built-in
def test_builtin_next_word_distribution_sums_to_one():
    # a prompt of corpus words: the events are the vocabulary plus the one <unk> class,
    # which any unseen word ("zebra") stands for; their probabilities must sum to 1
    sc = CopyBigramScorer().fit(CORPUS)
    vocab = sorted({w for d in CORPUS for w in word_tokens(d)})
    prompt = "the cat sat on a mat"
    events = [*vocab, "zebra"]
    p1 = np.exp(sc.logprob([prompt] * len(events), events))
    assert p1.sum() == pytest.approx(1.0, abs=1e-12)
    for prev in ("cat", "mat", "zebra"):  # a history seen in prompt and corpus, and not
        first = sc.logprob([prompt], [prev])[0]
        joint = sc.logprob([prompt] * len(events), [f"{prev} {w}" for w in events])
        assert np.exp(joint - first).sum() == pytest.approx(1.0, abs=1e-12)
    # with an empty prompt the copy part is off: the background bigram alone
    p0 = np.exp(sc.logprob([""] * len(events), events))
    assert p0.sum() == pytest.approx(1.0, abs=1e-12)


def test_builtin_value_by_hand():
    sc = CopyBigramScorer(copy=0.9, continuation=0.5, discount=0.75).fit(CORPUS)
    prompt = "the cat sat"
    got = sc.logprob([prompt], ["cat sat"])[0]
    # corpus: 21 tokens, 11 distinct (the cat sat on mat . dog rug a ran to), so
    # p_uni(w) = (c(w) + 1) / 33; c(cat) = c(sat) = 2 -> 3/33.  History "cat" is followed by
    # sat and ran once each: c(cat.) = 2, T(cat) = 2.  Prompt "the cat sat": |P| = 3, copy of
    # "cat" = 1/3; in the prompt "cat" is followed by "sat" once.
    p_cat = 0.9 * (1 / 3) + 0.1 * (3 / 33)
    p_bg_sat = max(1 - 0.75, 0) / 2 + 0.75 * 2 / 2 * (3 / 33)
    p_copy_sat = 0.5 * 1 / 1 + 0.5 * (1 / 3)
    p_sat = 0.9 * p_copy_sat + 0.1 * p_bg_sat
    assert got == pytest.approx(math.log(p_cat) + math.log(p_sat), abs=1e-12)


def test_builtin_scores_an_extract_highest_under_its_own_context():
    ctx = [
        "Anna lives in Lisbon. She works as a baker.",
        "Boris lives in Oslo. He works as a pilot.",
        "Chen lives in Quito. She works as a nurse.",
    ]
    sc = as_scorer("builtin", ctx)
    s = score_matrix(ctx, ["He works as a pilot."], [1], sc)
    assert int(np.argmax(s[0])) == 1
    assert sc.n_tokens(["He works as a pilot."])[0] == 6


def test_builtin_refuses_bad_input():
    with pytest.raises(ValueError, match="not fitted"):
        CopyBigramScorer().logprob(["a"], ["b"])
    with pytest.raises(TypeError, match="not one string"):
        CopyBigramScorer().fit("one text")
    with pytest.raises(ValueError, match="no words"):
        CopyBigramScorer().fit(["", "  "])
    with pytest.raises(ValueError, match="copy must be"):
        CopyBigramScorer(copy=1.0)
    with pytest.raises(ValueError, match="prompts has 2"):
        CopyBigramScorer().fit(CORPUS).logprob(["a", "b"], ["c"])
    with pytest.raises(ValueError, match="format string"):
        make_prompt("x", None, "Context: {ctx}")


# ------------------------------------------------------------------ Hugging Face
WORDS = "context summary question : the cat dog sat ran on mat a".split()


@pytest.fixture(scope="module")
def tiny_lm(tmp_path_factory):
    d = tmp_path_factory.mktemp("tiny-gpt2")
    n_vocab = build_tiny_gpt2(d, vocab_words=WORDS, n_positions=32)
    return d, n_vocab


@pytest.fixture(scope="module")
def uniform_lm(tmp_path_factory):
    """A GPT-2 whose (tied) token embeddings are 0: every logit is 0, p is uniform."""
    torch = pytest.importorskip("torch")
    import transformers

    d = tmp_path_factory.mktemp("uniform-gpt2")
    n_vocab = build_tiny_gpt2(d, vocab_words=WORDS)
    model = transformers.GPT2LMHeadModel.from_pretrained(d)
    with torch.no_grad():
        model.transformer.wte.weight.zero_()
    model.save_pretrained(d, safe_serialization=True)
    return d, n_vocab


def _manual(scorer, prompt, text):
    """Unbatched, unpadded reference: one forward per pair, gather by hand."""
    import torch

    tok, model = scorer.tokenizer, scorer.model
    pid = tok(prompt, add_special_tokens=True)["input_ids"] or [tok.bos_token_id]
    tid = tok(" " + text, add_special_tokens=False)["input_ids"]
    with torch.no_grad():
        lp = model(torch.tensor([pid + tid])).logits[0].double().log_softmax(-1)
    return sum(float(lp[len(pid) + k - 1, t]) for k, t in enumerate(tid))


def test_hf_scorer_batched_left_padding_matches_one_pair_at_a_time(tiny_lm):
    d, _ = tiny_lm
    prompts = [
        "context : the cat sat\nsummary :",
        "context : a dog ran on the mat and the cat sat on the mat\nsummary :",
        "summary :",
        "",
        "context : the dog\nquestion : the cat\nsummary :",
    ]
    texts = ["the cat", "dog", "a mat on the cat sat", "cat", "the dog ran"]
    ref = np.array([_manual(HFScorer(d), p, t) for p, t in zip(prompts, texts, strict=True)])
    for bs in (1, 2, 5):
        got = HFScorer(d, batch_size=bs).logprob(prompts, texts)
        # float32 forward passes with and without padding: agreement to ~1e-5 nats
        np.testing.assert_allclose(got, ref, atol=2e-5)
    sc = HFScorer(d)
    assert sc.logprob(["context : the cat"], [""])[0] == 0.0  # empty summary
    assert list(sc.n_tokens(["the cat", "", "dog"])) == [2, 0, 1]


def test_hf_uniform_model_gives_minus_length_log_v(uniform_lm):
    d, n_vocab = uniform_lm
    sc = HFScorer(d, batch_size=2)
    texts = ["the cat", "dog sat on a mat", "cat"]
    got = sc.logprob(["context : x\nsummary :"] * 3, texts)
    lengths = np.array([2, 5, 1])
    np.testing.assert_allclose(got, -lengths * math.log(n_vocab), atol=1e-5)


def test_channel_mi_with_a_local_model_directory(uniform_lm, tiny_lm):
    d, _ = uniform_lm
    contexts = ["the cat sat on the mat", "a dog ran", "the dog sat on a mat"]
    # a scorer that ignores the context sees no information: exactly 0 up to float error
    est = channel_mutual_info(contexts, lambda c: c.split()[-1], str(d))
    assert est.value == pytest.approx(0.0, abs=1e-5)
    assert est.diagnostics["token_unit"] == "scorer tokens"
    assert est.diagnostics["scorer"] == str(d)
    d2, _ = tiny_lm
    with pytest.warns(InfometerWarning, match="kept only their end"):
        est2 = channel_mutual_info(
            contexts,
            lambda c: c,
            str(d2),
            ci=None,
            scorer_kwargs={"batch_size": 2, "max_length": 8},
        )
    assert est2.diagnostics["truncated_prompts"] > 0  # prompts cut to fit 8 positions
    assert any("kept only their end" in w for w in est2.warnings)


def test_hf_scorer_refuses_hub_ids_and_bad_options(tiny_lm, tmp_path):
    with pytest.raises(ValueError, match="not a local directory"):
        HFScorer("gpt2")
    with pytest.raises(ValueError, match="config.json"):
        HFScorer(tmp_path)
    d, _ = tiny_lm
    with pytest.raises(ValueError, match="dtype"):
        HFScorer(d, dtype="int8")
    with pytest.raises(ValueError, match="batch_size must be >= 1"):
        HFScorer(d, batch_size=0)
    with pytest.raises(ValueError, match="positions"):
        HFScorer(d, max_length=4).logprob(["x"], ["the cat sat on the mat"])
