"""Attention knockout, logit lens and pruning on hand-set and tiny random transformers."""

from __future__ import annotations

import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from infometer.systems.probes import flow  # noqa: E402

V, T, J, L = 10, 6, 2, 5.0


@pytest.fixture(scope="module")
def copy_model():
    m = flow.copy_circuit(V, T, J, L)
    x = torch.zeros(4, T, dtype=torch.long)
    x[:, J] = torch.tensor([1, 3, 5, 9])
    return m, x


def test_copy_circuit_baseline_probability(copy_model):
    m, x = copy_model
    with torch.no_grad():
        p = torch.softmax(m(x)[:, -1], -1)
    want = math.exp(L) / (math.exp(L) + V - 1)
    assert p[torch.arange(4), x[:, J]].numpy() == pytest.approx([want] * 4, abs=1e-12)


def test_cut_edge_gives_closed_form_bits_and_others_zero(copy_model):
    m, x = copy_model
    blocks = {f"last<-{k}": (T - 1, k) for k in range(T - 1)}
    blocks["row 3"] = (3, [0, 1, 2])  # an earlier query row: cannot reach the last output
    blocks["within prefix"] = ([2, 3, 4], [0, 1])
    df = flow.attention_knockout(m, x, blocks, unit="bits", ci=0.95).set_index("block")
    want = math.log2(V * math.exp(L) / (math.exp(L) + V - 1))
    assert df.loc[f"last<-{J}", "delta_bits"] == pytest.approx(want, abs=1e-12)
    # p_knock = 1/V exactly, so KL(p_base || uniform) = log2 V - H(p_base)
    pb = np.full(V, 1.0 / (math.exp(L) + V - 1))
    pb[1] = math.exp(L) / (math.exp(L) + V - 1)
    kl = math.log2(V) + (pb * np.log2(pb)).sum()
    assert df.loc[f"last<-{J}", "kl"] == pytest.approx(kl, abs=1e-12)
    assert df.loc[f"last<-{J}", "p_knock"] == pytest.approx(1 / V, abs=1e-12)
    others = df.drop(index=f"last<-{J}")
    assert np.all(np.abs(others["delta_bits"]) <= 1e-12)
    assert np.all(np.abs(others["kl"]) <= 1e-12)


def test_pruning_all_but_the_copy_edge_leaves_p_unchanged(copy_model):
    m, x = copy_model
    r = flow.prune_to_paths(m, x, [(T - 1, J, None)])
    assert abs(r.delta_bits.value) <= 1e-12 and r.p_pruned == pytest.approx(r.p_base, abs=1e-15)
    assert r.edges_kept == T + 1 and r.edges_total == T * (T + 1) // 2
    assert r.retention == pytest.approx((T + 1) / (T * (T + 1) / 2))
    # keeping a different edge instead loses exactly the copy
    r2 = flow.prune_to_paths(m, x, [(T - 1, J + 1, None)], random_control=3, seed=1)
    assert r2.p_pruned == pytest.approx(1 / V, abs=1e-12)
    assert r2.control is not None and r2.control["n"] == 3


def test_logit_lens_on_the_copy_circuit(copy_model):
    m, x = copy_model
    lens = flow.logit_lens(m, x, unit="bits")
    final = lens[lens.layer == 1]
    assert np.all(np.abs(final["kl_to_final"]) <= 1e-12)
    emb = lens[lens.layer == 0]  # before attention the copy slot is empty: uniform
    assert emb["entropy"].to_numpy() == pytest.approx([math.log2(V)] * 4, abs=1e-12)


def test_window_and_bad_blocks():
    assert flow.layer_window(4, 9, 32) == tuple(range(0, 9))
    assert flow.layer_window(10, 3, 12) == (9, 10, 11)
    assert flow.layer_window(11, 3, 12) == (10, 11)
    m = flow.copy_circuit(4, 3, 0, 2.0)
    x = torch.tensor([[1, 0, 0]])
    with pytest.raises(ValueError, match="no key to attend"):
        flow.knockout_effect(m, x, (0, 0), [0])
    with pytest.raises(ValueError, match="layer must be <= 0"):
        flow.knockout_effect(m, x, (2, 0), [1])
    with pytest.raises(ValueError, match="positions outside"):
        flow.knockout_effect(m, x, (2, 7), [0])
    with pytest.raises(TypeError, match="integer token ids"):  # floats: a wrong type
        flow.knockout_effect(m, np.ones((1, 3)), (2, 0), [0])
    with pytest.raises(TypeError, match="TinyTransformer"):
        flow.as_adapter(object())


