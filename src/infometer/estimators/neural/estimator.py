"""``NeuralMI``: train a critic for one variational bound, then estimate on held-out rows.

The data are split once (seeded) into training rows, a validation split for early
stopping and a held-out split that the critic never sees; the estimate is computed on
the held-out split only.  Training is :func:`infometer.core.training.train`, the loop shared
with InfoSEDD (AdamW, warm-up, clipping, EMA weights, early stopping, time budget).
"""

from __future__ import annotations

import copy
import dataclasses
import math
import warnings
from typing import Any

import numpy as np
import torch

from infometer.core.data import (
    InfometerWarning,
    Variable,
    as_variables,
    check_choice,
    check_float,
    check_int,
    scaled_moments,
)
from infometer.core.estimate import Estimate
from infometer.core.progress import check_progress
from infometer.core.saturation import ceiling_flags
from infometer.core.seeding import Seed, as_generator, resolve_seed
from infometer.core.training import (
    TrainLog,
    check_device,
    scaled_eval_every,
    scaled_width,
    small_network_threads,
    split_scaled,
    takes_training,
    train,
)
from infometer.core.uncertainty import (
    bias_check,
    interval_from_stderr,
    make_estimate,
    widen_by_bias,
)

from ._reference import describe, reference_data
from .bounds import BOUNDS, DIME, MovingLogMean, bound_value, dime_objective, infonce_rows
from .bounds import training_loss as bound_loss
from .critics import CRITICS, FrontEnd, build_critic

__all__ = ["NeuralMI"]

#: Product pairs per row for concat critics and conditional MI (derangement shifts /
#: conditional neighbours).
NEGATIVES = 8
#: Neighbours in Z among which conditional product partners are drawn.
CMI_NEIGHBOURS = 5
#: A held-out or smoothed training estimate below minus this many nats flags a broken critic.
DIVERGED_BELOW = 1.0
#: Width and evaluation interval for large data (``hidden=None``, ``eval_every=None``
#: scale them down for fewer rows: :func:`infometer.core.training.scaled_width`,
#: :func:`infometer.core.training.scaled_eval_every`).
LARGEST_HIDDEN = 256
LARGEST_EVAL_EVERY = 100
#: Offset of the reference critic's seed from the estimate's (bias check).
_REFERENCE_SEED = 7919


