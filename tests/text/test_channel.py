"""Channel MI I(X;Z|Q): known answers (Gaussian and discrete channels, log N, zero), the
dispatcher's negative flag, the interval over contexts, rates, validation, R-D fit."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest

import infometer as im
from infometer import InfometerWarning
from infometer.measures import exact
from infometer.systems.text import (
    channel_mutual_info,
    channel_mutual_info_from_scores,
    fit_rate_distortion,
)
from infometer.systems.text.channel import channel_terms, loo_terms


# ----------------------------------------------------------------- Gaussian channel
def gaussian_scores(n: int, sigma: float, seed: int) -> np.ndarray:
    """S[i, l] = log N(z_i; x_l, sigma^2) with x ~ N(0, 1), z_i = x_i + sigma * eps."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    z = x + sigma * rng.normal(size=n)
    return -0.5 * ((z[:, None] - x[None, :]) / sigma) ** 2 - math.log(
        sigma * math.sqrt(2 * math.pi)
    )


@pytest.mark.parametrize("sigma", [1.0, 0.5, 0.2])
def test_gaussian_channel_matches_half_log_one_plus_snr(sigma):
    n = 2000
    truth = 0.5 * math.log(1 + 1 / sigma**2)
    est = channel_mutual_info_from_scores(gaussian_scores(n, sigma, seed=1), ci=0.95)
    # With the true likelihood as critic, I - log(1 + (E r - 1)/N) <= E[I_hat] <= I, where
    # r = p(z|x)/p(z) and E r = 1/(1 - rho^2) = (1 + sigma^2)/sigma^2 for this channel
    # (Jensen on the log of the mean over candidates).  Around that the Monte Carlo error is
    # the native stderr (sd of the N terms / sqrt N, 0.01-0.03 nats here); 4 se bounds it.
    bias = math.log(1 + 1 / (sigma**2 * n))
    se = est.stderr
    assert truth - bias - 4 * se <= est.value <= truth + 4 * se
    # the leave-one-out form is an upper bound in expectation
    assert est.diagnostics["upper_bound_nats"] >= truth - 4 * se
    assert est.diagnostics["upper_bound_nats"] >= est.value
    assert est.ci[0] < est.value < est.ci[1]
    assert est.diagnostics["ceiling_nats"] == pytest.approx(math.log(n))


def test_more_noise_gives_less_information():
    # same draws of x and eps, growing sigma: the estimate falls strictly at every step
    rng = np.random.default_rng(5)
    n = 600
    x, eps = rng.normal(size=n), rng.normal(size=n)
    values = []
    for sigma in (0.1, 0.3, 0.6, 1.2, 2.5):
        z = x + sigma * eps
        s = -0.5 * ((z[:, None] - x[None, :]) / sigma) ** 2 - math.log(sigma)
        values.append(channel_mutual_info_from_scores(s, ci=None).value)
    assert all(a > b for a, b in zip(values, values[1:], strict=False)), values


def test_gaussian_channel_through_the_text_api():
    # contexts are numbers written as text, the compressor adds noise with its rng, the
    # scorer is the exact Gaussian likelihood read back from the strings
    sigma, n = 0.5, 300
    rng = np.random.default_rng(2)
    contexts = [f"{v:.10f}" for v in rng.normal(size=n)]

    def compressor(context, query, rng):
        return f"{float(context) + sigma * rng.normal():.10f}"

    def scorer(prompts, texts):
        x = np.array([float(p.split("Context: ")[1].split("\n")[0]) for p in prompts])
        z = np.array([float(t) for t in texts])
        return -0.5 * ((z - x) / sigma) ** 2 - math.log(sigma)

    est = channel_mutual_info(contexts, compressor, scorer, seed=3)
    truth = 0.5 * math.log(1 + 1 / sigma**2)
    bias = math.log(1 + 1 / (sigma**2 * n))  # as above
    assert truth - bias - 4 * est.stderr <= est.value <= truth + 4 * est.stderr
    assert est.quantity == "channel_mi" and est.method == "mc_loglik"
    assert est.diagnostics["n_contexts"] == n and est.diagnostics["scorer"] == "scorer"
    # a plain callable has no tokenizer: lengths are words and marks ("-", "0", ".", "52...")
    assert est.diagnostics["token_unit"] == "words" and 3 <= est.diagnostics["mean_tokens"] <= 4


