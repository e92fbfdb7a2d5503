"""Conditional mutual information I(X;Ŷ|Y) of a classifier (numpy only).

A classifier maps an input x to a probability vector ``P_x`` over C classes; ``Ŷ ~ P_x``.
Given n inputs with true labels y, the empirical distribution (X uniform over the inputs of
each class) gives

* class centroids ``Q_y = (1/n_y) Σ_{x: y(x)=y} P_x``;
* centroid form: ``I(X;Ŷ|Y) = Σ_y P(y) (1/n_y) Σ_x KL(P_x ‖ Q_y)``;
* entropy form: ``Σ_y P(y) [H(Q_y) − (1/n_y) Σ_x H(P_x)]`` (= H(Ŷ|Y) − H(Ŷ|X,Y));
* reverse-channel (dual) form: with ``Q(x|i,y) = P(x|y) P_x[i] / Q_y[i]`` and ``P(x|y) = 1/n_y``,
  ``Σ_y P(y) (1/n_y) Σ_x Σ_i P_x[i] log Q(x|i,y) + Σ_y P(y) log n_y``; this ``Q`` maximises the
  variational form ``E[Σ_i P_x[i] log(Q(x|i,y) / P(x|y))]``, so any other reverse channel
  gives a lower bound (the basis of DJIP's alternating optimisation).

The three forms are algebraically identical; computing each from its own formula checks
them against each other.  Per-class values ``I(X;Ŷ|Y=y)`` are the inner means.

References: Yang, Hamidi, Ye, Tan & Yang, "Conditional mutual information constrained deep
learning" (2023); Ye, Yang, Yang, ... "Bayes conditional distribution estimation for
knowledge distillation" (MCMI, ICLR 2024).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
from scipy.special import rel_entr, softmax, xlogy

from infometer.core import registry
from infometer.core._deprecation import deprecated_alias
from infometer.core.data import (
    Variable,
    as_variable,
    check_choice,
    check_labels,
    check_probabilities,
)
from infometer.core.estimate import Estimate
from infometer.core.registry import AutoRule, Raw, register, register_auto
from infometer.core.seeding import Seed, resolve_seed

__all__ = [
    "classifier_cond_mutual_info",
    "classifier_cond_mutual_info_per_class",
    "class_centroids",
    "cmi_terms",
    "FORMS",
]

QUANTITY = "classifier_cmi"
FORMS = ("centroid", "entropy", "dual")
registry.QUANTITY_ROLES.setdefault(QUANTITY, ("probs", "labels"))
registry.NONNEGATIVE.add(QUANTITY)


def _example(rng: np.random.Generator) -> dict[str, np.ndarray]:
    """A small noisy 3-class classifier: 60 inputs, softmax of label-dependent logits."""
    labels = np.repeat(np.arange(3), 20)
    logits = 2.0 * np.eye(3)[labels] + rng.normal(size=(60, 3))
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    return {"probs": e / e.sum(axis=1, keepdims=True), "labels": labels}


registry.EXAMPLES.setdefault(QUANTITY, _example)


# ------------------------------------------------------------------ kernels
def class_centroids(p: np.ndarray, labels: np.ndarray, n_classes: int) -> tuple[np.ndarray, ...]:
    """Centroids ``Q_y`` (n_classes × C) and counts ``n_y``; empty classes get zero rows."""
    counts = np.bincount(labels, minlength=n_classes).astype(np.float64)
    sums = np.zeros((n_classes, p.shape[1]))
    np.add.at(sums, labels, p)
    q = np.divide(sums, counts[:, None], out=np.zeros_like(sums), where=counts[:, None] > 0)
    return q, counts


def cmi_terms(p: np.ndarray, labels: np.ndarray, form: str = "centroid") -> np.ndarray:
    """Per-class ``I(X;Ŷ|Y=y)`` (nats) by the chosen form; 0 for classes without samples.

    Parameters
    ----------
    p
        (n, C) probability rows.
    labels
        (n,) class indices in ``0..C-1``.
    form
        ``"centroid"``, ``"entropy"`` or ``"dual"`` (see the module docstring).
    """
    n_classes = p.shape[1]
    q, counts = class_centroids(p, labels, n_classes)
    qx = q[labels]  # centroid of each row's class
    if form == "centroid":
        per_row = rel_entr(p, qx).sum(axis=1)
    elif form == "entropy":
        # H(Q_y) - H(P_x), averaged within the class below
        per_row = -xlogy(qx, qx).sum(axis=1) + xlogy(p, p).sum(axis=1)
    else:
        ny = counts[labels][:, None]
        # reverse channel Q(x|i,y) = (1/n_y) P_x[i] / Q_y[i]; rows of a class sum to 1 over x
        rev = np.divide(p, ny * qx, out=np.zeros_like(p), where=p > 0)
        per_row = xlogy(p, rev).sum(axis=1) + np.log(ny[:, 0])
    sums = np.bincount(labels, weights=per_row, minlength=n_classes)
    per_class = np.divide(sums, counts, out=np.zeros_like(sums), where=counts > 0)
    # Each value is an exact function of the given probabilities and >= 0 (a mean of KLs to
    # the class mean); when a class's outputs coincide, rounding leaves about ±1e-16, so the
    # sign is fixed here, as infometer.measures.exact does for MI (not an estimation error to flag).
    return np.maximum(per_class, 0.0)


# ------------------------------------------------------------ registered spec
@register(
    "plugin",
    QUANTITY,
    kinds=("continuous", "discrete"),
    family="models",
    resampling="bootstrap",
    summary="plug-in I(X;Ŷ|Y) of a classifier from its probabilities and the labels",
)
def classifier_cmi_plugin(
    probs: Variable, labels: Variable, *, form: str = "centroid", atol: float = 1e-6
) -> Raw:
    """Plug-in ``I(X;Ŷ|Y)`` on the empirical distribution (centroid / entropy / dual form)."""
    form = check_choice(form, "form", FORMS)
    p = check_probabilities(probs, atol=atol)
    lab = check_labels(labels, p.shape[1])
    per_class = cmi_terms(p, lab, form)
    counts = np.bincount(lab, minlength=p.shape[1])
    weights = counts / counts.sum()
    value = float(np.dot(weights, per_class))
    present = np.flatnonzero(counts)
    diag: dict[str, Any] = {
        "form": form,
        "n_classes": int(p.shape[1]),
        "per_class": [
            {"class": int(c), "n": int(counts[c]), "weight": float(weights[c]), "cmi": float(v)}
            for c, v in zip(present, per_class[present], strict=True)
        ],
        "ceiling": float(np.log(p.shape[1])),
    }
    warns = []
    empty = np.flatnonzero(counts == 0)
    if empty.size:
        diag["empty_classes"] = empty.tolist()
    single = present[counts[present] == 1]
    if single.size:
        warns.append(
            f"classes {single.tolist()} have one sample each: their conditional MI is 0 by "
            "construction (the centroid is that sample)"
        )
    return Raw(value=value, diagnostics=diag, warnings=warns)


register_auto(
    AutoRule(
        QUANTITY,
        100,
        lambda ctx: True,
        "plugin",
        "the plug-in estimate on the empirical distribution is the only method",
    )
)


# ------------------------------------------------------------- public API
def _probs_input(probs: Any, from_logits: bool) -> Variable:
    """Probabilities as a continuous Variable (integer one-hot rows are probabilities too).

    Repeated values are normal for probabilities (identical predictions), so the generic
    "few distinct float values" diagnostic is dropped.
    """
    from infometer.core.validation import check_bool

    if check_bool(from_logits, "from_logits"):  # "yes" would have been read as True
        v = as_variable(probs, "logits", discrete=False)
        if v.d < 2:
            raise ValueError("logits must have one column per class (at least 2)")
        probs = softmax(v.values, axis=1)
    return replace(as_variable(probs, "probs", discrete=False), diagnostics={})


def classifier_cond_mutual_info(
    probs: Any,
    labels: Any,
    *,
    from_logits: bool = False,
    form: str = "centroid",
    method: str = "auto",
    unit: str | None = "nats",
    base: float | None = None,
    ci: float | None = None,
    seed: Seed = 0,
) -> Estimate:
    """Conditional mutual information ``I(X;Ŷ|Y)`` of a classifier.

    High values mean that the predicted distributions of same-class inputs spread out on the
    simplex (a "softer", more informative teacher); 0 means every input of a class gets the
    same prediction.  At most ``log C``.

    Parameters
    ----------
    probs
        (n, C) predicted class probabilities (rows sum to 1 within 1e-6), or logits with
        ``from_logits=True``.  :func:`infometer.systems.models.predict_proba` computes them for a
        torch model.
    labels
        (n,) true class indices ``0..C-1``.
    from_logits
        Treat ``probs`` as logits (softmax applied).
    form
        ``"centroid"`` (mean KL to the class centroid), ``"entropy"``
        (``H(Ŷ|Y) − H(Ŷ|X,Y)``) or ``"dual"`` (reverse channel); identical up to rounding.
    method, unit, base, ci
        As for :func:`infometer.mutual_info`; ``ci`` is a bootstrap interval over inputs
        (centroids re-estimated in every resample).
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).

    Returns
    -------
    Estimate
        ``diagnostics["per_class"]`` lists ``I(X;Ŷ|Y=y)``, ``n_y`` and ``P(y)`` per class.
    """
    from infometer.core.api import estimate

    return estimate(
        QUANTITY,
        {"probs": _probs_input(probs, from_logits), "labels": labels},
        method=method,
        unit=unit,
        base=base,
        ci=ci,
        seed=seed,
        form=form,
    )


def classifier_cond_mutual_info_per_class(
    probs: Any,
    labels: Any,
    *,
    from_logits: bool = False,
    form: str = "centroid",
    unit: str | None = "nats",
    base: float | None = None,
    ci: float | None = None,
    seed: Seed = 0,
) -> Any:
    """Per-class ``I(X;Ŷ|Y=y)`` as a pandas DataFrame (columns ``class, n, weight, cmi``).

    Each ``cmi`` cell is an :class:`~infometer.Estimate` computed from the inputs of that
    class alone (so ``ci=`` resamples within the class).  The overall value is
    ``Σ weight · cmi``.  Parameters as for :func:`classifier_cond_mutual_info`.

    Parameters
    ----------
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).
    """
    import pandas as pd

    p = _probs_input(probs, from_logits)
    lab_v = as_variable(labels, "labels")
    if lab_v.n != p.n:
        raise ValueError(f"labels has {lab_v.n} rows but probs has {p.n}")
    lab = check_labels(lab_v, p.d)
    rows = []
    seed = resolve_seed(seed)  # one root for every class
    for c in np.unique(lab):
        idx = np.flatnonzero(lab == c)
        est = classifier_cond_mutual_info(
            p.values[idx], lab[idx], form=form, unit=unit, base=base, ci=ci, seed=seed
        )
        rows.append({"class": int(c), "n": idx.size, "weight": idx.size / lab.size, "cmi": est})
    return pd.DataFrame(rows, columns=["class", "n", "weight", "cmi"])


# deprecated names (issue 29: public names spell quantities in full words), for one release
classifier_cmi = deprecated_alias(classifier_cond_mutual_info, "classifier_cmi")
classifier_cmi_per_class = deprecated_alias(
    classifier_cond_mutual_info_per_class, "classifier_cmi_per_class"
)
