"""InfoSEDD: entropy, mutual information and KL divergence by masked discrete diffusion.

The denoiser ``f`` predicts, at every masked position ``i`` of a partially masked
sequence ``z_M`` (mask set ``M``), the distribution ``pi(. | z_M)_i`` of the clean
token.  For two laws ``p, q`` diffused by the same absorbing process (log-linear
schedule, mask probability ``m(t) = t``), the KL divergence is

    KL(p || q) = int_0^1 (1/t) E_p[ sum_{i in M_t} KL(pi_p(.|z_M)_i || pi_q(.|z_M)_i) ] dt
               = D * E_{n ~ U{1..D}} E_{|M| = n} [ mean_{i in M} KL(pi_p,i || pi_q,i) ]

(the second, "time-free" form integrates the mask rate out: the KL chain rule
averaged over random orders).  InfoSEDD-H uses ``q`` = uniform, InfoSEDD-J uses
``q = p_X p_Y`` (the joint model with the other block masked), InfoSEDD-C uses
``p_{Y|x}`` against ``p_Y`` (``x`` clean vs. ``x`` masked).  See docs/infosedd.md.
"""

from __future__ import annotations

import dataclasses
import json
import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from infometer.core.data import InfometerWarning, check_choice, check_float, check_int
from infometer.core.estimate import Estimate
from infometer.core.progress import check_progress
from infometer.core.results import Result
from infometer.core.seeding import Seed, as_generator, resolve_seed
from infometer.core.training import (
    TrainLog,
    scaled_eval_every,
    scaled_width,
    small_network_threads,
    split_scaled,
    takes_training,
)
from infometer.core.training import train as train_loop
from infometer.core.uncertainty import (
    bias_check,
    interval_from_stderr,
    make_estimate,
    widen_by_bias,
)

from .model import build_denoiser, check_arch_kwargs, check_device
from .tokens import Tokens, as_tokens, parse_positions

__all__ = ["InfoSEDD", "ScanResult", "kl_divergence", "TrainLog"]

_MODES = ("entropy", "joint", "conditional")
_ESTIMATORS = ("time_free", "time_sampled")
_NEG = -1.0e4  # logit bias for tokens a position cannot take (softmax gives exactly 0)
#: Settings for large data; ``eval_every=None``, ``warmup=None`` and an MLP without a
#: ``hidden`` size are scaled down for fewer rows (:meth:`InfoSEDD._scale_to_data`).
LARGEST_EVAL_EVERY = 250
LARGEST_WARMUP = 200
LARGEST_HIDDEN = 256
_VAL_ROWS = 4096  # validation rows scored (a smaller split is repeated under new masks)
_VAL_MASK_PASSES = 16  # at most this many mask draws per validation row
_T_MIN = 1e-3  # clamp of the mask rate in the time-sampled estimator (1/t weight)


@dataclass(eq=False, repr=False)
class ScanResult(Result):
    """MI between a label block and every window of a sequence.

    Attributes
    ----------
    starts
        First position of each window (in sequence coordinates, label excluded).
    values, stderr
        MI estimate and Monte Carlo standard error of each window, in nats.
    window
        Window length.
    bias
        The bias check of each window (score minus likelihood form, nats; see
        :func:`likelihood_check`); the plotted band is widened by its magnitude.
    """

    starts: np.ndarray
    values: np.ndarray
    stderr: np.ndarray
    window: int
    bias: np.ndarray | None = None

    @property
    def peak(self) -> int:
        """Start of the window with the largest MI."""
        return int(self.starts[int(np.argmax(self.values))])

    def to_frame(self) -> Any:
        """One row per window: ``start``, ``mi`` (nats), ``stderr`` and, when recorded,
        ``bias_check``."""
        import pandas as pd

        cols = {"start": self.starts, "mi": self.values, "stderr": self.stderr}
        if self.bias is not None:
            cols["bias_check"] = self.bias
        return pd.DataFrame(cols)

    def plot(self, ax: Any = None, path: str | None = None) -> Any:
        """MI along the sequence with a band of ± 2 standard errors (Monte Carlo error
        only); draws on ``ax`` (a new figure if None), saves a PNG at ``path`` when given,
        returns the axes (``plot(path)``, the older form, still works)."""
        from infometer.core.plot import axes_and_path, finish, new_axes

        ax, path = axes_and_path(ax, path)
        _, ax = new_axes(ax, figsize=(8, 3))
        ax.plot(self.starts, self.values, marker=".", lw=1, label="I(label; window)")
        half = 2 * self.stderr + (0 if self.bias is None else np.abs(self.bias))
        ax.fill_between(
            self.starts,
            self.values - half,
            self.values + half,
            alpha=0.3,
            label=(
                "± (2 Monte Carlo stderr + |bias check|)"
                if self.bias is not None
                else "± 2 stderr (Monte Carlo)"
            ),
        )
        ax.set_xlabel(f"window start (window = {self.window})")
        ax.set_ylabel("I(label; window) [nats]")
        ax.legend(fontsize=7, loc="best")
        return finish(ax, path)


#: What an InfoSEDD ``stderr`` covers (recorded in every Estimate's diagnostics).
MC_STDERR_NOTE = (
    "Monte Carlo error only: the spread over held-out rows and random masks of this "
    "trained model's estimate; the model's own error (training, split, capacity) is not in "
    "it (a 16-step Markov chain came out 1.65% off, 3.9 of these standard errors). The bias "
    "check (diagnostics['bias_check']: score minus likelihood form) measures that error; "
    "intervals (ci=) are widened by it. For training and split variability use the "
    "functional API with ci= (re-trains with other seeds)."
)


