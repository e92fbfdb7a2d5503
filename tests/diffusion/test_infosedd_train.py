"""Trained InfoSEDD models on small problems with exact answers (tiny settings, CPU).

Tolerances are set from what a few hundred steps of a small MLP achieve: the
estimator error then is dominated by the model's approximation error (the brief
measured 1-2% for C and up to 5-15% for J at full settings), plus the Monte Carlo
standard error; each bound below says which.
"""

from __future__ import annotations

import numpy as np
import pytest

import infometer as im

torch = pytest.importorskip("torch")

TINY = {
    "steps": 400,
    "batch_size": 128,
    "arch_kwargs": {"hidden": 64, "blocks": 2},
    "eval_every": 100,
    "warmup": 50,
    "lr": 3e-3,
}


pytestmark = pytest.mark.slow  # the slow lane: deselected by make test-fast


def channel(n, pairs, v, err, seed):
    """x uniform on v symbols; y = x w.p. 1-err else another symbol uniformly."""
    rng = np.random.default_rng(seed)
    x = rng.integers(0, v, (n, pairs))
    flip = rng.random((n, pairs)) < err
    y = np.where(flip, (x + rng.integers(1, v, x.shape)) % v, x)
    mi = pairs * (np.log(v) + (1 - err) * np.log(1 - err) + err * np.log(err / (v - 1)))
    return x, y, mi


def test_entropy_of_iid_tokens():
    from infometer.estimators.diffusion import InfoSEDD

    rng = np.random.default_rng(0)
    p = np.array([0.6, 0.3, 0.1])
    data = rng.choice(3, size=(5000, 5), p=p)
    truth = 5 * -(p * np.log(p)).sum()
    m = InfoSEDD("entropy", seed=0, **TINY).fit(data)
    est = m.entropy(passes=2)
    # independent positions: the optimum is reached fast; 2% covers the residual fit error
    assert abs(est.value - truth) < 0.02 * truth + 3 * est.stderr, (est.value, truth)
    assert m.log.steps <= TINY["steps"] and m.log.n_train + m.log.n_val == 4000


@pytest.fixture(scope="module")
def channel_models():
    from infometer.estimators.diffusion import InfoSEDD

    x, y, mi = channel(8000, 2, 4, 0.1, seed=1)
    data = np.hstack([x, y])
    c = InfoSEDD("conditional", x="0:2", y="2:4", seed=0, **TINY).fit(data)
    j = InfoSEDD("joint", x="0:2", y="2:4", seed=0, **{**TINY, "steps": 600}).fit(data)
    return c, j, mi


def test_channel_mi_conditional(channel_models):
    c, _, mi = channel_models
    est = c.mutual_info(passes=3)
    assert est.method == "infosedd_c" and est.quantity == "mutual_info"
    # C: 1-2% at full settings (brief section 9); 6% after 400 tiny steps
    assert abs(est.value - mi) < 0.06 * mi, (est.value, mi)
    ts = c.mutual_info(passes=3, estimator="time_sampled")
    assert abs(ts.value - mi) < 0.06 * mi + 3 * ts.stderr
    with pytest.raises(ValueError, match="only the x, y"):
        c.mutual_info([0], [2])
    hy = c.entropy()  # H(Y) from the marginal (x masked) half of the training
    assert abs(hy.value - 2 * np.log(4)) < 0.03 * 2 * np.log(4)


def test_channel_mi_joint(channel_models):
    _, j, mi = channel_models
    est = j.mutual_info(passes=3)
    assert est.method == "infosedd_j"
    # J converges slowest (brief: -5% at 4k steps, +15% on Ising halves); after 600
    # tiny steps its joint conditionals are still a bit flat (-4.4% measured at seed 0),
    # so the bound is 10%
    assert abs(est.value - mi) < 0.10 * mi, (est.value, mi)
    # marginal blocks are uniform: H(X) = 2 log 4 from the X-only training rows
    hx = j.entropy("0:2")
    assert abs(hx.value - 2 * np.log(4)) < 0.03 * 2 * np.log(4)
    # any disjoint subsets: one aligned pair carries half the MI, a crossed pair none
    pair = j.mutual_info([0], [2], passes=3)
    cross = j.mutual_info([0], [3], passes=3)
    assert pair.value > 0.75 * (mi / 2) and cross.value < 0.05
    with pytest.warns(UserWarning, match="differ from the blocks"):
        j.entropy([0, 2])
    with pytest.raises(ValueError, match="overlap"):
        j.mutual_info([0, 1], [1, 2])


def test_independent_blocks_near_zero():
    from infometer.estimators.diffusion import InfoSEDD

    rng = np.random.default_rng(2)
    data = rng.integers(0, 4, (6000, 4))
    m = InfoSEDD("joint", x="0:2", y="2:4", seed=0, **TINY).fit(data)
    est = m.mutual_info(passes=3)
    # every KL term is >= 0, so the estimate is a small positive bias from imperfect
    # marginal scores; the target: within 2 stderr or 0.05 nats of 0
    assert est.value < max(2 * est.stderr, 0.05)