def test_knockout_table_and_heatmap(tmp_path):
    torch.manual_seed(0)
    m = flow.TinyTransformer(7, d_model=16, n_heads=2, n_layers=3, max_len=5).eval()
    x = torch.randint(0, 7, (16, 5))
    y = np.random.default_rng(0).integers(0, 7, 16)
    df = flow.attention_knockout(m, x, {"a": (4, [0, 1]), "b": ([2, 3], 0)}, window=3, target=y)
    assert len(df) == 6 and set(df["layers"]) == {"0,1", "0,1,2", "1,2"}
    assert {"acc_base", "acc_knock", "delta_bits_se", "kl"} <= set(df.columns)
    assert np.all(df["kl"] >= -1e-12)
    p = tmp_path / "k.png"
    ax = flow.plot_knockout(df, path=p)
    assert p.stat().st_size > 1000 and ax.get_title() == "attention knockout: delta_bits"
    # the same effect through knockout_effect
    e = flow.knockout_effect(m, x, (4, [0, 1]), (0, 1), target=y)
    row = df[(df.block == "a") & (df.layer == "0")].iloc[0]
    assert e["delta_bits"].value == pytest.approx(row["delta_bits"], abs=1e-9)


# ------------------------------------------------------------- Hugging Face adapter
def _save_tiny_llama(path):
    transformers = pytest.importorskip("transformers")
    tokenizers = pytest.importorskip("tokenizers")
    cfg = transformers.LlamaConfig(
        vocab_size=32,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=64,
    )
    torch.manual_seed(0)
    transformers.LlamaForCausalLM(cfg).save_pretrained(path)
    vocab = {f"w{i}": i for i in range(32)}
    tok = tokenizers.Tokenizer(tokenizers.models.WordLevel(vocab, unk_token="w0"))
    tok.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    transformers.PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="w0").save_pretrained(path)


@pytest.fixture(scope="module")
def llama_dir(tmp_path_factory):
    path = tmp_path_factory.mktemp("tiny-llama")
    _save_tiny_llama(path)
    return path


def test_hf_adapter_from_a_local_folder(llama_dir):
    from infometer.core import encoders

    tok, model = encoders.load_hf(llama_dir, kind="causal_lm")
    ids = tok(["w1 w5 w7 w3 w9", "w2 w2 w8 w4 w6"], return_tensors="pt")
    x = ids["input_ids"]
    # a block the causal mask already forbids changes nothing: bits exactly equal
    e = flow.knockout_effect(str(llama_dir), ids, (0, 4), [0, 1])
    assert abs(e["delta_bits"].value) <= 1e-6 and abs(e["kl"].value) <= 1e-6
    # cutting the last position off every earlier one in every layer leaves it its own
    # value only, which RoPE does not touch: its logits equal those of the token alone
    cut = (4, [0, 1, 2, 3])
    ad = flow.as_adapter(model)
    masks = flow._knock_masks(flow.edge_mask(cut, 5), [0, 1], 5, ad.dtype)
    with torch.no_grad():
        lg = ad.logits(x, masks)[:, -1]
        alone = model(input_ids=x[:, -1:]).logits[:, -1]
    assert torch.allclose(lg, alone, atol=1e-5)
    # and it really cuts: the unmasked logits differ
    with torch.no_grad():
        assert not torch.allclose(model(input_ids=x).logits[:, -1], alone, atol=1e-3)
    # logit lens: the last layer through the final norm and head is the model's output
    lens = flow.logit_lens(model, x, top_k=2)
    assert np.all(np.abs(lens[lens.layer == 2]["kl_to_final"]) < 1e-9)
    with torch.no_grad():
        p = torch.softmax(model(input_ids=x).logits[:, -1].double(), -1)
    top = lens[lens.layer == 2]["top"].tolist()
    assert [t[0] for t in top] == p.argmax(-1).tolist()


def test_hf_gpt2_knockout_isolates_the_last_position():
    transformers = pytest.importorskip("transformers")
    cfg = transformers.GPT2Config(vocab_size=40, n_positions=16, n_embd=32, n_layer=2, n_head=4)
    torch.manual_seed(1)
    model = transformers.GPT2LMHeadModel(cfg).eval()
    x = torch.randint(0, 40, (3, 6))
    x2 = x.clone()
    x2[:, :5] = torch.randint(0, 40, (3, 5))  # other earlier tokens, same last token
    ad = flow.as_adapter(model)
    masks = flow._knock_masks(flow.edge_mask((5, slice(0, 5)), 6), [0, 1], 6, ad.dtype)
    with torch.no_grad():
        a, b = ad.logits(x, masks)[:, -1], ad.logits(x2, masks)[:, -1]
        assert torch.allclose(a, b, atol=1e-5)
        assert not torch.allclose(
            model(input_ids=x).logits[:, -1], model(input_ids=x2).logits[:, -1], atol=1e-3
        )
    with pytest.raises(ValueError, match="padded"):
        flow.knockout_effect(
            model, {"input_ids": x, "attention_mask": torch.zeros_like(x)}, (5, 0), [0]
        )
    # an exception inside the forward pass leaves no knockout hook behind (the authors'
    # code patches self_attn.forward without try/finally)

    def boom(module, args, out):
        raise RuntimeError("boom")

    h = model.transformer.h[1].register_forward_hook(boom)
    with pytest.raises(RuntimeError, match="boom"), torch.no_grad():
        ad.logits(x, masks)
    h.remove()
    assert all(len(a._forward_pre_hooks) == 0 for a in ad.attn)
    with torch.no_grad():
        assert torch.allclose(ad.logits(x, None), model(input_ids=x, use_cache=False).logits)
