"""The seed home (``infometer.core.seeding``, issue 37 §1): what ``seed=`` accepts, one meaning of
``None`` everywhere, and no random generator made anywhere else in ``src/``.

The per-estimator checks (same seed, same number, for every registered estimator that
draws random numbers) are in ``tests/test_every_estimator.py``.
"""

from __future__ import annotations

import ast
import pathlib
import warnings
import zlib

import numpy as np
import pytest

import infometer as im
from infometer.core.seeding import (
    SEED_DOC,
    as_generator,
    check_seed,
    derive,
    derive_seed,
    resolve_seed,
)
from infometer.measures.dynamics.simulate import markov_chain

SRC = pathlib.Path(im.__file__).parent

#: Calls that make a numpy (or stdlib) random generator or reseed a global one.
_FORBIDDEN = {"default_rng", "RandomState", "SeedSequence"}
_FORBIDDEN_DOTTED = {"np.random.seed", "numpy.random.seed", "random.seed", "random.Random"}
#: Files allowed to make generators, with the reason.  The home itself, and the script a
#: peer library's own interpreter runs (it cannot import infometer, and seeds the global
#: generator the peer draws from).
ALLOWED = {
    "core/seeding.py": "the home: every generator of the library is made here",
    "workflows/bench/_peer_driver.py": "runs in a peer's interpreter; seeds the peer's global",
}


def _stray_calls() -> list[str]:
    found = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        if rel in ALLOWED:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):  # calls only: docstring examples are text, not code
            if isinstance(node, ast.Call):
                name = ast.unparse(node.func)
                if name.rsplit(".", 1)[-1] in _FORBIDDEN or name in _FORBIDDEN_DOTTED:
                    found.append(f"{rel}:{node.lineno}: {ast.unparse(node)[:80]}")
    return found


def test_no_generator_is_made_outside_the_home():
    stray = _stray_calls()
    assert not stray, (
        "use infometer.core.seeding (as_generator / resolve_seed / derive):\n" + "\n".join(stray)
    )


def test_the_walk_would_see_a_stray_call(tmp_path, monkeypatch):
    # the walk is not vacuous: a file with a default_rng call is reported
    (tmp_path / "bad.py").write_text(
        '"""np.random.default_rng(0) in a docstring is fine"""\n'
        "import numpy as np\nrng = np.random.default_rng(3)\n"
    )
    monkeypatch.setattr(f"{__name__}.SRC", tmp_path)
    assert _stray_calls() == ["bad.py:3: np.random.default_rng(3)"]


# ------------------------------------------------------------------ what seed accepts
@pytest.mark.parametrize("seed", [0, 7, np.int64(3), np.uint8(2), 2**70])
def test_ints_are_accepted_as_plain_ints(seed):
    out = check_seed(seed)
    assert type(out) is int and out == int(seed)


def test_a_generator_and_none_pass_through():
    g = np.random.default_rng(1)
    assert check_seed(g) is g and check_seed(None) is None


@pytest.mark.parametrize(
    ("bad", "error", "match"),
    [
        (-1, ValueError, r"seed must be an int >= 0, got -1"),
        (np.int64(-5), ValueError, r"seed must be an int >= 0, got -5"),
        (1.0, TypeError, r"seed must be an int >= 0, a numpy.random.Generator or None, got float"),
        (0.5, TypeError, r"seed must be .* got float"),
        ("3", TypeError, r"seed must be .* got str '3'"),
        (True, TypeError, r"seed must be .* got bool"),
        ([1, 2], TypeError, r"seed must be .* got list"),
        (np.random.RandomState(0), TypeError, r"legacy RandomState: pass numpy.random.default_rng"),
        (np.random.SeedSequence(0), TypeError, r"seed must be .* got SeedSequence"),
    ],
)
def test_bad_seeds_are_refused_naming_the_argument(bad, error, match):
    for f in (check_seed, as_generator, resolve_seed):
        with pytest.raises(error, match=match):
            f(bad)


def test_the_error_names_the_callers_argument():
    with pytest.raises(ValueError, match="structure_seed must be an int >= 0"):
        check_seed(-2, "structure_seed")


# --------------------------------------------------------------------- the helpers
def test_as_generator_keeps_todays_numbers_and_uses_a_generator_as_it_is():
    assert as_generator(5).random() == np.random.default_rng(5).random()
    g = np.random.default_rng(9)
    assert as_generator(g) is g
    first = as_generator(g).random()
    assert as_generator(g).random() != first  # the caller's stream advances


def test_none_is_fresh_entropy_on_every_call():
    # two fresh 53-bit draws coincide with probability 2**-53
    assert resolve_seed(None) != resolve_seed(None)
    a, b = as_generator(None).random(8), as_generator(None).random(8)
    assert not np.array_equal(a, b)
    assert 0 <= resolve_seed(None) < 2**53


def test_resolving_a_generator_draws_from_it():
    a, b = np.random.default_rng(4), np.random.default_rng(4)
    assert resolve_seed(a) == resolve_seed(b)  # same state, same root
    assert resolve_seed(a) != resolve_seed(np.random.default_rng(4))  # a advanced
    assert resolve_seed(11) == 11


def test_derive_is_default_rng_of_the_key():
    assert derive(3).random() == np.random.default_rng(3).random()
    assert derive(3, 1, 2).random() == np.random.default_rng([3, 1, 2]).random()
    # a string key stands for its CRC-32 (the all-pairs column seeds)
    ss = np.random.SeedSequence([5, zlib.crc32(b"col")])
    assert derive_seed(5, "col") == int(ss.generate_state(1)[0])
    assert derive(0, 3, 1).random() != derive(0, 3, 2).random()


