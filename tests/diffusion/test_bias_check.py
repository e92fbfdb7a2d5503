"""InfoSEDD's check of its own model error (issue 35 §3).

Every query is computed twice on the same held-out rows and masks: the score form (the
estimate) and the likelihood form (the same quantity from the log-probabilities of the
held-out tokens).  With the exact denoiser the two agree in expectation, so their gap is
the model's error at the user's sample size; the gap is reported as
``diagnostics["bias_check"]``, widens the interval and warns when large.

The identities are checked with the exact ("oracle") denoiser of conftest.py, the
detection with oracles of the wrong law (a model that memorised its rows is
over-confident), and the defaults on the issue's case: 300 random 20-mers.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import infometer as im

torch = pytest.importorskip("torch")


def sample(pmf, vocab, length, n, rng):
    from conftest import sample as draw  # tests/diffusion has no __init__: rootdir import

    return draw(pmf, vocab, length, n, rng)


def _pmf(rng, vocab, length, concentration=1.0):
    return rng.dirichlet(np.full(vocab**length, concentration)).reshape((vocab,) * length)


def _entropy(p):
    p = p.ravel()
    p = p[p > 0]
    return float(-(p * np.log(p)).sum())


def test_with_the_exact_denoiser_both_forms_agree(oracle):
    # H, MI (J and C) and KL of small pmfs: the likelihood form is unbiased for the same
    # quantity, so the gap is Monte Carlo noise: within 4 of its own standard errors
    rng = np.random.default_rng(0)
    p = _pmf(rng, 3, 3)
    rows = sample(p, 3, 3, 4000, rng)
    m = oracle(p, 3, 3, holdout_rows=rows)
    h = m.entropy(passes=2)
    d = h.diagnostics
    assert d["bias_check_method"] == "likelihood_gap" and not d["bias_check_large"]
    assert abs(d["bias_check"]) < 4 * d["bias_check_se"], d
    assert abs(h.value - _entropy(p)) < 4 * h.stderr
    # the cross-entropy is an upper bound in expectation; with the exact model it is H
    assert abs(d["bias_check_reference"]["likelihood_value"] - _entropy(p)) < 0.05
    for mode in ("joint", "conditional"):
        mj = oracle(p, 3, 3, mode=mode, x=[0], y=[1, 2], holdout_rows=rows)
        est = mj.mutual_info(passes=2)
        g = est.diagnostics
        assert abs(g["bias_check"]) < 4 * g["bias_check_se"], (mode, g)
    q = _pmf(rng, 3, 3)
    from infometer.estimators.diffusion import kl_divergence

    kl = kl_divergence(oracle(p, 3, 3, holdout_rows=rows), oracle(q, 3, 3), passes=2)
    g = kl.diagnostics
    assert abs(g["bias_check"]) < 4 * g["bias_check_se"], g
    truth = float((p * np.log(p / q)).sum())
    assert abs(kl.value - truth) < 4 * kl.stderr + 0.01


def test_an_overconfident_model_is_flagged_and_its_interval_covers_the_truth(oracle):
    # data: uniform tokens (H = 4 log 3); model: a sharp law (what memorised rows give).
    # Its entropy is far too low; the held-out cross-entropy is far above it, so the check
    # is large, warns, and the widened interval reaches the truth.
    rng = np.random.default_rng(1)
    vocab, length = 3, 4
    truth = length * math.log(vocab)
    rows = rng.integers(0, vocab, (3000, length))
    sharp = _pmf(rng, vocab, length, concentration=0.05)
    m = oracle(sharp, vocab, length, holdout_rows=rows)
    with pytest.warns(im.InfometerWarning, match="model's own error is not small"):
        est = m.entropy(passes=2, ci=0.95)
    d = est.diagnostics
    assert est.value < 0.8 * truth and d["bias_check_large"] and d["bias_check"] < 0
    assert est.ci[0] <= truth <= est.ci[1], (est.value, est.ci)
    assert "bias check" in d["ci_method"]
    # spurious MI: independent halves, a model that couples them
    mj = oracle(sharp, vocab, length, mode="joint", x=[0, 1], y=[2, 3], holdout_rows=rows)
    with pytest.warns(im.InfometerWarning, match="model's own error"):
        mi = mj.mutual_info(passes=2, ci=0.95)
    assert mi.value > 0.3 and mi.diagnostics["bias_check_large"]
    assert mi.ci[0] <= 0.0, (mi.value, mi.ci)


@pytest.fixture(scope="module")
def random_20mers():
    """The issue's case: 300 random 20-mers over ACGT; the halves are independent."""
    return np.random.default_rng(35).integers(0, 4, (300, 20))


