"""The training loops: :func:`train` for every trainable estimator (InfoSEDD, the neural MI
bounds, FlowNIB), :func:`run_epochs` for the models fitted over epochs (DJIP, Koopman,
alignment adapter, CLIB, learned planners).

torch is imported inside the functions that need it, so importing this module is free.

The loop (:func:`train`) is AdamW with a linear learning-rate warm-up, gradient-norm
clipping and an exponential moving average (EMA) of the weights; every ``eval_every``
steps it scores the EMA network on a validation split and keeps the best weights;
it stops early after ``patience`` evaluations without improvement, at ``steps``, at a
time budget (``max_seconds``), or at the first non-finite loss (flagged as diverged).
What a step computes is the caller's business: ``step_loss(step)`` draws its own batch
and returns the loss of the trained network, ``val_loss()`` scores the EMA network.

:class:`TrainSettings` validates the optimiser settings once for every family
(``TrainSettings.from_kwargs``), so the same parameter means the same thing everywhere.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import math
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any, TypeVar

from infometer.core.data import check_choice, check_float, check_int
from infometer.core.progress import progress_bar
from infometer.core.results import Result
from infometer.core.validation import resolve_device

__all__ = [
    "TrainLog",
    "TrainSettings",
    "check_device",
    "ema_decay",
    "optimizer",
    "run_epochs",
    "set_threads",
    "small_network_threads",
    "scaled_eval_every",
    "scaled_width",
    "split_scaled",
    "train",
]

_CLOCKS = ("wall", "cpu")
_SCHEDULES = ("constant", "cosine")
_LR_FLOOR = 0.05
#: Networks with fewer parameters than this train (in :func:`train`) and are evaluated (the
#: estimators' held-out passes) on one torch thread on the CPU: their matrix products are
#: too small to share out, and torch's default of one thread per core spends more time in
#: synchronisation than in arithmetic (an InfoSEDD MLP: 30 steps in 38.5 s on all cores
#: against 2.7 s on one; docs/neural.md times its examples).  The caller's thread count
#: is restored afterwards.
SMALL_NETWORK = 5_000_000


#: The device check of every trainable estimator (one implementation, in validation).
check_device = resolve_device


@dataclass(eq=False, repr=False)
class TrainLog(Result):
    """What happened during training.

    Attributes
    ----------
    steps
        Optimiser steps taken.
    best_step
        Step whose EMA weights were kept (the best validation loss).
    best_val_loss
        Validation loss of the kept weights.
    val_losses
        ``(step, validation loss)`` at every evaluation.
    train_values
        ``(step, smoothed training value)`` at every evaluation (the value the step
        function reports, e.g. the minibatch bound; the loss when it reports none).
    stopped_early
        True when early stopping ended training before ``steps``.
    stop_reason
        ``"early_stopping"``, ``"max_steps"``, ``"time_budget"`` or ``"diverged"``.
    diverged
        True when the loss became NaN or infinite (training stopped there).
    seconds, cpu_seconds
        Wall-clock and process CPU time of the loop (their ratio is the parallelism).
    n_train, n_val, n_holdout
        Rows used for training, validation and the final (held-out) estimate.
    """

    steps: int = 0
    best_step: int = 0
    best_val_loss: float = math.inf
    val_losses: list[tuple[int, float]] = field(default_factory=list)
    train_values: list[tuple[int, float]] = field(default_factory=list)
    stopped_early: bool = False
    stop_reason: str = ""
    diverged: bool = False
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    n_train: int = 0
    n_val: int = 0
    n_holdout: int = 0

    def summary(self) -> dict[str, Any]:
        """JSON-safe facts for an Estimate's diagnostics."""
        return {
            "steps": self.steps,
            "best_step": self.best_step,
            "best_val_loss": self.best_val_loss,
            "stopped_early": self.stopped_early,
            "stop_reason": self.stop_reason,
            "diverged": self.diverged,
            "seconds": round(self.seconds, 2),
            "cpu_seconds": round(self.cpu_seconds, 2),
            "n_train": self.n_train,
        }