@pytest.mark.parametrize("root", [None, -1, np.random.default_rng(0), 1.0])
def test_derive_needs_the_resolved_int_root(root):
    # a keyed stream from None would be the two-meanings bug again: resolve first
    with pytest.raises(TypeError, match=r"resolve_seed"):
        derive(root, 1)
    with pytest.raises(TypeError, match=r"resolve_seed"):
        derive_seed(root, 1)


def test_keys_are_ints_or_labels():
    with pytest.raises(TypeError, match="stream key"):
        derive(0, -1)
    with pytest.raises(TypeError, match="stream key"):
        derive(0, 1.5)


def test_the_shared_sentence_says_what_seed_accepts():
    for word in ("int >= 0", "numpy.random.Generator", "None", "fresh entropy"):
        assert word in SEED_DOC


# --------------------------------------------------------------- through the API
def _xy(n: int = 300):
    rng = np.random.default_rng(0)
    x = rng.normal(size=n)
    return x, x + rng.normal(size=n)


def test_public_calls_accept_a_generator_and_record_the_drawn_seed():
    x, y = _xy()
    a = im.mutual_info(x, y, method="ksg1", ci=0.9, seed=np.random.default_rng(7))
    b = im.mutual_info(x, y, method="ksg1", ci=0.9, seed=np.random.default_rng(7))
    assert (a.value, a.ci, a.stderr) == (b.value, b.ci, b.stderr)
    root = a.diagnostics["seed"]
    assert a.params["seed"] == root
    c = im.mutual_info(x, y, method="ksg1", ci=0.9, seed=root)
    assert (c.value, c.ci, c.stderr) == (a.value, a.ci, a.stderr)
    assert "seed" not in c.diagnostics  # an int seed is the user's own: nothing drawn


def test_seed_none_draws_afresh_and_can_be_repeated():
    x, _ = _xy()
    a = im.entropy(x, method="kozachenko_leonenko", ci=0.9, seed=None)
    b = im.entropy(x, method="kozachenko_leonenko", ci=0.9, seed=None)
    assert a.diagnostics["seed"] != b.diagnostics["seed"]
    assert a.ci != b.ci  # other subsamples (equal with probability ~0)
    again = im.entropy(x, method="kozachenko_leonenko", ci=0.9, seed=a.diagnostics["seed"])
    assert (again.value, again.ci) == (a.value, a.ci)


@pytest.mark.parametrize(
    "call",
    [
        lambda s: im.mutual_info([0, 1, 1, 0] * 10, [0, 1, 0, 0] * 10, seed=s),
        lambda s: im.independence_test([0, 1, 1, 0] * 10, [0, 1, 0, 0] * 10, seed=s),
        lambda s: im.pairwise(np.eye(6)[:, :3] + np.arange(6)[:, None], seed=s, progress=False),
        lambda s: markov_chain(np.array([[0.9, 0.1], [0.2, 0.8]]), 10, seed=s),
    ],
)
@pytest.mark.parametrize(
    ("bad", "error"), [(-1, ValueError), (0.5, TypeError), ("0", TypeError), (True, TypeError)]
)
def test_public_entry_points_refuse_bad_seeds_by_name(call, bad, error):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(error, match=r"seed must be an int >= 0"):
            call(bad)


# ------------------------------------------------- one call, one stream (the TE bug)
def _coupled(n: int = 500):
    rng = np.random.default_rng(2)
    x = rng.integers(0, 2, n)
    y = np.zeros(n, dtype=int)
    for t in range(2, n):
        y[t] = x[t - 2] if rng.random() < 0.9 else rng.integers(0, 2)
    return x, y


def test_transfer_entropy_auto_with_seed_none_is_one_stream(monkeypatch):
    # seed=None used to draw fresh nulls in the history search but seed 0 in the source
    # search.  Now the call resolves one root (recorded in diagnostics["seed"]) and both
    # searches derive their permutation streams from it.
    from infometer.core.seeding import derive as real_derive
    from infometer.measures.timeseries import _history

    roots: list[int] = []

    def spy(seed, *key):
        roots.append(seed)
        return real_derive(seed, *key)

    monkeypatch.setattr(_history, "derive", spy)
    x, y = _coupled()
    kw = dict(method="plugin", k="auto", l="auto", max_lag=3, n_permutations=19)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = im.transfer_entropy(x, y, seed=None, **kw)
        b = im.transfer_entropy(x, y, seed=a.diagnostics["seed"], **kw)
    root = a.diagnostics["seed"]
    assert len(roots) == 4  # the history search and the source search, in each call
    assert roots == [root] * 4  # ... all from the call's one root, none from 0
    steps = ("k_selection_steps", "source_selection_steps")
    assert all(a.diagnostics[s] for s in steps)  # both searches ran and tested lags
    for s in steps:  # replaying the root reproduces both searches
        assert a.diagnostics[s] == b.diagnostics[s]
    assert a.value == b.value and a.params["l"] == b.params["l"]


def test_infer_network_seed_none_records_its_root():
    rng = np.random.default_rng(5)
    v = rng.normal(size=(400, 2))
    v[1:, 1] += 0.8 * v[:-1, 0]
    kw = dict(method="bivariate_te", max_lag=1, cmi="gaussian", n_permutations=19, progress=False)
    a = im.infer_network(v, seed=None, **kw)
    b = im.infer_network(v, seed=a.diagnostics["seed"], **kw)
    assert a.edges.equals(b.edges)
