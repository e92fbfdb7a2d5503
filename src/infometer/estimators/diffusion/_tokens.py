"""Turning user sequences into integer token arrays (no torch needed).

A token array is an ``int64`` array of shape ``(n, D)`` with values ``0..V-1``; the
diffusion models add a MASK token ``V``.  Positions may use smaller alphabets
(``alphabet_sizes[i] <= V``); the denoiser never puts mass on tokens a position
cannot take.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from infometer.core.data import InfometerWarning, Variable, check_choice

__all__ = [
    "Tokens",
    "encode_strings",
    "variable_tokens",
    "as_tokens",
    "join_tokens",
    "parse_positions",
    "clean_sequences",
    "prepare_strings",
    "SEQUENCE_POLICIES",
    "MAX_VOCAB",
]

#: What to do with characters outside a nucleotide (or the given) alphabet: ``"keep"``
#: them as extra symbols, ``"mask"`` them all as one unknown symbol ``N``, or ``"drop"``
#: the sequences that contain any.
SEQUENCE_POLICIES = ("keep", "mask", "drop")
#: Sequences whose characters are mostly A/C/G/T/U (proteins: ~22%) are nucleotides.
NUCLEOTIDE_FRACTION = 0.5
#: Largest number of distinct token ids a model's output layer is built for.
MAX_VOCAB = 1 << 20
#: Token ids up to this bound are used as they are; sparser ids are re-coded densely.
MAX_DIRECT_ID = 1 << 16


@dataclass(frozen=True)
class Tokens:
    """Encoded sequences.

    Attributes
    ----------
    data
        ``(n, D)`` int64 tokens.
    alphabet_sizes
        ``(D,)`` number of symbols each position can take.
    alphabets
        Per block, the original symbols of codes ``0..K-1`` (for reports), or None.
    blocks
        Position index arrays of the blocks that were concatenated (``x``, ``y``...).
    """

    data: np.ndarray
    alphabet_sizes: np.ndarray
    alphabets: tuple[np.ndarray | None, ...] = ()
    blocks: tuple[np.ndarray, ...] = ()

    @property
    def vocab_size(self) -> int:
        return int(self.alphabet_sizes.max())


def _chars(seqs: Sequence[str]) -> np.ndarray:
    """All characters of ``seqs`` as code points (one uint32 each)."""
    return np.frombuffer("".join(seqs).encode("utf-32-le"), dtype=np.uint32)


def clean_sequences(
    seqs: Sequence[str],
    *,
    alphabet: str | Sequence[str] | None = None,
    policy: str = "keep",
    name: str = "seqs",
) -> tuple[list[str], dict[str, Any]]:
    """Find characters outside the sequences' alphabet and apply ``policy`` to them.

    The alphabet is ``alphabet`` when given, else A/C/G/T/U when more than half of the
    characters are nucleotides (DNA/RNA with N, IUPAC codes, gaps or stray spaces);
    other text (proteins, words) is returned unchanged.  Off-alphabet characters are
    reported with their counts as an :class:`~infometer.core.data.InfometerWarning`:

    * ``"keep"``: they stay, each an extra symbol (an ``N`` adds a fifth letter to DNA);
    * ``"mask"``: all of them become one unknown symbol ``"N"``;
    * ``"drop"``: sequences that contain any are removed.

    Returns
    -------
    seqs, report
        The cleaned sequences and ``{"off_alphabet": {char: count}, "rows_affected",
        "policy", "kept_rows"}`` (empty when nothing was found).
    """
    check_choice(policy, "policy", SEQUENCE_POLICIES)
    seqs = list(seqs)
    if not seqs or not all(isinstance(q, str) for q in seqs):
        return seqs, {}
    chars = _chars(seqs)
    if chars.size == 0:
        return seqs, {}
    if alphabet is not None:
        expected = np.array(sorted({ord(c) for c in alphabet}), dtype=np.uint32)
    else:
        nuc = np.array([ord(c) for c in "ACGTU"], dtype=np.uint32)
        if np.isin(chars, nuc).mean() < NUCLEOTIDE_FRACTION:
            return seqs, {}
        expected = np.intersect1d(nuc, chars)
    off = ~np.isin(chars, expected)
    if not off.any():
        return seqs, {}
    vals, cnt = np.unique(chars[off], return_counts=True)
    found = {chr(int(v)): int(c) for v, c in zip(vals, cnt, strict=True)}
    bounds = np.cumsum([0] + [len(q) for q in seqs])
    bad_rows = np.flatnonzero(np.add.reduceat(off, bounds[:-1]) > 0) if len(seqs) else []
    bad_rows = np.asarray(bad_rows, dtype=np.int64)
    # reduceat counts an empty sequence as its next neighbour's first character: exclude
    bad_rows = bad_rows[np.diff(bounds)[bad_rows] > 0]
    kept = np.arange(len(seqs))
    listed = ", ".join(f"{c!r}: {k}" for c, k in sorted(found.items(), key=lambda t: -t[1]))
    alpha = "".join(chr(int(v)) for v in expected)
    msg = (
        f"{name}: {int(cnt.sum())} characters outside the alphabet {alpha!r} in "
        f"{bad_rows.size} of {len(seqs)} sequences ({listed}); "
    )
    if policy == "keep":
        msg += (
            "policy='keep' makes each an extra symbol, which changes entropies (use "
            "policy='mask' for one unknown symbol 'N', or 'drop' to remove those sequences)"
        )
    elif policy == "mask":
        table = {int(v): "N" for v in vals}
        seqs = [q.translate(table) for q in seqs]
        msg += "policy='mask': each became the unknown symbol 'N'"
    else:
        keep = np.ones(len(seqs), bool)
        keep[bad_rows] = False
        kept = np.flatnonzero(keep)
        if kept.size == 0:
            raise ValueError(f"{name}: policy='drop' removes every sequence; " + msg.rstrip("; "))
        seqs = [seqs[i] for i in kept]
        msg += f"policy='drop' removed those {bad_rows.size} sequences"
    report = {
        "off_alphabet": found,
        "rows_affected": int(bad_rows.size),
        "policy": policy,
        "kept_rows": kept,
        "message": msg,
    }
    return seqs, report


def prepare_strings(
    seqs: Sequence[str], alphabet: str | None, policy: str, name: str
) -> tuple[list[str], str | None, dict[str, Any]]:
    """:func:`clean_sequences` as :func:`as_tokens` applies it: with a given alphabet and
    ``"keep"``, other characters are left for :func:`encode_strings` to refuse; with
    ``"mask"`` the unknown symbol ``N`` joins a given alphabet."""
    if alphabet is not None and policy == "keep":
        check_choice(policy, "policy", SEQUENCE_POLICIES)
        return list(seqs), alphabet, {}
    seqs, report = clean_sequences(seqs, alphabet=alphabet, policy=policy, name=name)
    if report and policy == "mask" and alphabet is not None and "N" not in alphabet:
        alphabet = "".join(alphabet) + "N"
    return seqs, alphabet, report


def encode_strings(
    seqs: Sequence[str], alphabet: str | Sequence[str] | None = None, name: str = "seqs"
) -> tuple[np.ndarray, np.ndarray]:
    """Encode equal-length strings as an ``(n, D)`` token array.

    Parameters
    ----------
    seqs
        Strings of equal length (e.g. DNA reads).
    alphabet
        Symbols in code order (``"ACGT"``); default: the sorted characters that occur.
    name
        Argument name for error messages.

    Returns
    -------
    tokens, alphabet
        The int64 array and the alphabet (array of one-character strings).
    """
    seqs = list(seqs)
    if not seqs:
        raise ValueError(f"{name} is empty")
    if not all(isinstance(s, str) for s in seqs):
        raise TypeError(f"{name} must be strings")
    lengths = {len(s) for s in seqs}
    if len(lengths) != 1:
        raise ValueError(
            f"{name} have different lengths ({min(lengths)} to {max(lengths)}); "
            "pad or trim them to one length"
        )
    buf = np.frombuffer("".join(seqs).encode("utf-32-le"), dtype=np.uint32)
    arr = buf.reshape(len(seqs), -1)
    if alphabet is None:
        uniq = np.unique(arr)
    else:
        chars = list(alphabet)
        single = all(isinstance(c, str) and len(c) == 1 for c in chars)
        if not chars:
            raise ValueError("alphabet is empty: give its symbols in code order, e.g. 'ACGT'")
        if len(set(chars)) != len(chars) or not single:
            raise ValueError("alphabet must be distinct single characters")
        uniq = np.array([ord(c) for c in chars], dtype=np.uint32)
    order = np.argsort(uniq)
    pos = np.searchsorted(uniq[order], arr)
    pos = np.clip(pos, 0, len(uniq) - 1)
    ok = uniq[order][pos] == arr
    if not ok.all():
        r, c = np.argwhere(~ok)[0]
        raise ValueError(
            f"{name}[{r}] has character {chr(int(arr[r, c]))!r} at position {c}, "
            f"which is not in the alphabet {''.join(chr(int(u)) for u in uniq)!r} "
            "(policy='mask' or 'drop' handles such characters)"
        )
    tokens = order[pos].astype(np.int64)
    return tokens, np.array([chr(int(u)) for u in uniq])


def variable_tokens(var: Variable) -> tuple[np.ndarray, np.ndarray | None]:
    """Tokens of a discrete :class:`Variable`, one alphabet shared by all its columns.

    Columns of a Variable are coded separately (``0..K_j-1`` each); when they carry
    symbols the codes are re-aligned to the union alphabet, so that ``"A"`` has one
    code at every position.  A single column of equal-length strings (length >= 2)
    is split into characters.
    """
    if var.kind != "discrete":
        raise ValueError(f"{var.name} must be discrete for infosedd, got {var.kind}")
    if var.d == 1 and var.symbols is not None and var.symbols[0] is not None:
        sym = var.symbols[0]
        if sym.size and all(isinstance(s, str) for s in sym):
            lens = {len(s) for s in sym}
            if len(lens) == 1 and lens.pop() >= 2:
                seqs = list(var.decoded(0))
                _, report = clean_sequences(seqs, name=var.name)
                if report:
                    warnings.warn(report["message"], InfometerWarning, stacklevel=3)
                return encode_strings(seqs, name=var.name)
    if var.symbols is None or all(s is None for s in var.symbols):
        return np.column_stack(var.columns).astype(np.int64), None
    decoded = [np.asarray(var.decoded(j)) for j in range(var.d)]
    try:
        alphabet = np.unique(np.concatenate(decoded))
    except TypeError as exc:
        raise TypeError(f"{var.name} mixes symbol types that cannot be ordered: {exc}") from exc
    cols = [np.searchsorted(alphabet, col) for col in decoded]
    return np.column_stack(cols).astype(np.int64), alphabet


def as_tokens(
    data: Any, name: str = "data", alphabet: str | None = None, policy: str | None = "keep"
) -> Tokens:
    """Coerce ndarray / list of strings / :class:`Tokens` / Variable to :class:`Tokens`.

    Strings go through :func:`prepare_strings` with ``policy`` (characters outside the
    nucleotide or given alphabet are reported; with ``"drop"`` the row count can shrink;
    ``None``: strings already prepared).
    Integer ids above 65,535 that are sparse are re-coded to ``0..K-1`` (a model's output
    layer has one unit per id); more than :data:`MAX_VOCAB` distinct ids is an error.
    """
    if isinstance(data, Tokens):
        return data
    if isinstance(data, Variable):
        tok, alph = variable_tokens(data)
        k = int(tok.max()) + 1 if alph is None else len(alph)
        return Tokens(tok, np.full(tok.shape[1], k), (alph,), (np.arange(tok.shape[1]),))
    if isinstance(data, str | bytes):
        raise TypeError(f"{name} must be an array or a list of strings, got a single string")
    if isinstance(data, list | tuple) and data and isinstance(data[0], str):
        if policy is not None:
            data, alphabet, report = prepare_strings(data, alphabet, policy, name)
            if report:
                warnings.warn(report["message"], InfometerWarning, stacklevel=2)
        tok, alph = encode_strings(data, alphabet, name=name)
        return Tokens(tok, np.full(tok.shape[1], len(alph)), (alph,), (np.arange(tok.shape[1]),))
    arr = np.asarray(data)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be 2-D (samples x positions), got shape {arr.shape}")
    if arr.dtype.kind not in "iub":
        raise TypeError(f"{name} must hold integer tokens, got dtype {arr.dtype}")
    if arr.size == 0:
        raise ValueError(f"{name} is empty")
    if arr.dtype.kind == "u" and arr.dtype.itemsize == 8 and int(arr.max()) >= 1 << 63:
        raise ValueError(f"{name} has token ids above 2**63 - 1, found {int(arr.max())}")
    arr = arr.astype(np.int64)
    if arr.min() < 0:
        raise ValueError(f"{name} must hold non-negative token ids, found {int(arr.min())}")
    k = int(arr.max()) + 1
    alph = None
    if k > MAX_DIRECT_ID:
        # ids up to 2**40 once meant an embedding of 2**40 rows (8.8 TB): re-code densely
        alph, codes = np.unique(arr, return_inverse=True)
        if alph.size > MAX_VOCAB:
            raise ValueError(
                f"{name} has {alph.size} distinct token ids; at most {MAX_VOCAB} fit a "
                "model's output layer (map rare ids to one 'other' id first)"
            )
        warnings.warn(
            f"{name}: token ids go up to {k - 1}; re-coded to 0..{alph.size - 1} "
            f"({alph.size} distinct ids)",
            InfometerWarning,
            stacklevel=2,
        )
        arr, k = codes.reshape(arr.shape).astype(np.int64), int(alph.size)
    return Tokens(arr, np.full(arr.shape[1], k), (alph,), (np.arange(arr.shape[1]),))


def join_tokens(*parts: Tokens) -> Tokens:
    """Concatenate token blocks side by side (e.g. ``x`` then ``y``)."""
    n = {p.data.shape[0] for p in parts}
    if len(n) != 1:
        raise ValueError(f"blocks have different numbers of rows: {sorted(n)}")
    data = np.concatenate([p.data for p in parts], axis=1)
    sizes = np.concatenate([p.alphabet_sizes for p in parts])
    blocks, start = [], 0
    for p in parts:
        blocks.append(np.arange(start, start + p.data.shape[1]))
        start += p.data.shape[1]
    alphabets = tuple(a for p in parts for a in p.alphabets)
    return Tokens(data, sizes, alphabets, tuple(blocks))


def parse_positions(spec: Any, length: int, name: str) -> np.ndarray:
    """Positions from ``"a:b"``, ``"1,4,7"``, ``"a:b,c"``, a range or a sequence of ints.

    Raises
    ------
    ValueError
        When a position is outside ``0..length-1`` or repeated, naming ``name``.
    """
    if isinstance(spec, str):
        out: list[int] = []
        for part in spec.split(","):
            part = part.strip()
            if not part:
                continue
            if ":" in part:
                a, _, b = part.partition(":")
                try:
                    lo = int(a) if a.strip() else 0
                    hi = int(b) if b.strip() else length
                except ValueError as exc:
                    raise ValueError(f"{name}: cannot read {part!r} as 'start:stop'") from exc
                out.extend(range(lo, hi))
            else:
                try:
                    out.append(int(part))
                except ValueError as exc:
                    raise ValueError(f"{name}: cannot read {part!r} as a position") from exc
        pos = np.array(out, dtype=np.int64)
    else:
        pos = np.asarray(list(spec) if isinstance(spec, range) else spec, dtype=np.int64).ravel()
    if pos.size == 0:
        raise ValueError(f"{name} selects no positions")
    if pos.min() < 0 or pos.max() >= length:
        raise ValueError(f"{name} has positions outside 0..{length - 1}")
    if np.unique(pos).size != pos.size:
        raise ValueError(f"{name} repeats a position")
    return pos
