"""Error bars for any registered estimator.

Which scheme applies is a property of the estimator (``EstimatorSpec.resampling``):

* ``"posterior"``: the estimator reports a posterior sd (NSB); the interval is the
  normal one, value ± z·sd.
* ``"bootstrap"``: rows resampled with replacement (paired roles share indices,
  unpaired roles such as KL's p and q are resampled separately); the "basic"
  interval ``θ̂ − (q_{1−a} − T(F̂)), θ̂ − (q_a − T(F̂))``, where T(F̂), the quantity of the
  empirical distribution, is the estimate for plug-in estimators and the plug-in value
  for bias-corrected ones that expose ``func.plugin_params``.
* ``"subsample"``: m-out-of-n *without* replacement (duplicated rows collapse
  nearest-neighbour distances, so a kNN estimator must never see them), m = n/2.
  For a √n-consistent estimator the subsample values satisfy
  ``Var(θ̂_m − θ̂_n) ≈ σ²(1/m − 1/n)`` (sampling without replacement from the n rows:
  the delete-d jackknife of Shao & Wu 1989), so deviations of the subsample values
  from their mean are rescaled by ``sqrt(m / (n − m))`` to the spread of θ̂_n and the
  interval is ``θ̂_n − q_{1−a}, θ̂_n − q_a`` of the rescaled deviations (with fewer
  than 100 subsamples, ``θ̂_n ± t·se``).  (Politis &
  Romano's ``sqrt(m/n)`` drops the 1/n term, which is only right when m/n → 0: at
  m = n/2 it shrinks intervals by √2.)  The rate √n holds for kNN estimators of
  smooth low-dimensional densities (Berrett, Samworth & Yuan 2019; Gao, Oh & Viswanath
  2018); the interval describes the spread of the estimator, not its bias.
* ``"seeds"``: trainable estimators.  If the estimator reports a native stderr it is
  used; otherwise it is re-run with ``n_seeds`` other seeds (each seed also draws a new
  train/test split in estimators that split) and the interval is value ± t·sd.
* ``"none"``: no error bars; asking for them is an error.

A trained estimator that checks its own bias (``diagnostics["bias_check"]`` in nats, see
:func:`infometer.core.uncertainty.bias_check`) gets every interval widened by
``|bias check|`` on both sides (:func:`infometer.core.uncertainty.widen_by_bias`); its
``func.resample_params(params)`` gives the parameters of the re-runs (the check is made
once, on the estimate itself).

An estimator function may expose ``func.resample_view(variables, params)`` returning
``(inner_spec, inner_variables, inner_params)``: rows of ``inner_variables`` are then
resampled with ``inner_spec`` (transfer entropy resamples its embedded rows, never the
raw time steps).

References
----------
* Efron & Tibshirani (1993), *An Introduction to the Bootstrap*, §13 (basic interval).
* Politis & Romano (1994), Ann. Stat. 22:2031; Politis, Romano & Wolf (1999), *Subsampling*.
* Shao & Wu (1989), Ann. Stat. 17:1176 (delete-d jackknife).
"""

from __future__ import annotations

import time
import warnings
from typing import Any

import numpy as np

from infometer.core.data import Variable
from infometer.core.progress import progress_bar
from infometer.core.registry import UNPAIRED, EstimatorSpec, Raw
from infometer.core.registry import get as get_spec
from infometer.core.uncertainty import interval_from_stderr, widen_by_bias

__all__ = [
    "error_bars",
    "resample_values",
    "SUBSAMPLE_FRACTION",
    "MAX_SUBSAMPLE",
    "MAX_SEEDS",
    "MIN_QUANTILE_RESAMPLES",
]

#: m / n for subsampling.
SUBSAMPLE_FRACTION = 0.5
#: At most this many rows per subsample.  The interval keeps its meaning at any m: the
#: deviations are rescaled by sqrt(m / (n - m)) to the spread of the full-data estimate,
#: and the Monte Carlo precision of the quantiles is set by the number of subsamples, not
#: by m (Politis & Romano's subsampling asks for m -> inf with m / n -> 0, which a cap
#: gives).  What it saves: at n = 10^6, 200 KSG re-runs on 5 * 10^5 rows cost ~180 s of
#: CPU, on 5 * 10^4 rows ~15 s.  Coverage at m / n = 0.05 is checked in
#: benchmarks/accuracy/ci_subsample.py (RESULTS.md, "Error bars at large n").
MAX_SUBSAMPLE = 50_000
#: Re-runs of a trainable estimator without native error bars.
MAX_SEEDS = 10
#: Below this many subsamples the interval is value ± t·se instead of tail quantiles
#: (the 5% quantile of 20 values is too noisy to cover reliably).
MIN_QUANTILE_RESAMPLES = 100


