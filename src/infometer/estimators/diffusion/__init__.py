"""InfoSEDD: information estimation with masked discrete diffusion (extra ``torch``).

Importing this package registers the estimators; torch is imported only when one
of them runs (``import infometer`` never needs torch).

* ``entropy``: ``infosedd`` / ``infosedd_h`` (InfoSEDD-H);
* ``mutual_info``: ``infosedd`` / ``infosedd_j`` (one joint model, marginals by masking)
  and ``infosedd_c`` (conditional model);
* ``kl_divergence``: ``infosedd`` (two models, one per sample).

The object API (train once, query many times) is :class:`InfoSEDD` in
:mod:`infometer.estimators.diffusion.infosedd`; sequences are read by :mod:`infometer.core.io_seq`.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from infometer.core.data import Variable
from infometer.core.registry import Raw, register

from .tokens import Tokens, as_tokens, join_tokens, parse_positions, variable_tokens

__all__ = ["InfoSEDD", "kl_divergence", "ScanResult", "Tokens", "parse_positions"]

_FAMILY = "diffusion"


def __getattr__(name: str) -> Any:
    if name in ("InfoSEDD", "kl_divergence", "ScanResult"):
        from . import infosedd

        return getattr(infosedd, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _require_torch() -> None:
    try:
        import torch  # noqa: F401
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "the infosedd estimators need torch: pip install 'infometer[torch]'"
        ) from exc


def _model_kwargs(
    steps: int,
    batch_size: int,
    lr: float,
    arch: str,
    hidden: int | None,
    holdout: float,
    device: str,
    seed: int,
    progress: bool,
) -> dict[str, Any]:
    kw: dict[str, Any] = {}
    if arch in ("auto", "mlp") and hidden is not None:  # None: scaled to the data
        kw = {"hidden": hidden}
    return {
        "steps": steps,
        "batch_size": batch_size,
        "lr": lr,
        "arch": arch,
        "arch_kwargs": kw,
        "holdout": holdout,
        "device": device,
        "seed": seed,
        "progress": progress,
    }


def _raw(est: Any, model: Any, extra: dict[str, Any] | None = None) -> Raw:
    """The model's Estimate as a registry result.

    The model's ``stderr`` is Monte Carlo error only (it excludes the model's own error),
    so it is kept as ``diagnostics["mc_stderr"]`` and not reported as the estimate's
    standard error: ``ci=`` then re-trains with other seeds and splits
    (``resampling="seeds"``), an interval that includes training and split variability.
    """
    diag = dict(est.diagnostics)
    warns = list(diag.pop("warnings", []))
    diag.pop("stderr_kind", None)
    diag["mc_stderr"] = est.stderr
    diag.update(extra or {})
    return Raw(value=float(est.value), stderr=None, diagnostics=diag, warnings=warns)


def _block_tokens(v: Variable) -> Tokens:
    tok, alph = variable_tokens(v)
    k = int(tok.max()) + 1 if alph is None else len(alph)
    return Tokens(tok, np.full(tok.shape[1], k), (alph,), (np.arange(tok.shape[1]),))


def _common_tokens(p: Variable, q: Variable) -> tuple[np.ndarray, np.ndarray, int]:
    """Tokens of two samples over one shared alphabet (for KL)."""
    if p.d != q.d:
        raise ValueError(f"p and q must have the same number of positions, got {p.d} and {q.d}")
    tp, ap = variable_tokens(p)
    tq, aq = variable_tokens(q)
    if ap is None and aq is None:
        return tp, tq, int(max(tp.max(), tq.max())) + 1
    sp = tp if ap is None else ap[tp]
    sq = tq if aq is None else aq[tq]
    try:
        alphabet = np.unique(np.concatenate([sp.ravel(), sq.ravel()]))
    except TypeError as exc:
        raise TypeError(f"p and q hold symbols that cannot be compared: {exc}") from exc
    return np.searchsorted(alphabet, sp), np.searchsorted(alphabet, sq), len(alphabet)


_SUMMARY = "masked discrete diffusion (InfoSEDD; Foresti, Franzese & Michiardi, ICLR 2026)"


@register(
    "infosedd",
    "entropy",
    kinds=("discrete",),
    family=_FAMILY,
    resampling="seeds",
    summary="InfoSEDD-H: " + _SUMMARY,
)
@register(
    "infosedd_h",
    "entropy",
    kinds=("discrete",),
    family=_FAMILY,
    resampling="seeds",
    summary="InfoSEDD-H: " + _SUMMARY,
)
def infosedd_entropy(
    x: Variable,
    *,
    steps: int = 3000,
    batch_size: int = 256,
    lr: float = 1e-3,
    arch: str = "auto",
    hidden: int | None = None,
    holdout: float = 0.2,
    estimator: str = "time_free",
    passes: int = 5,
    device: str = "cpu",
    seed: int = 0,
    progress: bool | None = None,
) -> Raw:
    """InfoSEDD-H: entropy of the joint symbol of x's columns (positions), on held-out rows."""
    _require_torch()
    from .infosedd import InfoSEDD

    tok = _block_tokens(x)
    model = InfoSEDD(
        "entropy",
        **_model_kwargs(steps, batch_size, lr, arch, hidden, holdout, device, seed, progress),
    )
    model.fit(tok)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # in diagnostics; api.run emits them once
        est = model.entropy(estimator=estimator, passes=passes, seed=seed)
    return _raw(est, model)


