"""Torch plumbing shared by the model tools: devices, inputs, batches, logits.

Only imported by modules that need torch (never by ``import infometer``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import numpy as np

from infometer.core.data import check_int

try:
    import torch
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "infometer.systems.models needs torch for this: pip install 'infometer[torch]'"
    ) from exc

__all__ = [
    "model_device",
    "check_model_device",
    "as_tensor",
    "batches",
    "checked_logits",
    "eval_mode",
    "predict_proba",
    "check_module",
    "input_width",
    "check_input",
    "call_model",
]


def check_module(model: Any, name: str = "model") -> torch.nn.Module:
    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"{name} must be a torch.nn.Module, got {type(model).__name__}")
    return model


def model_device(model: torch.nn.Module, name: str = "model") -> torch.device:
    """The one device holding the model's parameters and buffers."""
    devs = {t.device for t in [*model.parameters(), *model.buffers()]}
    if not devs:
        return torch.device("cpu")
    if len(devs) > 1:
        raise ValueError(
            f"{name} has parameters on several devices ({sorted(map(str, devs))}); "
            "move it to one device first"
        )
    return devs.pop()


def _same(a: torch.device, b: torch.device) -> bool:
    if a.type != b.type:
        return False
    if a.type == "cuda":
        ia = a.index if a.index is not None else torch.cuda.current_device()
        ib = b.index if b.index is not None else torch.cuda.current_device()
        return ia == ib
    return True


def check_model_device(
    model: torch.nn.Module, device: Any = None, name: str = "model"
) -> torch.device:
    """The device to compute on: the model's, which ``device=`` (if given) must match.

    ``device`` is read by :func:`infometer.core.validation.resolve_device` (it must exist on this
    machine).  The model is never moved silently: a mismatch is an error that says how to
    fix it.
    """
    from infometer.core.validation import resolve_device

    here = model_device(model, name)
    if device is None:
        return here
    want = device if isinstance(device, torch.device) else resolve_device(device, "device")
    if not _same(here, want):
        raise ValueError(
            f"{name} is on {here} but device={str(want)!r}; move it with "
            f"{name}.to({str(want)!r}) first (infometer does not move models)"
        )
    return here


def as_tensor(x: Any, device: torch.device, dtype: torch.dtype, name: str = "x") -> torch.Tensor:
    """Inputs as a tensor on ``device``; floating inputs cast to ``dtype``.

    A tensor on another device is an error (it is not copied silently); arrays are copied
    to ``device``.  Non-finite floating inputs are an error.
    """
    if isinstance(x, torch.Tensor):
        if not _same(x.device, device):
            raise ValueError(
                f"{name} is on {x.device} but the model is on {device}; move the data with "
                f"{name}.to({str(device)!r}) (or pass a numpy array)"
            )
        t = x.detach()
    else:
        try:
            arr = np.asarray(x)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{name} could not be read as an array: {exc}") from None
        if arr.dtype.kind not in "biuf":
            raise TypeError(f"{name} must be numeric, got dtype {arr.dtype}")
        t = torch.as_tensor(arr, device=device)
    if t.ndim == 0 or t.shape[0] == 0:
        raise ValueError(f"{name} must have at least one sample (rows along the first axis)")
    if t.is_floating_point():
        if not bool(torch.isfinite(t).all()):
            row = int(torch.nonzero(~torch.isfinite(t.reshape(t.shape[0], -1)).all(1))[0])
            raise ValueError(f"{name} contains NaN or inf (sample {row})")
        t = t.to(dtype)
    return t


def input_width(model: torch.nn.Module) -> int | None:
    """The feature width of the model's first registered layer, when it says one
    (``nn.Linear``: ``in_features``; a convolution: ``in_channels`` on axis 1), else None.
    Only a hint for messages: registration order need not be call order."""
    for m in model.modules():
        if isinstance(m, torch.nn.Linear):
            return int(m.in_features)
        if isinstance(m, torch.nn.modules.conv._ConvNd):
            return int(m.in_channels)
        if isinstance(m, torch.nn.Embedding | torch.nn.EmbeddingBag):
            return None
    return None