@dataclass(frozen=True)
class TrainSettings:
    """Validated optimiser settings shared by the trainable families.

    Parameters
    ----------
    steps
        Maximum optimiser steps.
    lr, weight_decay
        AdamW learning rate and decoupled weight decay.
    warmup
        Steps of linear learning-rate warm-up.
    grad_clip
        Maximum global gradient norm.
    ema
        Decay of the exponential moving average of the weights (its warm-up is
        ``min(ema, (1 + step) / (10 + step))``); the EMA weights are validated and used.
    eval_every
        Steps between validation evaluations.
    patience
        Evaluations without improvement before stopping (``None``: never stop early).
    min_delta
        Improvement of the validation loss that counts as one.
    max_seconds
        Time budget for the loop (``None``: none), measured on ``clock``.
    clock
        ``"wall"`` (elapsed time) or ``"cpu"`` (process CPU time: a fair budget on a
        loaded machine).
    schedule
        Learning rate after the warm-up: ``"constant"`` or ``"cosine"`` (cosine decay to
        5% of ``lr`` at ``steps``).
    """

    steps: int = 4000
    lr: float = 1e-3
    weight_decay: float = 0.01
    warmup: int = 200
    grad_clip: float = 1.0
    ema: float = 0.999
    eval_every: int = 250
    patience: int | None = 4
    min_delta: float = 1e-4
    max_seconds: float | None = None
    clock: str = "wall"
    schedule: str = "constant"

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "steps", check_int(self.steps, "steps", min_value=1))
        set_(self, "lr", check_float(self.lr, "lr", low=0.0, inclusive=(False, True)))
        set_(self, "weight_decay", check_float(self.weight_decay, "weight_decay", low=0.0))
        set_(self, "warmup", check_int(self.warmup, "warmup", min_value=0))
        set_(
            self,
            "grad_clip",
            check_float(self.grad_clip, "grad_clip", low=0.0, inclusive=(False, True)),
        )
        set_(self, "ema", check_float(self.ema, "ema", low=0.0, high=1.0, inclusive=(True, False)))
        set_(self, "eval_every", check_int(self.eval_every, "eval_every", min_value=1))
        if self.patience is not None:
            set_(self, "patience", check_int(self.patience, "patience", min_value=1))
        set_(self, "min_delta", check_float(self.min_delta, "min_delta", low=0.0))
        if self.max_seconds is not None:
            set_(
                self,
                "max_seconds",
                check_float(self.max_seconds, "max_seconds", low=0.0, inclusive=(False, True)),
            )
        set_(self, "clock", check_choice(self.clock, "clock", _CLOCKS))
        set_(self, "schedule", check_choice(self.schedule, "schedule", _SCHEDULES))

    def lr_factor(self, k: int) -> float:
        """Multiplier of ``lr`` after ``k`` optimiser steps (warm-up, then the schedule)."""
        warm = min(1.0, (k + 1) / max(1, self.warmup))
        if self.schedule == "constant" or k < self.warmup:
            return warm
        frac = min(1.0, (k - self.warmup) / max(1, self.steps - self.warmup))
        return _LR_FLOOR + (1 - _LR_FLOOR) * 0.5 * (1 + math.cos(math.pi * frac))

    @classmethod
    def fields(cls) -> tuple[str, ...]:
        return tuple(cls.__dataclass_fields__)

    @classmethod
    def from_kwargs(cls, kwargs: dict[str, Any]) -> TrainSettings:
        """Settings from the entries of ``kwargs`` that name a field (the rest are ignored)."""
        return cls(**{k: kwargs[k] for k in cls.fields() if k in kwargs})

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def updated(self, given: dict[str, Any], owner: str) -> TrainSettings:
        """These settings with the ``given`` ones changed (checked); an unknown name is a
        ``TypeError`` naming ``owner``, as Python's own error for a keyword would."""
        unknown = sorted(set(given) - set(self.fields()))
        if unknown:
            raise TypeError(f"{owner} got unexpected keyword arguments {unknown}")
        return replace(self, **given)


_F = TypeVar("_F", bound=Callable[..., Any])


def takes_training(scaled: tuple[str, ...] = (), **defaults: Any) -> Callable[[_F], _F]:
    """Declare the training hyper-parameters on a model that takes them as ``**training``.

    Their names, types and checks are :class:`TrainSettings`' (one declaration for every
    trainable model); the model states only the defaults it changes.  The signature that
    ``inspect.signature`` (``help``, the registry, the surface test) reads lists them
    after the function's own parameters, with the model's defaults; the function gets
    them with ``func.training_defaults.updated(training, name)``.  The names in ``scaled``
    default to ``None`` in the signature: the model scales them to the data at fit time
    (issue 35), from the value in ``defaults`` (the one for large data); see
    :func:`split_scaled`.
    """
    base = TrainSettings(**defaults)

    def decorate(func: _F) -> _F:
        sig = inspect.signature(func)
        own = [p for p in sig.parameters.values() if p.kind is not p.VAR_KEYWORD]
        extra = [
            inspect.Parameter(
                name,
                inspect.Parameter.KEYWORD_ONLY,
                default=None if name in scaled else getattr(base, name),
                annotation=f"{kind} | None" if name in scaled else kind,
            )
            for name, kind in TrainSettings.__annotations__.items()
        ]
        func.__signature__ = sig.replace(parameters=[*own, *extra])  # type: ignore[attr-defined]
        func.training_defaults = base  # type: ignore[attr-defined]
        return func

    return decorate


