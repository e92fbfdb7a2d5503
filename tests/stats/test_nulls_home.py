"""The nulls home (issue 37 §1): one module draws the nulls, computes the p-values and the
corrections; one spelling of the count; the CLI says ``--permutations``.

* The source walk fails on a p-value formula, a hand-written BH / Holm, or a direct call of
  scipy's FDR outside :mod:`infometer.measures.stats.nulls` /
  :mod:`infometer.measures.stats.correction`.
* The signature walk fails on ``n_perm``, ``permutations``, ``n_surrogates``, ``fdr`` as
  a parameter of any public function.
* The numbers: p-values against hand counts, BH/BY/Holm/Bonferroni against their
  definitions (and statsmodels' published example values), max-statistic step-down
  against a brute-force Westfall–Young.
"""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import numpy as np
import pytest

import infometer
from infometer.measures.stats import correction, nulls

SRC = Path(infometer.__file__).parent
HOME = {SRC / "measures" / "stats" / "nulls.py", SRC / "measures" / "stats" / "correction.py"}

#: ``(1 + hits) / (1 + B)`` or ``(1.0 + ...) / (... + 1.0)`` spelled out.
P_FORMULA = re.compile(
    r"\(\s*1(\.0)?\s*\+[^()]*(\([^()]*\)[^()]*)*\)\s*/\s*\(\s*(1(\.0)?\s*\+|[^()]*\+\s*1(\.0)?\s*\))"
)
#: A step-up / step-down adjustment by hand, or scipy's FDR outside the home.
CORRECTION_CODE = re.compile(
    r"minimum\.accumulate|maximum\.accumulate|false_discovery_control|multipletests\("
    r"|\bdef _(bh|holm|by|bonferroni)\b"
)


def _code_lines(path: Path) -> list[tuple[int, str]]:
    """Source lines with docstrings and comments dropped (formulas may be quoted there)."""
    text = path.read_text()
    doc_lines: set[int] = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            if isinstance(node.value.value, str):
                doc_lines.update(range(node.lineno, node.end_lineno + 1))
    out = []
    for i, line in enumerate(text.splitlines(), 1):
        if i in doc_lines:
            continue
        out.append((i, line.split("#", 1)[0]))
    return out


def test_no_p_value_formula_or_correction_outside_the_home():
    stray = []
    for path in sorted(SRC.rglob("*.py")):
        if path in HOME:
            continue
        for i, line in _code_lines(path):
            if P_FORMULA.search(line) or CORRECTION_CODE.search(line):
                if "multipletests(" in line and "def multipletests" in line:
                    continue
                stray.append(f"{path.relative_to(SRC)}:{i}: {line.strip()}")
    assert not stray, "p-values / corrections belong in infometer.measures.stats:\n" + "\n".join(
        stray
    )


def test_the_walk_would_catch_the_old_spellings():
    # the patterns match what the six files used to hold (a walk that matches nothing
    # could never fail)
    for old in (
        "p = (1.0 + np.count_nonzero(null >= stat.value)) / (1.0 + n_permutations)",
        "return float((1 + np.count_nonzero(null >= observed)) / (1 + null.size))",
        "rows_p.append((1.0 + hits) / (b_count + 1.0))",
        "pv[has] = (1.0 + ge[has]) / (1.0 + B)",
    ):
        assert P_FORMULA.search(old), old
    assert CORRECTION_CODE.search("adj = np.minimum.accumulate(scaled[::-1])[::-1]")
    assert CORRECTION_CODE.search("def _bh(p):")


OLD_COUNTS = {"n_perm", "permutations", "n_surrogates", "surrogates", "fdr", "n_perm_omnibus"}


def _public_callables():
    from tests.test_public_surface import _walk

    return _walk()


def test_one_spelling_of_the_count_in_public_signatures():
    bad = []
    for qual, obj in _public_callables().items():
        try:
            params = inspect.signature(obj).parameters
        except (TypeError, ValueError):
            continue
        for name in params:
            if name in OLD_COUNTS or (name.startswith("n_perm") and "permutations" not in name):
                bad.append(f"{qual}({name}=)")
    assert not bad, "spell the count n_permutations (and correction=/alpha=): " + ", ".join(bad)


def test_the_signature_walk_reaches_the_functions_that_test():
    names = set(_public_callables())
    for q in (
        "infometer.infer_network",
        "infometer.pairwise",
        "infometer.multiplets",
        "infometer.multivariate_test",
        "infometer.independence_test",
        "infometer.transfer_entropy",
    ):
        assert q in names, q


def test_cli_says_permutations_and_correction():
    from typer.testing import CliRunner

    from infometer.cli.app import app

    runner = CliRunner()
    for cmd in (["network"], ["matrix"], ["multiplets"]):
        text = runner.invoke(app, [*cmd, "--help"], terminal_width=200).output
        text = re.sub(r"\x1b\[[0-9;]*m", "", text)
        assert "--permutations" in text and "--correction" in text, cmd
        for old in ("--n-perm", "--surrogates", "--fdr"):
            assert old not in text, (cmd, old)