class InfoSEDD:
    """A masked-diffusion denoiser trained for one kind of query, then queried many times.

    Parameters
    ----------
    mode
        ``"entropy"`` (all positions diffused), ``"joint"`` (InfoSEDD-J; with ``x``/``y``
        given, each training row is masked as {joint, X only, Y only} so the marginals are
        learned; with ``window`` given, Y is a random window of that length, for scans) or
        ``"conditional"`` (InfoSEDD-C: Y diffused, X clean or all masked).
    x, y
        Position sets (``"0:10"``, list of ints) of the two blocks (joint / conditional).
    window
        Window length for scan training (joint mode, ``x`` = label positions).
    arch
        ``"auto"`` (MLP for D <= 64, else transformer), ``"mlp"`` or ``"transformer"``.
    arch_kwargs
        Passed to the network (``hidden``, ``blocks``, ``d_embed``; ``d_model``,
        ``n_layers``, ``n_heads``).  Without ``hidden`` the MLP's width is scaled to the
        training rows: 128 below about 1,000 rows, 256 above.
    steps, batch_size, lr, weight_decay, warmup, grad_clip, ema
        AdamW optimisation with linear warm-up, gradient clipping and an EMA of the
        weights (the EMA weights are used for validation and estimation).  ``warmup=None``
        (default): two evaluation intervals, at most 200 steps.
    val_fraction, eval_every, patience
        Early stopping: every ``eval_every`` steps the EMA model's loss on a held-out
        validation split is computed; training stops after ``patience`` evaluations
        without improvement and the best weights are kept.  The untrained model (uniform
        predictions: entropy ``D log V``, MI 0) is scored too, and kept if training never
        beats it.  ``eval_every=None`` (default) scales to the training rows: ``n_train / 8``
        steps, between 25 and 250, with at least 200 steps of patience; a small validation
        split is scored under several masks per row.
    schedule
        Learning rate after the warm-up: ``"cosine"`` (default: decays to 5% at ``steps``)
        or ``"constant"`` (the default before, with ``steps=4000``; benchmarks/accuracy/infosedd.py
        ``speed`` compares the two).
    max_seconds, clock
        Time budget for training (``None``: none), on the ``"wall"`` clock or the
        process ``"cpu"`` clock.  The loop is the one shared by every trainable
        estimator, :func:`infometer.core.training.train`.
    holdout
        Fraction of the data ``fit`` keeps aside (never trained on) for estimation.
    joint_fraction
        Joint mode with blocks: share of training rows with both blocks in play; the rest
        is split evenly between X-only and Y-only rows.  The authors use 1/3 each; on the
        5-nat channel (1500 steps) 1/3, 0.6 and 0.8 gave -9.4%, -4.3% and -2.0%.
    device
        Torch device (``"cpu"`` by default; ``"cuda"`` for a GPU).
    seed
        Seed for the split, the initialisation, the masks and the estimators. An int >= 0 (the same
        int gives the same numbers), a numpy.random.Generator (drawn from as it is) or None (fresh
        entropy from the operating system).
    progress
        Show a progress bar while training.
    """

    @takes_training(
        scaled=("eval_every", "warmup"),
        steps=3000,
        lr=1e-3,
        weight_decay=0.01,
        warmup=200,
        grad_clip=1.0,
        ema=0.999,
        eval_every=250,
        patience=4,
        schedule="cosine",
    )
    def __init__(
        self,
        mode: str = "entropy",
        *,
        x: Any = None,
        y: Any = None,
        window: int | None = None,
        arch: str = "auto",
        arch_kwargs: dict[str, int] | None = None,
        batch_size: int = 256,
        val_fraction: float = 0.1,
        holdout: float = 0.2,
        joint_fraction: float = 0.8,
        device: str = "cpu",
        seed: Seed = 0,
        progress: bool | None = None,
        **training: Any,
    ) -> None:
        self.mode = check_choice(mode, "mode", _MODES)
        self.arch = check_choice(arch, "arch", ("auto", "mlp", "transformer"))
        self.arch_kwargs = check_arch_kwargs(dict(arch_kwargs or {}))
        given, self._scaled = split_scaled(training, ("eval_every", "warmup"))
        self._scaled["hidden"] = "hidden" not in self.arch_kwargs
        self.settings = InfoSEDD.__init__.training_defaults.updated(given, "InfoSEDD")
        self._given_patience = self.settings.patience
        self.steps = self.settings.steps
        self.batch_size = check_int(batch_size, "batch_size", min_value=1)
        self.val_fraction = check_float(val_fraction, "val_fraction", low=0.0, high=0.5)
        self.holdout = check_float(holdout, "holdout", low=0.0, high=0.9)
        self.joint_fraction = check_float(joint_fraction, "joint_fraction", low=0.0, high=1.0)
        self.seed = resolve_seed(seed)
        self.device = check_device(device)
        self.progress = check_progress(progress)
        self.window = None if window is None else check_int(window, "window", min_value=1)
        self._x_spec, self._y_spec = x, y
        if self.mode == "conditional" and (x is None or y is None):
            raise ValueError("mode='conditional' needs both x and y positions")
        if self.window is not None and (self.mode != "joint" or x is None):
            raise ValueError("window= (scan training) needs mode='joint' and the label positions x")
        self.net: torch.nn.Module | None = None
        self.log = TrainLog()
        self.holdout_tokens: np.ndarray | None = None

    # ------------------------------------------------------------------ set-up
    def _setup(self, tok: Tokens) -> None:
        n, d = tok.data.shape
        self.length = d
        self.vocab_size = tok.vocab_size
        self.alphabet_sizes = np.asarray(tok.alphabet_sizes, dtype=np.int64)
        self.alphabets = tok.alphabets
        x, y = self._x_spec, self._y_spec
        if x is None and y is None and len(tok.blocks) == 2 and self.mode != "entropy":
            x, y = tok.blocks
        self.x = None if x is None else parse_positions(x, d, "x")
        self.y = None if y is None else parse_positions(y, d, "y")
        if self.y is None and self.x is not None and self.window is None:
            self.y = np.setdiff1d(np.arange(d), self.x)
        if self.x is not None and self.y is not None and np.intersect1d(self.x, self.y).size:
            raise ValueError("x and y positions overlap")
        if self.window is not None:
            rest = np.setdiff1d(np.arange(d), self.x)
            if self.window > rest.size:
                raise ValueError(f"window={self.window} is longer than the sequence ({rest.size})")
            self.rest = rest
        self._make_bias()

    def _make_bias(self) -> None:
        sizes = torch.as_tensor(self.alphabet_sizes)[:, None]
        allowed = torch.arange(self.vocab_size)[None, :] < sizes
        self._bias = torch.where(allowed, 0.0, _NEG).to(self.device)

    def _build(self) -> None:
        kw = dict(self.arch_kwargs)
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(self.seed)
            self.net = build_denoiser(self.arch, self.vocab_size, self.length, **kw).to(self.device)
            self.ema_net = build_denoiser(self.arch, self.vocab_size, self.length, **kw).to(
                self.device
            )
        self.ema_net.load_state_dict(self.net.state_dict())
        self.ema_net.requires_grad_(False)

    def logits(self, z: torch.Tensor, net: torch.nn.Module | None = None) -> torch.Tensor:
        """Denoiser logits ``(B, D, V)`` for masked inputs ``z`` (mask id = V)."""
        net = self.ema_net if net is None else net
        return net(z) + self._bias

    # ------------------------------------------------------------- masking
    def _training_masks(self, b: int, gen: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
        """(keep, clean) boolean (b, D): positions in the process / given clean."""
        d, dev = self.length, self.device
        keep = torch.ones(b, d, dtype=torch.bool, device=dev)
        clean = torch.zeros(b, d, dtype=torch.bool, device=dev)
        if self.mode == "entropy":
            return keep, clean
        xm = torch.zeros(d, dtype=torch.bool, device=dev)
        xm[torch.as_tensor(self.x, device=dev)] = True
        if self.mode == "conditional":
            ym = torch.zeros(d, dtype=torch.bool, device=dev)
            ym[torch.as_tensor(self.y, device=dev)] = True
            given = torch.rand(b, generator=gen, device=dev) < 0.5
            clean = xm[None, :] & given[:, None]
            keep = ym[None, :] | clean
            return keep, clean
        if self.x is None:
            return keep, clean
        if self.window is not None:
            rest = torch.as_tensor(self.rest, device=dev)
            n_starts = rest.numel() - self.window + 1
            start = torch.randint(0, n_starts, (b,), generator=gen, device=dev)
            cols = rest[start[:, None] + torch.arange(self.window, device=dev)[None, :]]
            ym = torch.zeros(b, d, dtype=torch.bool, device=dev)
            ym.scatter_(1, cols, True)
        else:
            ym = torch.zeros(b, d, dtype=torch.bool, device=dev)
            ym[:, torch.as_tensor(self.y, device=dev)] = True
        u = torch.rand(b, 1, generator=gen, device=dev)
        half = (1.0 - self.joint_fraction) / 2
        keep = torch.where(
            u < self.joint_fraction,
            xm[None, :] | ym,
            torch.where(u < self.joint_fraction + half, xm[None, :], ym),
        )
        return keep, clean

    @staticmethod
    def _random_mask(
        active: torch.Tensor, gen: torch.Generator, estimator: str = "time_free"
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Mask a random subset of the active positions of each row; return (masked, weight).

        ``time_free``: n ~ U{1..|A|}, uniform subset of size n, weight |A|/n.
        ``time_sampled``: t ~ U(0, 1) (antithetic pairs), each active position masked
        with probability t, weight 1/max(t, 1e-3).
        """
        b, d = active.shape
        dev = active.device
        size = active.sum(1)
        if estimator == "time_free":
            u = torch.rand(b, generator=gen, device=dev)
            n = (u * size).floor().long().clamp(max=size - 1) + 1
            r = torch.rand(b, d, generator=gen, device=dev).masked_fill(~active, 2.0)
            ranks = r.argsort(1).argsort(1)
            masked = (ranks < n[:, None]) & active
            weight = size.float() / n.float()
        else:
            half = (b + 1) // 2
            t0 = torch.rand(half, generator=gen, device=dev)
            t = torch.cat([t0, 1.0 - t0])[:b]
            masked = (torch.rand(b, d, generator=gen, device=dev) < t[:, None]) & active
            weight = 1.0 / t.clamp(min=_T_MIN)
        return masked, weight

    def _mask_tokens(self, z0: torch.Tensor, hide: torch.Tensor) -> torch.Tensor:
        return z0.masked_fill(hide, self.vocab_size)

    # ------------------------------------------------------------- training
    def _loss(self, z0: torch.Tensor, gen: torch.Generator, net: torch.nn.Module) -> torch.Tensor:
        keep, clean = self._training_masks(z0.shape[0], gen)
        active = keep & ~clean
        masked, _ = self._random_mask(active, gen)
        z = self._mask_tokens(z0, ~keep | masked)
        logp = F.log_softmax(self.logits(z, net), -1)
        nll = -logp.gather(-1, z0[..., None]).squeeze(-1)
        n = masked.sum(1).clamp(min=1)
        return ((nll * masked).sum(1) / n).mean()

    def fit(self, data: Any, *, eval_data: Any = None, alphabet: str | None = None) -> InfoSEDD:
        """Train the denoiser.

        Parameters
        ----------
        data
            ``(n, D)`` integer tokens, equal-length strings, or :class:`Tokens`.
        eval_data
            Held-out data for the estimators.  When None, a fraction ``holdout`` of
            ``data`` is kept aside (never trained on).
        alphabet
            Symbol order for string data (e.g. ``"ACGT"``).

        Returns
        -------
        InfoSEDD
            ``self``, trained.
        """
        tok = as_tokens(data, "data", alphabet)
        self._setup(tok)
        rng = as_generator(self.seed)
        perm = rng.permutation(tok.data.shape[0])
        n_hold = 0 if eval_data is not None else int(round(self.holdout * perm.size))
        hold, rest = perm[:n_hold], perm[n_hold:]
        n_val = int(round(self.val_fraction * rest.size))
        val, train = rest[:n_val], rest[n_val:]
        if train.size < 2:
            raise ValueError(f"data has too few rows to train on ({tok.data.shape[0]})")
        if eval_data is not None:
            ev = as_tokens(eval_data, "eval_data", alphabet)
            if ev.data.shape[1] != self.length:
                raise ValueError(
                    f"eval_data has {ev.data.shape[1]} positions, data has {self.length}"
                )
            self.holdout_tokens = ev.data
        else:
            self.holdout_tokens = tok.data[hold]
        self._train(tok.data[train], tok.data[val])
        self.log.n_holdout = int(self.holdout_tokens.shape[0])
        return self

    def _scale_to_data(self, n_train: int) -> None:
        """The training rule for ``n_train`` rows (docs/infosedd.md, "Settings"): evaluate
        every ``n_train / 8`` steps (25 to 250) with at least 200 steps of patience, warm up
        over two evaluations (at most 200 steps), and an MLP width of 128 below about
        1,000 rows (256 above) unless ``arch_kwargs`` sets it."""
        s = self.settings
        if self._scaled["eval_every"]:
            every = scaled_eval_every(n_train, LARGEST_EVAL_EVERY)
            given = self._given_patience  # not a value raised by an earlier fit
            patience = None if given is None else max(given, -(-200 // every))
            s = dataclasses.replace(s, eval_every=every, patience=patience)
        if self._scaled["warmup"]:
            s = dataclasses.replace(s, warmup=min(LARGEST_WARMUP, 2 * s.eval_every))
        self.settings = s
        mlp = self.arch == "mlp" or (self.arch == "auto" and self.length <= 64)
        if mlp and self._scaled["hidden"]:
            self.arch_kwargs["hidden"] = scaled_width(n_train, LARGEST_HIDDEN, smallest=128)

    def _train(self, train: np.ndarray, val: np.ndarray) -> None:
        self._scale_to_data(len(train))
        self._build()
        assert self.net is not None
        dev = self.device
        xt = torch.as_tensor(train, device=dev)
        xv = None
        if val.size:  # a small split is scored under several masks: less noise in its loss
            reps = max(1, min(_VAL_MASK_PASSES, -(-_VAL_ROWS // len(val))))
            xv = torch.as_tensor(np.tile(val[:_VAL_ROWS], (reps, 1)), device=dev)
        gen = torch.Generator(device=dev).manual_seed(self.seed + 1)
        net = self.net

        def step_loss(step: int) -> torch.Tensor:
            idx = torch.randint(0, xt.shape[0], (self.batch_size,), generator=gen, device=dev)
            return self._loss(xt[idx], gen, net)

        self.log = train_loop(
            self.net,
            self.ema_net,
            step_loss,
            None if xv is None else (lambda: self._val_loss(xv)),
            self.settings,
            desc=f"InfoSEDD ({self.mode})",
            progress=self.progress,
            log=TrainLog(n_train=len(train), n_val=len(val)),
            val_at_start=True,
        )

    @torch.no_grad()
    def _val_loss(self, xv: torch.Tensor) -> float:
        gen = torch.Generator(device=self.device).manual_seed(self.seed + 2)
        tot, cnt = 0.0, 0
        for i in range(0, xv.shape[0], 1024):
            z0 = xv[i : i + 1024]
            tot += float(self._loss(z0, gen, self.ema_net)) * z0.shape[0]
            cnt += z0.shape[0]
        return tot / cnt

    def _check_fitted(self) -> None:
        if self.net is None and getattr(self, "ema_net", None) is None:
            raise RuntimeError("this InfoSEDD model is not trained: call fit() or load() first")

    # ------------------------------------------------------------ estimation
    def _eval_tokens(self, data: Any) -> np.ndarray:
        self._check_fitted()
        if data is None:
            if self.holdout_tokens is None or self.holdout_tokens.shape[0] == 0:
                raise ValueError(
                    "no held-out data: pass data= to the query, or fit with holdout > 0"
                )
            return self.holdout_tokens
        tok = as_tokens(data, "data")
        if tok.data.shape[1] != self.length:
            raise ValueError(f"data has {tok.data.shape[1]} positions, the model {self.length}")
        if (tok.data >= self.alphabet_sizes[None, :]).any():
            raise ValueError("data has tokens outside the alphabet the model was trained on")
        return tok.data

    @torch.no_grad()
    def _monte_carlo(
        self,
        data: np.ndarray,
        keep: torch.Tensor,
        clean: torch.Tensor,
        divergence: Callable[
            [torch.Tensor, torch.Tensor, torch.Tensor], tuple[torch.Tensor, torch.Tensor]
        ],
        *,
        estimator: str,
        passes: int,
        seed: int,
        batch_size: int,
    ) -> tuple[float, float, dict[str, Any]]:
        """Average of ``weight * sum_{i masked} divergence_i`` over rows and passes.

        ``divergence(z, masked, z0)`` returns two ``(B, D)`` tensors on the same masks:
        the score form of the query (what is estimated) and its likelihood form, the same
        quantity from the log-probabilities of the held-out tokens ``z0`` (for entropy the
        held-out cross-entropy, an upper bound in expectation).  With the exact denoiser
        the two agree in expectation; their gap is the model-error check
        (``diagnostics["likelihood_gap"]``).

        Returns the estimate, its Monte Carlo standard error (rows i.i.d.; each row's
        value is the mean over passes) and diagnostics.
        """
        estimator = check_choice(estimator, "estimator", _ESTIMATORS)
        passes = check_int(passes, "passes", min_value=1)
        gen = torch.Generator(device=self.device).manual_seed(int(seed) + 7919)
        x0 = torch.as_tensor(data, device=self.device)
        n = x0.shape[0]
        if n < 2:
            raise ValueError("need at least 2 held-out rows to estimate")
        rows = torch.zeros(n, dtype=torch.float64)
        like = torch.zeros(n, dtype=torch.float64)
        active_all = keep & ~clean
        with small_network_threads(self.ema_net, self.device):
            for _ in range(passes):
                for i in range(0, n, batch_size):
                    z0 = x0[i : i + batch_size]
                    b = z0.shape[0]
                    act = active_all.expand(b, -1)
                    masked, weight = self._random_mask(act, gen, estimator)
                    z = self._mask_tokens(z0, ~keep.expand(b, -1) | masked)
                    div, lik = divergence(z, masked, z0)
                    rows[i : i + b] += (weight * (div * masked).sum(1)).double().cpu()
                    like[i : i + b] += (weight * (lik * masked).sum(1)).double().cpu()
        rows /= passes
        like /= passes
        value = float(rows.mean())
        se = float(rows.std(unbiased=True)) / math.sqrt(n)
        gap = rows - like
        diag = {
            "n_eval": int(n),
            "passes": passes,
            "estimator": estimator,
            "likelihood_value": float(like.mean()),
            "likelihood_gap": float(gap.mean()),
            "likelihood_gap_se": float(gap.std(unbiased=True)) / math.sqrt(n),
        }
        return value, se, diag

    def _positions_mask(self, pos: np.ndarray | None) -> torch.Tensor:
        m = torch.zeros(1, self.length, dtype=torch.bool, device=self.device)
        if pos is None:
            m[:] = True
        else:
            m[0, torch.as_tensor(pos, device=self.device)] = True
        return m

    def _query(
        self,
        data: Any,
        keep: Any,
        clean: Any,
        div: Any,
        quantity: str,
        method: str,
        warns: list[str],
        extra: dict,
        *,
        estimator: str,
        passes: int,
        seed: int | None,
        batch_size: int,
        ci: float | None = None,
    ) -> Estimate:
        """Monte Carlo over held-out rows of one query's divergence, wrapped as an Estimate."""
        _check_ci(ci)
        v, se, diag = self._monte_carlo(
            data,
            keep,
            clean,
            div,
            estimator=estimator,
            passes=passes,
            seed=resolve_seed(seed),
            batch_size=batch_size,
        )
        if warns:
            diag["warnings"] = warns
        diag.update(extra)
        return self._estimate(
            v, se, quantity, method, diag, {"estimator": estimator, "passes": passes}, 4, ci
        )

    def _estimate(
        self,
        value: float,
        se: float,
        quantity: str,
        method: str,
        diag: dict,
        params: dict,
        stacklevel: int = 3,
        ci: float | None = None,
    ) -> Estimate:
        diag = dict(diag)
        warns = list(diag.pop("warnings", []))
        if "likelihood_gap" in diag:
            check, cw = likelihood_check(value, diag, quantity)
            diag.update(check)
            warns.extend(cw)
        diag["untrained_model"] = self.log.best_step == 0 and self.log.steps > 0
        if diag["untrained_model"]:
            warns.append(
                "the trained denoiser never beat the untrained one (uniform predictions at "
                "every position) on the validation rows, so the untrained one is used: its "
                f"{_UNTRAINED[quantity]}; there is no evidence of structure at this sample "
                f"size ({self.log.n_train} training rows); give more rows if you expect some"
            )
        for msg in warns:
            warnings.warn(msg, InfometerWarning, stacklevel=stacklevel)
        if warns:
            diag["warnings"] = warns
        diag["stderr_kind"] = "monte_carlo"
        diag["stderr_note"] = MC_STDERR_NOTE
        diag["train"] = self.log.summary()
        interval = None
        if ci is not None:
            level = _check_ci(ci)
            interval = widen_by_bias(interval_from_stderr(value, se, level), diag.get("bias_check"))
            diag["ci_method"] = (
                "value ± z·(Monte Carlo stderr), widened by the bias check (|likelihood gap|)"
            )
        return make_estimate(
            value,
            method=method,
            quantity=quantity,
            params=params,
            n=diag.get("n_eval"),
            stderr=se,
            ci=interval,
            ci_level=None if interval is None else float(ci),
            diagnostics=diag,
        )

    def entropy(
        self,
        positions: Any = None,
        *,
        data: Any = None,
        estimator: str = "time_free",
        passes: int = 5,
        seed: Seed = 0,
        batch_size: int = 1024,
        ci: float | None = None,
    ) -> Estimate:
        """InfoSEDD-H: entropy (nats) of the tokens at ``positions`` (default: all).

        ``H = sum over random orders of the model's conditional entropies``
        (time-free) or ``int (1/t) E[sum_{masked} H(pi_i)] dt`` (time-sampled).
        Positions outside ``positions`` are kept masked, so a subset's entropy needs a
        model trained on that subset's marginal (entropy mode covers all positions;
        joint mode covers x, y and x+y).

        Parameters
        ----------
        seed
            An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from
            as it is) or None (fresh entropy from the operating system).
        """
        data = self._eval_tokens(data)
        warns: list[str] = []
        if positions is None:
            pos = self.y if self.mode == "conditional" else None
        else:
            pos = parse_positions(positions, self.length, "positions")
        if self.mode == "conditional" and not np.array_equal(np.sort(pos), np.sort(self.y)):
            raise ValueError("a conditional-mode model knows only the entropy of its y block")
        if self.mode == "joint" and pos is not None and self.x is not None:
            trained = [set(self.x.tolist()), set(self.y.tolist()) if self.y is not None else set()]
            trained.append(trained[0] | trained[1])
            if self.window is None and set(pos.tolist()) not in trained:
                warns.append("positions differ from the blocks the model was trained on")
        keep = self._positions_mask(pos)
        clean = torch.zeros_like(keep)

        def div(z: torch.Tensor, masked: torch.Tensor, z0: torch.Tensor) -> Any:
            logp = F.log_softmax(self.logits(z), -1)
            return -(logp.exp() * logp).sum(-1), -_at(logp, z0)

        return self._query(
            data,
            keep,
            clean,
            div,
            "entropy",
            "infosedd_h",
            warns,
            {},
            estimator=estimator,
            passes=passes,
            seed=seed,
            batch_size=batch_size,
            ci=ci,
        )

    def mutual_info(
        self,
        x: Any = None,
        y: Any = None,
        *,
        data: Any = None,
        estimator: str = "time_free",
        passes: int = 5,
        seed: Seed = 0,
        batch_size: int = 1024,
        ci: float | None = None,
    ) -> Estimate:
        """I(X;Y) in nats between two disjoint position sets.

        Joint mode (InfoSEDD-J): ``KL(p_XY || p_X p_Y)`` where the marginal scores come
        from the same model with the other block masked; any two disjoint sets may be
        queried (default: the ones trained for).  Conditional mode (InfoSEDD-C):
        ``E_x KL(p_{Y|x} || p_Y)`` for the trained ``x``, ``y`` only.

        Parameters
        ----------
        seed
            An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from
            as it is) or None (fresh entropy from the operating system).
        """
        data = self._eval_tokens(data)
        if self.mode == "entropy":
            raise ValueError(
                "an entropy-mode model has no MI query: fit mode='joint' or 'conditional'"
            )
        xs = self.x if x is None else parse_positions(x, self.length, "x")
        ys = self.y if y is None else parse_positions(y, self.length, "y")
        if xs is None or ys is None:
            raise ValueError("pass the x and y positions (the model was not trained with them)")
        if np.intersect1d(xs, ys).size:
            raise ValueError("x and y positions overlap")
        warns: list[str] = []
        xm, ym = self._positions_mask(xs), self._positions_mask(ys)
        if self.mode == "conditional":
            if not (
                np.array_equal(np.sort(xs), np.sort(self.x))
                and np.array_equal(np.sort(ys), np.sort(self.y))
            ):
                raise ValueError("a conditional-mode model answers only the x, y it was trained on")
            keep, clean, method = xm | ym, xm, "infosedd_c"

            def div(z: torch.Tensor, masked: torch.Tensor, z0: torch.Tensor) -> Any:
                lc = F.log_softmax(self.logits(z), -1)
                lm = F.log_softmax(self.logits(self._mask_tokens(z, xm.expand_as(z))), -1)
                return (lc.exp() * (lc - lm)).sum(-1), _at(lc - lm, z0)
        else:
            keep, clean, method = xm | ym, torch.zeros_like(xm), "infosedd_j"
            if (
                self.x is not None
                and self.window is None
                and not (
                    set(xs.tolist()) | set(ys.tolist())
                    <= set(self.x.tolist()) | set(self.y.tolist())
                )
            ):
                warns.append("queried positions differ from the blocks the model was trained on")

            def div(z: torch.Tensor, masked: torch.Tensor, z0: torch.Tensor) -> Any:
                lj = F.log_softmax(self.logits(z), -1)
                lx = F.log_softmax(self.logits(self._mask_tokens(z, ym.expand_as(z))), -1)
                ly = F.log_softmax(self.logits(self._mask_tokens(z, xm.expand_as(z))), -1)
                lmarg = torch.where(xm[..., None], lx, ly)
                return (lj.exp() * (lj - lmarg)).sum(-1), _at(lj - lmarg, z0)

        return self._query(
            data,
            keep,
            clean,
            div,
            "mutual_info",
            method,
            warns,
            {"x_positions": xs.tolist(), "y_positions": ys.tolist()},
            estimator=estimator,
            passes=passes,
            seed=seed,
            batch_size=batch_size,
            ci=ci,
        )

    def scan(
        self,
        window: int | None = None,
        *,
        label: Any = None,
        starts: Sequence[int] | None = None,
        data: Any = None,
        estimator: str = "time_free",
        passes: int = 3,
        seed: Seed = 0,
        batch_size: int = 1024,
    ) -> ScanResult:
        """MI between the label positions and every sliding window (one joint model).

        Parameters
        ----------
        window
            Window length (default: the one trained for).
        label
            Label positions (default: the model's ``x``).
        starts
            Window starts, as indices into the non-label positions (default: all).
        seed
            An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from
            as it is) or None (fresh entropy from the operating system).
        """
        if self.mode != "joint":
            raise ValueError("scan needs a joint-mode model")
        lab = self.x if label is None else parse_positions(label, self.length, "label")
        if lab is None:
            raise ValueError("pass label= positions (the model was not trained with them)")
        w = self.window if window is None else check_int(window, "window", min_value=1)
        if w is None:
            raise ValueError("pass window=")
        rest = np.setdiff1d(np.arange(self.length), lab)
        if w > rest.size:
            raise ValueError(f"window={w} is longer than the sequence ({rest.size})")
        all_starts = np.arange(rest.size - w + 1)
        st = all_starts if starts is None else np.asarray(list(starts), dtype=np.int64)
        if st.size == 0 or st.min() < 0 or st.max() > all_starts[-1]:
            raise ValueError(f"starts must lie in 0..{all_starts[-1]}")
        vals, ses, bias, flagged = [], [], [], []
        seed = resolve_seed(seed)  # every window's Monte Carlo from the same root
        for s in st:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # one summary below, not one per window
                est = self.mutual_info(
                    lab,
                    rest[s : s + w],
                    data=data,
                    estimator=estimator,
                    passes=passes,
                    seed=seed,
                    batch_size=batch_size,
                )
            vals.append(est.value)
            ses.append(est.stderr)
            bias.append(est.diagnostics["bias_check"])
            if est.diagnostics["bias_check_large"]:
                flagged.append(int(s))
        if flagged:
            warnings.warn(
                f"the bias check (score minus likelihood form of each window's MI) is not "
                f"small next to the value at {len(flagged)} of {len(st)} windows (starts "
                f"{flagged[:8]}{' ...' if len(flagged) > 8 else ''}): read those windows with "
                "the band widened by it (ScanResult.bias), or train on more rows",
                InfometerWarning,
                stacklevel=2,
            )
        return ScanResult(st, np.array(vals), np.array(ses), w, np.array(bias))

    # ------------------------------------------------------------ persistence
    def config(self) -> dict[str, Any]:
        """The settings needed to rebuild this model (JSON-serialisable)."""
        return {
            "mode": self.mode,
            "arch": self.arch,
            "arch_kwargs": self.arch_kwargs,
            "vocab_size": self.vocab_size,
            "length": self.length,
            "alphabet_sizes": self.alphabet_sizes.tolist(),
            "x": None if self.x is None else self.x.tolist(),
            "y": None if self.y is None else self.y.tolist(),
            "window": self.window,
            "seed": self.seed,
            "alphabets": [None if a is None else [str(s) for s in a] for a in self.alphabets],
            "train_log": {
                "steps": self.log.steps,
                "best_step": self.log.best_step,
                "best_val_loss": self.log.best_val_loss,
                "seconds": self.log.seconds,
                "n_train": self.log.n_train,
            },
        }

    def save(self, path: str) -> None:
        """Save the EMA weights, the config and the held-out tokens with safetensors."""
        from safetensors.torch import save_file

        self._check_fitted()
        tensors = {
            f"net.{k}": v.detach().cpu().contiguous() for k, v in self.ema_net.state_dict().items()
        }
        if self.holdout_tokens is not None:
            tensors["holdout_tokens"] = torch.as_tensor(self.holdout_tokens)
        save_file(tensors, str(path), metadata={"infometer_infosedd": json.dumps(self.config())})

    @classmethod
    def load(cls, path: str, *, device: str = "cpu") -> InfoSEDD:
        """Load a model saved by :meth:`save` (safetensors only; nothing is unpickled)."""
        from safetensors import safe_open
        from safetensors.torch import load_file

        with safe_open(str(path), framework="pt") as f:
            meta = f.metadata() or {}
        if "infometer_infosedd" not in meta:
            raise ValueError(f"{path} is not an infometer InfoSEDD checkpoint")
        cfg = json.loads(meta["infometer_infosedd"])
        tensors = load_file(str(path))
        obj = cls(
            cfg["mode"],
            x=cfg["x"],
            y=cfg["y"],
            window=cfg["window"],
            arch=cfg["arch"],
            arch_kwargs=cfg["arch_kwargs"],
            seed=cfg["seed"],
            device=device,
        )
        obj.length, obj.vocab_size = cfg["length"], cfg["vocab_size"]
        obj.alphabet_sizes = np.asarray(cfg["alphabet_sizes"], dtype=np.int64)
        obj.alphabets = tuple(None if a is None else np.array(a) for a in cfg["alphabets"])
        obj.x = None if cfg["x"] is None else np.asarray(cfg["x"], dtype=np.int64)
        obj.y = None if cfg["y"] is None else np.asarray(cfg["y"], dtype=np.int64)
        if obj.window is not None:
            obj.rest = np.setdiff1d(np.arange(obj.length), obj.x)
        obj._make_bias()
        obj._build()
        obj.ema_net.load_state_dict({k[4:]: v for k, v in tensors.items() if k.startswith("net.")})
        obj.ema_net.eval()
        obj.net = None
        tl = cfg.get("train_log", {})
        obj.log = TrainLog(
            steps=tl.get("steps", 0),
            best_step=tl.get("best_step", 0),
            best_val_loss=tl.get("best_val_loss", math.inf),
            seconds=tl.get("seconds", 0.0),
            n_train=tl.get("n_train", 0),
        )
        ht = tensors.get("holdout_tokens")
        obj.holdout_tokens = None if ht is None else ht.numpy().astype(np.int64)
        return obj


_UNTRAINED = {
    "entropy": "entropy is D log V, the largest possible value",
    "mutual_info": "MI is 0",
    "kl_divergence": "KL is that of the uniform law against the model of q",
}
_FORMS = {
    "entropy": "the held-out cross-entropy (the same entropy from the log-probabilities of "
    "the held-out tokens; an upper bound in expectation)",
    "mutual_info": "the likelihood form of the same MI (mean log-ratio of the held-out "
    "tokens' probabilities under the joint and the marginal scores)",
    "kl_divergence": "the likelihood form of the same KL (mean log-ratio of the held-out "
    "tokens' probabilities under the two models)",
}


def likelihood_check(
    value: float, diag: dict[str, Any], quantity: str
) -> tuple[dict[str, Any], list[str]]:
    """The bias check of an InfoSEDD query: its score form minus its likelihood form.

    Both forms are computed on the same held-out rows and masks (:meth:`InfoSEDD._monte_carlo`);
    with the exact denoiser they agree in expectation (the score form is an average of
    exact conditional divergences, the likelihood form of their log-ratios at the
    held-out tokens), so their gap measures the model's error at this sample size:
    an over-confident model (memorised training rows) has a low entropy and a high
    cross-entropy, spurious MI a likelihood form near 0.
    """
    lik, gap, se = diag["likelihood_value"], diag["likelihood_gap"], diag["likelihood_gap_se"]
    what = (
        f"{_FORMS[quantity]} is {lik:.3g} nats, {abs(gap):.3g} nats "
        f"{'below' if gap > 0 else 'above'} the estimate (± {se:.2g})"
    )
    return bias_check(
        value,
        gap,
        method="likelihood_gap",
        what=what,
        se=se,
        reference={"likelihood_value": lik},
    )


def _check_ci(ci: Any) -> float | None:
    """The level of a query's interval, checked before any Monte Carlo."""
    return (
        None if ci is None else check_float(ci, "ci", low=0.0, high=1.0, inclusive=(False, False))
    )


def _at(logp: torch.Tensor, z0: torch.Tensor) -> torch.Tensor:
    """``logp[..., z0]``: the value at each position's held-out token, shape ``(B, D)``."""
    return logp.gather(-1, z0[..., None]).squeeze(-1)


def kl_divergence(
    p_model: InfoSEDD,
    q_model: InfoSEDD,
    *,
    data: Any = None,
    estimator: str = "time_free",
    passes: int = 5,
    seed: Seed = 0,
    batch_size: int = 1024,
    ci: float | None = None,
) -> Estimate:
    """KL(p || q) in nats from two entropy-mode models trained on samples of p and of q.

    ``KL = D E_n E_{|M|=n} mean_{i in M} KL(pi_p(.|z_M)_i || pi_q(.|z_M)_i)`` with ``z ~ p``
    (``data``: held-out samples of p; default ``p_model``'s held-out split).

    Parameters
    ----------
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).
    """
    for m, nm in ((p_model, "p_model"), (q_model, "q_model")):
        if m.mode != "entropy":
            raise ValueError(f"{nm} must be an entropy-mode model (all positions diffused)")
    if p_model.length != q_model.length:
        raise ValueError("p and q models have different sequence lengths")
    if not np.array_equal(p_model.alphabet_sizes, q_model.alphabet_sizes):
        raise ValueError("p and q models have different alphabets")
    _check_ci(ci)
    x0 = p_model._eval_tokens(data)
    keep = p_model._positions_mask(None)

    def div(z: torch.Tensor, masked: torch.Tensor, z0: torch.Tensor) -> Any:
        lp = F.log_softmax(p_model.logits(z), -1)
        lq = F.log_softmax(q_model.logits(z), -1)
        return (lp.exp() * (lp - lq)).sum(-1), _at(lp - lq, z0)

    v, se, diag = p_model._monte_carlo(
        x0,
        keep,
        torch.zeros_like(keep),
        div,
        estimator=estimator,
        passes=passes,
        seed=resolve_seed(seed),
        batch_size=batch_size,
    )
    return p_model._estimate(
        v,
        se,
        "kl_divergence",
        "infosedd",
        diag,
        {"estimator": estimator, "passes": passes},
        ci=ci,
    )
