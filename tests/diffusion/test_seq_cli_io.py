"""Sequence readers, token encoding and the ``infometer seq`` CLI (tiny models)."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from infometer.core.io_seq import is_fasta, read_fasta, read_labels, read_sequences, read_token_ids
from infometer.estimators.diffusion.tokens import as_tokens, encode_strings, parse_positions

torch = pytest.importorskip("torch")
typer = pytest.importorskip("typer")


@given(st.lists(st.text(alphabet="ACGT", min_size=5, max_size=5), min_size=1, max_size=20))
@settings(max_examples=30, deadline=None)
def test_encode_strings_roundtrip(seqs):
    tok, alph = encode_strings(seqs)
    assert tok.shape == (len(seqs), 5) and tok.max() < len(alph)
    assert ["".join(alph[r]) for r in tok] == seqs


@given(st.integers(1, 30), st.data())
@settings(max_examples=30, deadline=None)
def test_parse_positions_range(length, data):
    a = data.draw(st.integers(0, length - 1))
    b = data.draw(st.integers(a + 1, length))
    assert parse_positions(f"{a}:{b}", length, "x").tolist() == list(range(a, b))


def test_bad_inputs_name_the_argument():
    with pytest.raises(ValueError, match="x has positions outside"):
        parse_positions("0:9", 5, "x")
    with pytest.raises(ValueError, match="repeats"):
        parse_positions([1, 1], 5, "y")
    with pytest.raises(ValueError, match="different lengths"):
        encode_strings(["ACG", "AC"])
    with pytest.raises(ValueError, match="not in the alphabet"):
        encode_strings(["ACGN"], alphabet="ACGT")
    with pytest.raises(ValueError, match="non-negative"):
        as_tokens(np.array([[0, -1]]))
    with pytest.raises(TypeError, match="integer tokens"):
        as_tokens(np.array([[0.5, 1.0]]))
    from infometer.estimators.diffusion import InfoSEDD

    with pytest.raises(ValueError, match="mode must be one of"):
        InfoSEDD("marginal")
    with pytest.raises(ValueError, match="needs both x and y"):
        InfoSEDD("conditional", x="0:2")
    with pytest.raises(TypeError, match="steps must be an integer"):
        InfoSEDD(steps=10.0)
    with pytest.raises(RuntimeError, match="not trained"):
        InfoSEDD().entropy()


def test_alphabets_are_aligned_across_columns():
    # column 0 never shows "A": per-column codes differ, tokens must not
    import infometer.core.data as d
    from infometer.estimators.diffusion.tokens import variable_tokens

    v = d.as_variable(np.array([["C", "A"], ["G", "C"], ["T", "G"]]), "x")
    tok, alph = variable_tokens(v)
    assert "".join(alph) == "ACGT"
    assert tok.tolist() == [[1, 0], [2, 1], [3, 2]]


def test_readers(tmp_path):
    fa = tmp_path / "s.fa"
    fa.write_text(">a\nACGT\nac\n>b desc\nTTGGCA\n")
    names, seqs = read_fasta(fa)
    assert names == ["a", "b"] and seqs == ["ACGTAC", "TTGGCA"]
    assert not list(tmp_path.glob("*.fxi"))  # no index side file
    txt = tmp_path / "s.txt"
    txt.write_text("ACGT\n\nTTGA\n")
    assert not is_fasta(txt) and read_sequences(txt) == ["ACGT", "TTGA"]
    lab = tmp_path / "l.txt"
    lab.write_text("1\n0\n")
    assert read_labels(lab).tolist() == ["1", "0"]
    npy = tmp_path / "t.npy"
    np.save(npy, np.arange(6).reshape(2, 3))
    assert read_token_ids(npy).shape == (2, 3)
    with pytest.raises(FileNotFoundError, match="no such file"):
        read_sequences(tmp_path / "missing.fa")


def _app():
    from infometer.cli import seq

    root = typer.Typer()

    @root.callback()
    def _main() -> None:
        """test root"""

    seq.register(root)
    return root


TINY = ["--steps", "40", "--hidden", "16", "--passes", "1", "--quiet"]


@pytest.mark.slow
def test_cli_entropy_mi_and_scan(tmp_path):
    from typer.testing import CliRunner

    rng = np.random.default_rng(0)
    seqs = rng.choice(list("ACGT"), size=(600, 8))
    seqs[:, 4] = seqs[:, 0]  # position 4 copies position 0: I = log 4
    fa = tmp_path / "s.fa"
    fa.write_text("".join(f">r{i}\n{''.join(s)}\n" for i, s in enumerate(seqs)))
    runner = CliRunner()
    app = _app()
    r = runner.invoke(app, ["seq", "entropy", str(fa), "--json", *TINY])
    assert r.exit_code == 0, r.output
    est = json.loads(r.stdout)  # warnings (the bias check's) go to stderr
    assert est["method"] == "infosedd_h" and 0 < est["value"] <= 8 * np.log(4) * 1.05
    model = tmp_path / "m" / "model.safetensors"
    r = runner.invoke(
        app,
        [
            "seq",
            "mi",
            str(fa),
            "--x",
            "0:4",
            "--y",
            "4:8",
            "--variant",
            "c",
            "--out",
            str(tmp_path / "m"),
            *TINY,
        ],
    )
    assert r.exit_code == 0, r.output
    assert "infosedd_c" in r.output and model.exists()
    r = runner.invoke(app, ["seq", "mi", str(fa), "--x", "0:4", "--y", "3:8", *TINY])
    assert r.exit_code == 2 and "overlap" in r.output
    labels = tmp_path / "lab.txt"
    labels.write_text("\n".join(seqs[:, 2]) + "\n")  # label = base at position 2
    png, csv = tmp_path / "scan" / "scan.png", tmp_path / "scan" / "scan.csv"
    r = runner.invoke(
        app,
        [
            "seq",
            "scan",
            str(fa),
            "--labels",
            str(labels),
            "--window",
            "2",
            "--out",
            str(tmp_path / "scan"),
            *TINY,
        ],
    )
    assert r.exit_code == 0, r.output
    assert png.stat().st_size > 0 and len(csv.read_text().splitlines()) == 1 + 7
    r = runner.invoke(app, ["seq", "kl", str(fa), str(fa), *TINY])
    assert r.exit_code == 0, r.output


def test_import_without_torch():
    code = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] == 'torch':\n"
        "            raise ImportError('torch blocked')\n"
        "sys.meta_path.insert(0, Block())\n"
        "import infometer as im\n"
        "assert 'infosedd' in im.methods('mutual_info')\n"
        "assert 'torch' not in sys.modules\n"
        "try:\n"
        "    im.entropy([[0, 1], [1, 0]], method='infosedd')\n"
        "except ImportError as e:\n"
        "    assert 'torch' in str(e)\n"
        "else:\n"
        "    raise SystemExit('no ImportError')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
