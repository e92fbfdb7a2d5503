"""The shared training loop (infometer.core.training): schedule, stopping rules, divergence."""

from __future__ import annotations

import math

import pytest

from infometer.core.training import TrainSettings, ema_decay, run_epochs, train

torch = pytest.importorskip("torch")


def test_settings_validation_names_the_argument():
    with pytest.raises(TypeError, match="steps"):
        TrainSettings(steps=1.5)
    with pytest.raises(ValueError, match="lr"):
        TrainSettings(lr=0.0)
    with pytest.raises(ValueError, match="clock"):
        TrainSettings(clock="sundial")
    with pytest.raises(ValueError, match="schedule"):
        TrainSettings(schedule="linear")
    assert TrainSettings(patience=None).patience is None
    assert TrainSettings.from_kwargs({"steps": 7, "other": 1}).steps == 7


def test_learning_rate_schedules():
    const = TrainSettings(steps=1000, warmup=100)
    assert const.lr_factor(0) == pytest.approx(0.01) and const.lr_factor(99) == 1.0
    assert const.lr_factor(999) == 1.0
    cos = TrainSettings(steps=1000, warmup=100, schedule="cosine")
    assert cos.lr_factor(49) == const.lr_factor(49)  # same warm-up
    assert cos.lr_factor(100) == pytest.approx(1.0)
    assert cos.lr_factor(550) == pytest.approx(0.05 + 0.95 * 0.5)  # half-way: the mean
    assert cos.lr_factor(1000) == pytest.approx(0.05)
    assert ema_decay(0.999, 0) == pytest.approx(0.1) and ema_decay(0.999, 10**6) == 0.999