def _mi(x: Variable, y: Variable, mode: str, **kw: Any) -> Raw:
    _require_torch()
    from .infosedd import InfoSEDD

    estimator, passes = kw.pop("estimator"), kw.pop("passes")
    tok = join_tokens(_block_tokens(x), _block_tokens(y))
    model = InfoSEDD(mode, x=tok.blocks[0], y=tok.blocks[1], **_model_kwargs(**kw))
    model.fit(tok)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # in diagnostics; api.run emits them once
        est = model.mutual_info(estimator=estimator, passes=passes, seed=model.seed)
    return _raw(est, model)


def _mi_estimator(mode: str, name: str, doc: str) -> Any:
    """One registered MI function per training mode (same parameters, read by the registry)."""

    def f(
        x: Variable,
        y: Variable,
        *,
        steps: int = 3000,
        batch_size: int = 256,
        lr: float = 1e-3,
        arch: str = "auto",
        hidden: int | None = None,
        holdout: float = 0.2,
        estimator: str = "time_free",
        passes: int = 5,
        device: str = "cpu",
        seed: int = 0,
        progress: bool | None = None,
    ) -> Raw:
        return _mi(
            x,
            y,
            mode,
            steps=steps,
            batch_size=batch_size,
            lr=lr,
            arch=arch,
            hidden=hidden,
            holdout=holdout,
            device=device,
            seed=seed,
            progress=progress,
            estimator=estimator,
            passes=passes,
        )

    f.__name__ = f.__qualname__ = name
    f.__doc__ = doc
    return f


def _register_mi(names: tuple[str, ...], f: Any, summary: str) -> Any:
    for nm in names:
        register(
            nm,
            "mutual_info",
            kinds=("discrete",),
            family=_FAMILY,
            resampling="seeds",
            summary=summary,
        )(f)
    return f


infosedd_j = _register_mi(
    ("infosedd", "infosedd_j"),
    _mi_estimator(
        "joint",
        "infosedd_j",
        "InfoSEDD-J: I(X;Y) = KL(p_XY || p_X p_Y) from one joint model (columns = positions).",
    ),
    "InfoSEDD-J: " + _SUMMARY,
)
infosedd_c = _register_mi(
    ("infosedd_c",),
    _mi_estimator(
        "conditional",
        "infosedd_c",
        "InfoSEDD-C: I(X;Y) = E_x KL(p_{Y|x} || p_Y) from a conditional model of Y given X.",
    ),
    "InfoSEDD-C: " + _SUMMARY,
)


@register(
    "infosedd",
    "kl_divergence",
    kinds=("discrete",),
    family=_FAMILY,
    resampling="seeds",
    summary="InfoSEDD KL: " + _SUMMARY,
)
def infosedd_kl(
    p: Variable,
    q: Variable,
    *,
    steps: int = 3000,
    batch_size: int = 256,
    lr: float = 1e-3,
    arch: str = "auto",
    hidden: int | None = None,
    holdout: float = 0.2,
    estimator: str = "time_free",
    passes: int = 5,
    device: str = "cpu",
    seed: int = 0,
    progress: bool | None = None,
) -> Raw:
    """KL(p || q) from two entropy-mode models, evaluated on held-out samples of p."""
    _require_torch()
    from .infosedd import InfoSEDD, kl_divergence

    tp, tq, k = _common_tokens(p, q)
    sizes = np.full(tp.shape[1], k)
    kw = _model_kwargs(steps, batch_size, lr, arch, hidden, holdout, device, seed, progress)
    mp = InfoSEDD("entropy", **kw).fit(Tokens(tp, sizes))
    mq = InfoSEDD("entropy", **{**kw, "holdout": 0.0}).fit(Tokens(tq, sizes))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # in diagnostics; api.run emits them once
        est = kl_divergence(mp, mq, estimator=estimator, passes=passes, seed=seed)
    return _raw(est, mp, {"n_train_q": mq.log.n_train})


__all__ += ["as_tokens"]  # the infosedd_* functions (Variable -> Raw) are registered only
