"""Readers for sequence data (FASTA, one-sequence-per-line text, token-id arrays, labels).

Created as ``io_seq.py`` because the table reader module ``io.py`` did not exist on
``main`` when the diffusion family was written; these functions may move to the end
of ``io.py`` once it lands.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

__all__ = ["read_fasta", "read_sequences", "read_labels", "read_token_ids", "is_fasta"]

_FASTA_SUFFIXES = (".fa", ".fasta", ".fna", ".ffn", ".faa", ".frn", ".fas")


def _path(path: str | Path, name: str) -> Path:
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"{name}: no such file {str(p)!r}")
    return p


def is_fasta(path: str | Path) -> bool:
    """True when the file name or its first non-blank character says FASTA (``>``)."""
    p = Path(path)
    name = p.name.lower().removesuffix(".gz")
    if name.endswith(_FASTA_SUFFIXES):
        return True
    if name.endswith(".gz"):
        return False
    with open(p, encoding="utf-8", errors="replace") as fh:
        for line in fh:
            if line.strip():
                return line.lstrip().startswith(">")
    return False


def read_fasta(path: str | Path, *, upper: bool = True) -> tuple[list[str], list[str]]:
    """Read a FASTA file (plain or gzipped) with pyfastx; no index file is written.

    Parameters
    ----------
    path
        The FASTA file.
    upper
        Upper-case the sequences (soft-masked lower-case bases become ordinary ones).

    Returns
    -------
    names, seqs
        Record names and sequences, in file order.
    """
    try:
        import pyfastx
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("reading FASTA needs pyfastx: pip install 'infometer[text]'") from exc
    p = _path(path, "path")
    _check_fasta_text(p)
    names, seqs = [], []
    try:
        for rec in pyfastx.Fastx(str(p)):
            names.append(rec[0])
            seqs.append(rec[1].upper() if upper else rec[1])
    except RuntimeError as exc:  # pyfastx's one error type for a malformed file
        raise ValueError(f"{str(p)!r} is not a readable FASTA file: {exc}") from exc
    if not seqs:
        raise ValueError(f"{str(p)!r} holds no FASTA records")
    empty = [nm for nm, sq in zip(names, seqs, strict=True) if not sq]
    if empty:
        raise ValueError(
            f"{str(p)!r}: record {empty[0]!r} has an empty sequence "
            f"({len(empty)} empty record{'s' if len(empty) > 1 else ''})"
        )
    return names, seqs


def _open_text(p: Path):
    if p.name.lower().endswith(".gz"):
        import gzip

        return gzip.open(p, "rb")
    return open(p, "rb")


def _check_fasta_text(p: Path) -> None:
    """Our error (not pyfastx's RuntimeError) for an empty, binary or header-less file."""
    try:
        with _open_text(p) as fh:
            head = fh.read(1 << 16)
    except OSError as exc:  # e.g. a .gz that is not gzip
        raise ValueError(f"{str(p)!r} cannot be read: {exc}") from exc
    if not head.strip():
        raise ValueError(f"{str(p)!r} is empty: no FASTA records")
    if b"\0" in head:
        raise ValueError(f"{str(p)!r} is a binary file, not FASTA text")
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError:
        try:  # a cut in the middle of a multi-byte character at the end of the chunk
            text = head[:-4].decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ValueError(f"{str(p)!r} is not text (not UTF-8): not a FASTA file") from exc
    first = text.lstrip()[:1]
    if first != ">":
        raise ValueError(
            f"{str(p)!r} does not start with a '>' header line, so it is not FASTA; "
            "for one sequence per line use a plain text file (e.g. .txt)"
        )


def read_sequences(path: str | Path, *, upper: bool = True) -> list[str]:
    """Sequences from a FASTA file, or from a text file with one sequence per line."""
    p = _path(path, "path")
    if is_fasta(p):
        return read_fasta(p, upper=upper)[1]
    try:
        with open(p, encoding="utf-8") as fh:
            seqs = [ln.strip() for ln in fh if ln.strip()]
    except UnicodeDecodeError as exc:
        raise ValueError(f"{str(p)!r} is not UTF-8 text: {exc.reason}") from exc
    if not seqs:
        raise ValueError(f"{str(p)!r} holds no sequences")
    if any("\0" in sq for sq in seqs):
        raise ValueError(f"{str(p)!r} is a binary file, not sequences of text")
    return [s.upper() for s in seqs] if upper else seqs


def read_labels(path: str | Path) -> np.ndarray:
    """One label per line (blank lines skipped); returned as strings."""
    p = _path(path, "labels")
    with open(p, encoding="utf-8") as fh:
        labels = [ln.strip() for ln in fh if ln.strip()]
    if not labels:
        raise ValueError(f"{str(p)!r} holds no labels")
    return np.array(labels)


def read_token_ids(path: str | Path) -> np.ndarray:
    """A 2-D integer token-id array from ``.npy`` (no pickles) or whitespace-separated text."""
    p = _path(path, "path")
    if p.suffix == ".npy":
        arr = np.load(p, allow_pickle=False)
    else:
        arr = np.loadtxt(p, dtype=np.int64, ndmin=2)
    if arr.ndim != 2 or arr.dtype.kind not in "iu":
        raise ValueError(f"{str(p)!r} must hold a 2-D integer array, got {arr.dtype} {arr.shape}")
    return arr.astype(np.int64)
