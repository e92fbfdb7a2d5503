"""Fisher information of classifiers: exact pull-back and unbiased Hutchinson estimates.

For a classifier with logits ``z = z(x, θ)`` and ``p = softmax(z)``, the Fisher information
matrix on inputs ``x_1..x_n`` is the pull-back of the core matrix (see
:mod:`infometer.systems.models.core`)

    F = Σ_x J_xᵀ (diag(p_x) − p_x p_xᵀ) J_x,     J_x = ∂z/∂θ  (C × P),

with the deterministic bounds ``F_LR ⪯ F ⪯ F_DG`` obtained by replacing the core matrix by
its top eigen-pair ``λ_C v_C v_Cᵀ`` (lower) or by ``diag(p)`` (upper).

**Exact** (``method="exact"``): per-sample Jacobians (``torch.func`` ``vmap(jacrev)``, or a
loop of backward passes when a model does not support ``vmap``), then with a factor
``A_x A_xᵀ`` of the core matrix, ``U_x = A_xᵀ J_x`` and ``F = Σ_x U_xᵀ U_x``.

**Hutchinson** (``method="hutchinson"``; Sun, ICLR 2026): with i.i.d. Rademacher ``ξ`` and
the detached probabilities ``p̃``,

    h = Σ_x Σ_y √p̃(y|x) ξ_xy log p(y|x, θ),    g = ∂h/∂θ,    F̂ = g gᵀ.

Because ``∂h/∂z_x = (diag(√p) − p√pᵀ) ξ_x = A_x ξ_x`` and ``A_x A_xᵀ = diag(p) − ppᵀ``
(Σp = 1), ``E[F̂] = F``: one backward pass per batch and probe.  The square root matters:
weighting by ``p̃`` instead gives ``E = Σ Jᵀ Σ_y p_y² (e_y − p)(e_y − p)ᵀ J``, biased low (about
a quarter of the trace in the brief's check).  Batches use independent probes, so
``Σ_batches g_b g_bᵀ`` is unbiased as well, with lower variance than ``(Σ g_b)(Σ g_b)ᵀ``.  For
one probe ``Var(F̂_ii) = 2[(Σ_k w_k²)² − Σ_k w_k⁴] ≤ 2 F_ii²`` (coefficient of variation at
most √2).  The bounds use ``h_DG = Σ √p̃ ξ z`` and ``h_LR = Σ_x ξ_x √λ̃_C ṽ_Cᵀ z_x`` (one
Rademacher draw per input).

All values are in nats per squared parameter unit: ``½ δθᵀ F δθ`` is the KL divergence
(in nats) between the predictive distributions at θ and θ + δθ, to second order.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from infometer.core._torch import (
    as_tensor,
    batches,
    check_input,
    check_model_device,
    check_module,
    checked_logits,
    eval_mode,
    param_dtype,
    torch,
)
from infometer.core.data import check_choice, check_float, check_int
from infometer.core.estimate import Estimate
from infometer.core.progress import progress_bar
from infometer.core.results import Result
from infometer.core.seeding import Seed, resolve_seed
from infometer.core.uncertainty import interval_from_stderr, make_estimate
from infometer.core.validation import check_bool

__all__ = ["fisher_information", "FisherInformation", "core_factor_torch"]

METHODS = ("exact", "hutchinson")
BOUNDS = (None, "lower", "upper")
OUTPUTS = ("softmax", "sigmoid")
#: Above this many parameters the exact full matrix is not formed unless matrix=True.
MATRIX_AUTO_MAX = 4096
#: Elements of per-sample Jacobians (batch × classes × params) held at once.
JAC_BUDGET = 20_000_000
#: Elements of per-probe gradients (probes × params) held at once.
PROBE_BUDGET = 20_000_000


# ---------------------------------------------------------------- result
@dataclass(frozen=True, eq=False)
class FisherInformation(Result):
    """Fisher information of a classifier on a set of inputs.

    Attributes
    ----------
    method
        ``"exact"`` or ``"hutchinson"``.
    bound
        ``None`` (the FIM), ``"lower"`` (F_LR) or ``"upper"`` (F_DG).
    output
        ``"softmax"`` (one class per input) or ``"sigmoid"`` (independent labels).
    reduction
        ``"mean"`` (per-input Fisher) or ``"sum"`` (Fisher of the whole data set).
    n
        Number of inputs.
    names, shapes
        The parameter tensors covered, in the order of the flattened vectors.
    diag
        Diagonal of F, flattened (P,).
    diag_stderr
        Standard error of each diagonal entry over probes (Hutchinson), else ``None``.
    matrix
        The full (P, P) matrix, or ``None`` when not formed.
    probe_traces
        Per-probe trace of each tensor's block (probes × tensors; Hutchinson only).
    ci_level
        Level of the trace's interval, or ``None``.
    params
        Settings of the run.
    """

    method: str
    bound: str | None
    output: str
    reduction: str
    n: int
    names: tuple[str, ...]
    shapes: tuple[tuple[int, ...], ...]
    diag: np.ndarray
    diag_stderr: np.ndarray | None = None
    matrix: np.ndarray | None = None
    probe_traces: np.ndarray | None = None
    ci_level: float | None = None
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def n_params(self) -> int:
        return int(self.diag.size)

    def _offsets(self) -> list[int]:
        sizes = [math.prod(s) for s in self.shapes]
        return np.concatenate([[0], np.cumsum(sizes)]).astype(int).tolist()

    def _estimate(self, value: float, probe_values: np.ndarray | None, what: str) -> Estimate:
        stderr = ci = None
        if probe_values is not None and probe_values.size > 1:
            # the spread of r Hutchinson probes: t interval on r - 1 dof around the value
            r = probe_values.size
            stderr = float(np.std(probe_values, ddof=1)) / math.sqrt(r)
            if self.ci_level is not None and math.isfinite(stderr):
                ci = interval_from_stderr(value, stderr, self.ci_level, dof=r - 1)
        return make_estimate(
            value,
            method=self.method,
            quantity="fisher_information",
            params={**self.params, "bound": self.bound, "reduction": self.reduction},
            n=self.n,
            stderr=stderr,
            ci=ci,
            ci_level=self.ci_level if ci is not None else None,
            diagnostics={"trace_of": what, "n_params": self.n_params},
        )

    @property
    def trace(self) -> Estimate:
        """``tr F`` with its standard error over probes (Hutchinson)."""
        pt = None if self.probe_traces is None else self.probe_traces.sum(axis=1)
        return self._estimate(float(self.diag.sum()), pt, "all")

    def diag_dict(self) -> dict[str, np.ndarray]:
        """The diagonal as arrays shaped like each parameter tensor."""
        off = self._offsets()
        return {
            n: self.diag[off[i] : off[i + 1]].reshape(s)
            for i, (n, s) in enumerate(zip(self.names, self.shapes, strict=True))
        }

    def to_frame(self) -> Any:
        """One row per parameter tensor (:meth:`per_tensor` at its default threshold)."""
        return self.per_tensor()

    def per_tensor(self, threshold: float = 1e-5) -> Any:
        """One row per parameter tensor: ``tensor, shape, numel, trace`` (an Estimate),
        ``mean_diag`` and ``frac_below`` (fraction of diagonal entries below ``threshold``)."""
        import pandas as pd

        threshold = check_float(threshold, "threshold", low=0.0)
        off = self._offsets()
        rows = []
        for i, (name, shape) in enumerate(zip(self.names, self.shapes, strict=True)):
            d = self.diag[off[i] : off[i + 1]]
            pv = None if self.probe_traces is None else self.probe_traces[:, i]
            rows.append(
                {
                    "tensor": name,
                    "shape": tuple(shape),
                    "numel": int(d.size),
                    "trace": self._estimate(float(d.sum()), pv, name),
                    "mean_diag": float(d.mean()),
                    "frac_below": float(np.mean(d < threshold)),
                }
            )
        return pd.DataFrame(rows)

    def __repr__(self) -> str:
        b = "F" if self.bound is None else {"lower": "F_LR", "upper": "F_DG"}[self.bound]
        return (
            f"FisherInformation({b}, {self.method}, n={self.n}, params={self.n_params}, "
            f"trace={self.trace!r})"
        )


# ---------------------------------------------------------------- core
def core_factor_torch(z: torch.Tensor, bound: str | None, output: str) -> torch.Tensor:
    """Factors ``A`` (B, C, r) with ``A Aᵀ`` = the core matrix of each row of logits ``z``.

    Computed in float64 from detached logits.
    """
    z = z.detach().double()
    if output == "sigmoid":
        s = torch.sigmoid(z)
        return torch.diag_embed(torch.sqrt(s * (1 - s)))
    p = torch.softmax(z, dim=1)
    sq = torch.sqrt(p)
    if bound is None:
        return torch.diag_embed(sq) - p[:, :, None] * sq[:, None, :]
    if bound == "upper":
        return torch.diag_embed(sq)
    lam, vec = torch.linalg.eigh(torch.diag_embed(p) - p[:, :, None] * p[:, None, :])
    return (torch.sqrt(lam[:, -1].clamp_min(0.0))[:, None] * vec[:, :, -1])[:, :, None]


def _select(model: torch.nn.Module, params: Sequence[str] | None) -> list[tuple[str, Any]]:
    named = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    if params is None:
        if not named:
            raise ValueError("model has no parameters that require gradients")
        return named
    if isinstance(params, str):
        params = [params]
    lookup = dict(model.named_parameters())
    unknown = [p for p in params if p not in lookup]
    if unknown:
        raise ValueError(
            f"params {unknown} are not parameters of the model; valid names: {list(lookup)}"
        )
    if not params:
        raise ValueError("params is empty; pass None for all parameters")
    frozen = [p for p in params if not lookup[p].requires_grad]
    if frozen:
        raise ValueError(f"params {frozen} do not require gradients; set requires_grad=True")
    return [(p, lookup[p]) for p in params]


# ---------------------------------------------------------------- exact
def _jacobians_vmap(
    model: torch.nn.Module, sel: list[tuple[str, Any]], xb: torch.Tensor
) -> torch.Tensor:
    from torch.func import functional_call, jacrev, vmap

    names = [n for n, _ in sel]
    chosen = {n: p.detach() for n, p in sel}
    fixed = {n: p.detach() for n, p in model.named_parameters() if n not in chosen}
    fixed.update(dict(model.named_buffers()))

    def f(pd: dict[str, torch.Tensor], xi: torch.Tensor) -> torch.Tensor:
        out = functional_call(model, {**fixed, **pd}, (xi.unsqueeze(0),))
        if isinstance(out, tuple | list):
            out = out[0]
        return out[0]

    jac = vmap(jacrev(f), in_dims=(None, 0))(chosen, xb)
    b = xb.shape[0]
    return torch.cat([jac[n].reshape(b, jac[n].shape[1], -1) for n in names], dim=2)


def _jacobians_loop(
    model: torch.nn.Module, sel: list[tuple[str, Any]], xb: torch.Tensor
) -> torch.Tensor:
    tensors = [p for _, p in sel]
    rows = []
    for i in range(xb.shape[0]):
        z = model(xb[i : i + 1])
        z = (z[0] if isinstance(z, tuple | list) else z)[0]
        per_class = []
        for c in range(z.shape[0]):
            g = torch.autograd.grad(z[c], tensors, retain_graph=True, allow_unused=True)
            per_class.append(
                torch.cat(
                    [
                        (torch.zeros_like(t) if gi is None else gi).reshape(-1)
                        for gi, t in zip(g, tensors, strict=True)
                    ]
                )
            )
        rows.append(torch.stack(per_class))
    return torch.stack(rows)


def _exact(
    model: torch.nn.Module,
    sel: list[tuple[str, Any]],
    xt: torch.Tensor,
    *,
    bound: str | None,
    output: str,
    batch_size: int,
    want_matrix: bool,
    engine: str,
    progress: bool | None,
) -> tuple[np.ndarray, np.ndarray | None, dict[str, Any]]:
    n_params = sum(p.numel() for _, p in sel)
    diag = torch.zeros(n_params, dtype=torch.float64, device=xt.device)
    mat = (
        torch.zeros(n_params, n_params, dtype=torch.float64, device=xt.device)
        if want_matrix
        else None
    )
    used = engine
    min_classes = 1 if output == "sigmoid" else 2
    for sl in progress_bar(
        list(batches(xt.shape[0], batch_size)), desc="Fisher", progress=progress
    ):
        xb = xt[sl]
        with torch.no_grad():
            z = checked_logits(model(xb), sl.start, min_classes)
        a = core_factor_torch(z, bound, output)
        chunk = max(1, JAC_BUDGET // max(1, z.shape[1] * n_params))
        for j in range(0, xb.shape[0], chunk):
            xs = xb[j : j + chunk]
            if used == "vmap":
                try:
                    jac = _jacobians_vmap(model, sel, xs)
                except Exception:  # noqa: BLE001 - any vmap limitation: fall back to loops
                    used = "loop"
            if used == "loop":
                jac = _jacobians_loop(model, sel, xs)
            u = torch.einsum("bcr,bcp->brp", a[j : j + chunk], jac.double())
            diag += (u * u).sum(dim=(0, 1))
            if mat is not None:
                uf = u.reshape(-1, n_params)
                mat += uf.T @ uf
    return (
        diag.cpu().numpy(),
        None if mat is None else mat.cpu().numpy(),
        {"jacobian_engine": used},
    )


# ------------------------------------------------------------- Hutchinson
def _probe_grads(
    z: torch.Tensor, tensors: list[Any], v: torch.Tensor, batched: bool
) -> tuple[torch.Tensor, bool]:
    """Per-probe gradients ``∂(v_r · z)/∂θ`` as (R, P); ``v`` is (R, B, C)."""
    if batched:
        try:
            g = torch.autograd.grad(
                z,
                tensors,
                grad_outputs=v,
                retain_graph=True,
                is_grads_batched=True,
                allow_unused=True,
            )
            return _flat(g, tensors, v.shape[0]), True
        except Exception:  # noqa: BLE001 - vmap over backward unsupported: loop instead
            pass
    out = []
    for r in range(v.shape[0]):
        g = torch.autograd.grad(z, tensors, grad_outputs=v[r], retain_graph=True, allow_unused=True)
        out.append(_flat(g, tensors, None))
    return torch.stack(out), False


def _flat(g: Sequence[Any], tensors: list[Any], r: int | None) -> torch.Tensor:
    parts = []
    for gi, t in zip(g, tensors, strict=True):
        if gi is None:
            shape = (r, t.numel()) if r is not None else (t.numel(),)
            parts.append(torch.zeros(shape, dtype=t.dtype, device=t.device))
        else:
            parts.append(gi.reshape(r, -1) if r is not None else gi.reshape(-1))
    return torch.cat(parts, dim=-1)


def _hutchinson(
    model: torch.nn.Module,
    sel: list[tuple[str, Any]],
    xt: torch.Tensor,
    *,
    bound: str | None,
    output: str,
    batch_size: int,
    probes: int,
    want_matrix: bool,
    seed: int,
    progress: bool | None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray, dict[str, Any]]:
    tensors = [p for _, p in sel]
    sizes = [p.numel() for p in tensors]
    n_params = sum(sizes)
    edges = np.concatenate([[0], np.cumsum(sizes)]).astype(int)
    gen = torch.Generator().manual_seed(seed)
    s1 = torch.zeros(n_params, dtype=torch.float64, device=xt.device)
    s2 = torch.zeros_like(s1)
    mat = (
        torch.zeros(n_params, n_params, dtype=torch.float64, device=xt.device)
        if want_matrix
        else None
    )
    probe_traces = np.zeros((probes, len(tensors)))
    chunk = max(1, min(probes, PROBE_BUDGET // max(1, n_params)))
    batched = True
    min_classes = 1 if output == "sigmoid" else 2
    starts = list(range(0, probes, chunk))
    bar = progress_bar(total=probes, desc="Fisher probes", progress=progress)
    for r0 in starts:
        rc = min(chunk, probes - r0)
        acc = torch.zeros(rc, n_params, dtype=torch.float64, device=xt.device)
        for sl in batches(xt.shape[0], batch_size):
            z = checked_logits(model(xt[sl]), sl.start, min_classes)
            a = core_factor_torch(z, bound, output)  # (B, C, r)
            xi = torch.randint(0, 2, (rc, a.shape[0], a.shape[2]), generator=gen) * 2 - 1
            v = torch.einsum("bcr,kbr->kbc", a, xi.to(a.device, torch.float64)).to(z.dtype)
            g, batched = _probe_grads(z, tensors, v, batched)
            g = g.double()
            acc += g * g
            if mat is not None:
                mat += g.T @ g
        s1 += acc.sum(0)
        s2 += (acc * acc).sum(0)
        accn = acc.cpu().numpy()
        for i in range(len(tensors)):
            probe_traces[r0 : r0 + rc, i] = accn[:, edges[i] : edges[i + 1]].sum(axis=1)
        bar.update(rc)
    bar.close()
    mean = (s1 / probes).cpu().numpy()
    if probes > 1:
        var = ((s2 - probes * (s1 / probes) ** 2) / (probes - 1)).clamp_min(0.0)
        se = torch.sqrt(var / probes).cpu().numpy()
    else:
        se = np.full(n_params, np.inf)
    m = None if mat is None else (mat / probes).cpu().numpy()
    return mean, se, m, probe_traces, {"batched_probes": batched}


#: Largest number of Rademacher probes (each is a backward pass per batch).
MAX_PROBES = 1_000_000


def _check_size(n_params: int, want_matrix: bool, probes: int, n_tensors: int) -> None:
    """Refuse, before any Jacobian, a P x P matrix or a probe count that cannot fit
    (``matrix=True`` on a large model asked for 8 TB)."""
    from infometer.core.validation import check_budget, check_memory

    if want_matrix:
        check_memory(
            8.0 * n_params * n_params,
            what=f"{n_params} x {n_params} Fisher matrix (float64)",
            name="matrix=True",
            override="pass matrix=False (the diagonal and traces need O(P) memory) or params=",
        )
    if probes:
        check_budget(probes, name="probes", limit=MAX_PROBES, what="Rademacher probes")
        check_memory(8.0 * probes * n_tensors, what="per-probe traces", name="probes")


# ---------------------------------------------------------------- public
def fisher_information(
    model: Any,
    x: Any,
    *,
    method: str = "exact",
    bound: str | None = None,
    output: str = "softmax",
    probes: int = 64,
    batch_size: int = 256,
    reduction: str = "mean",
    params: Sequence[str] | None = None,
    matrix: bool | None = None,
    device: Any = None,
    seed: Seed = 0,
    ci: float | None = None,
    progress: bool | None = None,
    engine: str = "vmap",
) -> FisherInformation:
    """Fisher information of a classifier (any ``torch.nn.Module`` returning logits).

    Parameters
    ----------
    model
        Maps a batch of inputs to (batch, C) logits.  Evaluated in eval mode (restored after).
    x
        Inputs, samples along the first axis (numpy array, or a tensor on the model's device).
        Labels are not needed: the Fisher information averages over the model's own
        predictive distribution.
    method
        ``"exact"`` (per-sample Jacobians; for small models) or ``"hutchinson"`` (unbiased
        random estimate, one backward pass per batch and probe).
    bound
        ``None``: F; ``"upper"``: F_DG = Σ Jᵀ diag(p) J; ``"lower"``: F_LR = Σ Jᵀ λ_C v vᵀ J.
        Always ``F_LR ⪯ F ⪯ F_DG``.
    output
        ``"softmax"`` (classes exclusive) or ``"sigmoid"`` (independent binary labels;
        core matrix ``diag(σ(1 − σ))``; ``bound`` must be ``None``).
    probes
        Rademacher probes (Hutchinson); the standard errors are over probes.
    batch_size
        Inputs per forward pass.
    reduction
        ``"mean"`` (default: per-input Fisher) or ``"sum"`` (the whole data set's).
    params
        Names of the parameter tensors to cover (default: all that require gradients).
    matrix
        Form the full P × P matrix (default: when P ≤ 4096).
    device
        Where to compute; must be the model's device (the model is never moved).
    seed
        Seed of the probes. An int >= 0 (the same int gives the same numbers), a
        numpy.random.Generator (drawn from as it is) or None (fresh entropy from the operating
        system).
    ci
        Level of the normal-t interval of traces over probes (Hutchinson).
    progress
        Show a progress bar.
    engine
        Per-sample Jacobians by ``"vmap"`` (falls back to ``"loop"`` if unsupported) or
        ``"loop"`` (exact method only).

    Returns
    -------
    FisherInformation
        ``.trace`` and ``.per_tensor()`` give :class:`~infometer.Estimate` values;
        ``.diag`` / ``.matrix`` the arrays.
    """
    model = check_module(model)
    method = check_choice(method, "method", METHODS)
    output = check_choice(output, "output", OUTPUTS)
    reduction = check_choice(reduction, "reduction", ("mean", "sum"))
    engine = check_choice(engine, "engine", ("vmap", "loop"))
    if bound not in BOUNDS:
        raise ValueError(f"bound must be one of {list(BOUNDS)}, got {bound!r}")
    if output == "sigmoid" and bound is not None:
        raise ValueError(
            "bound must be None for output='sigmoid': its core matrix is already diagonal"
        )
    probes = check_int(probes, "probes", min_value=1)
    check_bool(progress, "progress", allow_none=True)
    batch_size = check_int(batch_size, "batch_size", min_value=1)
    seed = resolve_seed(seed)
    if ci is not None:
        ci = check_float(ci, "ci", low=0.0, high=1.0, inclusive=(False, False))
    dev = check_model_device(model, device)
    sel = _select(model, params)
    n_params = sum(p.numel() for _, p in sel)
    if matrix is not None:
        matrix = check_bool(matrix, "matrix")
    want_matrix = n_params <= MATRIX_AUTO_MAX if matrix is None else matrix
    _check_size(n_params, want_matrix, probes if method == "hutchinson" else 0, len(sel))
    xt = as_tensor(x, dev, param_dtype(model))
    check_input(model, xt)
    n = int(xt.shape[0])
    settings: dict[str, Any] = {"output": output, "batch_size": batch_size}
    with eval_mode(model):
        if method == "exact":
            diag, mat, info = _exact(
                model,
                sel,
                xt,
                bound=bound,
                output=output,
                batch_size=batch_size,
                want_matrix=want_matrix,
                engine=engine,
                progress=progress,
            )
            se = traces = None
        else:
            diag, se, mat, traces, info = _hutchinson(
                model,
                sel,
                xt,
                bound=bound,
                output=output,
                batch_size=batch_size,
                probes=probes,
                want_matrix=want_matrix,
                seed=seed,
                progress=progress,
            )
            settings.update(probes=probes, seed=seed)
    scale = 1.0 / n if reduction == "mean" else 1.0
    settings.update(info)
    return FisherInformation(
        method=method,
        bound=bound,
        output=output,
        reduction=reduction,
        n=n,
        names=tuple(nm for nm, _ in sel),
        shapes=tuple(tuple(p.shape) for _, p in sel),
        diag=diag * scale,
        diag_stderr=None if se is None else se * scale,
        matrix=None if mat is None else mat * scale,
        probe_traces=None if traces is None else traces * scale,
        ci_level=ci,
        params=settings,
    )