def _indices(rng: np.random.Generator, n: int, m: int, replace: bool) -> np.ndarray:
    if replace:
        return rng.integers(0, n, size=m)
    return np.sort(rng.choice(n, size=m, replace=False))


def _view(
    spec: EstimatorSpec, variables: dict[str, Variable], params: dict[str, Any]
) -> tuple[EstimatorSpec, dict[str, Variable], dict[str, Any]]:
    view = getattr(spec.func, "resample_view", None)
    return (spec, variables, params) if view is None else view(variables, params)


def _plugin_center(
    spec: EstimatorSpec, variables: dict[str, Variable], params: dict[str, Any], raw: Raw
) -> tuple[float, str]:
    """T(F̂): the quantity of the empirical distribution, the truth of the bootstrap world.

    For a plug-in estimator it is the estimate itself.  A bias-corrected estimator exposes
    ``func.plugin_params(params)``, the parameters of its plug-in version (e.g.
    ``bias_correct=False``), or ``func.plugin_method``, the name of the registered
    plug-in estimator of the same quantity (the discrete family); centring on the
    estimate instead would subtract the bootstrap-world bias of a plug-in a second time
    (intervals that exclude 0 under independence).
    """
    spec, variables, params = _view(spec, variables, params)
    hook = getattr(spec.func, "plugin_params", None)
    other = getattr(spec.func, "plugin_method", None)
    if hook is None and other is None:
        return raw.value, "the estimate"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if other is not None:  # the plug-in is a separate registered method of the family
            value = get_spec(spec.quantity, other).func(*variables.values()).value
        else:
            value = spec.func(*variables.values(), **hook(params)).value
    return float(value), "the plug-in value"


def _subsample_size(n: int, fraction: float) -> int:
    return min(n - 1, MAX_SUBSAMPLE, max(2, int(round(fraction * n))))


