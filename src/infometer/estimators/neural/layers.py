"""Layer-wise information in a network: I(X;T_l) and I(T_l;Y) per layer (needs torch).

Activations are collected with forward hooks on named modules, pooled to one vector
per example (the mean over tokens, honouring an attention mask, for sequence models;
or a user function), and every quantity is estimated through the public API
(``infometer.mutual_info``) with any registered estimator.

For a deterministic network with continuous inputs, I(X;T) is infinite for every
injective layer; what an estimator reports then is its own ceiling (InfoNCE: log of the
batch size).  With discrete inputs (a finite set of examples) I(X;T) ≤ H(X) and an
injective layer reaches it.  See docs/neural.md.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from infometer.core.progress import progress_bar
from infometer.core.seeding import Seed, resolve_seed

__all__ = ["collect_activations", "layer_info", "plot_information_plane", "plot_layers"]

_QUANTITIES = ("I(X;T)", "I(T;Y)")


def _default_layers(model: Any) -> list[str]:
    """The blocks of the longest ``ModuleList`` (transformer layers), else top-level children."""
    import torch

    best: tuple[int, str] | None = None
    for name, mod in model.named_modules():
        if isinstance(mod, torch.nn.ModuleList) and len(mod) > 0:
            if best is None or len(mod) > best[0]:
                best = (len(mod), name)
    if best is not None:
        return [f"{best[1]}.{i}" for i in range(best[0])]
    names = [name for name, _ in model.named_children()]
    if not names:
        raise ValueError("model has no sub-modules to hook: pass layers= explicitly")
    return names


def _rows(inputs: Any) -> int:
    if isinstance(inputs, Mapping):
        lens = {int(v.shape[0]) for v in inputs.values() if hasattr(v, "shape")}
        if len(lens) != 1:
            raise ValueError(f"inputs holds tensors with different numbers of rows: {sorted(lens)}")
        return lens.pop()
    if not hasattr(inputs, "shape") or len(inputs.shape) == 0:
        raise TypeError(
            "inputs must be a tensor/array with examples in rows, or a dict of them "
            f"(e.g. a tokenizer's output), got {type(inputs).__name__}"
        )
    return int(inputs.shape[0])


def _slice(inputs: Any, sl: slice, device: Any, dtype: Any = None) -> Any:
    """Rows ``sl`` of the inputs on ``device``; floating arrays and tensors are cast to the
    model's floating dtype ``dtype`` (numpy's float64 default fed to a float32 model)."""
    import torch

    def one(v: Any) -> Any:
        if isinstance(v, np.ndarray):
            v = torch.as_tensor(v)
        if not isinstance(v, torch.Tensor):
            return v
        v = v[sl].to(device)
        return v.to(dtype) if dtype is not None and v.is_floating_point() else v

    if isinstance(inputs, Mapping):
        return {k: one(v) for k, v in inputs.items()}
    return one(inputs)


def _token_mask(batch: Any) -> Any:
    """(B, L) mask of real tokens from a batch's ``attention_mask`` (2-D, or 3-D: diagonal)."""
    if not isinstance(batch, Mapping) or "attention_mask" not in batch:
        return None
    m = batch["attention_mask"]
    if m.dim() == 3:
        m = m.diagonal(dim1=1, dim2=2)
    return m


def _pool(out: Any, mask: Any, pooling: str | Callable[..., Any]) -> Any:
    import torch

    if isinstance(out, tuple | list):
        out = out[0]
    if hasattr(out, "last_hidden_state"):
        out = out.last_hidden_state
    if not isinstance(out, torch.Tensor):
        raise TypeError(f"a hooked layer returned {type(out).__name__}, not a tensor")
    if callable(pooling):
        return pooling(out, mask)
    if out.dim() == 3:  # (B, L, d): sequence
        if pooling == "first":
            return out[:, 0]
        if mask is not None and mask.shape == out.shape[:2]:
            w = mask.to(out.dtype)[..., None]
            return (out * w).sum(1) / w.sum(1).clamp_min(1.0)
        return out.mean(1)
    return out.reshape(out.shape[0], -1)


