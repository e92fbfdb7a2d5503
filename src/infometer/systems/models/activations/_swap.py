"""Find and replace the activation modules of a model; read the gate an activation applies.

:func:`swap_activations` replaces every activation *module* (torch's GELU / SiLU / ReLU /
ReLU6 / Mish / Hardswish / Tanh-free gates, Hugging Face's ``transformers.activations``
classes and the FleS modules) of a model in place: the hidden activation of every MLP
block of a Transformer, the ReLUs of a CNN.  Functional activations (``F.gelu`` called
inside a ``forward``) are not modules and cannot be swapped.  The model's own parameter
names and shapes are kept; a FleS module adds its parameters under the activation's name.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import torch
from torch import nn

from infometer.core.data import check_choice
from infometer.core.seeding import Seed, resolve_seed

from ._modules import FLES_KINDS, KINDS, _FleSBase, kind_of, make_activation

__all__ = ["find_activations", "swap_activations", "gate_values", "is_activation"]

_TORCH_ACTS = (nn.GELU, nn.SiLU, nn.ReLU, nn.ReLU6, nn.Mish, nn.Hardswish, nn.LeakyReLU)
# modules whose output size gives the channels of the activation that follows them
_FEATURE_LAST = (nn.Linear, nn.LayerNorm)
_FEATURE_FIRST = (nn.Conv1d, nn.Conv2d, nn.Conv3d, nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d)


def is_activation(module: Any) -> bool:
    """True for an activation module :func:`swap_activations` replaces.

    Examples
    --------
    >>> from torch import nn
    >>> is_activation(nn.GELU()), is_activation(nn.Linear(2, 2))
    (True, False)
    """
    return isinstance(module, (*_TORCH_ACTS, _FleSBase)) or (
        isinstance(module, nn.Module) and type(module).__module__ == "transformers.activations"
    )


def find_activations(model: nn.Module) -> list[str]:
    """Names (``model.named_modules()``) of every activation module of ``model``.

    Modules inside an activation module (the ReLUs of a FleS module's MLPs) are not listed.

    Examples
    --------
    >>> from torch import nn
    >>> find_activations(nn.Sequential(nn.Linear(2, 4), nn.GELU(), nn.Linear(4, 1)))
    ['1']
    """
    _check_model(model)
    found: list[str] = []
    for name, mod in model.named_modules():
        # a FleS module's own MLP ReLUs are part of that activation, not activations of the model
        if name and is_activation(mod) and not any(name.startswith(f + ".") for f in found):
            found.append(name)
    return found


def _check_model(model: Any) -> nn.Module:
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be a torch.nn.Module, got {type(model).__name__}")
    return model


def _features(mod: nn.Module) -> tuple[int, int] | None:
    """(channels, channel_dim) of the output of a module, when its type tells."""
    if isinstance(mod, nn.Linear):
        return mod.out_features, -1
    if isinstance(mod, nn.LayerNorm):
        return int(mod.normalized_shape[-1]), -1
    if isinstance(mod, (nn.Conv1d, nn.Conv2d, nn.Conv3d)):
        return mod.out_channels, 1
    if isinstance(mod, (nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d)):
        return mod.num_features, 1
    if isinstance(mod, nn.GroupNorm):
        return mod.num_channels, 1
    return None


def _inferred(model: nn.Module, name: str) -> tuple[int, int] | None:
    """Channels of activation ``name`` from the sibling registered just before it."""
    parent_name, _, child = name.rpartition(".")
    parent = model.get_submodule(parent_name) if parent_name else model
    before = None
    for nm, mod in parent.named_children():
        if nm == child:
            break
        f = _features(mod)
        if f is not None:
            before = f
        elif is_activation(mod):
            continue
        else:
            # a container: its last module with a known output size
            for sub in mod.modules():
                g = _features(sub)
                if g is not None:
                    before = g
    return before


def _probed(model: nn.Module, names: list[str], example_input: Any) -> dict[str, tuple]:
    """Input shape of each activation in one evaluation-mode forward of ``example_input``."""
    shapes: dict[str, tuple] = {}
    handles = []
    for nm in names:
        mod = model.get_submodule(nm)

        def hook(_m: Any, args: Any, nm: str = nm) -> None:
            if args and isinstance(args[0], torch.Tensor):
                shapes.setdefault(nm, tuple(args[0].shape))

        handles.append(mod.register_forward_pre_hook(hook))
    was = model.training
    model.eval()
    try:
        with torch.no_grad():
            if isinstance(example_input, dict):
                model(**example_input)
            else:
                model(example_input)
    finally:
        for h in handles:
            h.remove()
        model.train(was)
    return shapes


def swap_activations(
    model: nn.Module,
    kind: str,
    *,
    select: Callable[[str, nn.Module], bool] | None = None,
    channel_dim: int | None = None,
    example_input: Any = None,
    seed: Seed = 0,
    **params: Any,
) -> list[str]:
    """Replace every activation module of ``model`` (in place) by one of ``kind``.

    Parameters
    ----------
    model
        A ``torch.nn.Module`` (the built-in ``TinyTransformer``, a CNN, a Hugging Face
        model object...).
    kind
        One of :data:`~infometer.systems.models.activations.KINDS`.
    select
        ``select(name, module) -> bool``: only the activations it accepts (default: all).
    channel_dim
        The channel axis for every FleS module (default: from the module before each
        activation: -1 after a ``Linear`` / ``LayerNorm``, 1 after a convolution or
        BatchNorm; -1 with ``example_input``).
    example_input
        An input (tensor, or dict of keyword tensors) to run once: the channels of each
        activation are then read from its input shape instead of inferred from the module
        registered before it.  Needed when that module does not tell (e.g. GPT-2's
        ``Conv1D``).
    seed
        FleS MLP initialisation; the ``i``-th swapped module gets ``seed + i``. An int >= 0 (the
        same int gives the same numbers), a numpy.random.Generator (drawn from as it is) or None
        (fresh entropy from the operating system).
    **params
        Passed to :func:`make_activation` (``pooling``, ``momentum``, ``reduction``).

    Returns
    -------
    list of str
        The names of the replaced modules.  Every parameter name of ``model`` is kept; a
        FleS module adds its own (e.g. ``blocks.0.mlp.1.alpha_ve``) and its running cue.

    Examples
    --------
    >>> from torch import nn
    >>> net = nn.Sequential(nn.Linear(3, 8), nn.GELU(), nn.Linear(8, 2))
    >>> swap_activations(net, "fles_proto")
    ['1']
    >>> type(net[1]).__name__
    'FleSProto'
    """
    _check_model(model)
    kind = check_choice(kind, "kind", KINDS)
    if select is not None and not callable(select):
        raise TypeError(f"select must be a function (name, module) -> bool, got {select!r}")
    if channel_dim is not None and (
        isinstance(channel_dim, bool) or not isinstance(channel_dim, int)
    ):
        raise TypeError(f"channel_dim must be an integer or None, got {channel_dim!r}")
    seed = resolve_seed(seed)  # the i-th swapped module gets seed + i
    names = [
        nm
        for nm in find_activations(model)
        if select is None or select(nm, model.get_submodule(nm))
    ]
    if not names:
        found = find_activations(model)
        why = (
            f"select= accepted none of its {len(found)} activation modules"
            if found
            else "it has no activation modules (GELU, SiLU, ReLU, ... or transformers.activations "
            "classes); functional activations (F.gelu in forward) cannot be swapped"
        )
        raise ValueError(f"model has nothing to swap: {why}")
    shapes = _probed(model, names, example_input) if example_input is not None else {}
    ref = next(iter([*model.parameters(), *model.buffers()]), None)
    for i, nm in enumerate(names):
        kw: dict[str, Any] = dict(params)
        if kind in FLES_KINDS:
            if nm in shapes:
                cd = -1 if channel_dim is None else channel_dim
                shape = shapes[nm]
                if not -len(shape) <= cd < len(shape):
                    raise ValueError(
                        f"channel_dim={cd} is not an axis of the input of {nm!r} (shape {shape})"
                    )
                if len(shape) >= 2 and cd % len(shape) == 0:
                    raise ValueError(
                        f"channel_dim={cd} is the batch axis of the input of {nm!r} (shape "
                        f"{shape}): the channels are another axis (-1 after a Linear, 1 after "
                        "a convolution)"
                    )
                ch = shape[cd]
            else:
                if example_input is not None:
                    raise ValueError(
                        f"example_input: activation {nm!r} was not called in the forward pass"
                    )
                got = _inferred(model, nm)
                if got is None:
                    raise ValueError(
                        f"cannot tell the channels of activation {nm!r} from the module before it; "
                        "pass example_input= (one input the model accepts)"
                    )
                ch, cd = got
                if channel_dim is not None and channel_dim != cd:
                    # the inferred axis is known only relative to an input of unknown rank:
                    # another axis cannot be checked now, and failed at the first forward pass
                    raise ValueError(
                        f"channel_dim={channel_dim} for activation {nm!r}: the module before it "
                        f"puts its {ch} channels on axis {cd}; pass example_input= (one input "
                        "the model accepts) to check another axis against the real shape, or "
                        "leave channel_dim out"
                    )
            kw.update(channels=ch, channel_dim=cd, seed=seed + i)
        new = make_activation(kind, **kw)
        if ref is not None:
            new = new.to(device=ref.device, dtype=ref.dtype if ref.is_floating_point() else None)
        parent_name, _, child = nm.rpartition(".")
        parent = model.get_submodule(parent_name) if parent_name else model
        setattr(parent, child, new)
    return names


def gate_values(module: nn.Module, x: torch.Tensor) -> torch.Tensor:
    """The multiplicative gate ``g(x)`` in [0, 1] an activation applies, φ(x) = M · g(x) · x.

    GELU: Φ(x) (or its tanh approximation); SiLU: σ(x); ReLU: 1{x > 0}; FleS: σ(κ_ho x)
    with the module's current κ (its limit M = κ_ve divided out).

    Examples
    --------
    >>> import torch
    >>> from torch import nn
    >>> gate_values(nn.SiLU(), torch.tensor([0.0]))
    tensor([0.5000])
    """
    if isinstance(module, _FleSBase):
        return module.gate(x)
    k = kind_of(module)
    if k == "silu":
        return torch.sigmoid(x)
    if k == "relu":
        return (x > 0).to(x.dtype)
    if k == "gelu":
        if getattr(module, "approximate", "none") == "tanh":
            return 0.5 * (1 + torch.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))
        return 0.5 * (1 + torch.erf(x / math.sqrt(2)))
    raise TypeError(
        f"module must be GELU, SiLU, ReLU or a FleS module to read its gate, got "
        f"{type(module).__name__}"
    )
