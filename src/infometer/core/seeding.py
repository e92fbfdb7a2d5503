"""The one home of randomness: what ``seed=`` accepts and how random streams come from it.

Every public function that draws random numbers takes ``seed``, with one meaning
everywhere (:data:`SEED_DOC`, the sentence its docstring carries):

* an ``int >= 0``: the same int gives the same numbers, on any machine and with any number
  of workers;
* a :class:`numpy.random.Generator`: drawn from as it is (never copied or re-seeded), so
  the caller's stream advances, as scikit-learn's ``check_random_state`` does;
* ``None``: fresh entropy from the operating system, a different draw on every call.

This module is the only place in ``src/`` that makes a numpy generator
(``tests/test_seeding.py`` walks the source for ``default_rng(``, ``RandomState(``,
``np.random.seed`` and ``SeedSequence(`` anywhere else).  The helpers:

* :func:`check_seed`: validate (an ``int`` comes back as a plain ``int``);
* :func:`as_generator`: the ``Generator`` to draw from (``check_random_state``);
* :func:`resolve_seed`: one ``int`` for a whole call, so that every part of the call (a
  history search, a source search, a null distribution, a worker's job) derives its stream
  from the same root: an int is kept, ``None`` draws fresh entropy once, a ``Generator``
  is drawn from once;
* :func:`derive` / :func:`derive_seed`: the stream (or int seed) of one keyed part of a call,
  ``default_rng([seed, *key])``: a function of the root seed and the key alone, so that
  results never depend on the order in which parts run or on how many workers run them.

Examples
--------
>>> from infometer.core.seeding import as_generator, derive, resolve_seed
>>> float(as_generator(7).random()) == float(as_generator(7).random())
True
>>> resolve_seed(7)
7
>>> int(derive(7, 2, 1).integers(10)) == int(derive(7, 2, 1).integers(10))
True
"""

from __future__ import annotations

import numbers
import secrets
import zlib
from typing import Any, TypeAlias

import numpy as np

__all__ = [
    "SEED_DOC",
    "Seed",
    "as_generator",
    "check_seed",
    "derive",
    "derive_seed",
    "resolve_seed",
]

#: What ``seed=`` accepts: the type of every public ``seed`` parameter.
Seed: TypeAlias = int | np.random.Generator | None

#: The one sentence every public docstring gives for ``seed`` (checked by
#: ``tests/test_public_surface.py``).
SEED_DOC = (
    "An int >= 0 (the same int gives the same numbers), a numpy.random.Generator "
    "(drawn from as it is) or None (fresh entropy from the operating system)."
)

#: Seeds drawn for ``None`` (and from a ``Generator``) are below 2**53: exact in a double
#: (JSON, SQLite, JavaScript) and far from overflowing the integer seeds of torch when a
#: caller offsets them.
_DRAW_BOUND = 2**53


def check_seed(seed: Seed, name: str = "seed") -> int | np.random.Generator | None:
    """``seed`` validated: a plain ``int >= 0``, a numpy ``Generator`` or ``None``.

    Booleans, floats (also ``3.0``), strings, numpy's legacy ``RandomState`` and anything
    else are a ``TypeError`` naming ``name``; a negative int is a ``ValueError``.

    Parameters
    ----------
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).
    name
        The argument's name in the caller's signature, for the error message.

    Examples
    --------
    >>> check_seed(3), check_seed(None)
    (3, None)
    >>> check_seed(-1)
    Traceback (most recent call last):
    ...
    ValueError: seed must be an int >= 0, got -1
    """
    if type(seed) is int and seed >= 0:  # the common case, without the ABC checks below
        return seed
    if seed is None or isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        hint = (
            " (a legacy RandomState: pass numpy.random.default_rng(...) instead)"
            if isinstance(seed, np.random.RandomState)
            else ""
        )
        raise TypeError(
            f"{name} must be an int >= 0, a numpy.random.Generator or None, "
            f"got {type(seed).__name__} {seed!r}{hint}"
        )
    if seed < 0:
        raise ValueError(f"{name} must be an int >= 0, got {int(seed)}")
    return int(seed)


def as_generator(seed: Seed, name: str = "seed") -> np.random.Generator:
    """The ``Generator`` to draw from: ``seed`` itself when it is one, else a new one.

    An int gives ``numpy.random.default_rng(seed)`` (so today's numbers of every
    ``default_rng(seed)`` call site are kept); ``None`` gives fresh OS entropy.

    Parameters
    ----------
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).
    name
        The argument's name in the caller's signature, for the error message.

    Examples
    --------
    >>> g = as_generator(0)
    >>> as_generator(g) is g
    True
    """
    seed = check_seed(seed, name)
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.default_rng(seed)


def resolve_seed(seed: Seed, name: str = "seed") -> int:
    """One ``int`` seed for a whole call: the root every part of the call derives from.

    An int is returned as it is; ``None`` draws fresh entropy from the operating system
    once; a ``Generator`` is drawn from once (so the caller's stream advances and the
    same stream state gives the same numbers).  Resolve at the top of a call that hands
    its seed to several parts, so that ``seed=None`` means one fresh stream for the whole
    call, never fresh draws in one part and seed 0 in another.

    Parameters
    ----------
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).
    name
        The argument's name in the caller's signature, for the error message.

    Examples
    --------
    >>> resolve_seed(5)
    5
    >>> import numpy as np
    >>> a = resolve_seed(np.random.default_rng(1)); b = resolve_seed(np.random.default_rng(1))
    >>> a == b
    True
    >>> resolve_seed(None) != resolve_seed(None)  # fresh entropy (equal once in 2**53)
    True
    """
    seed = check_seed(seed, name)
    if seed is None:
        return secrets.randbits(53)
    if isinstance(seed, np.random.Generator):
        return int(seed.integers(_DRAW_BOUND))
    return seed


def _key_words(key: tuple[Any, ...]) -> list[int]:
    out = []
    for k in key:
        if isinstance(k, str):  # a label: its CRC-32, stable across runs and machines
            out.append(zlib.crc32(k.encode()))
        elif isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 0:
            raise TypeError(f"a stream key must be ints >= 0 or strings, got {k!r}")
        else:
            out.append(int(k))
    return out


def _root(seed: Any) -> int:
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise TypeError(
            f"derive needs the call's resolved int seed (resolve_seed(seed)), got {seed!r}"
        )
    return int(seed)


def derive(seed: int, *key: int | str) -> np.random.Generator:
    """The stream of one keyed part of a call: ``default_rng([seed, *key])``.

    ``seed`` is the call's resolved root (:func:`resolve_seed`); ``key`` names the part
    (a target index, a phase, a pair, a label: ints >= 0 or strings, a string standing
    for its CRC-32).  Two parts with different keys get independent streams, and a
    part's stream does not depend on which other parts run, in what order or on how
    many workers.  With no key it is ``default_rng(seed)``.

    Examples
    --------
    >>> a = float(derive(0, 3, 1).random()); b = float(derive(0, 3, 2).random())
    >>> a != b
    True
    """
    words = [_root(seed), *_key_words(key)]
    return np.random.default_rng(words if key else words[0])


def derive_seed(seed: int, *key: int | str) -> int:
    """An ``int`` seed for one keyed part of a call (for a callee that takes an int).

    The first 32-bit word of ``SeedSequence([seed, *key])``; see :func:`derive`.

    Examples
    --------
    >>> derive_seed(0, "x") == derive_seed(0, "x") != derive_seed(0, "y")
    True
    """
    words = [_root(seed), *_key_words(key)]
    return int(np.random.SeedSequence(words).generate_state(1)[0])