def collect_activations(
    model: Any,
    inputs: Any,
    layers: Sequence[str] | None = None,
    *,
    pooling: str | Callable[..., Any] = "mean",
    batch_size: int = 64,
    forward: Callable[[Any, Any], Any] | None = None,
    device: Any = None,
) -> dict[str, np.ndarray]:
    """Pooled activations ``{layer: (n, d) float64}`` of named modules of ``model``.

    Parameters
    ----------
    model
        A ``torch.nn.Module`` (run in eval mode, without gradients).
    inputs
        A tensor/array with examples in rows, or a dict of them (a tokenizer's output:
        ``input_ids``, ``attention_mask``...).  A 3-D ``attention_mask`` (e.g. a causal
        mask) is passed on as it is; its diagonal marks the real tokens for pooling.
    layers
        Names from ``model.named_modules()``; default: the blocks of the longest
        ``ModuleList`` (the transformer layers), else the top-level children.
    pooling
        ``"mean"`` (over tokens, honouring the attention mask), ``"first"`` (first
        token) or ``f(output, mask) -> (B, d)``.  Non-sequence outputs are flattened.
    batch_size
        Examples per forward pass.
    forward
        ``forward(model, batch)``; default ``model(**batch)`` for dicts, else ``model(batch)``.
    device
        Where to run (default: the model's device).
    """
    import torch

    from infometer.core.data import check_int

    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"model must be a torch.nn.Module, got {type(model).__name__}")
    batch_size = check_int(batch_size, "batch_size", min_value=1)
    if not (callable(pooling) or pooling in ("mean", "first")):
        raise ValueError(f"pooling must be 'mean', 'first' or a function, got {pooling!r}")
    modules = dict(model.named_modules())
    names = _default_layers(model) if layers is None else list(layers)
    if isinstance(layers, str):
        names = [layers]
    missing = [nm for nm in names if nm not in modules or nm == ""]
    if missing:
        some = ", ".join(list(k for k in modules if k)[:12])
        raise ValueError(f"layers: model has no module named {missing}; some names: {some} ...")
    n = _rows(inputs)
    if device is None:
        p = next(model.parameters(), None)
        device = p.device if p is not None else torch.device("cpu")
    from infometer.core._torch import call_model, param_dtype

    dtype = param_dtype(model)
    store: dict[str, list[np.ndarray]] = {nm: [] for nm in names}
    state: dict[str, Any] = {"mask": None}

    def hook_for(nm: str) -> Callable[..., None]:
        def hook(_mod: Any, _inp: Any, out: Any) -> None:
            pooled = _pool(out, state["mask"], pooling).detach().double().cpu().numpy()
            store[nm].append(pooled.reshape(pooled.shape[0], -1))

        return hook

    handles = [modules[nm].register_forward_hook(hook_for(nm)) for nm in names]
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            for i in range(0, n, batch_size):
                batch = _slice(inputs, slice(i, i + batch_size), device, dtype)
                state["mask"] = _token_mask(batch)
                if forward is not None:
                    forward(model, batch)
                else:  # a shape/dtype mismatch is the caller's: named, not a torch error
                    call_model(
                        model, dict(batch) if isinstance(batch, Mapping) else batch, "inputs"
                    )
    finally:
        for h in handles:
            h.remove()
        model.train(was_training)
    out = {}
    for nm in names:
        if not store[nm]:
            raise ValueError(f"layers: module {nm!r} was never called in the forward pass")
        a = np.concatenate(store[nm])
        if a.shape[0] != n:
            raise ValueError(
                f"layers: module {nm!r} produced {a.shape[0]} rows for {n} examples "
                "(called more than once per forward?); pass pooling= or another layer"
            )
        if not np.isfinite(a).all():
            raise ValueError(f"activations of layer {nm!r} contain NaN or infinite values")
        out[nm] = a
    return out


def check_estimator(method: Any, params: dict[str, Any]) -> None:
    """An MI ``method`` and its parameters, checked before any work: an unknown method
    (listing the valid ones), an unknown parameter, and for the neural bounds every
    training setting (``steps=0``...)."""
    from infometer.core import registry

    if not isinstance(method, str):
        raise TypeError(f"method must be a string, got {type(method).__name__} {method!r}")
    if method.lower() == "auto":
        return  # resolved per layer from the data; its parameters are checked there
    spec = registry.get("mutual_info", method.lower())
    spec.check_params(dict(params))
    if spec.family == "neural":
        from . import check_params

        check_params(spec.name, **params)


