"""Channel MI of compressors on texts: summaries, scoring, comparison, rate–distortion.

* :func:`channel_mutual_info` -- run a compressor M times on each of N contexts, score every summary
  under every context with a scorer, and estimate I(X;Z|Q) (an :class:`~infometer.Estimate`
  with the log N ceiling and the rate in bits per summary token);
* :func:`channel_mutual_info_of_summaries` -- the same from summaries you already have (the CLI);
* :func:`score_matrix` -- the (summaries × contexts) log-likelihood matrix;
* :func:`compare_compressors` -- several compressors in one call, a tidy DataFrame;
* :func:`fit_rate_distortion` -- D(R) = C·exp(−b·R) + D0 through (rate, distortion) points;
* :func:`plot_compressors` -- bits, bits per token and the rate–distortion curve in one PNG.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from infometer.core._deprecation import deprecated_alias
from infometer.core.data import InfometerWarning, check_choice, check_int
from infometer.core.estimate import Estimate
from infometer.core.progress import progress_bar
from infometer.core.results import Result
from infometer.core.seeding import Seed, as_generator, resolve_seed

from .channel import _check_scores, channel_mutual_info_from_scores
from .compressors import _call_compressor
from .scorers import as_scorer, check_logprobs, make_prompt

__all__ = [
    "channel_mutual_info",
    "channel_mutual_info_of_summaries",
    "score_matrix",
    "compare_compressors",
    "fit_rate_distortion",
    "RDFit",
    "plot_compressors",
]


def _check_texts(values: Any, name: str, *, allow_empty: bool = False) -> list[str]:
    if isinstance(values, str | bytes):
        raise TypeError(f"{name} must be a list of strings, got one string")
    try:
        out = list(values)
    except TypeError as exc:
        raise TypeError(f"{name} must be a list of strings, got {type(values).__name__}") from exc
    for i, s in enumerate(out):
        if not isinstance(s, str):
            raise TypeError(f"{name}[{i}] must be a string, got {type(s).__name__}")
        if not allow_empty and not s.strip():
            raise ValueError(f"{name}[{i}] is empty")
    return out


def _check_inputs(contexts: Any, queries: Any) -> tuple[list[str], list[str] | None]:
    ctx = _check_texts(contexts, "contexts")
    if len(ctx) < 2:
        raise ValueError(f"contexts needs at least 2 texts (the ceiling is log N), got {len(ctx)}")
    if len(set(ctx)) < len(ctx):
        dup = len(ctx) - len(set(ctx))
        warnings.warn(
            f"contexts holds {dup} repeated text(s): a summary of a repeated context cannot be "
            "told apart from its copies, which lowers the estimate (this is correct for a "
            "sample of p(x) with repeats)",
            InfometerWarning,
            stacklevel=3,
        )
    if queries is None:
        return ctx, None
    q = _check_texts(queries, "queries", allow_empty=True)
    if len(q) != len(ctx):
        raise ValueError(f"queries has {len(q)} entries but contexts has {len(ctx)}")
    return ctx, q


def score_matrix(
    contexts: Sequence[str],
    summaries: Sequence[str],
    source: Sequence[int],
    scorer: Any,
    *,
    queries: Sequence[str] | None = None,
    template: str | None = None,
) -> np.ndarray:
    """(R, N) matrix of log p(summary_r | context_l, query of summary r's context).

    Every summary is scored after the prompt of every context with its own context's query,
    so the marginal (1/N) Σ_l p(z | x_l, q) conditions on the same q.
    """
    n = len(contexts)
    prompts, texts = [], []
    for z, i in zip(summaries, source, strict=True):
        q = None if queries is None else queries[i]
        for l in range(n):
            prompts.append(make_prompt(contexts[l], q, template))
            texts.append(z)
    out = check_logprobs(scorer.logprob(prompts, texts), len(prompts), "scorer")
    return out.reshape(len(summaries), n)


def _lengths(scorer: Any, summaries: Sequence[str]) -> tuple[np.ndarray, str]:
    counter = getattr(scorer, "n_tokens", None)
    if counter is None:
        from .scorers import word_tokens

        return np.array([len(word_tokens(s)) for s in summaries]), "words"
    return np.asarray(counter(list(summaries)), dtype=np.int64), getattr(
        scorer, "token_unit", "scorer tokens"
    )


def channel_mutual_info_of_summaries(
    contexts: Sequence[str],
    summaries: Sequence[str],
    source: Sequence[int],
    scorer: Any = "builtin",
    *,
    queries: Sequence[str] | None = None,
    template: str | None = None,
    unit: str = "nats",
    ci: float | None = None,
    scorer_kwargs: Mapping[str, Any] | None = None,
    progress: bool | None = None,
) -> Estimate:
    """Channel MI from given summaries: ``summaries[r]`` was made from ``contexts[source[r]]``.

    Parameters
    ----------
    contexts
        The N contexts (a sample of p(x); every one is a candidate for every summary).
    summaries
        R summary texts.
    source
        R context indices.
    scorer
        ``"builtin"`` (fitted on ``contexts``), a local causal-LM directory, a scorer object
        or a callable ``f(prompts, texts)``; see :mod:`infometer.systems.text.scorers`.
    queries
        One query per context, or ``None``.
    template
        Prompt template with ``{context}`` and ``{query}``; default
        :data:`~infometer.systems.text.scorers.TEMPLATE` / ``QUERY_TEMPLATE``.
    unit, ci
        Unit of the estimate; level of the interval over contexts (``None`` for none).
    scorer_kwargs
        Options of :class:`~infometer.systems.text.scorers.HFScorer` for a directory.
    progress
        Show a progress bar while a language-model scorer runs.

    Returns
    -------
    Estimate
        See :func:`~infometer.systems.text.channel.channel_mutual_info_from_scores`; diagnostics add
        ``scorer`` and ``token_unit``.
    """
    ctx, q = _check_inputs(contexts, queries)
    return _estimate(ctx, q, summaries, source, scorer, template, unit, ci, scorer_kwargs, progress)


def _estimate(
    ctx: list[str],
    q: list[str] | None,
    summaries: Any,
    source: Any,
    scorer: Any,
    template: str | None,
    unit: str,
    ci: float | None,
    scorer_kwargs: Mapping[str, Any] | None,
    progress: bool,
) -> Estimate:
    """:func:`channel_mutual_info_of_summaries` on contexts and queries already checked."""
    z = _check_texts(summaries, "summaries", allow_empty=True)
    src = np.asarray(source)
    _check_scores(np.zeros((len(z), len(ctx))), src)  # shapes and index range
    sc = as_scorer(scorer, ctx, **dict(scorer_kwargs or {}))
    before = getattr(sc, "truncated", 0)
    shown = getattr(sc, "progress", None)
    if progress and shown is not None:
        sc.progress = True
    try:
        s = score_matrix(ctx, z, src.tolist(), sc, queries=q, template=template)
    finally:
        if shown is not None:
            sc.progress = shown
    ln, token_unit = _lengths(sc, z)
    est = channel_mutual_info_from_scores(s, src, lengths=ln, unit=unit, ci=ci)
    diag = dict(est.diagnostics)
    diag["scorer"] = getattr(sc, "name", type(sc).__name__)
    diag["token_unit"] = token_unit
    cut = getattr(sc, "truncated", 0) - before
    if cut:
        msg = f"{cut} prompts were longer than the scorer's window and kept only their end"
        diag["truncated_prompts"] = int(cut)
        diag["warnings"] = [*diag.get("warnings", []), msg]
        warnings.warn(msg, InfometerWarning, stacklevel=2)
    return replace(est, diagnostics=diag)


def make_summaries(
    contexts: Sequence[str],
    compressor: Any,
    *,
    queries: Sequence[str] | None = None,
    n_samples: int = 1,
    seed: int | None = 0,
    name: str = "compressor",
    progress: bool | None = None,
) -> tuple[list[str], np.ndarray]:
    """``n_samples`` summaries of each context; returns ``(summaries, source)``."""
    m = check_int(n_samples, "n_samples", min_value=1)
    rng = as_generator(seed)
    out, src = [], []
    it: Any = progress_bar(
        enumerate(contexts),
        total=len(contexts),
        desc=f"compressing ({name})",
        unit="context",
        progress=progress,
    )
    for i, x in it:
        q = None if queries is None else queries[i]
        for _ in range(m):
            out.append(_call_compressor(compressor, x, q, rng, name))
            src.append(i)
    return out, np.array(src, dtype=np.int64)


def channel_mutual_info(
    contexts: Sequence[str],
    compressor: Any,
    scorer: Any = "builtin",
    *,
    queries: Sequence[str] | None = None,
    n_samples: int = 1,
    template: str | None = None,
    unit: str = "nats",
    ci: float | None = None,
    seed: Seed = 0,
    scorer_kwargs: Mapping[str, Any] | None = None,
    progress: bool | None = None,
) -> Estimate:
    """I(X;Z|Q) of a compressor channel, in ``unit`` and in bits per summary token.

    Parameters
    ----------
    contexts
        N contexts, a sample of the contexts the compressor will see.
    compressor
        ``f(context, query, rng) -> summary`` (or ``f(context, query)``, ``f(context)``);
        e.g. :class:`~infometer.systems.text.compressors.TopK`.
    scorer
        ``"builtin"``, a local causal-LM directory, a scorer object or a callable.
    queries
        One query per context (the Q of I(X;Z|Q)), or ``None``.
    n_samples
        M summaries per context (more than 1 only helps stochastic compressors).
    template, unit, ci, scorer_kwargs, progress
        As in :func:`channel_mutual_info_of_summaries` (``progress`` also covers the compressions).
    seed
        Seed of the compressor's random generator. An int >= 0 (the same int gives the same
        numbers), a numpy.random.Generator (drawn from as it is) or None (fresh entropy from the
        operating system).

    Returns
    -------
    Estimate
        ``quantity="channel_mi"``.  ``diagnostics``: ``ceiling_nats``/``ceiling_bits``
        (log N), ``upper_bound_nats`` (leave-one-out), ``bits_per_token`` (+ ``_ci``),
        ``mean_tokens``, ``saturated_fraction``, ``n_contexts``, ``n_summaries``.

    Examples
    --------
    >>> from infometer.systems.text import channel_mutual_info, LeadK            # doctest: +SKIP
    >>> est = channel_mutual_info(records, LeadK(2), queries=questions)  # doctest: +SKIP
    >>> est.to("bits"), est.diagnostics["bits_per_token"]      # doctest: +SKIP
    """
    ctx, q = _check_inputs(contexts, queries)
    seed = resolve_seed(seed)  # recorded in params: pass it to repeat a seed=None call
    z, src = make_summaries(
        ctx, compressor, queries=q, n_samples=n_samples, seed=seed, progress=progress
    )
    est = _estimate(ctx, q, z, src, scorer, template, unit, ci, scorer_kwargs, progress)
    return replace(est, params={**est.params, "n_samples": n_samples, "seed": seed})


# ---------------------------------------------------------------- rate–distortion
@dataclass(frozen=True, eq=False, repr=False)
class RDFit(Result):
    """D(R) = C·exp(−b·R) + D0 fitted by least squares (b ≥ 0, C ≥ 0, 0 ≤ D0 ≤ 1)."""

    C: float
    b: float
    D0: float
    rmse: float
    n_points: int
    rate: str = "bits_per_token"

    def __call__(self, r: Any) -> np.ndarray:
        """Predicted distortion at rate(s) ``r``."""
        return self.C * np.exp(-self.b * np.asarray(r, dtype=np.float64)) + self.D0


def fit_rate_distortion(rate: Any, distortion: Any, *, rate_name: str = "bits_per_token") -> RDFit:
    """Fit D(R) = C·exp(−b·R) + D0 (He et al. 2025, after the Gaussian R(D) = ½ log(σ²/D)).

    Parameters
    ----------
    rate
        Rates (bits per token, or bits), one per compressor; at least 3 distinct values.
    distortion
        Distortions 1 − accuracy in [0, 1], one per rate.

    Returns
    -------
    RDFit
    """
    from scipy.optimize import curve_fit

    r = np.asarray(rate, dtype=np.float64).reshape(-1)
    d = np.asarray(distortion, dtype=np.float64).reshape(-1)
    if r.shape != d.shape:
        raise ValueError(f"rate has {r.size} values but distortion has {d.size}")
    if not (np.all(np.isfinite(r)) and np.all(np.isfinite(d))):
        raise ValueError("rate and distortion must be finite")
    if len(np.unique(r)) < 3:
        raise ValueError(
            f"a rate-distortion fit has 3 parameters and needs >= 3 distinct rates, got "
            f"{len(np.unique(r))}"
        )
    if (d < 0).any() or (d > 1).any():
        raise ValueError("distortion must lie in [0, 1] (1 - accuracy)")

    def f(x: np.ndarray, c: float, b: float, d0: float) -> np.ndarray:
        return c * np.exp(-b * x) + d0

    span = float(np.ptp(r)) or 1.0
    p0 = (max(float(d.max() - d.min()), 1e-3), 1.0 / span, float(d.min()))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            popt, _ = curve_fit(
                f, r, d, p0=p0, bounds=([0.0, 0.0, 0.0], [np.inf, np.inf, 1.0]), maxfev=20000
            )
        except RuntimeError as exc:
            raise ValueError(f"the rate-distortion fit did not converge: {exc}") from exc
    rmse = float(np.sqrt(np.mean((f(r, *popt) - d) ** 2)))
    return RDFit(float(popt[0]), float(popt[1]), float(popt[2]), rmse, int(r.size), rate_name)


def _accuracy_of(accuracy: Any, name: str, summaries: list[str], src: np.ndarray) -> float | None:
    if accuracy is None:
        return None
    if isinstance(accuracy, Mapping):
        if name not in accuracy:
            raise ValueError(f"accuracy has no entry for compressor {name!r}")
        a = float(accuracy[name])
    elif callable(accuracy):
        vals = [float(accuracy(z, int(i))) for z, i in zip(summaries, src, strict=True)]
        a = float(np.mean(vals))
    else:
        raise TypeError("accuracy must be a mapping name -> accuracy or a callable (summary, i)")
    if not 0.0 <= a <= 1.0:
        raise ValueError(f"accuracy of {name!r} is {a}; it must lie in [0, 1]")
    return a


def compare_compressors(
    contexts: Sequence[str],
    compressors: Mapping[str, Any] | Sequence[Any],
    scorer: Any = "builtin",
    *,
    queries: Sequence[str] | None = None,
    n_samples: int = 1,
    accuracy: Mapping[str, float] | Callable[[str, int], float] | None = None,
    rd_rate: str = "bits_per_token",
    template: str | None = None,
    ci: float | None = None,
    seed: Seed = 0,
    progress: bool | None = None,
    scorer_kwargs: Mapping[str, Any] | None = None,
) -> Any:
    """Channel MI of several compressors on the same contexts and scorer: a tidy DataFrame.

    Parameters
    ----------
    compressors
        ``{name: compressor}``, or a list of compressors with a ``name`` attribute.
    accuracy
        Task accuracy, either ``{name: accuracy}`` or ``f(summary, context_index) -> [0, 1]``
        averaged over the summaries; with it the table gains ``accuracy`` and ``distortion``
        (1 − accuracy) and, with >= 3 compressors, ``df.attrs["rd_fit"]`` holds the
        rate–distortion fit (:func:`fit_rate_distortion`).
    rd_rate
        Rate axis of the fit: ``"bits_per_token"`` (the paper's rate) or ``"bits"`` (the MI).
    Other parameters
        As in :func:`channel_mutual_info`; the scorer is resolved once and shared.
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).

    Returns
    -------
    pandas.DataFrame
        One row per compressor: ``compressor``, ``mi_nats``, ``mi_bits``, ``ci_low_bits``,
        ``ci_high_bits``, ``stderr_bits``, ``upper_bound_bits``, ``ceiling_bits``,
        ``bits_per_token``, ``mean_tokens``, ``saturated_fraction``, ``negative``,
        ``n_contexts``, ``n_summaries`` (+ ``accuracy``, ``distortion``).
        ``df.attrs["estimates"]`` maps each name to its :class:`~infometer.Estimate`.
    """
    import pandas as pd

    check_choice(rd_rate, "rd_rate", ("bits_per_token", "bits"))
    ctx, q = _check_inputs(contexts, queries)
    if isinstance(compressors, Mapping):
        items = list(compressors.items())
    else:
        items = []
        for i, c in enumerate(compressors):
            items.append((str(getattr(c, "name", f"compressor-{i}")), c))
    if not items:
        raise ValueError("compressors is empty")
    names = [n for n, _ in items]
    if len(set(names)) < len(names):
        raise ValueError(f"compressor names must be distinct, got {names}")
    sc = as_scorer(scorer, ctx, **dict(scorer_kwargs or {}))
    it: Any = progress_bar(items, desc="compressors", unit="compressor", progress=progress)
    rows, ests = [], {}
    seed = resolve_seed(seed)  # every compressor's summaries from the same root
    for name, comp in it:
        z, src = make_summaries(ctx, comp, queries=q, n_samples=n_samples, seed=seed, name=name)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", InfometerWarning)
            est = _estimate(ctx, q, z, src, sc, template, "nats", ci, None, False)
        for w in est.warnings:
            warnings.warn(f"{name}: {w}", InfometerWarning, stacklevel=2)
        ests[name] = est
        b = est.to("bits")
        d = est.diagnostics
        up = d["upper_bound_nats"]
        row = {
            "compressor": name,
            "mi_nats": est.value,
            "mi_bits": b.value,
            "ci_low_bits": None if b.ci is None else b.ci[0],
            "ci_high_bits": None if b.ci is None else b.ci[1],
            "stderr_bits": b.stderr,
            "upper_bound_bits": up / math.log(2),
            "ceiling_bits": d["ceiling_bits"],
            "bits_per_token": d.get("bits_per_token"),
            "mean_tokens": d.get("mean_tokens"),
            "saturated_fraction": d["saturated_fraction"],
            "negative": bool(d.get("negative", False)),
            "n_contexts": d["n_contexts"],
            "n_summaries": d["n_summaries"],
        }
        acc = _accuracy_of(accuracy, name, z, src)
        if acc is not None:
            row["accuracy"] = acc
            row["distortion"] = 1.0 - acc
        rows.append(row)
    df = pd.DataFrame(rows)
    df.attrs["estimates"] = ests
    df.attrs["token_unit"] = next(iter(ests.values())).diagnostics.get("token_unit")
    if "distortion" in df and len(df) >= 3:
        col = "bits_per_token" if rd_rate == "bits_per_token" else "mi_bits"
        rates = df[col].to_numpy(dtype=np.float64)
        if np.all(np.isfinite(rates)) and len(np.unique(rates)) >= 3:
            df.attrs["rd_fit"] = fit_rate_distortion(
                rates, df["distortion"].to_numpy(), rate_name=rd_rate
            )
    return df


def _label_points(ax: Any, names: list[str], xs: np.ndarray, ys: np.ndarray) -> None:
    """Name each point without labels on top of each other: labels go right of their
    point and are pushed up, in screen space, past any label already placed near them
    (a thin line then leads back to the point)."""
    fig = ax.figure
    fig.canvas.draw()
    to_px = ax.transData.transform
    placed: list[tuple[float, float, float]] = []  # (x0, x1, y) of labels, in pixels
    height = 10.0 * fig.dpi / 72.0
    for k in np.argsort(ys):
        px, py = to_px((xs[k], ys[k]))
        width = 5.2 * len(names[k]) * fig.dpi / 72.0
        x0, ty = px + 4, py + 2
        for _ in range(len(placed) + 1):
            hit = [p for p in placed if p[0] < x0 + width and x0 < p[1] and abs(p[2] - ty) < height]
            if not hit:
                break
            ty = max(p[2] for p in hit) + height
        placed.append((x0, x0 + width, ty))
        moved = ty - py > height
        ax.annotate(
            names[k],
            (xs[k], ys[k]),
            xytext=(4 * 72.0 / fig.dpi, (ty - py) * 72.0 / fig.dpi),
            textcoords="offset points",
            fontsize=7,
            arrowprops={"arrowstyle": "-", "color": "#888", "lw": 0.5} if moved else None,
        )


def plot_compressors(
    df: Any, ax: Any = None, path: str | Path | None = None, *, title: str | None = None
) -> Any:
    """Bits per summary (with CI and the log N ceiling), bits per token, and, when the table
    has accuracy, distortion against rate with the fitted curve: 2 or 3 panels.

    Parameters
    ----------
    df
        A :func:`compare_compressors` table (at least ``compressor``, ``mi_bits``,
        ``ci_low_bits``, ``ci_high_bits``, ``ceiling_bits``, ``bits_per_token``; with
        ``distortion``, the third panel).
    ax
        ``None`` (a new figure), a Figure or SubFigure to draw the panels in, or a sequence
        of 2 Axes (3 when the table has ``distortion``): the rule of :mod:`infometer.core.plot`.
    path
        Also save the figure as a PNG there.  The older ``plot_compressors(df, path)``
        still works for one release (``DeprecationWarning``; it returns the path).
    title
        Title over the panels (default "Channel MI of compressors").

    Returns
    -------
    numpy.ndarray
        The 2 or 3 Axes, left to right.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"compressor": ["top-1", "lead-2"], "mi_bits": [1.2, 0.4],
    ...                    "ci_low_bits": [1.0, 0.2], "ci_high_bits": [1.4, 0.6],
    ...                    "ceiling_bits": [3.0, 3.0], "bits_per_token": [0.1, 0.05]})
    >>> plot_compressors(df).shape
    (2,)
    """
    from infometer.core.plot import (
        _panel_title,
        close_and_path,
        deprecated_path_form,
        finish,
        new_panels,
    )

    ax, path, old = deprecated_path_form(ax, path, "plot_compressors")
    has_rd = "distortion" in df
    ncols = 3 if has_rd else 2
    _, axes = new_panels(ax, ncols, figsize=(4.2 * ncols, 3.6), name="ax")
    given = ax
    names = list(df["compressor"])
    y = np.arange(len(names))[::-1]
    ax = axes[0]
    lo = df["ci_low_bits"].astype(float).to_numpy()
    hi = df["ci_high_bits"].astype(float).to_numpy()
    v = df["mi_bits"].to_numpy(dtype=float)
    err = None
    if np.all(np.isfinite(lo)) and np.all(np.isfinite(hi)):
        err = [np.maximum(v - lo, 0), np.maximum(hi - v, 0)]
    ax.barh(y, v, xerr=err, color="#3b75af", ecolor="#333", capsize=2.5)
    ax.axvline(float(df["ceiling_bits"].iloc[0]), color="#b33", ls="--", lw=1, label="log2 N")
    ax.set_yticks(y)
    ax.set_yticklabels(names, fontsize=8)
    ax.set_xlabel("I(X;Z|Q) [bits], bars: CI" if err is not None else "I(X;Z|Q) [bits]")
    ax.legend(fontsize=7, loc="lower left", bbox_to_anchor=(0.0, 1.0), frameon=False)  # off bars
    ax.axvline(0, color="black", lw=0.6)
    ax = axes[1]
    ax.barh(y, df["bits_per_token"].astype(float).to_numpy(), color="#5a9e6f")
    ax.set_yticks(y)
    ax.set_yticklabels([])  # the same rows as the left panel: its labels say which
    ax.set_title("(rows as on the left)", fontsize=7)
    ax.set_xlabel(f"bits per summary token ({df.attrs.get('token_unit') or 'tokens'})")
    ax.axvline(0, color="black", lw=0.6)
    if has_rd:
        ax = axes[2]
        fit = df.attrs.get("rd_fit")
        col = "mi_bits" if fit is not None and fit.rate == "bits" else "bits_per_token"
        r = df[col].to_numpy(dtype=float)
        d = df["distortion"].to_numpy(dtype=float)
        ax.scatter(r, d, color="#3b75af", zorder=3)
        if fit is not None:
            grid = np.linspace(0, max(r.max() * 1.1, 1e-9), 200)
            ax.plot(grid, fit(grid), color="#b33", lw=1, label="C·exp(−bR)+D0")
            ax.legend(fontsize=7, loc="upper right")
        ax.set_xlabel("rate [bits per token]" if col == "bits_per_token" else "rate [bits]")
        ax.set_ylabel("distortion 1 − accuracy")
        ax.set_ylim(-0.03, 1.03)
        _label_points(ax, names, r, d)
    _panel_title(given, axes, title, "Channel MI of compressors")
    finish(axes, path)
    return close_and_path(axes, path) if old else axes


# deprecated names (issue 29: public names spell quantities in full words), for one release
channel_mi = deprecated_alias(channel_mutual_info, "channel_mi")
channel_mi_of_summaries = deprecated_alias(
    channel_mutual_info_of_summaries, "channel_mi_of_summaries"
)