# ------------------------------------------------------------- discrete token channel
V, T, KEEP = 4, 3, 0.7
SYMBOLS = "abcd"


def token_channel_pzx(contexts: np.ndarray) -> np.ndarray:
    """p(z | x) for all 64 sequences z: each token kept w.p. 0.7, else uniform over V."""
    allz = np.array(list(itertools.product(range(V), repeat=T)))
    eq = contexts[:, None, :] == allz[None, :, :]
    return np.where(eq, KEEP + (1 - KEEP) / V, (1 - KEEP) / V).prod(-1)


def test_discrete_token_channel_matches_exact_enumeration():
    rng = np.random.default_rng(0)
    allz = np.array(list(itertools.product(range(V), repeat=T)))
    ctx = allz[rng.choice(len(allz), size=16, replace=False)]  # K = 16 distinct contexts
    pzx = token_channel_pzx(ctx)
    truth = exact.mutual_info(pzx / len(ctx)).value  # X uniform on the 16 contexts
    contexts = [" ".join(SYMBOLS[t] for t in row) for row in ctx]

    def compressor(context, query, rng):
        toks = context.split()
        keep = rng.random(T) < KEEP
        return " ".join(
            t if k else SYMBOLS[rng.integers(V)] for t, k in zip(toks, keep, strict=True)
        )

    def scorer(prompts, texts):
        out = []
        for p, z in zip(prompts, texts, strict=True):
            x = p.split("Context: ")[1].split("\n")[0].split()
            same = sum(a == b for a, b in zip(x, z.split(), strict=True))
            out.append(
                same * math.log(KEEP + (1 - KEEP) / V) + (T - same) * math.log((1 - KEEP) / V)
            )
        return np.array(out)

    est = channel_mutual_info(contexts, compressor, scorer, n_samples=300, seed=1)
    # The candidates are the whole support of X with its exact (uniform) law, so
    # (1/N) sum_l p(z|x_l) = p(z) exactly and the estimator is unbiased: only Monte Carlo
    # error of the 16 x 300 summaries remains (se ~ 0.015 nats).  4 se bounds it.
    assert abs(est.value - truth) <= 4 * est.stderr, (est.value, truth, est.stderr)
    assert 1.4 < truth < 1.7  # the enumeration itself: well below log 16 = 2.77


# ----------------------------------------------------------- the ceiling and zero
def test_injective_compressor_gives_exactly_log_n():
    contexts = [f"record {i} of the set" for i in range(12)]

    def scorer(prompts, texts):  # the exact channel z = x: probability 1 or 0
        return np.array(
            [
                0.0 if f"Context: {z}\n" in p else -np.inf
                for p, z in zip(prompts, texts, strict=True)
            ]
        )

    with pytest.warns(InfometerWarning, match="ceiling"):
        est = channel_mutual_info(contexts, lambda c: c, scorer)
    assert est.value == pytest.approx(math.log(12), abs=1e-12)
    assert est.diagnostics["saturated_fraction"] == 1.0
    assert est.diagnostics["upper_bound_nats"] == math.inf
    assert est.to("bits").value == pytest.approx(math.log2(12), abs=1e-12)


def test_context_independent_channel_gives_zero():
    contexts = [f"context number {i}" for i in range(10)]

    def scorer(prompts, texts):  # p(z | x) = p(z): the channel ignores x
        return np.array([-0.1 * len(z) for z in texts])

    est = channel_mutual_info(
        contexts, lambda c, q, rng: "x" * int(rng.integers(1, 9)), scorer, n_samples=5
    )
    assert est.value == pytest.approx(0.0, abs=1e-12)


def test_equal_scores_give_exactly_zero_and_no_negative_flag():
    # the shifted log-sum-exp makes a constant row exactly 0 (bit-exactness is the point:
    # a rounding error of -1e-17 would raise the dispatcher's "negative" warning)
    s = np.full((6, 6), -7.3)
    assert np.all(channel_terms(s, np.arange(6)) == 0.0)
    est = channel_mutual_info_from_scores(s)
    assert est.value == 0.0 and "negative" not in est.diagnostics