def split_scaled(training: dict[str, Any], names: tuple[str, ...]) -> tuple[dict, dict]:
    """(the settings given, whether each of ``names`` is left to the data's scale).

    A name absent from ``training`` or given as ``None`` is scaled; the others are kept
    as given.

    Examples
    --------
    >>> split_scaled({"eval_every": None, "lr": 0.1, "warmup": 5}, ("eval_every", "warmup"))
    ({'lr': 0.1, 'warmup': 5}, {'eval_every': True, 'warmup': False})
    """
    flags = {k: training.get(k) is None for k in names}
    given = {k: v for k, v in training.items() if not (k in flags and v is None)}
    return given, flags


def ema_decay(target: float, step: int) -> float:
    """EMA decay at ``step``: warmed up so that short runs are not dominated by the start."""
    return min(target, (1.0 + step) / (10.0 + step))


def set_threads(threads: int | None) -> int:
    """torch's intra-op threads of every later training loop of this process (``None``:
    leave the choice as is); return the count a training loop will use.

    Training loops (:func:`train`, :func:`run_epochs`) run torch on one thread by default
    (small networks; ``infometer.core._threads``), BLAS on one, and restore both after.
    """
    from infometer.core._threads import set_training_threads, torch_threads

    if threads is not None:
        set_training_threads(check_int(threads, "threads", min_value=1))
    return torch_threads()


@contextlib.contextmanager
def small_network_threads(net: Any, device: Any = "cpu") -> Iterator[int]:
    """Run the block on one torch thread when ``net`` is small and on the CPU (restored
    after); yields the thread count in use.

    Examples
    --------
    >>> import torch
    >>> with small_network_threads(torch.nn.Linear(2, 2)) as k:
    ...     k
    1
    """
    import torch

    n_params = sum(p.numel() for p in net.parameters())
    cpu = torch.device(device).type == "cpu"
    before = torch.get_num_threads()
    one = cpu and n_params < SMALL_NETWORK and before > 1
    if one:
        torch.set_num_threads(1)
    try:
        yield torch.get_num_threads()
    finally:
        if one:
            torch.set_num_threads(before)


def scaled_eval_every(n_train: int, largest: int, *, smallest: int = 25) -> int:
    """Steps between validation evaluations scaled to the data: ``n_train / 8``, at least
    ``smallest`` and at most ``largest`` (the setting for large data).  A few hundred rows
    are then checked every few dozen steps, before a network that memorises them gets far
    (the early-stopping rule of docs/neural.md and docs/infosedd.md).

    Examples
    --------
    >>> scaled_eval_every(216, 250), scaled_eval_every(720, 250), scaled_eval_every(40_000, 250)
    (27, 90, 250)
    """
    return int(min(largest, max(smallest, round(n_train / 8))))


def scaled_width(n_train: int, largest: int, *, smallest: int = 32) -> int:
    """Hidden width scaled to the data: the power of two nearest ``n_train / 4``, between
    ``smallest`` and ``largest`` (the width for large data), so that a few hundred rows do
    not meet a network with a hundred times as many parameters.

    Examples
    --------
    >>> scaled_width(216, 256), scaled_width(720, 256), scaled_width(3600, 256)
    (64, 128, 256)
    """
    width = 2 ** round(math.log2(max(1.0, n_train / 4)))
    return int(min(largest, max(smallest, width)))


def _clock(kind: str) -> Callable[[], float]:
    return time.perf_counter if kind == "wall" else time.process_time


def _on_small_network_threads(func: Callable[..., TrainLog]) -> Callable[..., TrainLog]:
    """Run ``func(net, ...)`` inside :func:`small_network_threads` of ``net``."""

    @functools.wraps(func)
    def wrapper(net: Any, *args: Any, **kwargs: Any) -> TrainLog:
        device = next((p.device for p in net.parameters()), "cpu")
        with small_network_threads(net, device):
            return func(net, *args, **kwargs)

    return wrapper


