"""The information that gates let through, measured with infometer's own estimators.

Nothing here estimates information itself: every number comes from
:func:`infometer.layer_info` (hooks + :func:`infometer.mutual_info`),
:func:`infometer.entropy` or :func:`infometer.mutual_info` with a registered method.

* :func:`layer_curves`: I(X;T_l) and I(T_l;Y) per layer (each MLP activation's output and
  each block's output, mean-pooled over tokens), default ``method="matrix_renyi"``
  (matrix-based Rényi MI, α = 1: cheap and stable at a few hundred rows; a different
  functional from Shannon MI, so compare activations with one method, not across methods).
* :func:`gate_bits`: ΔI_l = I(T_l;Y)[activation] − I(T_l;Y)[baseline], "the bits the gate
  adds" at layer l, paired by seed when the frames hold several seeds.
* :func:`gate_entropy`: the entropy of the gate values g = ρ(κ_ho x̃) ∈ [0, 1] binned into
  ``bins`` equal bins, over the top ``top`` fraction of the pre-activations x̃ of each
  activation module (the convergence limitation predicts a collapse towards 0 for a fixed
  gate: all large responses get g ≈ 1).
* :func:`batch_dependence`: I(Δ_s; C) (nats by default), where, for probe samples s, C is
  the class of the batch-mates (every batch is s plus ``batch_size − 1`` mates drawn from
  one class c, c uniform over the classes) and Δ_s = o_s − mean(o_s) the change of s's output
  logits from its mean over all the batches it was put in.  0 when the output of a
  sample does not depend on its batch-mates; at most H(C) = log K.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import torch
from torch import nn

from infometer.core import api
from infometer.core.estimate import resolve_unit
from infometer.core.plot import finish, new_axes
from infometer.core.progress import check_progress
from infometer.core.seeding import Seed, as_generator, resolve_seed
from infometer.core.uncertainty import make_estimate
from infometer.core.validation import (
    Instance,
    Many,
    check_budget,
    check_choice,
    check_float,
    check_int,
    check_params,
)
from infometer.estimators.neural._layers import layer_info

from ._modules import _FleSBase, kind_of
from ._swap import find_activations, gate_values

__all__ = [
    "default_layers",
    "layer_curves",
    "gate_bits",
    "gate_entropy",
    "batch_dependence",
    "plot_layer_curves",
]


def _model(model: Any) -> nn.Module:
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be a torch.nn.Module, got {type(model).__name__}")
    return model


def default_layers(model: nn.Module) -> list[str]:
    """Each block's activation module(s) then the block itself, block by block.

    The blocks are those of the longest ``ModuleList`` (as :func:`infometer.layer_info`
    picks them); without one, every activation module.

    Examples
    --------
    >>> from infometer.systems.models.activations._nets import PatchTransformer
    >>> default_layers(PatchTransformer(4, 16, 2, d_model=8, n_layers=2))
    ['blocks.0.mlp.1', 'blocks.0', 'blocks.1.mlp.1', 'blocks.1']
    """
    _model(model)
    best: tuple[int, str] | None = None
    for name, mod in model.named_modules():
        if isinstance(mod, nn.ModuleList) and len(mod) and (best is None or len(mod) > best[0]):
            best = (len(mod), name)
    acts = find_activations(model)
    if best is None:
        if not acts:
            raise ValueError("model has no activation modules and no ModuleList: pass layers=")
        return acts
    out = []
    for i in range(best[0]):
        blk = f"{best[1]}.{i}" if best[1] else str(i)
        out += [a for a in acts if a.startswith(blk + ".")] + [blk]
    return out


def _rows(n: int, max_rows: int | None, seed: int | None) -> np.ndarray:
    if max_rows is None or n <= max_rows:
        return np.arange(n)
    return np.sort(as_generator(seed).choice(n, max_rows, replace=False))


def layer_curves(
    model: nn.Module,
    x: Any,
    y: Any,
    *,
    layers: Sequence[str] | None = None,
    method: str = "matrix_renyi",
    unit: str = "nats",
    max_rows: int | None = 600,
    seed: Seed = 0,
    progress: bool | None = None,
    **params: Any,
) -> Any:
    """I(X;T_l) and I(T_l;Y) of every layer, through :func:`infometer.layer_info`.

    Parameters
    ----------
    model
        A ``torch.nn.Module`` taking ``x`` (run in evaluation mode).
    x
        ``(n, ...)`` float inputs; their flattened rows are X.
    y
        ``(n,)`` integer class labels (discrete targets).
    layers
        Module names; default :func:`default_layers`.
    method, params
        Any registered MI method and its parameters (default ``matrix_renyi``).
    unit
        Unit of the values (default nats; ``unit="bits"`` for bits).
    max_rows
        Rows drawn (seeded) when ``x`` has more: matrix methods cost n² memory, n³ time.
    progress
        Seed of the row draw and of the estimator; progress bar switch.
    seed
        Seed of the row draw and of the estimator; progress bar switch. An int >= 0 (the same int
        gives the same numbers), a numpy.random.Generator (drawn from as it is) or None (fresh
        entropy from the operating system).

    Returns
    -------
    pandas.DataFrame
        :func:`infometer.layer_info`'s columns plus ``position`` (layer order) and
        ``kind`` (the activation kind of the module, or ``"block"``).

    Examples
    --------
    >>> from infometer.systems.models.activations._nets import PatchTransformer
    >>> from infometer.systems.models.activations._tasks import context_task
    >>> x, y = context_task(60)
    >>> df = layer_curves(PatchTransformer(4, 16, 2, d_model=8, n_layers=1), x, y)
    >>> sorted(set(df["quantity"]))
    ['I(T;Y)', 'I(X;T)']
    """
    _model(model)
    xa = x.detach().cpu().numpy() if isinstance(x, torch.Tensor) else np.asarray(x)
    ya = y.detach().cpu().numpy() if isinstance(y, torch.Tensor) else np.asarray(y)
    if xa.dtype.kind != "f":
        raise TypeError(f"x must hold floats, got dtype {xa.dtype}")
    if ya.ndim != 1 or ya.dtype.kind not in "iub":
        raise ValueError(
            f"y must be a 1-D array of integer class labels, got {ya.dtype} {ya.shape}"
        )
    if xa.shape[0] != ya.shape[0]:
        raise ValueError(f"y has {ya.shape[0]} rows but x has {xa.shape[0]}")
    if max_rows is not None:
        max_rows = check_int(max_rows, "max_rows", min_value=4)
    if layers is None:
        names = default_layers(model)
    else:
        names = check_params(
            {"layers": [Many(Instance(str, what="a module name"), distinct=True, what="layers")]},
            {"layers": layers},
        )["layers"]
        known = dict(model.named_modules())
        missing = [nm for nm in names if nm not in known]
        if missing:
            some = [nm for nm in known if nm][:8]
            raise ValueError(
                f"layers names {missing[0]!r}, which is not a module of the model; its modules "
                f"include {some} (default_layers(model) lists the usual ones)"
            )
    seed = resolve_seed(seed)  # one root: the rows drawn and every layer's estimate
    rows = _rows(xa.shape[0], max_rows, seed)
    xs = torch.as_tensor(xa[rows].astype(np.float32))
    df = layer_info(
        model,
        xs,
        ya[rows],
        names,
        method=method,
        unit=unit,
        seed=seed,
        discrete_targets=True,
        progress=check_progress(progress),
        **params,
    )
    order = {nm: i for i, nm in enumerate(names)}
    mods = dict(model.named_modules())
    df["position"] = df["layer"].map(order)
    df["kind"] = [kind_of(mods[nm]) or "block" for nm in df["layer"]]
    df.attrs["rows"] = int(rows.size)
    return df


def gate_bits(
    frames: Mapping[str, Any], *, baseline: str = "gelu", quantity: str = "I(T;Y)"
) -> Any:
    """ΔI_l = I(T_l;Y)[label] − I(T_l;Y)[baseline] per layer, mean ± stderr over seeds.

    Parameters
    ----------
    frames
        ``{label: frame}``: frames of :func:`layer_curves`, each possibly holding several
        seeds (a ``seed`` column); differences are paired by seed and layer.
    baseline
        The label to subtract (default ``"gelu"``).
    quantity
        ``"I(T;Y)"`` (default) or ``"I(X;T)"``.

    Returns
    -------
    pandas.DataFrame
        ``model, layer, position, delta, stderr, n_seeds, unit``; ``stderr`` is NaN for one
        seed.

    Examples
    --------
    >>> import pandas as pd
    >>> f = lambda v: pd.DataFrame({"layer": ["a"], "quantity": ["I(T;Y)"], "value": [v],
    ...                             "unit": ["bits"], "position": [0]})
    >>> gate_bits({"gelu": f(1.0), "fles": f(1.25)})[["model", "delta"]].to_dict("records")
    [{'model': 'fles', 'delta': 0.25}]
    """
    import pandas as pd

    check_choice(quantity, "quantity", ("I(T;Y)", "I(X;T)"))
    if baseline not in frames:
        raise ValueError(f"baseline {baseline!r} is not among the frames: {sorted(frames)}")

    def prep(df: Any) -> Any:
        d = df[df["quantity"] == quantity].copy()
        if "seed" not in d:
            d["seed"] = 0
        return d.set_index(["layer", "seed"])

    base = prep(frames[baseline])
    out = []
    for label, df in frames.items():
        if label == baseline:
            continue
        d = prep(df)
        joined = d[["value", "position", "unit"]].merge(
            base[["value"]].rename(columns={"value": "value_base"}),
            left_index=True,
            right_index=True,
            how="inner",
        )
        if joined.empty:
            raise ValueError(f"frames[{label!r}] shares no (layer, seed) with the baseline")
        joined["delta"] = joined["value"] - joined["value_base"]
        for layer, g in joined.groupby(level="layer", sort=False):
            k = len(g)
            sd = float(g["delta"].std(ddof=1)) if k > 1 else math.nan
            out.append(
                {
                    "model": label,
                    "layer": layer,
                    "position": int(g["position"].iloc[0]),
                    "delta": float(g["delta"].mean()),
                    "stderr": sd / math.sqrt(k) if k > 1 else math.nan,
                    "n_seeds": k,
                    "unit": g["unit"].iloc[0],
                }
            )
    return (
        pd.DataFrame(out).sort_values(["model", "position"], kind="stable").reset_index(drop=True)
    )


def _inputs_of(model: nn.Module, names: list[str], x: torch.Tensor, batch_size: int):
    """Pre-activation inputs of each named module, and its gate values, in evaluation mode."""
    store: dict[str, list[tuple[np.ndarray, np.ndarray, tuple[float, float]]]] = {
        nm: [] for nm in names
    }
    handles = []
    for nm in names:
        mod = model.get_submodule(nm)

        def hook(m: nn.Module, args: Any, nm: str = nm) -> None:
            xt = args[0]
            g = gate_values(m, xt)
            k = (math.nan, math.nan)
            if isinstance(m, _FleSBase):
                a, b = m.kappas(xt)
                k = (float(a.mean()), float(b.mean()))
            pre = xt.detach().double().numpy().ravel()
            store[nm].append((pre, g.double().numpy().ravel(), k))

        handles.append(mod.register_forward_pre_hook(hook))
    was = model.training
    model.eval()
    try:
        with torch.no_grad():
            for i in range(0, x.shape[0], batch_size):
                model(x[i : i + batch_size])
    finally:
        for h in handles:
            h.remove()
        model.train(was)
    return store


def gate_entropy(
    model: nn.Module,
    x: Any,
    *,
    top: float = 0.1,
    bins: int = 10,
    method: str = "miller_madow",
    unit: str = "nats",
    batch_size: int = 256,
) -> Any:
    """Entropy of the binned gate values over the largest pre-activations of each activation.

    Parameters
    ----------
    model
        A ``torch.nn.Module`` whose activations are GELU, SiLU, ReLU or FleS modules (run in
        evaluation mode: FleS uses its running cue).
    x
        Inputs (a float tensor or array), passed in batches of ``batch_size``.
    top
        Fraction of the largest pre-activation values x̃ (pooled over samples, tokens and
        channels of one module) whose gates are counted (default the top decile).
    bins
        Equal bins of the gate range [0, 1].
    method, unit
        A discrete entropy method of :func:`infometer.entropy` and the unit.

    Returns
    -------
    pandas.DataFrame
        One row per activation module: ``layer, kind, entropy, ceiling`` (log bins in
        ``unit``), ``threshold`` (the x̃ quantile), ``n_top``, ``gate_mean``,
        ``top_bin_fraction``, ``kappa_ve``, ``kappa_ho`` (means over channels of a FleS
        module at evaluation; NaN for fixed gates).

    Examples
    --------
    >>> import torch
    >>> from torch import nn
    >>> net = nn.Sequential(nn.Linear(3, 64), nn.ReLU())
    >>> abs(float(gate_entropy(net, torch.randn(200, 3))["entropy"][0])) < 1e-12  # all gates 1
    True
    """
    import pandas as pd

    _model(model)
    top = check_float(top, "top", low=0.0, high=1.0, inclusive=(False, True))
    bins = check_int(bins, "bins", min_value=2)
    batch_size = check_int(batch_size, "batch_size", min_value=1)
    resolve_unit(unit, None)
    xt = _as_float_tensor(x, "x")
    names = find_activations(model)
    if not names:
        raise ValueError("model has no activation modules to read gates from")
    store = _inputs_of(model, names, xt, batch_size)
    rows = []
    for nm in names:
        if not store[nm]:
            raise ValueError(f"activation {nm!r} was not called in the forward pass")
        pre = np.concatenate([a for a, _, _ in store[nm]])
        g = np.concatenate([b for _, b, _ in store[nm]])
        kve, kho = np.mean([k for _, _, k in store[nm]], axis=0)
        thr = float(np.quantile(pre, 1.0 - top))
        sel = g[pre >= thr]
        codes = np.minimum((sel * bins).astype(np.int64), bins - 1)
        est = api.entropy(codes, method=method, unit=unit, discrete=True)
        mod = model.get_submodule(nm)
        rows.append(
            {
                "layer": nm,
                "kind": kind_of(mod),
                "entropy": float(est.value),
                "ceiling": float(np.log(bins) / np.log(2.0) if unit == "bits" else np.log(bins)),
                "unit": est.unit,
                "threshold": thr,
                "n_top": int(sel.size),
                "gate_mean": float(sel.mean()),
                "top_bin_fraction": float(np.mean(codes == bins - 1)),
                "kappa_ve": float(kve),
                "kappa_ho": float(kho),
            }
        )
    df = pd.DataFrame(rows)
    if unit not in ("bits", "nats"):
        df["ceiling"] = [
            float(api.entropy(np.arange(bins), method="plugin", unit=unit).value) for _ in rows
        ]
    return df


def _as_float_tensor(x: Any, name: str) -> torch.Tensor:
    if isinstance(x, torch.Tensor):
        t = x.detach().cpu()
    else:
        a = np.asarray(x)
        if a.dtype.kind not in "fiu":
            raise TypeError(f"{name} must be numeric, got dtype {a.dtype}")
        t = torch.as_tensor(a.astype(np.float32))
    if not t.is_floating_point():
        t = t.float()
    if t.dim() < 1 or t.shape[0] == 0:
        raise ValueError(f"{name} must have examples in rows, got shape {tuple(t.shape)}")
    if not torch.isfinite(t).all():
        raise ValueError(f"{name} contains NaN or infinite values")
    return t


#: Most rows :func:`batch_dependence` passes through the model (its batches together).
MAX_FORWARD_ROWS = 100_000_000


def batch_dependence(
    model: nn.Module,
    x: Any,
    y: Any,
    *,
    mode: str = "train",
    n_probe: int = 16,
    repeats: int = 2,
    batch_size: int = 32,
    method: str = "gkov",
    unit: str = "nats",
    seed: Seed = 0,
    rel_tol: float = 1e-6,
) -> Any:
    """I(Δ_s; C): how much a sample's output tells about its batch-mates' class, in ``unit``.

    Each of ``n_probe`` probe samples s is put ``repeats`` times into a batch with
    ``batch_size − 1`` mates drawn from class c, for every class c; its output logits o_s
    are recorded (on a copy of the model, so that running estimates of the model are
    untouched; dropout is switched off).  Δ_s = o_s − mean(o_s) over its batches; the rows
    of all probes are pooled and I(Δ; C) is estimated with ``method``.

    Parameters
    ----------
    model
        A ``torch.nn.Module`` mapping ``x`` rows to logits.
    x, y
        Inputs and integer class labels (every class needs ``batch_size − 1`` other rows,
        or mates are drawn with replacement).
    mode
        ``"train"`` (batch statistics: FleS and BatchNorm pool over the batch) or
        ``"eval"`` (running estimates: no dependence by construction).
    n_probe, repeats, batch_size
        Probe samples, batches per class and probe, batch size.
    method, unit
        A registered MI method that accepts continuous x with discrete y, and the unit.
    seed
        Seed of the probes and mates (and of the estimator). An int >= 0 (the same int gives the
        same numbers), a numpy.random.Generator (drawn from as it is) or None (fresh entropy from
        the operating system).
    rel_tol
        When max |Δ| ≤ ``rel_tol`` · (1 + max |o|) the outputs are the same up to float
        rounding: the value is exactly 0 (``diagnostics["outputs_identical"] = True``)
        instead of an estimate on rounding noise.

    Returns
    -------
    Estimate
        With ``diagnostics``: ``mean_abs_change`` and ``max_abs_change`` of the logits,
        ``flip_rate`` (fraction of batches in which the probe's predicted class differs from
        its most frequent one: the part of the dependence that changes decisions), ``rows``,
        ``mode``, ``ceiling`` (log K in the unit) and the ``definition``.

    Examples
    --------
    >>> from torch import nn
    >>> from infometer.systems.models.activations._tasks import context_task
    >>> x, y = context_task(80)
    >>> net = nn.Sequential(nn.Flatten(), nn.Linear(64, 2))
    >>> batch_dependence(net, x, y, n_probe=4, repeats=2, batch_size=8).value
    0.0
    """
    _model(model)
    mode = check_choice(mode, "mode", ("train", "eval"))
    n_probe = check_int(n_probe, "n_probe", min_value=1)
    repeats = check_int(repeats, "repeats", min_value=1)
    batch_size = check_int(batch_size, "batch_size", min_value=2)
    rel_tol = check_float(rel_tol, "rel_tol", low=0.0)
    xt = _as_float_tensor(x, "x")
    ya = y.detach().cpu().numpy() if isinstance(y, torch.Tensor) else np.asarray(y)
    if ya.ndim != 1 or ya.dtype.kind not in "iub":
        raise ValueError(
            f"y must be a 1-D array of integer class labels, got {ya.dtype} {ya.shape}"
        )
    if ya.shape[0] != xt.shape[0]:
        raise ValueError(f"y has {ya.shape[0]} rows but x has {xt.shape[0]}")
    classes = np.unique(ya)
    if classes.size < 2:
        raise ValueError("y needs at least 2 classes (the batch composition varies by class)")
    n = xt.shape[0]
    if n_probe > n:
        raise ValueError(f"n_probe={n_probe} exceeds the {n} rows of x")
    check_budget(
        float(n_probe) * repeats * classes.size * batch_size,
        name="n_probe x repeats x classes x batch_size",
        limit=MAX_FORWARD_ROWS,
        what="rows through the model (one batch per probe, repeat and class)",
        override="fewer probes, repeats or a smaller batch_size",
    )
    seed = resolve_seed(seed)  # one root: the probes, the batch-mates and the estimate
    rng = as_generator(seed)
    work = copy.deepcopy(model)
    work.train(mode == "train")
    for m in work.modules():
        if isinstance(m, nn.modules.dropout._DropoutNd):
            m.eval()
    probes = rng.choice(n, n_probe, replace=False)
    deltas, comp, outs = [], [], []
    with torch.no_grad():
        for s in probes:
            o_s = []
            for _ in range(repeats):
                for c in classes:
                    pool = np.flatnonzero((ya == c) & (np.arange(n) != s))
                    mates = rng.choice(pool, batch_size - 1, replace=pool.size < batch_size - 1)
                    out = work(xt[np.concatenate([[s], mates])])
                    o_s.append(out[0].double().numpy().ravel())
                    comp.append(int(c))
            o = np.stack(o_s)
            outs.append(o)
            deltas.append(o - o.mean(axis=0))
    d = np.concatenate(deltas)
    flips = np.concatenate(
        [o.argmax(axis=1) != np.bincount(o.argmax(axis=1)).argmax() for o in outs]
    )
    cc = np.asarray(comp)
    max_change = float(np.abs(d).max())
    scale = float(np.abs(np.concatenate(outs)).max())
    ceiling = math.log(classes.size)
    diag = {
        "mode": mode,
        "rows": int(d.shape[0]),
        "max_abs_change": max_change,
        "mean_abs_change": float(np.abs(d).mean()),
        "output_scale": scale,
        "flip_rate": float(flips.mean()),
        "definition": "I(o_s - mean_batches(o_s); class of the batch-mates)",
    }
    if max_change <= rel_tol * (1.0 + scale):
        diag["outputs_identical"] = True
        est = make_estimate(
            0.0,
            quantity="mutual_info",
            method=f"batch_dependence[{method}]",
            unit=unit,
            n=int(d.shape[0]),
            diagnostics=diag,
        )
    else:
        diag["outputs_identical"] = False
        est = api.mutual_info(d, cc, method=method, unit=unit, seed=seed)
        est = make_estimate(
            est.to("nats").value,
            quantity="mutual_info",
            method=f"batch_dependence[{method}]",
            unit=unit,
            n=est.n,
            diagnostics={**est.diagnostics, **diag},
        )
    factor = 1.0 / math.log(2.0) if est.unit == "bits" else 1.0
    est.diagnostics["ceiling"] = ceiling * factor
    return est


def plot_layer_curves(
    frame: Any, quantity: str = "I(T;Y)", ax: Any = None, path: Any = None
) -> Any:
    """``quantity`` per layer, one line per ``model`` (mean ± stderr over ``seed``).

    ``frame``: concatenated :func:`layer_curves` frames with a ``model`` column (and
    optionally ``seed``).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"model": ["gelu"] * 2, "layer": ["a", "b"], "position": [0, 1],
    ...                    "quantity": ["I(T;Y)"] * 2, "value": [1.0, 0.8], "unit": ["bits"] * 2})
    >>> plot_layer_curves(df).get_ylabel()
    'I(T;Y) [bits]'
    """
    check_choice(quantity, "quantity", ("I(T;Y)", "I(X;T)"))
    for col in ("model", "layer", "position", "quantity", "value"):
        if col not in frame:
            raise ValueError(f"frame needs a {col!r} column (concatenated layer_curves frames)")
    d = frame[frame["quantity"] == quantity]
    _, ax = new_axes(ax, figsize=(6.5, 4.0))
    layers = d.sort_values("position").drop_duplicates("layer")["layer"].tolist()
    for label, g in d.groupby("model", sort=False):
        s = g.groupby("position")["value"].agg(["mean", "std", "count"]).sort_index()
        se = (s["std"] / np.sqrt(s["count"])).fillna(0.0)
        ax.errorbar(s.index, s["mean"], yerr=se, marker="o", ms=4, capsize=2, label=str(label))
    ax.set_xticks(range(len(layers)))
    ax.set_xticklabels(layers, rotation=30, ha="right", fontsize=7)
    unit = d["unit"].iloc[0] if "unit" in d and len(d) else "nats"
    ax.set_ylabel(f"{quantity} [{unit}]")
    ax.set_xlabel("layer")
    ax.legend(fontsize=7)
    return finish(ax, path)