def test_context_independent_summary_with_the_builtin_scorer_is_near_zero():
    # the same summary for every context: the only spread comes from how much the
    # scorer's likelihood of that summary varies across contexts (Jensen makes it <= 0)
    contexts = [
        f"The patient in room {i} was admitted on day {i + 3}. Meals are served at noon."
        for i in range(20)
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InfometerWarning)
        est = channel_mutual_info(contexts, lambda c: "Meals are served at noon.", "builtin")
    assert -0.05 < est.value <= 1e-12
    assert abs(est.value) < 0.02 * math.log(20)


def test_negative_estimate_is_flagged_by_the_dispatcher_not_clipped():
    # independent z whose likelihood varies across candidates: mean_l s - logmeanexp_l s < 0
    s = np.array([[-1.0, -3.0, -5.0], [-2.0, -1.0, -6.0], [-4.0, -2.0, -1.0]])
    s = s[:, [2, 0, 1]]  # each row's own context is not its most likely one
    with pytest.warns(InfometerWarning, match="negative"):
        est = channel_mutual_info_from_scores(s)
    assert est.value < 0 and est.diagnostics["negative"] is True
    terms = channel_terms(s, np.arange(3))
    assert est.value == pytest.approx(terms.mean(), abs=1e-12)


# ---------------------------------------------------------------- interval and rate
def test_interval_is_over_contexts_and_stderr_is_the_sd_of_context_means():
    rng = np.random.default_rng(4)
    n, m = 30, 4
    s = np.log(rng.dirichlet(np.ones(n), size=n * m))  # (N*M, N), rows sum to 1 in p
    src = np.repeat(np.arange(n), m)
    with pytest.warns(InfometerWarning, match="negative"):  # random scores: no information
        est = channel_mutual_info_from_scores(s, src, ci=0.9)
    terms = channel_terms(s, src).reshape(n, m).mean(axis=1)
    se = terms.std(ddof=1) / math.sqrt(n)
    assert est.stderr == pytest.approx(se, rel=1e-12)
    # the stderr comes from n = 30 context means: Student t on 29 dof (issue 29), 1.699
    # where the normal quantile would give 1.645
    from scipy.stats import t

    q = t.ppf(0.95, n - 1)
    assert est.ci == pytest.approx((est.value - q * se, est.value + q * se), rel=1e-9)
    assert est.ci_level == 0.9
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InfometerWarning)
        same = channel_mutual_info_from_scores(s.reshape(n, m, n))  # the (N, M, N) layout
        assert channel_mutual_info_from_scores(s, src, ci=None).ci is None
    assert same.value == pytest.approx(est.value, abs=1e-12)


def test_rate_in_bits_per_token():
    s = gaussian_scores(200, 0.5, seed=2)
    lengths = np.full(200, 5)
    lengths[:100] = 15  # mean 10 tokens
    est = channel_mutual_info_from_scores(s, lengths=lengths, unit="bits", ci=0.95)
    assert est.unit == "bits"
    assert est.diagnostics["mean_tokens"] == 10
    assert est.diagnostics["bits_per_token"] == pytest.approx(est.value / 10, rel=1e-12)
    lo, hi = est.diagnostics["bits_per_token_ci"]
    assert lo == pytest.approx(est.ci[0] / 10) and hi == pytest.approx(est.ci[1] / 10)
    nats = channel_mutual_info_from_scores(s, ci=0.95)
    assert est.value == pytest.approx(nats.value / math.log(2), rel=1e-12)