def test_functional_api_and_seeds():
    x, y, mi = channel(5000, 2, 4, 0.1, seed=3)
    kw = {"steps": 300, "batch_size": 128, "hidden": 64, "lr": 3e-3}
    a = im.mutual_info(x, y, method="infosedd_c", discrete=True, seed=4, **kw)
    b = im.mutual_info(x, y, method="infosedd_c", discrete=True, seed=4, **kw)
    assert a.value == b.value and b.method == "infosedd_c"  # seeded: reproducible
    # Monte Carlo error only: kept in diagnostics, not reported as the stderr (issue 9);
    # ci= re-trains with other seeds (exercised at tiny settings in test_every_estimator)
    assert a.stderr is None and a.diagnostics["mc_stderr"] > 0
    assert abs(a.value - mi) < 0.1 * mi
    with pytest.raises(TypeError, match="steps"):
        im.mutual_info(x, y, method="infosedd", discrete=True, steps=1.5)
    with pytest.raises(TypeError, match="no parameter 'stepz'"):
        im.mutual_info(x, y, method="infosedd", discrete=True, stepz=3)
    with pytest.raises(ValueError, match="discrete"):
        im.mutual_info(x + 0.5, y, method="infosedd")


def test_functional_entropy_on_strings_and_kl():
    rng = np.random.default_rng(5)
    p = np.array([0.7, 0.1, 0.1, 0.1])
    seqs = ["".join(s) for s in rng.choice(list("ACGT"), size=(3000, 4), p=p)]
    kw = {"steps": 300, "batch_size": 128, "hidden": 64, "lr": 3e-3}
    h = im.entropy(seqs, method="infosedd", **kw)
    truth = 4 * -(p * np.log(p)).sum()
    assert abs(h.value - truth) < 0.05 * truth, (h.value, truth)
    q = np.array([0.25, 0.25, 0.25, 0.25])
    pa = rng.choice(4, size=(4000, 3), p=p)
    qa = rng.choice(4, size=(4000, 3), p=q)
    kl = im.kl_divergence(pa, qa, method="infosedd", **kw)
    kl_true = 3 * (p * np.log(p / q)).sum()
    assert abs(kl.value - kl_true) < 0.1 * kl_true, (kl.value, kl_true)


def test_save_load_roundtrip(tmp_path, channel_models):
    from safetensors.torch import save_file

    from infometer.estimators.diffusion import InfoSEDD

    _, m, _ = channel_models
    path = tmp_path / "m.safetensors"
    m.save(path)
    m2 = InfoSEDD.load(path)
    assert m2.mode == "joint" and np.array_equal(m2.holdout_tokens, m.holdout_tokens)
    assert m.mutual_info(seed=1).value == pytest.approx(m2.mutual_info(seed=1).value, abs=1e-6)
    bad = tmp_path / "other.safetensors"
    save_file({"w": torch.zeros(2)}, str(bad))
    with pytest.raises(ValueError, match="not an infometer"):
        InfoSEDD.load(bad)


def test_motif_scan_finds_planted_window():
    from infometer.estimators.diffusion import InfoSEDD

    rng = np.random.default_rng(7)
    n, length, w, at = 5000, 10, 3, 4
    seqs = rng.integers(0, 4, (n, length))
    label = rng.integers(0, 2, n)
    carry = (label == 1) & (rng.random(n) > 0.2)  # 20% of positives lack the motif
    seqs[carry, at : at + w] = [3, 0, 3]  # "TAT"
    data = np.hstack([label[:, None], seqs])
    m = InfoSEDD("joint", x=[0], window=w, seed=0, **TINY).fit(data)
    res = m.scan(passes=2)
    assert res.peak == at, res.values
    assert res.values[at] > 3 * np.delete(res.values, np.arange(at - w + 1, at + w)).max()


def test_transformer_denoiser_trains():
    from infometer.estimators.diffusion import InfoSEDD

    rng = np.random.default_rng(8)
    data = (rng.random((2000, 6)) < 0.2).astype(int)  # biased bits: H = 6 h(0.2) = 3.00 nats
    truth = 6 * -(0.2 * np.log(0.2) + 0.8 * np.log(0.8))
    m = InfoSEDD(
        "entropy",
        arch="transformer",
        steps=200,
        lr=1e-2,
        batch_size=64,
        seed=0,
        arch_kwargs={"d_model": 16, "n_layers": 1, "n_heads": 2},
        eval_every=50,
        device="cpu",
    ).fit(data)
    est = m.entropy(passes=1)
    # the untrained (uniform) model gives 6 log 2 = 4.16: training had to beat it
    assert m.log.best_step > 0 and not est.diagnostics["untrained_model"]
    # independent positions: the marginals are learned fast; 200 steps, a loose 5% bound
    assert abs(est.value - truth) < 0.05 * truth, (est.value, truth)