def resample_values(
    spec: EstimatorSpec,
    variables: dict[str, Variable],
    params: dict[str, Any],
    *,
    scheme: str,
    n_resamples: int,
    seed: int | None,
    fraction: float = SUBSAMPLE_FRACTION,
    progress: bool | None = None,
) -> np.ndarray:
    """Re-run ``spec`` on ``n_resamples`` resampled data sets; return the values (nats).

    ``scheme`` is ``"bootstrap"`` (n rows with replacement), ``"subsample"``
    (``fraction``·n rows without replacement) or ``"seeds"`` (same rows, other seeds).

    Parameters
    ----------
    spec, variables, params
        The estimator, its validated inputs and its full parameters.
    scheme
        ``"bootstrap"``, ``"subsample"`` or ``"seeds"``.
    n_resamples
        Number of re-runs.
    seed
        Seed of the resampling; re-run ``b`` gets estimator seed ``seed + 1 + b``.
    fraction
        m / n for subsampling (m at most :data:`MAX_SUBSAMPLE`).
    progress
        :func:`infometer.core.progress.progress_bar`'s convention; with ``None`` a bar is drawn
        on a terminal when the first re-run says the whole will take a while.

    Returns
    -------
    numpy.ndarray
        The re-run values in nats.
    """
    spec, variables, params = _view(spec, variables, params)
    rng = np.random.default_rng(seed)
    paired = spec.quantity not in UNPAIRED
    replace = scheme == "bootstrap"
    out = np.empty(n_resamples)
    hook = getattr(spec.func, "resample_params", None)
    p = dict(params) if hook is None else hook(dict(params))
    bar = None
    t0 = time.perf_counter()
    for b in range(n_resamples):
        if "seed" in p:
            p["seed"] = None if seed is None else int(seed) + 1 + b
        if scheme == "seeds":
            vs = list(variables.values())
        elif paired:
            n = next(iter(variables.values())).n
            m = n if replace else _subsample_size(n, fraction)
            idx = _indices(rng, n, m, replace)
            vs = [v.select(idx) for v in variables.values()]
        else:
            vs = []
            for v in variables.values():
                m = v.n if replace else _subsample_size(v.n, fraction)
                vs.append(v.select(_indices(rng, v.n, m, replace)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out[b] = spec.func(*vs, **p).value
        if bar is not None:
            bar.update(1)
        elif b == 0:  # the shared convention: a bar when the re-runs will take a while
            bar = progress_bar(
                total=n_resamples,
                initial=1,
                desc="resampling",
                unit="re-run",
                progress=progress,
                expected_seconds=(time.perf_counter() - t0) * n_resamples,
            )
    if bar is not None:
        bar.close()
    return out


def error_bars(
    spec: EstimatorSpec,
    variables: dict[str, Variable],
    params: dict[str, Any],
    raw: Raw,
    *,
    level: float,
    seed: int | None,
    n_resamples: int = 200,
) -> tuple[float | None, tuple[float, float], dict[str, Any]]:
    """Return ``(stderr, (low, high), diagnostics)`` for ``raw`` at ``level``.

    Parameters
    ----------
    spec, variables, params
        The estimator, its validated inputs and its full parameters.
    raw
        The estimate on the full data.
    level
        Confidence level in (0, 1).
    seed
        Seed of the resampling.
    n_resamples
        Number of resamples (capped at :data:`MAX_SEEDS` for ``"seeds"``).

    Returns
    -------
    tuple
        ``(stderr, (low, high), diagnostics)`` in nats; an estimate with a bias check
        (``raw.diagnostics["bias_check"]``) has its interval widened by it.

    Raises
    ------
    ValueError
        When the scheme is ``"none"``, or the estimate or a resample is not finite.
    """
    se, interval, diag = _error_bars(
        spec, variables, params, raw, level=level, seed=seed, n_resamples=n_resamples
    )
    bias = raw.diagnostics.get("bias_check")
    if bias is not None and np.isfinite(bias) and bias != 0:
        interval = widen_by_bias(interval, bias)
        diag["ci_method"] += f", widened by the bias check (|{bias:.3g}| nats)"
    return se, interval, diag


def _error_bars(
    spec: EstimatorSpec, variables: dict[str, Variable], params: dict[str, Any], raw: Raw, **kw: Any
) -> tuple[float | None, tuple[float, float], dict[str, Any]]:
    """:func:`error_bars` before the bias check: the interval of the scheme."""
    level, seed, n_resamples = kw["level"], kw["seed"], kw["n_resamples"]
    scheme = spec.resampling
    if scheme == "posterior" or (scheme in ("native", "seeds") and raw.stderr is not None):
        if raw.stderr is None:
            raise ValueError(f"method {spec.name!r} gave no posterior spread for an interval")
        dof = raw.stderr_dof
        how = "normal from native stderr" if dof is None else f"t ({dof} dof) from native stderr"
        return (
            raw.stderr,
            interval_from_stderr(raw.value, raw.stderr, level, dof=dof),
            {"ci_method": how},
        )
    if scheme == "none":
        raise ValueError(f"method {spec.name!r} has no error bars; call it with ci=None")
    if scheme not in ("bootstrap", "subsample", "seeds"):
        raise ValueError(f"method {spec.name!r} declares unknown resampling scheme {scheme!r}")
    if not np.isfinite(raw.value):
        why = "; ".join(raw.warnings) or "no warning given"
        raise ValueError(f"method {spec.name!r} gave {raw.value} ({why}): no interval around it")
    if scheme == "seeds":
        b = min(n_resamples, MAX_SEEDS)
        vals = resample_values(spec, variables, params, scheme="seeds", n_resamples=b, seed=seed)
        se = float(np.std(vals, ddof=1))
        return (
            se,
            interval_from_stderr(raw.value, se, level, dof=b - 1),
            {"ci_method": f"value ± t·sd over {b} re-runs with other seeds (and splits)"},
        )
    vals = resample_values(
        spec, variables, params, scheme=scheme, n_resamples=n_resamples, seed=seed
    )
    bad = ~np.isfinite(vals)
    if bad.any():
        raise ValueError(
            f"method {spec.name!r} gave a non-finite value on {int(bad.sum())} of "
            f"{n_resamples} resamples (singular or degenerate resamples); no interval"
        )
    a = (1 - level) / 2
    if scheme == "bootstrap":
        se = float(np.std(vals, ddof=1))
        q_lo, q_hi = np.quantile(vals, [a, 1 - a])
        center, how = _plugin_center(spec, variables, params, raw)
        # basic bootstrap: the law of (estimate - truth) is that of (replicate - T(F̂))
        lo, hi = raw.value - (q_hi - center), raw.value - (q_lo - center)
        diag = {"ci_method": f"basic bootstrap, {n_resamples} resamples, centred on {how}"}
    else:
        inner_spec, inner_vars, _ = _view(spec, variables, params)
        n = next(iter(inner_vars.values())).n
        m = _subsample_size(n, SUBSAMPLE_FRACTION)
        scale = np.sqrt(m / (n - m))
        dev = (vals - np.mean(vals)) * scale
        se = float(np.std(dev, ddof=1))
        if n_resamples >= MIN_QUANTILE_RESAMPLES:
            q_lo, q_hi = np.quantile(dev, [a, 1 - a])
            lo, hi = raw.value - q_hi, raw.value - q_lo
            how = "quantiles of the rescaled deviations"
        else:
            lo, hi = interval_from_stderr(raw.value, se, level, dof=n_resamples - 1)
            how = "value ± t·se (too few subsamples for tail quantiles)"
        diag = {
            "ci_method": f"subsampling m={m} of n={n} without replacement, {n_resamples} "
            f"subsamples, spread scaled by sqrt(m/(n-m)); {how}",
            "subsample_mean": float(np.mean(vals)),
        }
    return se, (float(lo), float(hi)), diag