def layer_info(
    model: Any,
    inputs: Any,
    targets: Any = None,
    layers: Sequence[str] | None = None,
    *,
    method: str = "infonce",
    x: Any = None,
    quantities: Sequence[str] | None = None,
    pooling: str | Callable[..., Any] = "mean",
    ci: float | None = None,
    unit: str = "nats",
    seed: Seed = 0,
    discrete_targets: bool | None = None,
    batch_size: int = 64,
    forward: Callable[[Any, Any], Any] | None = None,
    progress: bool | None = None,
    **params: Any,
) -> Any:
    """I(X;T_l) and I(T_l;Y) for each layer ``l``, as a tidy pandas DataFrame.

    Parameters
    ----------
    model, inputs, layers, pooling, batch_size, forward
        As for :func:`collect_activations`.
    targets
        ``(n,)`` labels or values Y (needed for I(T;Y)).
    method
        Any registered MI estimator (``infometer.methods("mutual_info")``); neural
        bounds are the default because layers are wide.  Its parameters go in ``**params``.
    x
        ``(n, d)`` representation of the inputs for I(X;T); default: the inputs
        themselves, flattened, when they are a numeric tensor/array.
    quantities
        Subset of ``("I(X;T)", "I(T;Y)")``; default: those the data allow.
    ci, unit
        Passed to :func:`infometer.mutual_info` (``ci`` of a neural bound re-trains with
        other seeds).
    seed
        Passed to :func:`infometer.mutual_info` (``ci`` of a neural bound re-trains with other
        seeds). An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn
        from as it is) or None (fresh entropy from the operating system).
    discrete_targets
        Treat ``targets`` as symbols (default: from the dtype).
    progress
        Show a progress bar over the estimates.

    Returns
    -------
    pandas.DataFrame
        Columns ``layer, quantity, value, ci, method, stderr, unit, n, d``, one row per
        layer and quantity; ``df.attrs["estimates"]`` holds the Estimates.
    """
    from infometer.core._extras import require

    require("torch", "infometer.layer_info")
    import pandas as pd

    from infometer.core import api
    from infometer.core.data import as_variable

    n = _rows(inputs)
    if targets is not None:
        tl = len(targets) if not hasattr(targets, "shape") else int(targets.shape[0])
        if tl != n:
            raise ValueError(f"targets has {tl} rows but inputs has {n}")
    if x is None and not isinstance(inputs, Mapping):
        arr = inputs.detach().cpu().numpy() if hasattr(inputs, "detach") else np.asarray(inputs)
        if arr.dtype.kind == "f":
            x = arr.reshape(n, -1)
    if x is not None:
        xl = len(x) if not hasattr(x, "shape") else int(x.shape[0])
        if xl != n:
            raise ValueError(f"x has {xl} rows but inputs has {n}")
    if quantities is None:
        have = (x is not None, targets is not None)
        quantities = [q for q, ok in zip(_QUANTITIES, have, strict=True) if ok]
    quantities = list(quantities)
    for q in quantities:
        if q not in _QUANTITIES:
            raise ValueError(f"quantities must be among {list(_QUANTITIES)}, got {q!r}")
    if "I(X;T)" in quantities and x is None:
        raise ValueError("I(X;T) needs x= (a numeric representation of the inputs)")
    if "I(T;Y)" in quantities and targets is None:
        raise ValueError("I(T;Y) needs targets=")
    if not quantities:
        raise ValueError("nothing to estimate: pass targets= and/or x=")
    check_estimator(method, params)  # before the forward passes, not after them
    seed = resolve_seed(seed)  # one root for every layer's estimate
    from infometer.core.progress import check_progress

    check_progress(progress)
    acts = collect_activations(
        model, inputs, layers, pooling=pooling, batch_size=batch_size, forward=forward
    )
    bar = progress_bar(
        total=len(acts) * len(quantities), desc="layer_info", unit="estimate", progress=progress
    )
    rows, ests = [], []
    for name, t in acts.items():
        for q in quantities:
            if q == "I(X;T)":
                pair = {"x": as_variable(x, "x"), "y": as_variable(t, f"activations[{name!r}]")}
            else:
                pair = {
                    "x": as_variable(t, f"activations[{name!r}]", discrete=False),
                    "y": as_variable(targets, "targets", discrete=discrete_targets),
                }
            est = api.run(
                "mutual_info", pair, method=method, unit=unit, ci=ci, seed=seed, params=params
            )
            ests.append(est)
            rows.append(
                {
                    "layer": name,
                    "quantity": q,
                    "value": est.value,
                    "ci": est.ci,
                    "method": est.method,
                    "stderr": est.stderr,
                    "unit": est.unit,
                    "n": est.n,
                    "d": t.shape[1],
                }
            )
            if bar is not None:
                bar.update(1)
    if bar is not None:
        bar.close()
    df = pd.DataFrame(rows)
    df.attrs["estimates"] = ests
    return df


