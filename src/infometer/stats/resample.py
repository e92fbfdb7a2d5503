"""Error bars for any registered estimator.

Which scheme applies is a property of the estimator (``EstimatorSpec.resampling``):

* ``"posterior"``: the estimator reports a posterior sd (NSB); the interval is the
  normal one, value ± z·sd.
* ``"bootstrap"``: rows resampled with replacement (paired roles share indices,
  unpaired roles such as KL's p and q are resampled separately); percentile interval
  after removing the bootstrap's estimate of bias (the "basic" interval).
* ``"subsample"``: m-out-of-n without replacement (duplicates break kNN estimators),
  m = n/2 by default, spread rescaled by sqrt(m/n) (Politis & Romano 1994).
* ``"none"``: no error bars; asking for them is an error.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import stats as _st

from ..data import Variable
from ..registry import UNPAIRED, EstimatorSpec, Raw

__all__ = ["error_bars", "resample_values"]


def _indices(rng: np.random.Generator, n: int, m: int, replace: bool) -> np.ndarray:
    if replace:
        return rng.integers(0, n, size=m)
    return np.sort(rng.choice(n, size=m, replace=False))


def resample_values(
    spec: EstimatorSpec,
    variables: dict[str, Variable],
    params: dict[str, Any],
    *,
    scheme: str,
    n_resamples: int,
    seed: int | None,
    fraction: float = 0.5,
) -> np.ndarray:
    """Re-run ``spec`` on ``n_resamples`` resampled data sets; return the values (nats)."""
    rng = np.random.default_rng(seed)
    paired = spec.quantity not in UNPAIRED
    replace = scheme == "bootstrap"
    out = np.empty(n_resamples)
    p = dict(params)
    for b in range(n_resamples):
        if "seed" in p:
            p["seed"] = None if seed is None else int(seed) + 1 + b
        if paired:
            n = next(iter(variables.values())).n
            m = n if replace else max(2, int(round(fraction * n)))
            idx = _indices(rng, n, m, replace)
            vs = [v.select(idx) for v in variables.values()]
        else:
            vs = []
            for v in variables.values():
                m = v.n if replace else max(2, int(round(fraction * v.n)))
                vs.append(v.select(_indices(rng, v.n, m, replace)))
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out[b] = spec.func(*vs, **p).value
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
    """Return ``(stderr, (low, high), diagnostics)`` for ``raw`` at ``level``."""
    z = float(_st.norm.ppf(0.5 + level / 2))
    scheme = spec.resampling
    if scheme == "posterior" or (scheme in ("native", "seeds") and raw.stderr is not None):
        if raw.stderr is None:
            raise ValueError(f"method {spec.name!r} gave no posterior spread for an interval")
        return (
            raw.stderr,
            (raw.value - z * raw.stderr, raw.value + z * raw.stderr),
            {"ci_method": "normal from native stderr"},
        )
    if scheme == "none":
        raise ValueError(f"method {spec.name!r} has no error bars; call it with ci=None")
    if scheme not in ("bootstrap", "subsample"):
        raise ValueError(f"method {spec.name!r} declares unknown resampling scheme {scheme!r}")
    vals = resample_values(
        spec, variables, params, scheme=scheme, n_resamples=n_resamples, seed=seed
    )
    a = (1 - level) / 2
    if scheme == "bootstrap":
        se = float(np.std(vals, ddof=1))
        q_lo, q_hi = np.quantile(vals, [a, 1 - a])
        # basic bootstrap: reflect the quantiles around the estimate
        lo, hi = 2 * raw.value - q_hi, 2 * raw.value - q_lo
        diag = {"ci_method": f"basic bootstrap, {n_resamples} resamples"}
    else:
        n = next(iter(variables.values())).n
        m = max(2, int(round(0.5 * n)))
        scale = np.sqrt(m / n)
        dev = (vals - np.mean(vals)) * scale
        se = float(np.std(dev, ddof=1))
        q_lo, q_hi = np.quantile(dev, [a, 1 - a])
        lo, hi = raw.value - q_hi, raw.value - q_lo
        diag = {"ci_method": f"subsampling m={m} of n={n}, {n_resamples} subsamples"}
    return se, (float(lo), float(hi)), diag
