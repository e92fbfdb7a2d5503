"""Sequence input that used to fail deep inside a library or pass silently (issue 9 §3).

FASTA files that are empty, binary or header-less; token ids up to 2**40; DNA with N,
IUPAC letters and spaces; and CLI options checked before training starts.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from infometer.core.data import InfometerWarning
from infometer.core.io_seq import read_sequences
from infometer.estimators.diffusion import tokens
from infometer.estimators.diffusion.tokens import as_tokens, clean_sequences

torch = pytest.importorskip("torch")
typer = pytest.importorskip("typer")


@pytest.fixture
def runner():
    from typer.testing import CliRunner

    return CliRunner()


@pytest.fixture
def no_training(monkeypatch):
    """Fail the test if a model starts training: options must be checked before that."""
    from infometer.estimators.diffusion.infosedd import InfoSEDD

    def fit(*a, **k):
        raise AssertionError("training started before the options were validated")

    monkeypatch.setattr(InfoSEDD, "fit", fit)


def _one_error_line(r, text):
    assert r.exit_code == 2, r.output
    assert "Traceback" not in r.output
    assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
    lines = [ln for ln in r.output.splitlines() if ln.strip()]
    assert lines[-1].startswith("error: ") and text in r.output, r.output


@pytest.mark.parametrize(
    "content, message",
    [
        (b"", "is empty"),
        (b"ACGT\nACGA\n", "does not start with a '>' header"),
        (b"\x00\x01\x02\xff" * 50, "binary"),
        (b"\xff\xfe\xfd>" * 50, "not text"),
        (b">a\nACGT\n>b\n\n", "record 'b' has an empty sequence"),
    ],
)
def test_bad_fasta_files_get_our_error(tmp_path, runner, content, message):
    # was: RuntimeError "... is not fasta or fastq sequence file" from pyfastx
    from infometer.cli.app import app

    f = tmp_path / "x.fa"
    f.write_bytes(content)
    with pytest.raises(ValueError, match=message):
        read_sequences(f)
    _one_error_line(runner.invoke(app, ["seq", "entropy", str(f), "--quiet"]), message)


def test_sparse_token_ids_are_recoded_not_allocated(monkeypatch):
    # was: ids up to 2**40 made an embedding with 2**40 rows (an 8.8 TB allocation)
    ids = np.array([[0, 2**40], [7, 2**40], [0, 3]], dtype=np.int64)
    with pytest.warns(InfometerWarning, match=r"re-coded to 0\.\.3"):
        t = as_tokens(ids)
    assert t.vocab_size == 4 and t.data.max() == 3
    np.testing.assert_array_equal(t.alphabets[0][t.data], ids)  # decodable
    small = np.arange(6).reshape(3, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert as_tokens(small).vocab_size == 6  # dense ids: used as they are
    monkeypatch.setattr(tokens, "MAX_DIRECT_ID", 4)
    monkeypatch.setattr(tokens, "MAX_VOCAB", 5)
    with pytest.raises(ValueError, match="6 distinct token ids; at most 5"):
        as_tokens(small + 10)


DNA = ["ACGTAC", "ACNTAC", "AC TAC", "RCGTAC", "ACGTAA", "TTGTAC"]


def test_off_alphabet_letters_are_reported_and_handled_by_policy():
    # was: N, IUPAC letters and spaces became extra symbols without a word
    with pytest.warns(InfometerWarning, match=r"3 characters outside .*'ACGT'.* 3 of 6.*'N': 1"):
        keep = as_tokens(DNA)
    assert keep.vocab_size == 7  # A C G T + ' ' N R
    with pytest.warns(InfometerWarning, match="policy='mask'"):
        mask = as_tokens(DNA, policy="mask")
    assert mask.vocab_size == 5 and "".join(mask.alphabets[0]) == "ACGNT"
    with pytest.warns(InfometerWarning, match="policy='drop' removed those 3"):
        drop = as_tokens(DNA, policy="drop")
    assert drop.data.shape == (3, 6) and drop.vocab_size == 4
    with pytest.raises(ValueError, match="policy must be one of"):
        as_tokens(DNA, policy="ignore")
    # a declared alphabet: keep refuses the others, mask adds N to it
    with pytest.raises(ValueError, match="not in the alphabet 'ACGT'.*policy='mask'"):
        as_tokens(DNA, alphabet="ACGT")
    with pytest.warns(InfometerWarning):
        assert as_tokens(DNA, alphabet="ACGT", policy="mask").vocab_size == 5
    # text that is not nucleotides (proteins, words) is not judged
    _, rep = clean_sequences(["MKVLAW", "MKVLQW"])
    assert rep == {}


@given(
    st.lists(st.text(alphabet="ACGT", min_size=8, max_size=8), min_size=2, max_size=15),
    st.lists(
        st.tuples(st.integers(0, 14), st.integers(0, 7), st.sampled_from("N RY-")), max_size=4
    ),
)
@settings(max_examples=40, deadline=None, derandomize=True)
def test_policies_hold_for_any_placement(seqs, edits):
    dirty = list(seqs)
    for r, c, ch in edits:
        if r < len(dirty):
            dirty[r] = dirty[r][:c] + ch + dirty[r][c + 1 :]
    bad = {i for i, q in enumerate(dirty) if set(q) - set("ACGT")}
    out, rep = clean_sequences(dirty, policy="drop") if len(bad) < len(dirty) else (None, None)
    if rep is not None:
        assert out == [q for i, q in enumerate(dirty) if i not in bad]
        assert rep == {} or rep["rows_affected"] == len(bad)
    masked, _ = clean_sequences(dirty, policy="mask")
    assert all(set(q) <= set("ACGTN") for q in masked) and len(masked) == len(dirty)
    assert all(len(q) == 8 for q in masked)
    kept, rep = clean_sequences(dirty, policy="keep")
    assert kept == dirty and (rep == {}) == (not bad)


def test_cli_policy_flag(tmp_path, runner, no_training):
    from infometer.cli.app import app

    f = tmp_path / "x.fa"
    f.write_text("".join(f">s{i}\n{q}\n" for i, q in enumerate(DNA)))
    r = runner.invoke(app, ["seq", "entropy", str(f), "--policy", "drop", "--quiet"])
    assert "warning: FILE: 3 characters outside" in r.output
    assert "training started before" in str(r.exception)  # got as far as training
    _one_error_line(
        runner.invoke(app, ["seq", "entropy", str(f), "--policy", "ignore"]), "--policy"
    )


@pytest.mark.parametrize(
    "args, message",
    [
        (["--hidden", "0"], "--hidden must be >= 1"),
        (["--steps", "0"], "--steps must be >= 1"),
        (["--passes", "0"], "--passes must be >= 1"),
        (["--unit", "furlongs"], "unit 'furlongs' is not known"),
        (["--device", "warp-drive"], "--device 'warp-drive' is not a torch device"),
        (["--out", "FILE"], "is a file; give a folder"),
        (["--estimator", "fast"], "--estimator must be one of"),
    ],
)
def test_cli_options_are_checked_before_training(tmp_path, runner, no_training, args, message):
    # was: --hidden 0 trained; a bad output path or unit failed only after training
    from infometer.cli.app import app

    f = tmp_path / "x.txt"
    f.write_text("\n".join(["ACGT", "ACGA", "TTGA"] * 5) + "\n")
    args = [str(f) if a == "FILE" else a for a in args]  # --out FILE: a file, not a folder
    _one_error_line(runner.invoke(app, ["seq", "entropy", str(f), *args]), message)


def test_cuda_device_on_a_machine_without_one(tmp_path, runner, no_training):
    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    from infometer.cli.app import app

    f = tmp_path / "x.txt"
    f.write_text("ACGT\nACGA\n")
    _one_error_line(
        runner.invoke(app, ["seq", "entropy", str(f), "--device", "cuda"]),
        "CUDA is not available",
    )


def test_library_checks_network_sizes_and_device():
    from infometer.estimators.diffusion import InfoSEDD

    with pytest.raises(ValueError, match="hidden must be >= 1"):
        InfoSEDD(arch_kwargs={"hidden": 0})
    with pytest.raises(TypeError, match="arch_kwargs has no size 'width'"):
        InfoSEDD(arch_kwargs={"width": 8})
    with pytest.raises(ValueError, match="device 'warp' is not a torch device"):
        InfoSEDD(device="warp")