def plot_information_plane(df: Any, ax: Any = None, path: str | None = None) -> Any:
    """Layers as points in the (I(X;T), I(T;Y)) plane, joined in layer order.

    Follows :mod:`infometer.core.plot`'s convention: draws on ``ax`` (a new figure if None),
    saves a PNG at ``path`` when given, returns the axes.  Error bars, where the table
    has intervals, are its confidence intervals.
    """
    from infometer.core.plot import axes_and_path, finish, new_axes

    ax, path = axes_and_path(ax, path)  # plot_information_plane(df, path), the older form
    piv = df.pivot_table(index="layer", columns="quantity", values="value", sort=False)
    if not {"I(X;T)", "I(T;Y)"} <= set(piv.columns):
        raise ValueError("the information plane needs both I(X;T) and I(T;Y) in df")
    order = list(dict.fromkeys(df["layer"]))
    piv = piv.loc[order]
    _, ax = new_axes(ax, figsize=(5.5, 4.5))
    ax.plot(piv["I(X;T)"], piv["I(T;Y)"], "-o", ms=5)
    for name, row in piv.iterrows():
        ax.annotate(
            str(name),
            (row["I(X;T)"], row["I(T;Y)"]),
            fontsize=7,
            xytext=(3, 3),
            textcoords="offset points",
        )
    unit = df["unit"].iloc[0] if "unit" in df else "nats"
    ax.set_xlabel(f"I(X;T) [{unit}]")
    ax.set_ylabel(f"I(T;Y) [{unit}]")
    ax.set_title("Information plane (one point per layer)")
    return finish(ax, path)


def _interval(d: Any) -> tuple[np.ndarray, np.ndarray, str] | None:
    """``(low, high, label)`` of each row: its CI, else value ± 1.96 stderr; None if neither
    (with few seeds ± 1.96 stderr is not a 95% interval, so the label says what it is)."""
    vals = d["value"].to_numpy(dtype=float)
    if "ci" in d and all(c is not None and c == c for c in d["ci"]):
        cis = list(d["ci"])
        level = d["ci_level"].iloc[0] if "ci_level" in d else None
        name = f"{round(100 * level)}% CI" if level == level and level else "CI"
        return np.array([c[0] for c in cis]), np.array([c[1] for c in cis]), name
    if "stderr" in d:
        se = _floats(d["stderr"])
        if np.isfinite(se).any():
            se = np.where(np.isfinite(se), se, 0.0)
            return vals - 1.96 * se, vals + 1.96 * se, "± 1.96 stderr (spread of critic seeds)"
    return None


def _floats(col: Any) -> np.ndarray:
    """A column of floats and Nones as a float array (None -> NaN)."""
    return np.array([np.nan if v is None else float(v) for v in col], dtype=float)


def plot_layers(
    frames: Mapping[str, Any],
    quantity: str = "I(T;Y)",
    ax: Any = None,
    path: str | None = None,
    *,
    ceiling: float | None = None,
    ceiling_label: str | None = None,
) -> Any:
    """``quantity`` per layer for several models (``{label: layer_info DataFrame}``).

    Each model is a line with error bars (its confidence interval, or ± 1.96 standard
    errors over critic seeds); ``ceiling`` draws the largest possible value (e.g.
    I(T;Y) <= H(Y) <= log 2 for a binary label) as a dashed line.  Draws on ``ax`` (a new
    figure if None), saves a PNG at ``path`` when given, returns the axes.
    """
    from infometer.core.plot import axes_and_path, finish, new_axes

    ax, path = axes_and_path(ax, path)  # plot_layers(frames, quantity, path), the older form
    _, ax = new_axes(ax, figsize=(6.5, 4.0))
    labelled: set[str] = set()
    width = 0.08 * (len(frames) - 1)
    for i, (label, df) in enumerate(frames.items()):
        d = df[df["quantity"] == quantity]
        xs = np.arange(len(d)) + (i * 0.16 - width)  # side by side: bars do not hide
        vals = d["value"].to_numpy(dtype=float)
        band = _interval(d)
        if band is None:
            ax.plot(xs, vals, "-o", ms=4, label=label)
        else:
            lo, hi, name = band
            yerr = [np.maximum(vals - lo, 0), np.maximum(hi - vals, 0)]
            ax.errorbar(xs, vals, yerr=yerr, fmt="-o", ms=4, capsize=3, label=label)
            labelled.add(name)
        ax.set_xticks(np.arange(len(d)))
        ax.set_xticklabels(list(d["layer"]), rotation=30, ha="right", fontsize=7)
    unit = next(iter(frames.values()))["unit"].iloc[0]
    if ceiling is not None:
        ax.axhline(ceiling, color="grey", ls="--", lw=1, label=ceiling_label or "ceiling")
    ax.set_ylabel(f"{quantity} [{unit}]")
    ax.set_xlabel("layer")
    if labelled:
        ax.set_title(f"error bars: {', '.join(sorted(labelled))}", fontsize=9)
    ax.legend(fontsize=8, loc="best")
    return finish(ax, path)