def _problem(seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(256, 3, generator=g)
    y = x @ torch.tensor([1.0, -2.0, 0.5]) + 0.1 * torch.randn(256, generator=g)
    torch.manual_seed(seed)
    net = torch.nn.Linear(3, 1)
    ema = torch.nn.Linear(3, 1)
    ema.load_state_dict(net.state_dict())

    def step_loss(step):
        return ((net(x).squeeze(1) - y) ** 2).mean()

    def val_loss():
        with torch.no_grad():
            return float(((ema(x).squeeze(1) - y) ** 2).mean())

    return net, ema, step_loss, val_loss


def test_trains_and_keeps_the_best_ema_weights():
    net, ema, step_loss, val_loss = _problem()
    log = train(
        net,
        ema,
        step_loss,
        val_loss,
        TrainSettings(steps=300, lr=0.05, warmup=10, eval_every=20, patience=3),
    )
    # least squares with noise sd 0.1: the optimum's loss is ~0.01
    # the kept step is the best up to min_delta (smaller gains do not count as improvement)
    assert log.best_val_loss < 0.05
    assert log.best_val_loss <= min(v for _, v in log.val_losses) + TrainSettings().min_delta
    assert val_loss() == pytest.approx(log.best_val_loss)
    assert log.stop_reason in ("early_stopping", "max_steps") and not ema.training
    assert log.seconds > 0 and log.cpu_seconds > 0


def test_divergence_stops_and_is_flagged():
    net, ema, step_loss, val_loss = _problem()

    def exploding(step):
        loss = step_loss(step)
        return loss * math.nan if step == 25 else loss

    log = train(net, ema, exploding, val_loss, TrainSettings(steps=100, eval_every=10))
    assert log.diverged and log.stop_reason == "diverged" and log.steps == 24
    assert math.isfinite(val_loss())  # the best weights from before are kept


def test_time_budget_and_untrained_candidate():
    net, ema, step_loss, val_loss = _problem()
    log = train(
        net,
        ema,
        step_loss,
        val_loss,
        TrainSettings(steps=10**6, eval_every=10**6, max_seconds=0.2, clock="cpu"),
    )
    assert log.stop_reason == "time_budget" and log.steps < 10**6
    # a validation loss that only gets worse: with val_at_start the initial weights win
    net, ema, step_loss, _ = _problem(1)
    start = {k: v.clone() for k, v in ema.state_dict().items()}
    calls = iter(range(1000))
    log = train(
        net,
        ema,
        step_loss,
        lambda: float(next(calls)),
        TrainSettings(steps=50, eval_every=10, patience=2),
        val_at_start=True,
    )
    assert log.best_step == 0 and log.stop_reason == "early_stopping"
    assert all(torch.equal(v, start[k]) for k, v in ema.state_dict().items())


def _regression(seed: int = 0):
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(40, 3, generator=gen)
    w_true = torch.tensor([[1.5], [-2.0], [0.5]])
    return x, x @ w_true, w_true


def test_run_epochs_fits_least_squares_and_matches_a_plain_loop():
    """Known answer: noiseless linear data, so the least-squares weights are the true ones;
    and the shared loop is the plain Adam loop it replaced, step for step (bitwise)."""
    x, y, w_true = _regression()

    def fit(shared: bool):
        w = torch.zeros(3, 1, requires_grad=True)
        opt = torch.optim.Adam([w], lr=0.05)
        gen = torch.Generator().manual_seed(1)

        def batches(_epoch):
            perm = torch.randperm(40, generator=gen)
            for s in range(0, 40, 16):  # 16, 16 and a last batch of 8
                yield perm[s : s + 16]

        def loss_of(idx):
            loss = ((x[idx] @ w - y[idx]) ** 2).mean()
            return loss, {"mse": loss.item()}

        if shared:
            hist = run_epochs(opt, 150, batches, loss_of, before_epoch=lambda e: {"epoch": e})
        else:
            hist = []
            for e in range(150):
                tot, nb = 0.0, 0
                for idx in batches(e):
                    loss, parts = loss_of(idx)
                    opt.zero_grad()
                    loss.backward()
                    opt.step()
                    tot += parts["mse"]
                    nb += 1
                hist.append({"epoch": e, "mse": tot / nb})
        return w.detach(), hist

    w_shared, hist = fit(True)
    w_plain, hist_plain = fit(False)
    assert torch.equal(w_shared, w_plain) and hist == hist_plain
    assert list(hist[0]) == ["epoch", "mse"] and hist[-1]["epoch"] == 149
    # Adam at lr 0.05 after 450 steps: within 1e-2 of the exact solution (measured ~1e-4)
    assert torch.allclose(w_shared, w_true, atol=1e-2)
    assert hist[-1]["mse"] < 1e-3 < hist[0]["mse"]


def test_run_epochs_skips_sums_clips_and_schedules():
    x, y, _ = _regression(2)
    w = torch.zeros(3, 1, requires_grad=True)
    opt = torch.optim.SGD([w], lr=1.0)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    seen = []

    def loss_of(i):
        if i == 1:
            return None  # skipped: no step, not counted
        seen.append(i)
        loss = 1e6 * ((x @ w - y) ** 2).mean()  # a huge gradient, clipped to norm 0.1
        return loss, {"n": 1.0}

    hist = run_epochs(
        opt,
        2,
        lambda e: range(3),
        loss_of,
        scheduler=sched,
        grad_clip=0.1,
        reduce="sum",
        keys=("n", "never"),
    )
    assert seen == [0, 2, 0, 2]
    assert hist == [{"n": 2.0, "never": 0.0}, {"n": 2.0, "never": 0.0}]
    assert opt.param_groups[0]["lr"] == pytest.approx(1.0 / 16)  # 4 scheduler steps
    # four SGD steps of length lr * 0.1 at most: 0.1 + 0.05 + 0.025 + 0.0125
    assert float(w.norm()) <= 0.1875 + 1e-6
    with pytest.raises(ValueError, match="reduce"):
        run_epochs(opt, 1, lambda e: [], loss_of, reduce="max")
