"""Turning user sequences into integer token arrays (no torch needed).

A token array is an ``int64`` array of shape ``(n, D)`` with values ``0..V-1``; the
diffusion models add a MASK token ``V``.  Positions may use smaller alphabets
(``alphabet_sizes[i] <= V``); the denoiser never puts mass on tokens a position
cannot take.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..data import Variable

__all__ = [
    "Tokens",
    "encode_strings",
    "variable_tokens",
    "as_tokens",
    "join_tokens",
    "parse_positions",
]


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
            f"which is not in the alphabet {''.join(chr(int(u)) for u in uniq)!r}"
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
                return encode_strings(list(var.decoded(0)), name=var.name)
    if var.symbols is None or all(s is None for s in var.symbols):
        return np.column_stack(var.columns).astype(np.int64), None
    decoded = [np.asarray(var.decoded(j)) for j in range(var.d)]
    try:
        alphabet = np.unique(np.concatenate(decoded))
    except TypeError as exc:
        raise TypeError(f"{var.name} mixes symbol types that cannot be ordered: {exc}") from exc
    cols = [np.searchsorted(alphabet, col) for col in decoded]
    return np.column_stack(cols).astype(np.int64), alphabet


def as_tokens(data: Any, name: str = "data", alphabet: str | None = None) -> Tokens:
    """Coerce ndarray / list of strings / :class:`Tokens` / Variable to :class:`Tokens`."""
    if isinstance(data, Tokens):
        return data
    if isinstance(data, Variable):
        tok, alph = variable_tokens(data)
        k = int(tok.max()) + 1 if alph is None else len(alph)
        return Tokens(tok, np.full(tok.shape[1], k), (alph,), (np.arange(tok.shape[1]),))
    if isinstance(data, str | bytes):
        raise TypeError(f"{name} must be an array or a list of strings, got a single string")
    if isinstance(data, list | tuple) and data and isinstance(data[0], str):
        tok, alph = encode_strings(data, alphabet, name=name)
        return Tokens(tok, np.full(tok.shape[1], len(alph)), (alph,), (np.arange(tok.shape[1]),))
    arr = np.asarray(data)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be 2-D (samples x positions), got shape {arr.shape}")
    if arr.dtype.kind not in "iub":
        raise TypeError(f"{name} must hold integer tokens, got dtype {arr.dtype}")
    if arr.size == 0:
        raise ValueError(f"{name} is empty")
    arr = arr.astype(np.int64)
    if arr.min() < 0:
        raise ValueError(f"{name} must hold non-negative token ids, found {int(arr.min())}")
    k = int(arr.max()) + 1
    return Tokens(arr, np.full(arr.shape[1], k), (None,), (np.arange(arr.shape[1]),))


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
