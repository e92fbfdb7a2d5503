"""Decodability to bits: lower bounds on I(signal; label) from a decoder's performance.

A paper that decodes a label Y (a reader's goal, a stimulus class) from a signal X
(eye movements, spikes, activations) reports an accuracy; this module turns accuracies or
predicted probabilities into bits of information that X must carry about Y.

* **Fano** (accuracy only): for any decoder Ŷ = g(X) with error rate P_e over k classes,
  H(Y | X) ≤ H(Y | Ŷ) ≤ h(P_e) + P_e log(k − 1), so

      I(X; Y) ≥ H(Y) − h(P_e) − P_e log(k − 1),

  with H(Y) = log k for uniform labels or the entropy of given label priors.  For uniform
  labels the bound is 0 at chance (P_e = (k−1)/k) and log k at P_e = 0.
* **Cross-entropy** (Barber & Agakov 2003): for *any* conditional pmf q(y | x),
  I(X; Y) ≥ H(Y) + E[log q(Y | X)] = H(Y) − CE, with equality when q is the true
  posterior.  On held-out trials CE is the mean of −log q(y_i | x_i) and H(Y) is the
  entropy of given priors or the plug-in entropy of the held-out labels.

Both are *estimates of bounds*: the accuracy and the cross-entropy are measured on a
finite test set.  Intervals: Clopper–Pearson for the accuracy, mapped through the Fano
function; basic bootstrap over trials for the cross-entropy bound (``infometer.measures.stats``).
:func:`permutation_test` asks whether the decoder's predictions carry any information
about the labels at all.

A bound below zero is reported as it is (never clipped) and flagged: it means the decoder
is too poor or too miscalibrated to certify anything, and I ≥ 0 is then the better bound.

References
----------
* Fano (1961), *Transmission of Information*; Cover & Thomas (2006), §2.10.
* Barber & Agakov (2003), "The IM algorithm: a variational approach to information
  maximization", NIPS 16.
* Clopper & Pearson (1934), Biometrika 26:404.
* Hadar, Shubi, Meiri & Berzak (2026), "Decoding open-ended information seeking goals
  from eye movements in reading", ICLR (arXiv:2505.02872): the accuracies 49.3 / 70.9 /
  57.3 % used as known answers.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from infometer.core import registry
from infometer.core.api import run
from infometer.core.data import (
    InfometerWarning,
    Variable,
    as_variable,
    check_float,
    check_int,
)
from infometer.core.estimate import Estimate, resolve_unit, unit_factor
from infometer.core.registry import Raw, register
from infometer.core.seeding import Seed, as_generator
from infometer.core.uncertainty import make_estimate
from infometer.core.validation import (
    check_budget,
    check_labels,
    check_probability_vector,
    check_real_array,
    check_stochastic_matrix,
)
from infometer.estimators.discrete import _kernels as kernels
from infometer.measures import exact
from infometer.measures.stats import nulls
from infometer.measures.stats._independence import IndependenceTest

__all__ = [
    "fano_bound",
    "fano_from_predictions",
    "cross_entropy_bound",
    "permutation_test",
    "QUANTITY",
]

#: Quantity name of every bound this module returns.
QUANTITY = "mutual_info_lower_bound"
registry.QUANTITY_ROLES.setdefault(QUANTITY, ("logq", "labels"))


# --------------------------------------------------------------------- kernels
def _binary_entropy(pe: np.ndarray | float) -> np.ndarray:
    from scipy.special import xlogy

    pe = np.asarray(pe, dtype=np.float64)
    return -xlogy(pe, pe) - xlogy(1.0 - pe, 1.0 - pe)


def fano_value(accuracy: np.ndarray | float, k: int, h_y: float) -> np.ndarray:
    """H(Y) − h(P_e) − P_e log(k − 1) in nats (P_e = 1 − accuracy); vectorised."""
    pe = 1.0 - np.asarray(accuracy, dtype=np.float64)
    return h_y - _binary_entropy(pe) - pe * math.log(k - 1)


def _fano_range(lo: float, hi: float, k: int, h_y: float) -> tuple[float, float]:
    """Min and max of the Fano function over accuracies in [lo, hi].

    It is convex in the accuracy with its minimum at chance, 1/k, so the maximum is at an
    end and the minimum at chance when chance lies inside.
    """
    ends = fano_value(np.array([lo, hi]), k, h_y)
    chance = min(max(1.0 / k, lo), hi)
    return float(fano_value(chance, k, h_y)), float(ends.max())


def _clopper_pearson(successes: float, n: float, level: float) -> tuple[float, float]:
    from scipy.stats import beta

    a = (1.0 - level) / 2
    lo = 0.0 if successes <= 0 else float(beta.ppf(a, successes, n - successes + 1))
    hi = 1.0 if successes >= n else float(beta.ppf(1 - a, successes + 1, n - successes))
    return lo, hi


def _example(rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Small example for the every-estimator tests: 3 labels, a decoder right 70% of the time
    with q(true) = 0.6 and 0.2 otherwise."""
    y = rng.integers(0, 3, 60)
    return {"logq": np.log(np.where(rng.random(60) < 0.7, 0.6, 0.2)), "labels": y}