class _Encoder:
    """Column layout and training-split standardisation of one validated variable."""

    def __init__(self, var: Variable, train_rows: np.ndarray) -> None:
        self.name = var.name
        self.d = var.d
        self.cont = [j for j, k in enumerate(var.kinds) if k == "continuous"]
        self.disc = [j for j, k in enumerate(var.kinds) if k == "discrete"]
        self.cards = [int(var.cardinalities[j] or 1) for j in self.disc]
        self.kinds = list(var.kinds)
        self.symbols = [None if var.symbols is None else var.symbols[j] for j in self.disc]
        if self.cont:
            c = np.column_stack([var.columns[j] for j in self.cont])[train_rows]
            # moments of the columns times a power of two: no overflow near 1e±300
            self.scale, self.mean, sd = scaled_moments(c)
            self.constant = [self.cont[i] for i in np.flatnonzero(~(sd > 0))]
            self.sd = np.where(sd > 0, sd, 1.0)
        else:
            self.scale = self.mean = self.sd = np.zeros(0)
            self.constant = []

    def front(self, embed_dim: int) -> FrontEnd:
        return FrontEnd(len(self.cont), self.cards, embed_dim)

    def arrays(self, var: Variable, fitted: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """(standardised continuous float32, discrete int64 codes) of ``var``'s rows."""
        n = var.n
        if list(var.kinds) != [
            "continuous" if j in self.cont else "discrete" for j in range(self.d)
        ]:
            raise ValueError(
                f"{var.name} has column kinds {list(var.kinds)}, the model was fitted on "
                f"{['continuous' if j in self.cont else 'discrete' for j in range(self.d)]}"
            )
        cont = np.zeros((n, len(self.cont)), dtype=np.float32)
        if self.cont:
            c = np.column_stack([var.columns[j] for j in self.cont])
            with np.errstate(under="ignore"):
                cont = ((c * self.scale - self.mean) / self.sd).astype(np.float32)
        disc = np.zeros((n, len(self.disc)), dtype=np.int64)
        for i, j in enumerate(self.disc):
            col = var.columns[j]
            if not fitted:
                sym_new = None if var.symbols is None else var.symbols[j]
                sym_old = self.symbols[i]
                vals = col if sym_new is None else sym_new[col]
                if sym_old is not None:
                    pos = np.searchsorted(sym_old, vals)
                    pos = np.clip(pos, 0, len(sym_old) - 1)
                    if not np.all(sym_old[pos] == vals):
                        raise ValueError(f"{var.name}[:, {j}] has symbols the model never saw")
                    col = pos
                else:
                    col = np.asarray(vals, dtype=np.int64)
                if col.size and (col.min() < 0 or col.max() >= self.cards[i]):
                    raise ValueError(f"{var.name}[:, {j}] has symbols the model never saw")
            disc[:, i] = col
        return cont, disc


class NeuralMI:
    """A critic trained for one variational MI bound, queried on held-out rows.

    Parameters
    ----------
    bound
        ``"infonce"``, ``"mine"``, ``"nwj"``, ``"dv"``, ``"smile"`` (variational lower
        bounds; the value is the bound on held-out rows) or ``"kl_dime"``, ``"gan_dime"``,
        ``"hd_dime"`` (f-DIME: the value is the mean log density ratio on held-out rows).
    critic
        ``"separable"`` (``g(x)ᵀh(y)``; every other row of a batch is a product sample) or
        ``"concat"`` (an MLP on ``[x, y]``; product samples by derangement, InfoNCE by
        the full ``B × B`` matrix).
    hidden, depth, proj
        Width and number of hidden layers of the critic MLPs; ``proj`` is the width of the separable
        critic's embeddings ``g`` and ``h``.  ``hidden=None`` (default) scales the width to
        the training rows: the power of two nearest ``n_train / 4``, between 32 and 256
        (64 for 300 rows, 256 from about 1,000).
    embed_dim
        Width of the learned embedding of each discrete column (the "embedding trick").
    tau
        SMILE's clipping threshold (``smile`` only).
    steps, batch_size, lr, weight_decay, warmup, grad_clip, ema, eval_every, patience
        Training (see :class:`infometer.core.training.TrainSettings`); early stopping watches
        the bound (f-DIME: its objective) on the validation split.  ``eval_every=None``
        (default) evaluates about every ``n_train / 8`` steps, between 25 and 100.
        InfoNCE's value can never exceed ``log(batch_size)``.
    bias_check
        Train a second critic, with the same settings and as many rows, on a reference of
        known MI (a Gaussian sample with the data's correlation matrix when every column is
        continuous, else the rows with ``y`` shuffled: MI 0) and report its error
        (``diagnostics["bias_check"]``); intervals are widened by it and a large check
        warns.  Doubles the training time.
    schedule
        Learning rate after the warm-up: ``"constant"`` or ``"cosine"`` (to 5% at ``steps``).
    max_seconds, clock
        Time budget for training (``None``: none) on the ``"wall"`` or process ``"cpu"``
        clock.
    holdout, val_fraction
        Fraction of the rows kept aside for the estimate, and of the rest for
        validation; both splits are never trained on.
    device
        Torch device (``"cpu"`` by default).
    seed
        Seed of the split, the initialisation and the batches. An int >= 0 (the same int gives the
        same numbers), a numpy.random.Generator (drawn from as it is) or None (fresh entropy from
        the operating system).
    progress
        Show a progress bar while training.
    """

    @takes_training(
        scaled=("eval_every",),
        steps=2000,
        lr=5e-4,
        weight_decay=0.0,
        warmup=50,
        grad_clip=5.0,
        ema=0.99,
        eval_every=100,
        patience=5,
        schedule="constant",
    )
    def __init__(
        self,
        bound: str = "infonce",
        *,
        critic: str = "separable",
        hidden: int | None = None,
        depth: int = 2,
        proj: int = 32,
        embed_dim: int = 16,
        tau: float = 5.0,
        batch_size: int = 256,
        holdout: float = 0.2,
        val_fraction: float = 0.1,
        bias_check: bool = True,
        device: str = "cpu",
        seed: Seed = 0,
        progress: bool | None = None,
        **training: Any,
    ) -> None:
        self.bound = check_choice(bound, "bound", BOUNDS)
        self.critic_kind = check_choice(critic, "critic", CRITICS)
        self.hidden_setting = None if hidden is None else check_int(hidden, "hidden", min_value=1)
        self.hidden = self.hidden_setting or LARGEST_HIDDEN
        self.depth = check_int(depth, "depth", min_value=1)
        self.proj = check_int(proj, "proj", min_value=1)
        self.embed_dim = check_int(embed_dim, "embed_dim", min_value=1)
        self.tau = check_float(tau, "tau", low=0.0, inclusive=(False, True))
        given, scaled = split_scaled(training, ("eval_every",))
        self.eval_every_setting = None if scaled["eval_every"] else given["eval_every"]
        self.settings = NeuralMI.__init__.training_defaults.updated(given, "NeuralMI")
        self.batch_size = check_int(batch_size, "batch_size", min_value=2)
        self.holdout = check_float(holdout, "holdout", low=0.0, high=0.9)
        self.val_fraction = check_float(val_fraction, "val_fraction", low=0.0, high=0.5)
        if not isinstance(bias_check, bool):
            raise TypeError(f"bias_check must be True or False, got {bias_check!r}")
        self.bias_check = bias_check
        self.seed = resolve_seed(seed)
        self.device = check_device(device)
        self.progress = check_progress(progress)
        self.net: torch.nn.Module | None = None
        self.log = TrainLog()
        self.reference: dict[str, Any] | None = None

    # ------------------------------------------------------------------ fit
    def fit(self, x: Any, y: Any, z: Any = None, *, discrete: bool | None = None) -> NeuralMI:
        """Split the rows, train the critic on the training split, keep the rest.

        Parameters
        ----------
        x, y
            Paired samples (rows); continuous, discrete or mixed columns.
        z
            Conditioning variable for :meth:`cond_mutual_info` (product samples pair
            ``x_i, z_i`` with the ``y`` of a row whose ``z`` is among the
            nearest neighbours of ``z_i``).
        discrete
            Treat every column as symbols (``True``) or numbers (``False``); ``None``
            infers per column from the dtype.

        Returns
        -------
        NeuralMI
            ``self``, trained.
        """
        named = {"x": x, "y": y} if z is None else {"x": x, "y": y, "z": z}
        return self.fit_variables(as_variables(named, discrete=discrete))

    def fit_variables(self, variables: dict[str, Variable]) -> NeuralMI:
        """:meth:`fit` on already validated variables (``x``, ``y`` and optionally ``z``)."""
        self.prepare(variables)
        self._train()
        checkable = self.bias_check and self.splits["holdout"].shape[0] >= 2
        self.reference = self._reference(variables) if checkable else None
        return self

    def _reference(self, variables: dict[str, Variable]) -> dict[str, Any]:
        """Train a copy of this estimator on the reference data of the bias check and
        estimate on its held-out rows (``holdout=0`` leaves nothing to check on)."""
        kind, ref_vars, truth, _ = reference_data(variables, self.seed)
        ref = copy.copy(self)
        ref.seed = self.seed + _REFERENCE_SEED
        ref.bias_check = False
        ref.net = None
        ref.prepare(ref_vars)
        ref._train()
        t, m, _ = ref._evaluate_split(ref.ema_net, "holdout")
        value = float(bound_value(self.bound, t, m, self.tau))
        conv, _ = _convergence(ref.log, value)
        se = None
        if self.bound == "infonce" or self.bound in DIME:
            se = float(t.std() / math.sqrt(t.numel())) if t.numel() > 1 else None
        return {
            "method": kind,
            "truth": truth,
            "value": math.nan if conv["diverged"] else value,
            "se": se,
            "cpu_seconds": ref.log.cpu_seconds,
        }

    def bias_diagnostics(self, value: float) -> tuple[dict[str, Any], list[str]]:
        """The bias check next to ``value`` (``({}, [])`` when none was made)."""
        r = self.reference
        if r is None:
            return {}, []
        bias = r["value"] - r["truth"]
        what = (
            f"the same estimator trained with these settings on "
            f"{describe(r['method'], r['truth'], r['value'])['reference']} (MI "
            f"{r['truth']:.3g} nats) gave {r['value']:.3g} nats"
        )
        return bias_check(
            value,
            bias,
            method=r["method"],
            what=what,
            se=r["se"],
            reference=describe(r["method"], r["truth"], r["value"]),
        )

    def prepare(self, variables: dict[str, Variable]) -> None:
        """Split, encode and build the (untrained) critic; :meth:`fit` then trains it."""
        self.roles = tuple(variables)
        self.conditional = "z" in variables
        n = next(iter(variables.values())).n
        rng = as_generator(self.seed)
        perm = rng.permutation(n)
        n_hold = int(round(self.holdout * n))
        hold, rest = perm[:n_hold], perm[n_hold:]
        n_val = int(round(self.val_fraction * rest.size))
        val, tr = rest[:n_val], rest[n_val:]
        if tr.size < 8 or n < 10:
            raise ValueError(
                f"x has too few rows to train a critic ({n} rows, {tr.size} for training; "
                "need at least 10 rows and 8 training rows)"
            )
        self.batch = min(self.batch_size, int(tr.size))
        if self.hidden_setting is None:
            self.hidden = scaled_width(int(tr.size), LARGEST_HIDDEN)
        if self.eval_every_setting is None:
            every = scaled_eval_every(int(tr.size), LARGEST_EVAL_EVERY)
            self.settings = dataclasses.replace(self.settings, eval_every=every)
        self.enc = {k: _Encoder(v, tr) for k, v in variables.items()}
        self._warnings: list[str] = []
        for e in self.enc.values():
            if e.constant:
                self._warnings.append(f"{e.name} has constant columns {e.constant}")
        dev = self.device
        self.data = {}
        for k, v in variables.items():
            cont, disc = self.enc[k].arrays(v)
            self.data[k] = (torch.as_tensor(cont, device=dev), torch.as_tensor(disc, device=dev))
        self.splits = {
            "train": torch.as_tensor(tr, device=dev),
            "val": torch.as_tensor(val, device=dev),
            "holdout": torch.as_tensor(hold, device=dev),
        }
        self.partners = {}
        if self.conditional:
            zv = variables["z"].values
            for name, rows in (("train", tr), ("val", val), ("holdout", hold)):
                self.partners[name] = torch.as_tensor(_neighbours(zv[rows], self.seed), device=dev)
        self._pos = torch.full((n,), -1, dtype=torch.long, device=dev)
        for rows in self.splits.values():
            self._pos[rows] = torch.arange(rows.shape[0], device=dev)
        self._build()

    def _build(self) -> None:
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(self.seed)
            fronts = {k: e.front(self.embed_dim) for k, e in self.enc.items()}
            self.net = build_critic(self.critic_kind, fronts, self.hidden, self.depth, self.proj)
        self.net.to(self.device)
        self.ema_net = copy.deepcopy(self.net)
        self.ema_net.requires_grad_(False)

    # ------------------------------------------------------------- scoring
    def _features(self, net: torch.nn.Module, role: str, rows: torch.Tensor) -> torch.Tensor:
        cont, disc = self.data[role]
        return net.fronts[role](cont[rows], disc[rows])

    def _scores(
        self,
        net: torch.nn.Module,
        rows: torch.Tensor,
        split: str,
        gen: torch.Generator | None,
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """(joint scores or InfoNCE row terms, pooled product scores) of one batch."""
        fx = self._features(net, "x", rows)
        b = rows.shape[0]
        if self.conditional:
            fy = self._features(net, "y", rows)
            fz = self._features(net, "z", rows)
            table = self.partners[split]
            pos = self._pos[rows]  # rows' positions inside their split
            k = table.shape[1]
            pick = (
                torch.arange(k, device=rows.device).repeat(b)
                if gen is None
                else torch.randint(0, k, (b * k,), generator=gen, device=rows.device)
            )
            partner = self.splits[split][table[pos.repeat_interleave(k), pick]]
            fyp = self._features(net, "y", partner)
            t = net.pairs(fx, fy, fz)
            m = net.pairs(fx.repeat_interleave(k, 0), fyp, fz.repeat_interleave(k, 0))
            return t, m
        fy = self._features(net, "y", rows)
        if self.bound == "infonce":
            return infonce_rows(net.matrix(fx, fy)), None
        if self.critic_kind == "separable":
            f = net.matrix(fx, fy)
            off = ~torch.eye(b, dtype=torch.bool, device=f.device)
            return f.diagonal(), f[off]
        k = min(NEGATIVES, b - 1)
        if gen is None:
            shifts = torch.arange(1, k + 1, device=rows.device)
        else:
            shifts = torch.randperm(b - 1, generator=gen, device=rows.device)[:k] + 1
        idx = (torch.arange(b, device=rows.device)[None, :] + shifts[:, None]) % b
        t = net.pairs(fx, fy)
        m = net.pairs(fx.repeat(k, 1), fy[idx.reshape(-1)])
        return t, m

    def _evaluate_split(
        self, net: torch.nn.Module, split: str
    ) -> tuple[torch.Tensor, torch.Tensor | None, int]:
        """Pooled scores over a split in fixed chunks of the training batch size."""
        rows = self.splits[split]
        n = rows.shape[0]
        b = self.batch
        if self.bound == "infonce" and not self.conditional:
            if n >= b:
                n = (n // b) * b  # InfoNCE needs full batches (its ceiling is log of the size)
            else:
                b = n
        ts, ms = [], []
        with torch.no_grad(), small_network_threads(net, self.device):
            for i in range(0, n, b):
                chunk = rows[i : i + b]
                if chunk.shape[0] < 2:
                    continue
                t, m = self._scores(net, chunk, split, None)
                ts.append(t.double())
                if m is not None:
                    ms.append(m.double())
        t_all = torch.cat(ts)
        m_all = torch.cat(ms) if ms else None
        return t_all, m_all, b

    def _objective(self, t: torch.Tensor, m: torch.Tensor | None) -> float:
        if self.bound in DIME:
            assert m is not None
            return float(dime_objective(self.bound, t, m))
        return float(bound_value(self.bound, t, m, self.tau))

    # ------------------------------------------------------------- training
    def batches(self, gen: torch.Generator) -> Any:
        """A function returning the next training batch (rows), epoch by epoch without
        replacement (a row never meets itself as a product sample)."""
        tr, b, dev = self.splits["train"], self.batch, self.device
        state = {"perm": torch.randperm(tr.shape[0], generator=gen, device=dev), "at": 0}

        def next_rows() -> torch.Tensor:
            if state["at"] + b > tr.shape[0]:
                state["perm"] = torch.randperm(tr.shape[0], generator=gen, device=dev)
                state["at"] = 0
            sel = state["perm"][state["at"] : state["at"] + b]
            state["at"] += b
            return tr[sel]

        return next_rows

    def batch_loss(
        self,
        net: torch.nn.Module,
        rows: torch.Tensor,
        gen: torch.Generator,
        moving: MovingLogMean | None,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """(loss, minibatch estimate) of ``net`` on training ``rows``."""
        t, m = self._scores(net, rows, "train", gen)
        return bound_loss(self.bound, t, m, tau=self.tau, moving=moving)

    def new_moving(self) -> MovingLogMean | None:
        return MovingLogMean() if self.bound == "mine" else None

    def heldout_value(self, net: torch.nn.Module, split: str = "holdout") -> float:
        """The estimate of ``net`` on a split (no checks, no flags)."""
        t, m, _ = self._evaluate_split(net, split)
        return float(bound_value(self.bound, t, m, self.tau))

    def _train(self) -> None:
        assert self.net is not None
        gen = torch.Generator(device=self.device).manual_seed(self.seed + 1)
        next_rows = self.batches(gen)
        moving = self.new_moving()
        net = self.net

        def step_loss(step: int) -> tuple[torch.Tensor, torch.Tensor]:
            return self.batch_loss(net, next_rows(), gen, moving)

        def val_loss() -> float:
            t, m, _ = self._evaluate_split(self.ema_net, "val")
            return -self._objective(t, m)

        has_val = self.splits["val"].shape[0] >= 2
        self.log = train(
            self.net,
            self.ema_net,
            step_loss,
            val_loss if has_val else None,
            self.settings,
            desc=f"{self.bound} ({self.critic_kind})",
            progress=self.progress,
            log=self.new_log(),
            val_at_start=True,
        )

    def new_log(self) -> TrainLog:
        return TrainLog(
            n_train=int(self.splits["train"].shape[0]),
            n_val=int(self.splits["val"].shape[0]),
            n_holdout=int(self.splits["holdout"].shape[0]),
        )

    # ------------------------------------------------------------- queries
    def _check_fitted(self) -> None:
        if self.net is None:
            raise RuntimeError("this NeuralMI is not trained: call fit() first")

    def evaluate(
        self, data: dict[str, Any] | None = None
    ) -> tuple[float, dict[str, Any], list[str]]:
        """``(value in nats, diagnostics, warnings)`` on the held-out split, or on ``data``
        (``{"x": ..., "y": ...[, "z": ...]}``, rows never trained on) when given."""
        self._check_fitted()
        split = "holdout" if data is None else self._add_query(data)
        n_hold = int(self.splits[split].shape[0])
        if n_hold < 2:
            raise ValueError("no held-out rows to estimate on: fit with holdout > 0 or pass data")
        t, m, b_eval = self._evaluate_split(self.ema_net, split)
        value = float(bound_value(self.bound, t, m, self.tau))
        warns = list(self._warnings)
        diag: dict[str, Any] = {
            "bound": self.bound,
            "critic": self.critic_kind,
            "n_eval": int(t.numel()),
            "n_negatives": None if m is None else int(m.numel()),
            "train": self.log.summary(),
        }
        if self.bound == "infonce" or self.bound in DIME:
            diag["holdout_se"] = float(t.std() / math.sqrt(t.numel())) if t.numel() > 1 else None
        if self.bound == "infonce":
            diag.update(ceiling_flags(value, math.log(b_eval)))
            if diag["saturated"]:
                warns.append(
                    f"InfoNCE value {value:.3f} is within log 2 of its ceiling log(batch) = "
                    f"{diag['ceiling']:.3f} (sensitivity {diag['sensitivity']:.2f} nats per "
                    "nat of MI): it cannot tell MI values above that apart; use a larger "
                    "batch_size or another estimator"
                )
        conv, cw = _convergence(self.log, value)
        diag["convergence"] = conv
        warns.extend(cw)
        if conv["diverged"]:
            value = math.nan
        else:
            check, bw = self.bias_diagnostics(value)
            diag.update(check)
            warns.extend(bw)
        return value, diag, warns

    def mutual_info(self, x: Any = None, y: Any = None, *, ci: float | None = None) -> Estimate:
        """I(X;Y) in nats on the held-out split, or on new rows ``x, y``.

        ``ci``: level of an interval ``value ± z·holdout_se`` widened by the bias check
        (``infonce`` and the f-DIME bounds, whose value is a mean over held-out rows; for
        the others use ``infometer.mutual_info(..., ci=)``, which re-trains with other
        seeds).  Without it the estimate has no error bar (one critic)."""
        if getattr(self, "conditional", False):
            raise ValueError("this model was fitted with z: use cond_mutual_info()")
        return self._estimate("mutual_info", None if x is None else {"x": x, "y": y}, ci)

    def cond_mutual_info(
        self, x: Any = None, y: Any = None, z: Any = None, *, ci: float | None = None
    ) -> Estimate:
        """I(X;Y|Z) in nats on the held-out split or on new rows (model fitted with ``z``);
        ``ci`` as for :meth:`mutual_info`."""
        self._check_fitted()
        if not self.conditional:
            raise ValueError("this model was fitted without z: use mutual_info()")
        data = None if x is None else {"x": x, "y": y, "z": z}
        return self._estimate("cond_mutual_info", data, ci)

    def _add_query(self, data: dict[str, Any]) -> str:
        """Append validated new rows as the split ``"query"`` (replacing an earlier one)."""
        if set(data) != set(self.roles) or any(v is None for v in data.values()):
            raise ValueError(f"pass all of {list(self.roles)} to estimate on new rows")
        variables = as_variables(dict(data), discrete=None)
        dev = self.device
        if "query" in self.splits:
            keep = int(self.splits["query"][0])
            self.data = {k: (c[:keep], d[:keep]) for k, (c, d) in self.data.items()}
            self._pos = self._pos[:keep]
        start = int(self._pos.shape[0])
        for k, v in variables.items():
            enc = self.enc[k]
            if v.d != enc.d:
                raise ValueError(f"{k} has {v.d} columns, the model was fitted on {enc.d}")
            v = _recast(v, enc, k)
            cont, disc = enc.arrays(v, fitted=False)
            c0, d0 = self.data[k]
            self.data[k] = (
                torch.cat([c0, torch.as_tensor(cont, device=dev)]),
                torch.cat([d0, torch.as_tensor(disc, device=dev)]),
            )
        n = next(iter(variables.values())).n
        rows = torch.arange(start, start + n, device=dev)
        self.splits["query"] = rows
        self._pos = torch.cat([self._pos, torch.arange(n, device=dev)])
        if self.conditional:
            zv = variables["z"].values
            self.partners["query"] = torch.as_tensor(_neighbours(zv, self.seed), device=dev)
        return "query"

    def _estimate(
        self, quantity: str, data: dict[str, Any] | None = None, ci: float | None = None
    ) -> Estimate:
        level = None
        if ci is not None:
            level = check_float(ci, "ci", low=0.0, high=1.0, inclusive=(False, False))
            if self.bound not in ("infonce", *DIME):
                raise ValueError(
                    f"ci: {self.bound!r} has no held-out standard error (its value is not a "
                    "mean over rows); use infometer.mutual_info(..., ci=), which re-trains "
                    "with other seeds"
                )
        value, diag, warns = self.evaluate(data)
        if warns:
            diag["warnings"] = warns
            for w in warns:
                warnings.warn(w, InfometerWarning, stacklevel=3)
        se = interval = None
        if level is not None:
            if not math.isfinite(value) or diag.get("holdout_se") is None:
                raise ValueError(f"the estimate is {value} (see its warnings): no interval")
            se = diag["holdout_se"]
            interval = widen_by_bias(interval_from_stderr(value, se, level), diag.get("bias_check"))
            diag["ci_method"] = "value ± z·holdout_se, widened by the bias check"
        return make_estimate(
            value,
            method=self.bound,
            quantity=quantity,
            params=self.params(),
            n=diag["n_eval"],
            stderr=se,
            ci=interval,
            ci_level=level,
            diagnostics=diag,
        )

    def params(self) -> dict[str, Any]:
        """The settings of this model (JSON-safe)."""
        return {
            "bound": self.bound,
            "critic": self.critic_kind,
            "hidden": self.hidden,
            "depth": self.depth,
            "proj": self.proj,
            "embed_dim": self.embed_dim,
            "tau": self.tau,
            "batch_size": self.batch_size,
            "holdout": self.holdout,
            "val_fraction": self.val_fraction,
            "bias_check": self.bias_check,
            "seed": self.seed,
            **self.settings.as_dict(),
        }


def _convergence(log: TrainLog, value: float) -> tuple[dict[str, Any], list[str]]:
    """Flags for a training run and the warnings they raise.

    A critic counts as diverged when the loss or the estimate is not finite, or when the
    held-out estimate or the last smoothed training estimate is below ``−DIVERGED_BELOW``
    nats: MI is never negative, so a bound that far below 0 comes from a broken critic
    (exploded or saturated scores), not from sampling noise.
    """
    warns: list[str] = []
    train_max = max((v for _, v in log.train_values), default=math.nan)
    train_last = log.train_values[-1][1] if log.train_values else math.nan
    broken = (math.isfinite(value) and value < -DIVERGED_BELOW) or (
        math.isfinite(train_last) and train_last < -DIVERGED_BELOW
    )
    diverged = log.diverged or not math.isfinite(value) or broken
    far_above = (
        not diverged and math.isfinite(train_max) and train_max > value + max(0.1, 0.1 * abs(value))
    )
    conv = {
        "diverged": diverged,
        "early_stopping": log.stop_reason == "early_stopping",
        "stop_reason": log.stop_reason,
        "max_smoothed_train_mi": train_max,
        "train_far_above_final": far_above,
        "converged": log.stop_reason == "early_stopping" and not diverged,
        "trivial_critic": log.best_step == 0 and log.steps > 0,
    }
    if diverged:
        if log.diverged:
            why = f"the loss became non-finite at step {log.steps + 1}"
        elif not math.isfinite(value):
            why = "the held-out estimate is not finite"
        else:
            why = (
                f"its estimate fell far below 0 (held-out {value:.3g}, last smoothed "
                f"training value {train_last:.3g} nats)"
            )
        warns.append(
            f"the critic diverged ({why}): the value is reported as NaN; lower lr, use "
            "another bound (infonce, smile) or more data"
        )
    elif log.stop_reason in ("max_steps", "time_budget"):
        limit = "step limit" if log.stop_reason == "max_steps" else "time budget"
        warns.append(
            f"training stopped at the {limit} ({log.steps} steps) before early stopping: "
            "the bound may still be rising; raise steps= (or max_seconds=)"
        )
    if conv["trivial_critic"] and not diverged:
        warns.append(
            "the trained critic never beat the constant critic T = 0 on the validation rows: "
            "the estimate is that of T = 0 (no evidence of dependence at this sample size); "
            "if you expect dependence, give more rows or raise steps= (or lr=)"
        )
    if far_above:
        warns.append(
            f"the smoothed training MI peaked at {train_max:.3f} nats, far above the held-out "
            f"value {value:.3f}: the critic overfits or training was unstable"
        )
    return conv, warns


def _recast(var: Variable, enc: _Encoder, role: str) -> Variable:
    """Re-validate new rows with the column kinds the model was fitted on."""
    from infometer.core.data import as_variable

    if list(var.kinds) == enc.kinds:
        return var
    cols = [var.decoded(j) for j in range(var.d)]
    fixed = [
        as_variable(c, f"{role}[:, {j}]", discrete=(k == "discrete"))
        for j, (c, k) in enumerate(zip(cols, enc.kinds, strict=True))
    ]
    return Variable(
        columns=tuple(f.columns[0] for f in fixed),
        kinds=tuple(f.kinds[0] for f in fixed),
        cardinalities=tuple(f.cardinalities[0] for f in fixed),
        name=role,
        symbols=tuple(None if f.symbols is None else f.symbols[0] for f in fixed),
    )


def _neighbours(z: np.ndarray, seed: int) -> np.ndarray:
    """``(n, K)`` positions of each row's nearest other rows in standardised ``z``."""
    from scipy.spatial import cKDTree

    n = z.shape[0]
    if n < 2:
        return np.zeros((n, 1), dtype=np.int64)
    scale, mean, sd = scaled_moments(z)
    with np.errstate(under="ignore"):
        zs = (z * scale - mean) / np.where(sd > 0, sd, 1.0)
    k = min(CMI_NEIGHBOURS, n - 1)
    # ties (discrete z): jitter far below the data scale so that equal rows are drawn at random
    rng = as_generator(seed)
    zs = zs + rng.normal(scale=1e-9, size=zs.shape)
    _, idx = cKDTree(zs).query(zs, k=k + 1)
    idx = np.asarray(idx).reshape(n, k + 1)
    other = idx != np.arange(n)[:, None]  # drop the row itself wherever the tree returned it
    order = np.argsort(~other, axis=1, kind="stable")[:, :k]
    return np.take_along_axis(idx, order, 1).astype(np.int64)