def test_leave_one_out_term_exceeds_infonce_term_iff_own_beats_the_others_mean():
    s = gaussian_scores(50, 0.7, seed=3)
    src = np.arange(50)
    lo, up = channel_terms(s, src), loo_terms(s, src)
    # s_i - log((e^s_i + S')/N) <= s_i - log(S'/(N-1))  <=>  S'/(N-1) <= e^s_i,
    # S' the others' likelihood mass: a per-summary identity, checked both ways
    own = np.exp(s[src, src])
    others_mean = (np.exp(s).sum(axis=1) - own) / 49
    wins = own > others_mean * (1 + 1e-9)
    loses = own < others_mean * (1 - 1e-9)
    assert wins.any() and loses.any()
    assert np.all(up[wins] > lo[wins]) and np.all(up[loses] < lo[loses])


def test_registry_and_generic_estimate_path():
    assert im.methods("channel_mi") == ["mc_loglik"]
    s = gaussian_scores(100, 1.0, seed=0)
    a = im.estimate("channel_mi", {"scores": s, "source": np.arange(100)}, method="mc_loglik")
    b = channel_mutual_info_from_scores(s, ci=None)
    assert a.value == pytest.approx(b.value, abs=1e-12)
    # the generic path recodes integers and strings as symbols: refused, not misread
    with pytest.raises(TypeError, match="floating-point"):
        im.estimate("channel_mi", {"scores": np.array([[0, -1], [-2, 0]]), "source": [0, 1]})
    for src in (["a", "b"], [-1, 0]):
        with pytest.raises(TypeError, match="context indices"):
            im.estimate("channel_mi", {"scores": np.array([[0.0, -1], [-2, 0]]), "source": src})


@pytest.mark.parametrize(
    ("scores", "source", "match"),
    [
        (np.array([[0.0, np.nan], [-1.0, 0.0]]), None, "finite or -inf"),
        (np.array([[0.0, np.inf], [-1.0, 0.0]]), None, "finite or -inf"),
        (np.zeros((3, 2)), None, "square"),
        (np.zeros((2, 1)), [0, 0], "at least 2"),
        (np.zeros((2, 3)), [0, 3], "index"),
        (np.zeros((2, 3)), [0], "one entry per row"),
        (np.array([[-np.inf, 0.0], [0.0, 0.0]]), None, "probability 0"),
        (np.zeros((2, 2, 3)), None, "as many candidates"),
    ],
)
def test_bad_scores_are_refused_with_the_argument_named(scores, source, match):
    with pytest.raises(ValueError, match=match):
        channel_mutual_info_from_scores(scores, source)


def test_bad_inputs_of_the_text_api():
    with pytest.raises(ValueError, match="at least 2"):
        channel_mutual_info(["only one"], lambda c: c, "builtin")
    with pytest.raises(TypeError, match="list of strings"):
        channel_mutual_info("a string", lambda c: c, "builtin")
    with pytest.raises(ValueError, match="queries has 1"):
        channel_mutual_info(["a b", "c d"], lambda c: c, "builtin", queries=["q"])
    with pytest.raises(TypeError, match="must return a string"):
        channel_mutual_info(["a b", "c d"], lambda c: 3, "builtin")
    with pytest.raises(ValueError, match="n_samples must be >= 1"):
        channel_mutual_info(["a b", "c d"], lambda c: c, "builtin", n_samples=0)
    with pytest.raises(ValueError, match="returned 1 values"):
        channel_mutual_info(["a b", "c d"], lambda c: c, lambda p, t: [0.0])
    with pytest.raises(TypeError, match="scorer must be"):
        channel_mutual_info(["a b", "c d"], lambda c: c, 3.5)


# ---------------------------------------------------------------- rate-distortion
def test_rate_distortion_fit_recovers_known_curve():
    r = np.linspace(0.05, 2.0, 8)
    d = 0.6 * np.exp(-1.7 * r) + 0.15  # exact points: least squares must return them
    fit = fit_rate_distortion(r, d)
    assert (fit.C, fit.b, fit.D0) == pytest.approx((0.6, 1.7, 0.15), rel=1e-4)
    assert fit.rmse < 1e-6
    assert fit(0.0) == pytest.approx(0.75, rel=1e-4)
    with pytest.raises(ValueError, match="3 distinct"):
        fit_rate_distortion([0.1, 0.1, 0.2], [0.5, 0.4, 0.3])
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        fit_rate_distortion([0.1, 0.2, 0.3], [0.5, 1.4, 0.3])