registry.EXAMPLES.setdefault(QUANTITY, _example)


# ---------------------------------------------------------------- validation
def _check_k(k: Any) -> int:
    return check_int(k, "k", min_value=2)


def _prior_entropy(priors: Any, k: int) -> float:
    """H(Y) in nats: log k for ``None``, else the exact entropy of the given pmf (checked by
    :func:`infometer.core.validation.check_probability_vector`: strings, booleans, complex
    numbers are refused, not converted)."""
    if priors is None:
        return math.log(k)
    p = check_probability_vector(priors, "priors")
    if p.size != k:
        raise ValueError(f"priors has {p.size} entries but there are k = {k} classes")
    return exact.entropy(p).value


def _check_successes(acc: float, n_trials: int) -> None:
    """``accuracy`` times ``n_trials`` must be a whole number of correct trials (within
    1e-6 of one): 0.493 of 300 trials (147.9) is a rounded or mismatched accuracy, and its
    Clopper-Pearson interval would be that of no real experiment."""
    correct = acc * n_trials
    if abs(correct - round(correct)) > 1e-6 * max(1.0, correct):
        raise ValueError(
            f"accuracy={acc:g} with n_trials={n_trials} implies {correct:.6g} correct trials, "
            "not a whole number; pass accuracy=correct / n_trials exactly"
        )


def _check_accuracy(accuracy: Any) -> float:
    a = check_float(accuracy, "accuracy")
    if not 0.0 <= a <= 1.0:
        hint = f" ({a:g}% is {a / 100:g})" if 1.0 < a <= 100.0 else ""
        raise ValueError(f"accuracy must be a fraction in [0, 1], got {a:g}{hint}")
    return a


def _finish(
    value_nats: float,
    *,
    method: str,
    unit: str,
    n: int | None,
    stderr: float | None,
    interval: tuple[float, float] | None,
    level: float | None,
    params: dict[str, Any],
    diagnostics: dict[str, Any],
) -> Estimate:
    if value_nats < -1e-12:  # not a rounding error of an exact 0 (p = 0.5 everywhere)
        msg = (
            f"the {method} bound is negative ({value_nats / math.log(2):.3g} bits): the decoder "
            "certifies no information; I >= 0 is the better bound"
        )
        diagnostics["vacuous"] = True
        diagnostics.setdefault("warnings", []).append(msg)
        warnings.warn(msg, InfometerWarning, stacklevel=3)
    return make_estimate(
        value_nats,
        unit=unit,
        method=method,
        quantity=QUANTITY,
        params=params,
        n=n,
        stderr=stderr,
        ci=interval,
        ci_level=level if interval is not None else None,
        diagnostics=diagnostics,
    )