# ------------------------------------------------------------------- the numbers
def test_p_value_counts_ties_as_extreme_and_is_never_zero():
    null = np.array([0.1, 0.5, 0.5, 2.0])
    assert nulls.p_value(0.5, null) == 4 / 5  # 0.5, 0.5, 2.0 and the observed itself
    assert nulls.p_value(9.0, null) == 1 / 5
    assert nulls.p_value(0.5, null, "less") == 4 / 5  # 0.1, 0.5, 0.5 + 1
    assert nulls.p_value(-0.5, null, "two-sided") == 4 / 5
    np.testing.assert_allclose(nulls.p_values(np.array([0.5, 9.0]), null), [0.8, 0.2])
    cols = np.column_stack([null, null[::-1]])
    np.testing.assert_allclose(nulls.p_values(np.array([0.5, 9.0]), cols), [0.8, 0.2])


def test_permutation_p_value_is_uniform_under_exchangeability():
    # observed and B null values i.i.d.: P(p <= k/(B+1)) = k/(B+1) exactly (no ties);
    # 4000 replicates: binomial sd of the share at k/(B+1) = 0.25 is 0.0068, bound 0.03
    rng = np.random.default_rng(0)
    B = 19
    draws = rng.normal(size=(4000, B + 1))
    p = np.array([nulls.p_value(d[0], d[1:]) for d in draws])
    for k in (1, 5, 10):
        assert abs(np.mean(p <= k / (B + 1)) - k / (B + 1)) < 0.03


def test_adjust_matches_the_definitions():
    p = np.array([0.01, 0.04, 0.03, 0.005, 0.5])
    m = p.size
    order = np.argsort(p)
    ranks = np.empty(m)
    ranks[order] = np.arange(1, m + 1)
    # BH: q_i = min_{j: p_j >= p_i} m p_j / rank_j
    bh = np.array([min(m * p[j] / ranks[j] for j in range(m) if p[j] >= p[i]) for i in range(m)])
    np.testing.assert_allclose(correction.adjust(p, "fdr_bh"), np.minimum(bh, 1))
    cm = np.sum(1.0 / np.arange(1, m + 1))
    np.testing.assert_allclose(correction.adjust(p, "fdr_by"), np.minimum(bh * cm, 1))
    holm = np.array(
        [max((m - ranks[j] + 1) * p[j] for j in range(m) if p[j] <= p[i]) for i in range(m)]
    )
    np.testing.assert_allclose(correction.adjust(p, "holm"), np.minimum(holm, 1))
    np.testing.assert_allclose(correction.adjust(p, "bonferroni"), np.minimum(m * p, 1))
    np.testing.assert_array_equal(correction.adjust(p, "none"), p)
    with pytest.raises(ValueError, match="method"):
        correction.adjust(p, "bh")
    with pytest.raises(ValueError, match="0, 1"):
        correction.adjust([0.1, np.nan], "holm")


def test_the_idtxl_example_is_not_significant_over_every_target():
    # issue 38: omnibus p-values [0.03, 1, 1, 1, 1] -> BH over all five targets: 0.15
    q = correction.adjust([0.03, 1, 1, 1, 1], "fdr_bh")
    assert q[0] == pytest.approx(0.15) and not (q <= 0.05).any()
    assert correction.adjust([0.03, 1, 1, 1, 1], "fdr_by")[0] == pytest.approx(0.15 * 137 / 60)


def _westfall_young_brute(obs, null):
    # Algorithm 2.8 written out: p~_(r) = max_{s<=r} #{b: max_{t in R_s} null[b, t] >= obs_(s)}
    order = np.argsort(-obs, kind="stable")
    out = np.empty(obs.size)
    run = 0.0
    for r, i in enumerate(order):
        rest = order[r:]
        hits = sum(1 for b in range(null.shape[0]) if max(null[b, t] for t in rest) >= obs[i])
        run = max(run, (1 + hits) / (1 + null.shape[0]))
        out[i] = run
    return out


def test_stepdown_maxstat_is_westfall_young():
    rng = np.random.default_rng(3)
    null = rng.normal(size=(40, 6))
    obs = np.array([2.5, 0.1, 1.4, -0.3, 3.1, 1.0])
    np.testing.assert_allclose(nulls.stepdown_maxstat(obs, null), _westfall_young_brute(obs, null))
    single = nulls.maxstat_p_values(obs, null)
    assert np.all(nulls.stepdown_maxstat(obs, null) <= single + 1e-15)
    assert single[4] == nulls.stepdown_maxstat(obs, null)[4]  # the largest: equal


def test_draws_are_permutations_and_seeded():
    rng = nulls.make_rng(5)
    for order in (
        nulls.permutation(rng, 11),
        nulls.block_permutation(rng, 11, 3),
        nulls.circular_shift(rng, 11, 2),
        nulls.strata_permutation(rng, np.array([0, 1] * 5 + [2])),
    ):
        assert sorted(order.tolist()) == list(range(11))
    t = nulls.permutation_table(nulls.make_rng(1), 7, 4)
    assert t.shape == (4, 7) and all(sorted(r) == list(range(7)) for r in t.tolist())
    np.testing.assert_array_equal(t, nulls.permutation_table(nulls.make_rng(1), 7, 4))
    a = nulls.make_rng(9, 2, 3).integers(1 << 30, size=3)
    assert (a == nulls.make_rng(9, 2, 3).integers(1 << 30, size=3)).all()
    assert (a != nulls.make_rng(9, 2, 4).integers(1 << 30, size=3)).any()
    g = np.random.default_rng(0)
    assert nulls.make_rng(g) is g
    shift = nulls.circular_shift(nulls.make_rng(0), 50, 10)
    s = int(shift[0])
    assert 10 <= s <= 40 and (shift == (np.arange(50) + s) % 50).all()
    with pytest.raises(ValueError, match="min_shift"):
        nulls.circular_shift(rng, 10, 6)