def check_input(model: torch.nn.Module, x: torch.Tensor, name: str = "x") -> None:
    """Run the model on the first sample, before any work: inputs that do not fit it
    (width, dtype) are a ``ValueError`` naming ``name`` and the model's side (see
    :func:`call_model`), not a torch error after minutes of Jacobians."""
    with torch.no_grad(), eval_mode(model):
        call_model(model, x[:1], name)


def call_model(model: Any, batch: Any, name: str = "x", **kwargs: Any) -> Any:
    """``model(batch)``, with a torch shape or dtype error (the user's input not fitting the
    model) re-raised as a ``ValueError`` naming ``name``, the input's and the model's
    shape and dtype."""
    try:
        return model(**batch, **kwargs) if isinstance(batch, dict) else model(batch, **kwargs)
    except RuntimeError as exc:
        msg = str(exc)
        if not any(w in msg for w in ("shape", "size", "dtype", "Expected", "expected")):
            raise
        got = (
            {k: (tuple(v.shape), str(v.dtype)) for k, v in batch.items() if hasattr(v, "shape")}
            if isinstance(batch, dict)
            else f"shape {tuple(batch.shape)}, {batch.dtype}"
        )
        want = input_width(model)
        model_side = f"{param_dtype(model)} parameters" + (
            f", first layer of width {want}" if want is not None else ""
        )
        raise ValueError(
            f"{name} ({got}) does not fit the model ({model_side}): {msg.splitlines()[0]}"
        ) from None


def batches(n: int, batch_size: int) -> Iterator[slice]:
    batch_size = check_int(batch_size, "batch_size", min_value=1)
    for i in range(0, n, batch_size):
        yield slice(i, min(i + batch_size, n))


def checked_logits(z: Any, start: int, min_classes: int = 2) -> torch.Tensor:
    """The model output as (batch, C) logits; a clear error for anything else."""
    if isinstance(z, tuple | list) and z and isinstance(z[0], torch.Tensor):
        z = z[0]
    if not isinstance(z, torch.Tensor):
        raise TypeError(f"the model must return a tensor of logits, got {type(z).__name__}")
    if z.ndim != 2 or z.shape[1] < min_classes:
        raise ValueError(
            f"the model must return logits of shape (batch, classes) with >= {min_classes} "
            f"classes, got {tuple(z.shape)}"
        )
    if not bool(torch.isfinite(z).all()):
        bad = int(torch.nonzero(~torch.isfinite(z).all(1))[0])
        raise ValueError(f"the model returned non-finite logits for sample {start + bad}")
    return z


@contextlib.contextmanager
def eval_mode(model: torch.nn.Module) -> Iterator[torch.nn.Module]:
    """Evaluate with dropout off and batch-norm statistics frozen; restore the mode after."""
    was = model.training
    model.eval()
    try:
        yield model
    finally:
        model.train(was)


def param_dtype(model: torch.nn.Module) -> torch.dtype:
    for p in model.parameters():
        if p.is_floating_point():
            return p.dtype
    return torch.get_default_dtype()


def predict_proba(
    model: Any,
    x: Any,
    *,
    batch_size: int = 256,
    device: Any = None,
    transform: Any = None,
) -> np.ndarray:
    """Softmax probabilities of a classifier that returns logits, as a numpy array (n, C).

    Parameters
    ----------
    model
        ``torch.nn.Module`` mapping a batch of inputs to (batch, C) logits; evaluated in
        eval mode (its mode is restored afterwards).
    x
        Inputs, samples along the first axis (numpy array or tensor on the model's device).
    batch_size
        Inputs per forward pass.
    device
        Where to compute; must be the model's device (checked, never moved).
    transform
        Optional module applied to each batch before the model (e.g. a DJIP layer).
    """
    model = check_module(model)
    dev = check_model_device(model, device)
    xt = as_tensor(x, dev, param_dtype(model))
    out = []
    with eval_mode(model), torch.no_grad():
        for sl in batches(xt.shape[0], batch_size):
            xb = xt[sl] if transform is None else transform(xt[sl])
            z = checked_logits(model(xb), sl.start)
            out.append(torch.softmax(z.double(), dim=1).cpu().numpy())
    return np.concatenate(out)