def _fano_stderr(acc: float, n: int, k: int) -> float:
    """Delta-method stderr of the Fano bound: |F'(a)| · sqrt(a (1 − a) / n), with
    F'(a) = log(a (k − 1) / (1 − a)); at a = 0 or 1 (binomial variance estimate 0, F'
    infinite) the accuracy is moved half a trial inside, a = 1/(2n) or 1 − 1/(2n)."""
    a = min(max(acc, 0.5 / n), 1.0 - 0.5 / n)
    return abs(math.log(a * (k - 1) / (1.0 - a))) * math.sqrt(a * (1.0 - a) / n)


# ----------------------------------------------------------------------- Fano
def fano_bound(
    accuracy: float,
    k: int,
    *,
    priors: Any = None,
    n_trials: int | None = None,
    ci: float | None = None,
    unit: str = "nats",
) -> Estimate:
    """Fano lower bound on I(X; Y) from a decoder's accuracy on k classes.

    Parameters
    ----------
    accuracy
        Fraction of trials decoded correctly, in [0, 1] (49.3 % is ``0.493``).
    k
        Number of classes (candidates per trial).
    priors
        Label pmf (length k); ``None`` means uniform, H(Y) = log k.  Fano's inequality holds
        for any prior; with a skewed prior the bound is loose (it can be negative even
        for an informative decoder).
    n_trials
        Number of test trials behind ``accuracy``; with it and ``ci`` the result carries a
        Clopper–Pearson interval for the accuracy mapped through the bound.
    ci
        Confidence level of that interval (ignored without ``n_trials``).
    unit
        Unit of the result (default nats; ``unit="bits"`` for bits).

    Returns
    -------
    Estimate
        ``quantity="mutual_info_lower_bound"``, ``method="fano"``; ``diagnostics`` hold the
        accuracy, its interval, H(Y) and whether the bound is vacuous (< 0).

    Examples
    --------
    >>> round(fano_bound(0.493, 3, unit="bits").value, 3)  # 1-of-3 goal decoding (eye movements)
    0.078
    """
    acc = _check_accuracy(accuracy)
    k = _check_k(k)
    h_y = _prior_entropy(priors, k)
    value = float(fano_value(acc, k, h_y))
    diag: dict[str, Any] = {
        "accuracy": acc,
        "k": k,
        "h_y_nats": h_y,
        "chance_accuracy": 1.0 / k if priors is None else float(np.max(priors)),
        "h_y_source": "uniform" if priors is None else "given priors",
    }
    interval = level = stderr = None
    if n_trials is not None:
        n_trials = check_int(n_trials, "n_trials", min_value=1)
        _check_successes(acc, n_trials)
        stderr = _fano_stderr(acc, n_trials, k)
        diag["stderr_method"] = "delta method: |dF/d accuracy| x binomial stderr of the accuracy"
        if ci is not None:
            level = check_float(ci, "ci", low=0.0, high=1.0, inclusive=(False, False))
            lo, hi = _clopper_pearson(acc * n_trials, n_trials, level)
            diag["accuracy_ci"] = (lo, hi)
            diag["ci_method"] = "Clopper-Pearson interval of the accuracy through the bound"
            interval = _fano_range(lo, hi, k, h_y)
    return _finish(
        value,
        method="fano",
        unit=unit,
        n=n_trials,
        stderr=stderr,
        interval=interval,
        level=level,
        params={"k": k, "priors": None if priors is None else np.asarray(priors).tolist()},
        diagnostics=diag,
    )


def _labels_pair(y_true: Any, y_pred: Any) -> tuple[np.ndarray, np.ndarray]:
    """Both label arrays through the one reader of samples (:func:`infometer.core.data.as_variable`,
    as symbols): NaN, None, masked values, complex numbers and mixed types are refused (a
    NaN is a missing label, never a class)."""
    out = []
    for name, y in (("y_true", y_true), ("y_pred", y_pred)):
        v = as_variable(y, name, discrete=True)
        if v.d != 1 or np.ndim(np.ma.getdata(y) if hasattr(y, "mask") else y) != 1:
            raise ValueError(f"{name} must be a 1-D label array, got {v.d} columns")
        out.append(np.asarray(v.decoded(0)))
    a, b = out
    if a.size != b.size:
        raise ValueError(f"y_pred has {b.size} labels but y_true has {a.size}")
    if a.dtype.kind != b.dtype.kind and {a.dtype.kind, b.dtype.kind} & set("USO"):
        raise TypeError(
            f"y_true and y_pred must hold labels of one type, got {a.dtype} and {b.dtype}"
        )
    return a, b