@_on_small_network_threads
def train(
    net: Any,
    ema_net: Any,
    step_loss: Callable[[int], Any],
    val_loss: Callable[[], float] | None,
    settings: TrainSettings,
    *,
    desc: str = "training",
    progress: bool | None = None,
    on_eval: Callable[[int], None] | None = None,
    log: TrainLog | None = None,
    val_at_start: bool = False,
) -> TrainLog:
    """Optimise ``net``; keep the best EMA weights in ``ema_net``; return the log.

    Parameters
    ----------
    net, ema_net
        Two ``torch.nn.Module`` of the same architecture; ``ema_net`` starts as a copy of
        ``net``, receives the moving average and ends holding the best weights (eval mode).
    step_loss
        ``step_loss(step)`` draws a batch and returns the scalar loss of ``net``, or
        ``(loss, value)`` where ``value`` (a float or 0-d tensor) is logged, smoothed, in
        :attr:`TrainLog.train_values` (e.g. the minibatch MI bound).
    val_loss
        ``val_loss()``: loss of ``ema_net`` on the validation split (lower is better),
        or None for no validation (the last EMA weights are kept).
    settings
        Optimiser, schedule and stopping settings.
    desc, progress
        Progress-bar label and switch.
    on_eval
        Called with the step after each evaluation (e.g. to record a trajectory).
    log
        A log to fill (its row counts are kept); a new one by default.
    val_at_start
        Score the untrained network too (step 0): if training never beats it on the
        validation split, the initial weights are kept (a neural MI critic initialised to a
        constant then reports 0 instead of an overfitted value).

    A network below :data:`SMALL_NETWORK` parameters trains on one torch thread on the CPU
    (:func:`small_network_threads`).
    """
    from infometer.core._threads import training_threads

    with training_threads():
        return _train(
            net, ema_net, step_loss, val_loss, settings, desc, progress, on_eval, log, val_at_start
        )


def _train(
    net, ema_net, step_loss, val_loss, settings, desc, progress, on_eval, log, val_at_start
) -> TrainLog:
    import torch

    s = settings
    log = TrainLog() if log is None else log
    params = [p for p in net.parameters() if p.requires_grad]
    ema_params = [p for p in ema_net.parameters()]
    opt = torch.optim.AdamW(params, lr=s.lr, weight_decay=s.weight_decay, foreach=True)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, s.lr_factor)
    clock = _clock(s.clock)
    t0, c0, b0 = time.perf_counter(), time.process_time(), clock()
    bar = progress_bar(total=s.steps, desc=desc, unit="step", progress=progress, leave=True)
    best_state = None
    bad = 0
    smooth = None
    if val_at_start and val_loss is not None:
        ema_net.eval()
        vl = float(val_loss())
        log.val_losses.append((0, vl))
        if math.isfinite(vl):
            log.best_val_loss, log.best_step = vl, 0
            best_state = {k: v.detach().clone() for k, v in ema_net.state_dict().items()}
    net.train()
    for step in range(1, s.steps + 1):
        out = step_loss(step)
        loss, value = out if isinstance(out, tuple) else (out, None)
        lv = float(loss.detach())
        if not math.isfinite(lv):
            log.diverged, log.stop_reason = True, "diverged"
            break
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, s.grad_clip, foreach=True)
        opt.step()
        sched.step()
        with torch.no_grad():
            torch._foreach_lerp_(ema_params, params, 1.0 - ema_decay(s.ema, step))
        log.steps = step
        v = lv if value is None else float(value)
        if math.isfinite(v):
            smooth = v if smooth is None else 0.95 * smooth + 0.05 * v
        if bar is not None:
            bar.update(1)
            if step % 50 == 0:
                bar.set_postfix(loss=f"{lv:.4f}")
        last = step == s.steps
        over = s.max_seconds is not None and clock() - b0 >= s.max_seconds
        if step % s.eval_every == 0 or last or over:
            if smooth is not None:
                log.train_values.append((step, smooth))
            stop = False
            if val_loss is not None:
                vl = float(val_loss())
                log.val_losses.append((step, vl))
                if vl < log.best_val_loss - s.min_delta:
                    log.best_val_loss, log.best_step, bad = vl, step, 0
                    best_state = {k: v.detach().clone() for k, v in ema_net.state_dict().items()}
                elif math.isfinite(vl):
                    bad += 1
                    stop = s.patience is not None and bad >= s.patience
                else:
                    log.diverged, log.stop_reason = True, "diverged"
                    stop = True
            if on_eval is not None:
                on_eval(step)
            if stop:
                if not log.diverged:
                    log.stopped_early, log.stop_reason = True, "early_stopping"
                break
            if over:
                log.stop_reason = "time_budget"
                break
    if not log.stop_reason:
        log.stop_reason = "max_steps"
    if bar is not None:
        bar.close()
    if best_state is not None:
        ema_net.load_state_dict(best_state)
    else:
        log.best_step = log.steps
    ema_net.eval()
    log.seconds = time.perf_counter() - t0
    log.cpu_seconds = time.process_time() - c0
    return log