def test_issue_case_mi_of_independent_halves(random_20mers):
    # was 2.43 ± 0.11 nats (Monte Carlo only), no warning; the truth is 0
    from infometer.estimators.diffusion import InfoSEDD

    m = InfoSEDD("joint", x="0:10", y="10:20", seed=0).fit(random_20mers)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est = m.mutual_info(ci=0.95)
    flagged = est.diagnostics["bias_check_large"]
    assert flagged or est.ci[0] <= 0.0 <= est.ci[1], (est.value, est.ci)
    assert abs(est.value) < 0.1 or flagged
    if est.diagnostics["untrained_model"]:  # no evidence of structure: said so
        assert any("never beat the untrained" in str(w.message) for w in caught)
    # the defaults were scaled to 216 training rows (docs/infosedd.md, "Settings")
    from infometer.core.training import scaled_eval_every

    assert m.settings.eval_every == scaled_eval_every(m.log.n_train, 250) == 27
    assert m.settings.warmup == 54 and m.arch_kwargs["hidden"] == 128
    assert m.settings.patience * m.settings.eval_every >= 200


def test_issue_case_entropy_of_random_20mers(random_20mers):
    # was 22.67 ± 0.19 (truth 20 log 4 = 27.73), no warning
    truth = 20 * math.log(4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = im.entropy(random_20mers, method="infosedd", seed=1)
    d = est.diagnostics
    covers = abs(est.value - truth) <= abs(d["bias_check"]) + 3 * d["mc_stderr"] + 1e-4
    assert d["bias_check_large"] or covers, (est.value, d["bias_check"])
    assert d["bias_check_method"] == "likelihood_gap"
    assert est.params["hidden"] is None and d["train"]["n_train"] == 216


def test_explicit_settings_are_kept():
    from infometer.estimators.diffusion import InfoSEDD

    data = np.random.default_rng(3).integers(0, 2, (200, 4))
    m = InfoSEDD(
        "entropy", eval_every=40, warmup=7, patience=2, arch_kwargs={"hidden": 16}, steps=50
    ).fit(data)
    assert (m.settings.eval_every, m.settings.warmup, m.settings.patience) == (40, 7, 2)
    assert m.arch_kwargs["hidden"] == 16 and m.net.inp.out_features == 16


def test_issue_case_on_the_command_line(random_20mers, tmp_path):
    # `infometer seq mi` printed "2.43 ± 0.11 nats" (Monte Carlo only) and no warning
    import json

    from typer.testing import CliRunner

    from infometer.cli.app import app

    path = tmp_path / "r20.txt"
    path.write_text("\n".join("".join("ACGT"[c] for c in r) for r in random_20mers) + "\n")
    runner = CliRunner()
    for cmd, truth in (
        (["seq", "mi", str(path), "--x", "0:10", "--y", "10:20"], 0.0),
        (["seq", "entropy", str(path)], 20 * math.log(4)),
    ):
        r = runner.invoke(app, [*cmd, "--json", "--quiet"])
        assert r.exit_code == 0, r.output
        est = json.loads(r.stdout)
        d = est["diagnostics"]
        lo, hi = est["ci"]
        assert est["ci_level"] == 0.95 and "bias check" in d["ci_method"]
        assert d["bias_check_large"] or lo - 1e-4 <= truth <= hi + 1e-4, (cmd, est["value"], lo, hi)
        flagged_or_trivial = d["bias_check_large"] or d["untrained_model"]
        assert not flagged_or_trivial or "warning:" in r.stderr  # said, not only recorded
    r = runner.invoke(app, ["seq", "entropy", str(path), "--ci", "1.5", "--quiet"])
    assert r.exit_code == 2 and "--ci" in r.output


def test_a_bad_ci_is_refused_before_the_monte_carlo(oracle):
    p = np.full((2, 2), 0.25)
    m = oracle(p, 2, 2, holdout_rows=np.zeros((4, 2), dtype=int))
    for bad in (0.0, 1.0, 1.5):
        with pytest.raises(ValueError, match="ci"):
            m.entropy(ci=bad)
    from infometer.estimators.diffusion import kl_divergence

    with pytest.raises(ValueError, match="ci"):
        kl_divergence(m, m, ci=-0.1)