def fano_from_predictions(
    y_true: Any,
    y_pred: Any,
    *,
    k: int | None = None,
    priors: Any = None,
    ci: float | None = None,
    unit: str = "nats",
) -> Estimate:
    """:func:`fano_bound` from true and predicted labels of held-out trials.

    Parameters
    ----------
    y_true, y_pred
        Labels of the same trials (any hashable symbols).
    k
        Number of classes; default: the number of distinct labels in both arrays.
    priors
        ``None`` (uniform), ``"empirical"`` (label frequencies of ``y_true``) or a pmf of
        length k in the order of the sorted class labels.
    ci, unit
        As in :func:`fano_bound` (n_trials is the number of labels).
    """
    a, b = _labels_pair(y_true, y_pred)
    classes = np.unique(np.concatenate([a, b]))
    k = len(classes) if k is None else _check_k(k)
    if k < len(classes):
        raise ValueError(f"k = {k} but y_true and y_pred hold {len(classes)} distinct labels")
    if k < 2:
        raise ValueError("only one class occurs in y_true and y_pred; pass k=")
    if isinstance(priors, str):
        if priors != "empirical":
            raise ValueError(f"priors must be None, 'empirical' or a pmf, got {priors!r}")
        counts = np.array([np.count_nonzero(a == c) for c in classes], dtype=np.float64)
        priors = np.concatenate([counts, np.zeros(k - len(classes))]) / a.size
    acc = float(np.mean(a == b))
    return fano_bound(acc, k, priors=priors, n_trials=a.size, ci=ci, unit=unit)


# --------------------------------------------------------------- cross-entropy
@register(
    "cross_entropy",
    QUANTITY,
    kinds=("continuous", "discrete"),
    family="probes",
    resampling="bootstrap",
    summary="Barber-Agakov bound H(Y) - CE from per-trial log q(y|x) of a decoder",
)
def _cross_entropy_raw(logq: Variable, labels: Variable, *, h_y: float | None = None) -> Raw:
    ce = -float(np.mean(logq.columns[0]))
    if h_y is None:
        h = kernels.plugin(np.bincount(labels.codes))
        source = "plug-in entropy of the labels"
    else:
        h, source = float(h_y), "given priors"
    return Raw(value=h - ce, diagnostics={"ce_nats": ce, "h_y_nats": h, "h_y_source": source})


