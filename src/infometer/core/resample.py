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
* ``"block"``: serial data (transfer entropy, active information storage, entropy rate,
  ordinal TE, the complexity measures): block subsampling.  The rows (a time series, or
  the embedded rows of one) are cut into ``n // ℓ`` contiguous blocks of about ℓ rows;
  each resample keeps half of the blocks, drawn without replacement, in time order, so no
  row is duplicated (kNN-safe) and the dependence inside a block is kept.  With blocks
  longer than the dependence they are nearly independent units, so sampling half of them
  is the delete-d jackknife over blocks (Künsch 1989; Politis, Romano & Wolf 1999, §3.8)
  and ``Var(θ̂_m − θ̂_n) ≈ σ²_∞(1/m − 1/n)`` with σ²_∞ the long-run variance: the
  deviations are rescaled by ``sqrt(m / (n − m))`` exactly as for ``"subsample"``.  ℓ is
  chosen from the data (:func:`block_length`: Politis & White's 2004 flat-top rule on the
  autocorrelation of each column, ∝ n^{1/3}, the rate that minimises the error of a block
  variance estimate; at least 10 blocks).  An i.i.d. bootstrap or subsample of serial data
  treats dependent rows as independent and gives intervals too narrow by the factor
  sqrt(σ²/σ²_∞) (benchmarks/results/serial_coverage.md measures both).
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
* Künsch (1989), Ann. Stat. 17:1217 (blocks of a stationary series); Politis & White (2004),
  Econometric Rev. 23:53 and Patton, Politis & White (2009), Econometric Rev. 28:372
  (automatic block length).
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from infometer.core.data import Variable
from infometer.core.progress import progress_bar
from infometer.core.registry import UNPAIRED, EstimatorSpec, Raw
from infometer.core.registry import get as get_spec
from infometer.core.seeding import Seed, as_generator, resolve_seed
from infometer.core.uncertainty import interval_from_stderr, widen_by_bias

