"""Shared set-up of the text tests: one torch thread, small local models built here."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True, scope="session")
def _one_torch_thread():
    # two intra-op threads per test on 2 shared cores thrash (a MiniLM forward goes 20x slower)
    try:
        import torch
    except ImportError:
        yield
        return
    old = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(old)


def build_tiny_gpt2(path, *, vocab_words, n_embd=8, n_layer=1, n_head=2, n_positions=64, seed=0):
    """Save a random GPT-2 with a word-level tokenizer to ``path`` (no download)."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from tokenizers import Tokenizer, models, pre_tokenizers

    specials = ["[UNK]", "[PAD]", "<s>"]
    vocab = {w: i for i, w in enumerate(specials + list(vocab_words))}
    tk = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tk.pre_tokenizer = pre_tokenizers.Whitespace()
    fast = transformers.PreTrainedTokenizerFast(
        tokenizer_object=tk, unk_token="[UNK]", pad_token="[PAD]", bos_token="<s>", eos_token="<s>"
    )
    fast.save_pretrained(path)
    cfg = transformers.GPT2Config(
        vocab_size=len(vocab),
        n_embd=n_embd,
        n_layer=n_layer,
        n_head=n_head,
        n_positions=n_positions,
        bos_token_id=vocab["<s>"],
        eos_token_id=vocab["<s>"],
    )
    torch.manual_seed(seed)
    model = transformers.GPT2LMHeadModel(cfg)
    model.save_pretrained(path, safe_serialization=True)
    return len(vocab)
