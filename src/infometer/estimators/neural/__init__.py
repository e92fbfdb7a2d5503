"""Neural (variational) MI estimators, layer-wise information and FlowNIB (extra ``torch``).

Importing this package registers the estimators; torch is imported only when one runs
(``import infometer`` never needs torch).  None of them is ever chosen by
``method="auto"``: a variational bound is only as good as its critic's training, so
they are opt-in (docs/neural.md says which to trust when).

* ``mutual_info``: ``infonce``, ``mine``, ``nwj``, ``dv``, ``smile``, ``kl_dime``,
  ``gan_dime``, ``hd_dime``;
* ``cond_mutual_info``: the same except ``infonce`` (product samples pair ``x_i, z_i``
  with the ``y`` of a nearest neighbour in ``z``).

The object API (train once, query) is :class:`NeuralMI`; layer-wise information is
:func:`layer_info`, FlowNIB is :func:`flownib` (modules :mod:`.estimator`,
:mod:`.layers`, :mod:`.flownib`).
"""

from __future__ import annotations

import inspect
import math
from typing import Any

import numpy as np

from infometer.core.data import Variable, check_int
from infometer.core.registry import Raw, register
from infometer.core.seeding import check_seed, resolve_seed

# torch-free at import (torch is imported inside their functions); importing the function
# `flownib` here also keeps the name from meaning the submodule of the same name
from .flownib import FlowNIBResult, flownib, participation_ratio
from .layers import collect_activations, layer_info, plot_information_plane, plot_layers

__all__ = [
    "NeuralMI",
    "layer_info",
    "collect_activations",
    "plot_information_plane",
    "flownib",
    "FlowNIBResult",
    "participation_ratio",
    "plot_layers",
    "BOUND_NAMES",
]

_FAMILY = "neural"
_KINDS = ("continuous", "discrete", "mixed")
#: The registered bounds (the same names as :data:`infometer.estimators.neural.bounds.BOUNDS`).
BOUND_NAMES = ("mine", "nwj", "infonce", "dv", "smile", "kl_dime", "gan_dime", "hd_dime")


def __getattr__(name: str) -> Any:
    if name == "NeuralMI":  # the only module here that imports torch at its top
        from .estimator import NeuralMI

        return NeuralMI
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _require_torch() -> None:
    try:
        import torch  # noqa: F401
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "the neural estimators need torch: pip install 'infometer[torch]'"
        ) from exc


#: Parameters of every registered bound (name -> default), in signature order.
_PARAMS: dict[str, Any] = {
    "critic": "separable",
    "hidden": None,
    "depth": 2,
    "embed_dim": 16,
    "steps": 2000,
    "batch_size": 256,
    "lr": 5e-4,
    "patience": 5,
    "holdout": 0.2,
    "bias_check": True,
    "n_seeds": 1,
    "max_seconds": None,
    "device": "cpu",
    "seed": 0,
    "progress": False,
}

_SUMMARIES = {
    "mine": "MINE: Donsker-Varadhan bound, moving-average gradient (Belghazi et al. 2018)",
    "nwj": "NWJ lower bound (Nguyen, Wainwright & Jordan 2010)",
    "infonce": "InfoNCE / CPC lower bound, capped at log(batch) (van den Oord et al. 2018)",
    "dv": "Donsker-Varadhan lower bound",
    "smile": "SMILE: clipped DV on a JS-trained critic (Song & Ermon 2020)",
    "kl_dime": "KL-DIME: mean log density ratio of a KL-trained critic (Letizia et al. 2024)",
    "gan_dime": "GAN-DIME: mean log density ratio of a classifier critic (Letizia et al. 2024)",
    "hd_dime": "HD-DIME: mean log density ratio, squared-Hellinger critic (Letizia et al. 2024)",
}


def check_params(bound: str, **params: Any) -> None:
    """Validate a bound's parameters (``steps=0``, ``hidden=-1``, an unknown device...)
    without training anything: callers that collect data first (``layer_info``, the CLI)
    check them before that work.  Raises what training would raise, naming the parameter."""
    _require_torch()
    from .estimator import NeuralMI

    params = {**_PARAMS, **params}
    check_int(params.pop("n_seeds"), "n_seeds", min_value=1)
    check_seed(params.pop("seed"))
    NeuralMI(bound, **params)