def _proba_and_codes(
    proba: Any, labels: Any, classes: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    p = check_real_array(proba, "proba", what="probabilities")
    if p.ndim == 1:  # binary: probability of the second class
        p = np.column_stack([1.0 - p, p])
    if p.ndim != 2 or p.shape[1] < 2:
        raise ValueError(f"proba must be (n_trials, k >= 2) probabilities, got shape {p.shape}")
    # the shared check (infometer.core.validation), with a looser tolerance on purpose: printed
    # or rounded probabilities (3 decimals) are accepted and renormalised, and the bound
    # holds for any pmf q, so renormalising keeps it valid
    p = check_stochastic_matrix(
        p,
        "proba",
        atol=1e-3,
        what="(n_trials, k): pass probabilities (e.g. predict_proba or a softmax), not scores",
    )
    y = np.asarray(labels)
    if y.ndim != 1:
        raise ValueError(f"labels must be 1-D, got shape {y.shape}")
    if y.size != p.shape[0]:
        raise ValueError(f"labels has {y.size} entries but proba has {p.shape[0]} rows")
    k = p.shape[1]
    if classes is None:
        if y.dtype.kind in "iubfc" or isinstance(labels, np.ma.MaskedArray):
            # numbers index the columns; never re-mapped by rank (labels 1..k would shift)
            lab = y.astype(np.int64) if y.dtype.kind == "b" else labels  # False/True: 0/1
            return p, check_labels(lab, "labels", n_classes=k), np.arange(k)
        else:
            y = np.asarray(as_variable(y, "labels", discrete=True).decoded(0))
            cls = np.unique(y)
            if cls.size != k:
                raise ValueError(
                    f"labels hold {cls.size} distinct values but proba has {k} columns; pass "
                    "classes= (the column order, e.g. a scikit-learn classifier's classes_)"
                )
    else:
        cls = np.asarray(classes)
        if cls.ndim != 1 or cls.size != k:
            raise ValueError(f"classes must list the {k} column labels of proba")
    order = np.argsort(cls, kind="stable")
    pos = np.searchsorted(cls[order], y)
    pos = np.clip(pos, 0, k - 1)
    codes = order[pos]
    unknown = cls[codes] != y
    if np.any(unknown):
        bad = y[np.argmax(unknown)]
        raise ValueError(f"label {bad!r} is not one of the classes {cls.tolist()}")
    return p, codes.astype(np.int64), cls


def _logq(p: np.ndarray, codes: np.ndarray, smoothing: float) -> np.ndarray:
    k = p.shape[1]
    q = p[np.arange(codes.size), codes]
    if smoothing > 0:
        q = (1.0 - smoothing) * q + smoothing / k
    zero = np.count_nonzero(q <= 0)
    if zero:
        raise ValueError(
            f"proba gives probability 0 to the true label in {zero} trials, so the bound is "
            "-inf; pass smoothing=1e-3 (mixing q with the uniform pmf keeps a valid bound)"
        )
    return np.log(q)


def cross_entropy_bound(
    proba: Any,
    labels: Any,
    *,
    classes: Any = None,
    priors: Any = None,
    smoothing: float = 0.0,
    unit: str = "nats",
    ci: float | None = None,
    seed: Seed = 0,
    n_resamples: int = 200,
) -> Estimate:
    """Cross-entropy lower bound I(X; Y) ≥ H(Y) − CE from predicted probabilities.

    Parameters
    ----------
    proba
        (n_trials, k) predicted class probabilities on held-out trials (e.g. a scikit-learn
        classifier's ``predict_proba`` or ``cross_val_predict(..., method="predict_proba")``);
        a 1-D array is the probability of the second of two classes.
    labels
        True label of each trial.
    classes
        Label of each column of ``proba`` (a scikit-learn classifier's ``classes_``); by
        default integer labels index the columns, other labels map to columns in sorted order.
    priors
        Label pmf in column order; ``None`` uses the plug-in entropy of ``labels``.
    smoothing
        ε in [0, 1): use q_ε = (1 − ε) q + ε / k, itself a decoder, so the bound stays
        valid.  Needed only when ``proba`` puts probability 0 on a true label.
    unit
        Unit of the result (default nats; ``unit="bits"`` for bits).
    ci
        Confidence level of a basic-bootstrap interval over trials (``None``: none).
    n_resamples
        Seed and number of the bootstrap resamples.
    seed
        Seed and number of the bootstrap resamples. An int >= 0 (the same int gives the same
        numbers), a numpy.random.Generator (drawn from as it is) or None (fresh entropy from the
        operating system).

    Returns
    -------
    Estimate
        ``method="cross_entropy"``; diagnostics hold CE, H(Y), the accuracy of argmax
        predictions and k.  The bound is tight only for a calibrated decoder: miscalibration
        raises CE and lowers the bound (it may go below 0, flagged ``vacuous``).
    """
    smoothing = check_float(smoothing, "smoothing", low=0.0, high=1.0, inclusive=(True, False))
    p, codes, cls = _proba_and_codes(proba, labels, classes)
    k = p.shape[1]
    h_y = None if priors is None else _prior_entropy(priors, k)
    lq = _logq(p, codes, smoothing)

    variables = {
        "logq": Variable(columns=(lq,), kinds=("continuous",), cardinalities=(None,), name="logq"),
        "labels": Variable.from_codes(codes, name="labels", cardinality=k),
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InfometerWarning)  # the sign is flagged once below
        est = run(
            QUANTITY,
            variables,
            method="cross_entropy",
            unit="nats",
            ci=ci,
            seed=seed,
            n_resamples=n_resamples,
            params={"h_y": h_y},
        )
    diag = {k_: v for k_, v in est.diagnostics.items() if k_ not in ("warnings", "negative")}
    diag.update(
        {
            "accuracy": float(np.mean(np.argmax(p, axis=1) == codes)),
            "k": k,
            "classes": cls.tolist(),
            "smoothing": smoothing,
        }
    )
    return _finish(
        est.value,
        method="cross_entropy",
        unit=unit,
        n=est.n,
        stderr=est.stderr,
        interval=est.ci,
        level=est.ci_level,
        params={
            "priors": None if priors is None else np.asarray(priors).tolist(),
            "smoothing": smoothing,
        },
        diagnostics=diag,
    )


# ----------------------------------------------------------------- permutation
def permutation_test(
    labels: Any,
    *,
    proba: Any = None,
    predictions: Any = None,
    classes: Any = None,
    priors: Any = None,
    k: int | None = None,
    smoothing: float = 0.0,
    n_permutations: int = 999,
    seed: Seed = 0,
    unit: str = "nats",
) -> Any:
    """Permutation test of "the decoder's output carries information about the labels".

    The statistic is the cross-entropy bound (with ``proba``) or the Fano bound (with
    ``predictions``); its null comes from re-computing it with the labels permuted across
    trials, which breaks any X–Y dependence while keeping both marginals.  The decoder
    must not have been fitted on these trials (use held-out or cross-validated output).

    Parameters
    ----------
    labels
        True labels.
    proba, predictions
        Exactly one: predicted probabilities (n, k) or predicted labels (n,).
    classes, priors, smoothing
        As in :func:`cross_entropy_bound` (``proba``); ``k``, ``priors`` as in
        :func:`fano_from_predictions` (``predictions``).
    n_permutations
        B; the smallest reachable p-value is 1 / (B + 1).
    seed
        Seed of the permutations. An int >= 0 (the same int gives the same numbers), a
        numpy.random.Generator (drawn from as it is) or None (fresh entropy from the operating
        system).
    unit
        Unit of the statistic and the null values.

    Returns
    -------
    infometer.measures.stats.IndependenceTest
        ``p_value = (1 + #{null ≥ statistic}) / (1 + B)``.
    """
    if (proba is None) == (predictions is None):
        raise ValueError("pass exactly one of proba= or predictions=")

    b = check_int(n_permutations, "n_permutations", min_value=1)
    check_budget(
        b,
        name="n_permutations",
        limit=nulls.MAX_PERMUTATIONS,
        what="permutations (each recomputes the bound)",
        override="pass fewer (9,999 give p-values down to 1e-4)",
    )
    rng = as_generator(seed)
    null = np.empty(b)
    if proba is not None:
        stat = cross_entropy_bound(
            proba, labels, classes=classes, priors=priors, smoothing=smoothing, unit="nats"
        )
        p, codes, _ = _proba_and_codes(proba, labels, classes)
        smoothing = stat.params["smoothing"]
        h = stat.diagnostics["h_y_nats"]  # a permutation keeps the label counts
        for i in range(b):
            null[i] = h + float(np.mean(_logq(p, rng.permutation(codes), smoothing)))
        scheme = "labels permuted across trials, cross-entropy bound"
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", InfometerWarning)
            stat = fano_from_predictions(
                labels, predictions, k=k, priors=priors, ci=None, unit="nats"
            )
        y, yhat = _labels_pair(labels, predictions)
        kk, h = stat.params["k"], stat.diagnostics["h_y_nats"]
        accs = np.array([np.mean(rng.permutation(y) == yhat) for _ in range(b)])
        null[:] = fano_value(accs, kk, h)
        scheme = "labels permuted across trials, Fano bound"
    p_value = nulls.p_value(stat.value, null)
    u = resolve_unit(unit)
    return IndependenceTest(
        statistic=stat.to(u),
        p_value=float(p_value),
        n_permutations=b,
        scheme=scheme,
        null=null * unit_factor("nats", u),
    )