__all__ = [
    "error_bars",
    "resample_values",
    "SUBSAMPLE_FRACTION",
    "MAX_SUBSAMPLE",
    "MAX_SEEDS",
    "MIN_QUANTILE_RESAMPLES",
    "MIN_BLOCKS",
    "block_length",
    "serial_scheme",
    "summary_interval",
    "block_stderr",
    "interval_from_values",
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
#: Block subsampling keeps at least this many blocks (the block length is capped at
#: n // MIN_BLOCKS): half of 10 blocks gives 252 distinct subsamples.
MIN_BLOCKS = 10
#: Columns whose autocorrelation sets the block length (the first ones of the rows).
_BLOCK_COLUMNS = 8


def serial_scheme(inner: str) -> str:
    """The scheme of a serial quantity (TE, AIS, entropy rate) built on an estimator whose
    own scheme is ``inner``: ``"block"`` for the row schemes (and a posterior sd, which is
    no error bar of a time series), the inner one otherwise (``"seeds"``, ``"none"``)."""
    return "block" if inner in ("bootstrap", "subsample", "posterior") else inner


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


def _flat_top(t: np.ndarray) -> np.ndarray:
    t = np.abs(t)
    return np.where(t <= 0.5, 1.0, np.where(t <= 1.0, 2.0 * (1.0 - t), 0.0))


def _block_length_1d(x: np.ndarray) -> float:
    """Politis & White (2004) with Patton et al.'s (2009) correction: the block length of
    the moving-block variance estimate, ``(2 G² / D)^{1/3} n^{1/3}`` with ``G = Σ λ(k/M)
    |k| R(k)``, ``D = (4/3) (Σ λ(k/M) R(k))²``; M = 2·m̂, m̂ the first lag after which
    the autocorrelation stays below ``2 sqrt(log10(n) / n)`` for K_N lags."""
    n = x.size
    x = x - x.mean()
    var = float(x @ x) / n
    if var <= 0:
        return 1.0
    kmax = min(n - 1, int(np.ceil(np.sqrt(n))) + 5)
    f = np.fft.rfft(x, 2 * n)
    acov = np.fft.irfft(f * np.conj(f))[: kmax + 1] / n
    rho = acov / acov[0]
    kn = max(5, int(np.ceil(np.sqrt(np.log10(n)))))
    small = np.abs(rho[1:]) < 2.0 * np.sqrt(np.log10(n) / n)
    mhat = kmax
    for m in range(0, kmax - kn + 1):
        if small[m : m + kn].all():
            mhat = m
            break
    big_m = min(2 * max(mhat, 1), kmax)
    k = np.arange(-big_m, big_m + 1)
    lam = _flat_top(k / big_m)
    r = acov[np.abs(k)]
    g = float(np.sum(lam * np.abs(k) * r))
    d = 4.0 / 3.0 * float(np.sum(lam * r)) ** 2
    if d <= 0 or g == 0:
        return 1.0
    return (2.0 * g * g / d) ** (1.0 / 3.0) * n ** (1.0 / 3.0)


def block_length(columns: np.ndarray) -> int:
    """The block length of block subsampling for rows with these columns (n, d): the
    largest Politis–White length over the first columns, at least 1, at most
    ``n // MIN_BLOCKS``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> block_length(rng.normal(size=(2000, 1)))  # white noise: no dependence
    1
    >>> x = np.zeros(2000); e = rng.normal(size=2000)
    >>> for t in range(1, 2000): x[t] = 0.9 * x[t - 1] + e[t]
    >>> 20 <= block_length(x[:, None]) <= 200
    True
    """
    a = np.asarray(columns, dtype=np.float64)
    a = a.reshape(a.shape[0], -1)
    n = a.shape[0]
    cap = max(1, n // MIN_BLOCKS)
    best = 1.0
    for j in range(min(a.shape[1], _BLOCK_COLUMNS)):
        col = a[:, j]
        if np.all(np.isfinite(col)):
            best = max(best, _block_length_1d(col))
    return int(min(cap, max(1, round(best))))


def _block_plan(variables: list[Variable] | np.ndarray, n: int) -> tuple[int, int, int]:
    """``(block length ℓ, number of blocks, blocks per resample)`` for ``n`` rows."""
    if isinstance(variables, np.ndarray):
        cols = variables
    else:
        cols = np.column_stack([v.values.astype(np.float64) for v in variables])
    ell = block_length(cols)
    n_blocks = max(2, n // ell)
    keep = max(1, min(n_blocks // 2, MAX_SUBSAMPLE // ell))
    return ell, n_blocks, keep


def _block_indices(rng: np.random.Generator, n: int, n_blocks: int, keep: int) -> np.ndarray:
    """Rows of ``keep`` of the ``n_blocks`` contiguous blocks of ``range(n)`` (lengths
    differ by at most one), drawn without replacement, in time order."""
    edges = np.linspace(0, n, n_blocks + 1).round().astype(np.int64)
    chosen = np.sort(rng.choice(n_blocks, size=keep, replace=False))
    starts, lens = edges[chosen], edges[chosen + 1] - edges[chosen]
    shift = starts - np.concatenate(([0], np.cumsum(lens)[:-1]))
    return np.repeat(shift, lens) + np.arange(int(lens.sum()))


def _rescaled_interval(
    vals: np.ndarray, value: float, n: int, m: float, level: float
) -> tuple[float, tuple[float, float], str]:
    """The subsampling interval: deviations of the resample values from their mean,
    rescaled by ``sqrt(m / (n − m))`` to the spread of the full-data value, and
    ``value − q_{1−a}, value − q_a`` (``value ± t·se`` below
    :data:`MIN_QUANTILE_RESAMPLES` resamples)."""
    a = (1 - level) / 2
    dev = (vals - np.mean(vals)) * np.sqrt(m / (n - m))
    se = float(np.std(dev, ddof=1))
    if vals.size >= MIN_QUANTILE_RESAMPLES:
        q_lo, q_hi = np.quantile(dev, [a, 1 - a])
        return (
            se,
            (float(value - q_hi), float(value - q_lo)),
            "quantiles of the rescaled deviations",
        )
    lo, hi = interval_from_stderr(value, se, level, dof=vals.size - 1)
    return se, (float(lo), float(hi)), "value ± t·se (too few subsamples for tail quantiles)"


def block_stderr(
    fn: Callable[..., float], s: np.ndarray, params: dict[str, Any], n_blocks: int
) -> tuple[float | None, int | None, dict[str, Any]]:
    """``(stderr, dof, diagnostics)`` of ``fn(s, **params)`` by non-overlapping block
    subsampling (Carlstein 1986): ``s`` (rows for 2-D) cut into ``n_blocks`` contiguous
    blocks of L rows, ``sd(block values) · sqrt(L / N)`` on ``n_blocks − 1`` degrees of
    freedom; the native error bar of a measure that needs a contiguous signal (the
    complexity measures: no seams inside a block), where the ``"block"`` scheme would
    join non-adjacent blocks."""
    n = s.shape[0]
    L = n // n_blocks
    vals = []
    try:
        for b in range(n_blocks):
            vals.append(fn(s[b * L : (b + 1) * L], **params))
    except ValueError as exc:
        return None, None, {"stderr_note": f"blocks of {L} too short for the measure: {exc}"}
    v = np.asarray(vals, dtype=float)
    if not np.all(np.isfinite(v)):
        return None, None, {"stderr_note": "the measure is not finite on some block"}
    se = float(np.std(v, ddof=1) * math.sqrt(L / n))
    return se, n_blocks - 1, {"stderr_method": f"block subsampling, {n_blocks} blocks of {L}"}


def summary_interval(
    values: Any,
    *,
    statistic: Any = np.mean,
    level: float = 0.95,
    seed: Seed = 0,
    n_resamples: int = 200,
) -> tuple[float, tuple[float, float], dict[str, Any]]:
    """``(stderr, (low, high), diagnostics)`` of ``statistic(values)`` for a serially
    dependent sequence (local values in time order) by block subsampling, the
    ``"block"`` scheme of :func:`error_bars` applied to the values themselves.

    Parameters
    ----------
    values
        The sequence, in time order.
    statistic
        Function of the values (default: the mean).
    level
        Coverage of the interval.
    seed
        Seed of the block draws. An int >= 0 (the same int gives the same numbers), a
        numpy.random.Generator (drawn from as it is) or None (fresh entropy from the operating
        system).
    n_resamples
        Number of block subsamples.

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> se, (lo, hi), d = summary_interval(rng.normal(size=4000), seed=0)
    >>> bool(lo < 0 < hi), round(se, 3)
    (True, 0.016)
    """
    v = np.asarray(values, dtype=np.float64).reshape(-1)
    n = v.size
    if n < 2 * MIN_BLOCKS:
        raise ValueError(f"{n} values are too few for block subsampling (need {2 * MIN_BLOCKS})")
    if not np.all(np.isfinite(v)):
        raise ValueError("values must be finite for an interval")
    value = float(statistic(v))
    ell, n_blocks, keep = _block_plan(v[:, None], n)
    rng = as_generator(seed)
    vals, sizes = np.empty(n_resamples), np.empty(n_resamples)
    for b in range(n_resamples):
        idx = _block_indices(rng, n, n_blocks, keep)
        vals[b], sizes[b] = float(statistic(v[idx])), idx.size
    se, ci, how = _rescaled_interval(vals, value, n, float(np.mean(sizes)), level)
    return (
        se,
        ci,
        {
            "ci_method": f"block subsampling: {keep} of {n_blocks} blocks of ~{ell} values, "
            f"{n_resamples} subsamples, spread scaled by sqrt(m/(n-m)); {how}",
            "block_length": ell,
        },
    )


def resample_values(
    spec: EstimatorSpec,
    variables: dict[str, Variable],
    params: dict[str, Any],
    *,
    scheme: str,
    n_resamples: int,
    seed: Seed,
    fraction: float = SUBSAMPLE_FRACTION,
    progress: bool | None = None,
) -> np.ndarray:
    """Re-run ``spec`` on ``n_resamples`` resampled data sets; return the values (nats).

    ``scheme`` is ``"bootstrap"`` (n rows with replacement), ``"subsample"``
    (``fraction``·n rows without replacement), ``"block"`` (half of the contiguous blocks
    of :func:`block_length` rows, without replacement) or ``"seeds"`` (same rows, other
    seeds).

    Parameters
    ----------
    spec, variables, params
        The estimator, its validated inputs and its full parameters.
    scheme
        ``"bootstrap"``, ``"subsample"``, ``"block"`` or ``"seeds"``.
    n_resamples
        Number of re-runs.
    seed
        Seed of the resampling; re-run ``b`` gets estimator seed ``seed + 1 + b``. An int >= 0 (the
        same int gives the same numbers), a numpy.random.Generator (drawn from as it is) or None
        (fresh entropy from the operating system).
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
    seed = resolve_seed(seed)
    rng = as_generator(seed)
    paired = spec.quantity not in UNPAIRED
    replace = scheme == "bootstrap"
    if scheme == "block":
        n_rows = next(iter(variables.values())).n
        _, n_blocks, keep = _block_plan(list(variables.values()), n_rows)
    out = np.empty(n_resamples)
    hook = getattr(spec.func, "resample_params", None)
    p = dict(params) if hook is None else hook(dict(params))
    bar = None
    t0 = time.perf_counter()
    for b in range(n_resamples):
        if "seed" in p:
            p["seed"] = seed + 1 + b
        if scheme == "seeds":
            vs = list(variables.values())
        elif scheme == "block":
            idx = _block_indices(rng, n_rows, n_blocks, keep)
            vs = [v.select(idx) for v in variables.values()]
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
    seed: Seed,
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
        Seed of the resampling. An int >= 0 (the same int gives the same numbers), a
        numpy.random.Generator (drawn from as it is) or None (fresh entropy from the operating
        system).
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
    if scheme not in ("bootstrap", "subsample", "block", "seeds"):
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
    return interval_from_values(spec, variables, params, raw, vals, level=level)


def interval_from_values(
    spec: EstimatorSpec,
    variables: dict[str, Variable],
    params: dict[str, Any],
    raw: Raw,
    vals: np.ndarray,
    *,
    level: float,
) -> tuple[float, tuple[float, float], dict[str, Any]]:
    """The interval of :func:`error_bars` from resample values already drawn by
    :func:`resample_values` with ``spec.resampling`` (``"bootstrap"``, ``"subsample"``
    or ``"block"``): several levels from one set of resamples."""
    scheme = spec.resampling
    n_resamples = vals.size
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
    elif scheme == "block":
        inner_spec, inner_vars, _ = _view(spec, variables, params)
        n = next(iter(inner_vars.values())).n
        ell, n_blocks, keep = _block_plan(list(inner_vars.values()), n)
        m = n * keep / n_blocks
        se, (lo, hi), how = _rescaled_interval(vals, raw.value, n, m, level)
        diag = {
            "ci_method": f"block subsampling: {keep} of {n_blocks} blocks of ~{ell} rows of "
            f"n={n} without replacement, {n_resamples} subsamples, spread scaled by "
            f"sqrt(m/(n-m)); {how}",
            "block_length": ell,
            "subsample_mean": float(np.mean(vals)),
        }
    else:
        inner_spec, inner_vars, _ = _view(spec, variables, params)
        n = next(iter(inner_vars.values())).n
        m = _subsample_size(n, SUBSAMPLE_FRACTION)
        se, (lo, hi), how = _rescaled_interval(vals, raw.value, n, m, level)
        diag = {
            "ci_method": f"subsampling m={m} of n={n} without replacement, {n_resamples} "
            f"subsamples, spread scaled by sqrt(m/(n-m)); {how}",
            "subsample_mean": float(np.mean(vals)),
        }
    return se, (float(lo), float(hi)), diag