def fit_estimate(bound: str, variables: dict[str, Variable], **params: Any) -> Raw:
    """Fit ``n_seeds`` critics (seeds ``seed, seed+1, ...``) and estimate on held-out rows.

    The value is the mean over seeds; with ``n_seeds > 1`` its stderr is the seed
    spread ``sd / sqrt(n_seeds)`` (each seed also draws its own split), estimated from
    ``n_seeds`` replicates: ``stderr_dof = n_seeds - 1``, so ``ci=`` gives the Student t
    interval on ``n_seeds - 1`` degrees of freedom.
    """
    _require_torch()
    from .estimator import NeuralMI

    n_seeds = check_int(params.pop("n_seeds", 1), "n_seeds", min_value=1)
    seed = resolve_seed(params.pop("seed", 0))
    values: list[float] = []
    diag: dict[str, Any] = {}
    warns: list[str] = []
    first = None
    for k in range(n_seeds):
        # the bias check is made once, with the first critic's settings and seed
        kw = params if k == 0 else {**params, "bias_check": False}
        model = NeuralMI(bound, seed=seed + k, **kw).fit_variables(variables)
        v, d, w = model.evaluate()
        values.append(v)
        if k == 0:
            diag, first = d, model
        elif d["convergence"]["diverged"]:
            diag["convergence"]["diverged"] = True
        warns.extend(x for x in w if x not in warns)
    value = float(np.mean(values))
    stderr = dof = None
    if n_seeds > 1:
        diag["seed_values"] = values
        sd = float(np.std(values, ddof=1))
        stderr = sd / math.sqrt(n_seeds) if math.isfinite(sd) else None
        dof = n_seeds - 1 if stderr is not None else None
        diag["seed_sd"] = sd
        if first is not None and first.reference is not None and math.isfinite(value):
            old = diag.get("bias_check_large")
            check, cw = first.bias_diagnostics(value)  # judged next to the mean of the seeds
            diag.update(check)
            if old and not check["bias_check_large"]:
                warns = [x for x in warns if "model's own error" not in x]
            elif check["bias_check_large"] and not old:
                warns.extend(cw)
    diag["train_rule"] = {
        "hidden": first.hidden if first is not None else None,
        "eval_every": first.settings.eval_every if first is not None else None,
    }
    return Raw(value=value, stderr=stderr, stderr_dof=dof, diagnostics=diag, warnings=warns)


def _bound_function(bound: str, roles: tuple[str, ...]) -> Any:
    """The registered function of one bound: roles positional, parameters keyword-only."""
    extra = {"tau": 5.0} if bound == "smile" else {}
    defaults = {**_PARAMS, **extra}

    def f(*variables: Variable, **params: Any) -> Raw:
        given = {**defaults, **params}
        return fit_estimate(bound, dict(zip(roles, variables, strict=True)), **given)

    P = inspect.Parameter
    f.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [P(r, P.POSITIONAL_ONLY, annotation=Variable) for r in roles]
        + [P(k, P.KEYWORD_ONLY, default=v) for k, v in defaults.items()],
        return_annotation=Raw,
    )
    quantity = "I(X;Y)" if roles == ("x", "y") else "I(X;Y|Z)"
    f.__name__ = f.__qualname__ = f"{bound}_{'mi' if len(roles) == 2 else 'cmi'}"
    f.__doc__ = (
        f"{_SUMMARIES[bound]}: {quantity} on held-out rows (see infometer.estimators.neural)."
    )
    f.resample_params = _without_bias_check  # type: ignore[attr-defined]
    return f


def _without_bias_check(params: dict[str, Any]) -> dict[str, Any]:
    """Parameters of the re-runs behind ``ci=``: the bias check is made once, on the
    estimate (``infometer.core.resample``), not again for every seed."""
    return {**params, "bias_check": False}


for _b in BOUND_NAMES:
    register(
        _b,
        "mutual_info",
        kinds=_KINDS,
        family=_FAMILY,
        resampling="seeds",
        summary=_SUMMARIES[_b],
    )(_bound_function(_b, ("x", "y")))
    if _b != "infonce":
        register(
            _b,
            "cond_mutual_info",
            kinds=_KINDS,
            family=_FAMILY,
            resampling="seeds",
            summary=_SUMMARIES[_b],
        )(_bound_function(_b, ("x", "y", "z")))
