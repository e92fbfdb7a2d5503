"""Model folders are never unpickled (issue 30 §5).

A ``pytorch_model.bin`` is a pickle: loading it with ``torch.load`` (without
``weights_only=True``) runs whatever its ``__reduce__`` says.  The malicious file below
writes a marker file when unpickled; every loader must refuse the folder (or use the
safetensors beside it) and the marker must never appear.
"""

from __future__ import annotations

import json
import pickle

import pytest

pytest.importorskip("transformers")
pytest.importorskip("safetensors")

from infometer.core.encoders import check_weights, load_hf, load_sentence_encoder  # noqa: E402


class _Exploit:
    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, "w"))  # unpickling creates the marker file


def _tiny_bert(folder, *, safetensors: bool) -> None:
    from transformers import BertConfig, BertModel

    cfg = BertConfig(
        vocab_size=30,
        hidden_size=8,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=16,
        max_position_embeddings=16,
    )
    if safetensors:
        BertModel(cfg).save_pretrained(folder, safe_serialization=True)
    else:
        folder.mkdir(exist_ok=True)
        (folder / "config.json").write_text(json.dumps(cfg.to_dict()))
    (folder / "vocab.txt").write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "a", "b"]))


def _plant(path, marker) -> None:
    with open(path, "wb") as f:
        pickle.dump(_Exploit(str(marker)), f)


@pytest.mark.parametrize("filename", ["pytorch_model.bin", "model.pt", "weights.pth", "x.ckpt"])
@pytest.mark.parametrize("loader", ["hf", "sentence", "check"])
def test_pickle_only_folder_is_refused_and_never_runs(tmp_path, filename, loader):
    folder, marker = tmp_path / "model", tmp_path / "PWNED"
    _tiny_bert(folder, safetensors=False)
    _plant(folder / filename, marker)
    call = {
        "hf": lambda: load_hf(folder),
        "sentence": lambda: load_sentence_encoder(folder),
        "check": lambda: check_weights(folder),
    }[loader]
    with pytest.raises(ValueError, match="pickle"):
        call()
    assert not marker.exists()


def test_pickle_in_a_subfolder_is_refused(tmp_path):
    folder, marker = tmp_path / "model", tmp_path / "PWNED"
    _tiny_bert(folder, safetensors=True)
    (folder / "2_Dense").mkdir()
    _plant(folder / "2_Dense" / "pytorch_model.bin", marker)
    with pytest.raises(ValueError, match="2_Dense"):
        load_hf(folder)
    assert not marker.exists()


def test_safetensors_are_used_and_the_pickle_beside_them_is_not_loaded(tmp_path):
    folder, marker = tmp_path / "model", tmp_path / "PWNED"
    _tiny_bert(folder, safetensors=True)
    _plant(folder / "pytorch_model.bin", marker)
    _tok, model = load_hf(folder)
    assert model.config.hidden_size == 8
    assert not marker.exists()


def test_cli_layers_refuses_a_pickle_folder_in_one_line(tmp_path):
    from typer.testing import CliRunner

    from infometer.cli.app import app

    folder, marker = tmp_path / "model", tmp_path / "PWNED"
    _tiny_bert(folder, safetensors=False)
    _plant(folder / "pytorch_model.bin", marker)
    r = CliRunner().invoke(
        app,
        [
            "layers",
            "--model",
            str(folder),
            "--n",
            "50",
            "--steps",
            "1",
            "--out",
            str(tmp_path / "o"),
        ],
    )
    assert r.exit_code == 2, r.output
    assert "pickle" in r.output and "internal error" not in r.output
    assert not marker.exists()