def optimizer(
    params: Any,
    *,
    lr: float,
    weight_decay: float = 0.0,
    cosine_steps: int | None = None,
    decoupled: bool = False,
    min_lr: float = 0.0,
) -> tuple[Any, Any]:
    """The optimiser of every model trained with :func:`run_epochs` (and of the sender of
    :mod:`infometer.systems.decision.multiturn`): Adam at ``lr`` with L2 ``weight_decay`` (AdamW's
    decoupled decay with ``decoupled``), and, with ``cosine_steps``, a cosine-annealed
    learning rate from ``lr`` to ``min_lr`` over that many steps (else no scheduler).
    Returns ``(opt, scheduler)``.

    Examples
    --------
    >>> import torch
    >>> opt, sched = optimizer([torch.zeros(2, requires_grad=True)], lr=1e-2)
    >>> type(opt).__name__, sched is None
    ('Adam', True)
    """
    import torch

    lr = check_float(lr, "lr", low=0.0, inclusive=(False, True))
    kind = torch.optim.AdamW if decoupled else torch.optim.Adam
    opt = kind(params, lr=lr, weight_decay=weight_decay)
    sched = None
    if cosine_steps is not None:
        sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=cosine_steps, eta_min=min_lr)
    return opt, sched


def run_epochs(
    opt: Any,
    epochs: int,
    batches: Callable[[int], Iterable[Any]],
    batch_loss: Callable[[Any], tuple[Any, dict[str, float]] | None],
    *,
    before_epoch: Callable[[int], dict[str, float]] | None = None,
    scheduler: Any = None,
    grad_clip: float | None = None,
    keys: Sequence[str] = (),
    reduce: str = "mean",
    desc: str = "training",
    progress: bool | None = None,
) -> list[dict[str, float]]:
    """Minibatch epochs for the models that are fitted rather than estimated (DJIP and
    distillation, the Koopman autoencoder, the alignment adapter, CLIB, learned planners).

    :func:`train` optimises a bound on held-out rows with EMA and early stopping; these
    models are trained for a fixed number of epochs on all their rows, each with its own
    batching and loss, through this one loop.  Per epoch: ``record = before_epoch(epoch)``
    (per-epoch work such as re-clustering or teacher outputs; ``{}`` if None), then for each
    item of ``batches(epoch)`` (drawn in the caller's random order) ``batch_loss(item)``
    returns ``(loss, parts)`` or None to skip the item; the loop zeroes the gradients,
    back-propagates, clips the gradient norm (``grad_clip``), steps ``opt`` and then
    ``scheduler``, and sums the logged ``parts``.

    Returns one record per epoch: ``record`` followed by each part's mean over the epoch's
    batches (``reduce="sum"``: the sums); ``keys`` are logged as 0 when no batch ran.
    """
    check_choice(reduce, "reduce", ("mean", "sum"))
    from infometer.core._threads import training_threads

    with training_threads():
        return _run_epochs(
            opt,
            epochs,
            batches,
            batch_loss,
            before_epoch,
            scheduler,
            grad_clip,
            keys,
            reduce,
            desc,
            progress,
        )


def _run_epochs(
    opt,
    epochs,
    batches,
    batch_loss,
    before_epoch,
    scheduler,
    grad_clip,
    keys,
    reduce,
    desc,
    progress,
) -> list[dict[str, float]]:
    import torch

    params = [p for g in opt.param_groups for p in g["params"]]
    bar = progress_bar(total=epochs, desc=desc, unit="epoch", progress=progress)
    history = []
    for epoch in range(epochs):
        record = dict(before_epoch(epoch)) if before_epoch is not None else {}
        sums = dict.fromkeys(keys, 0.0)
        nb = 0
        for item in batches(epoch):
            out = batch_loss(item)
            if out is None:
                continue
            loss, parts = out
            opt.zero_grad(set_to_none=True)
            loss.backward()
            if grad_clip is not None:
                torch.nn.utils.clip_grad_norm_(params, grad_clip)
            opt.step()
            if scheduler is not None:
                scheduler.step()
            for k, v in parts.items():
                sums[k] = sums.get(k, 0.0) + v
            nb += 1
        means = {k: v / max(nb, 1) for k, v in sums.items()}
        record.update(sums if reduce == "sum" else means)
        history.append(record)
        if bar is not None:
            bar.update(1)
            bar.set_postfix({k: f"{v:.4g}" for k, v in list(means.items())[:2]})
    if bar is not None:
        bar.close()
    return history
