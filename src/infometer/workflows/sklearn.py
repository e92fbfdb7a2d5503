"""scikit-learn integration: :class:`MutualInfoSelector`, a feature selector by information.

>>> from sklearn.pipeline import make_pipeline
>>> from sklearn.linear_model import LogisticRegression
>>> from infometer.workflows.sklearn import MutualInfoSelector
>>> model = make_pipeline(MutualInfoSelector(k=5, criterion="mrmr"), LogisticRegression())

Importing this module imports scikit-learn; ``import infometer`` does not.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin

from infometer.core.data import InfometerWarning, check_choice, check_int
from infometer.core.seeding import Seed

__all__ = ["MutualInfoSelector"]


def _discrete_mask(value: Any, p: int) -> np.ndarray:
    """``discrete_features`` as a boolean mask of the ``p`` features: True/False for all,
    a boolean mask of length p, or integer indices in ``-p..p-1``; anything else (``"yes"``,
    ``1``, floats, out-of-range indices) is refused naming the argument."""
    if isinstance(value, bool | np.bool_):
        return np.full(p, bool(value))
    if isinstance(value, str | bytes) or np.ndim(value) != 1:
        raise TypeError(
            "discrete_features must be True, False, a boolean mask or a list of feature "
            f"indices, got {type(value).__name__} {value!r}"
        )
    idx = np.asarray(value)
    if idx.dtype == bool:
        if idx.shape != (p,):
            raise ValueError(f"discrete_features mask has shape {idx.shape}, need ({p},)")
        return idx.copy()
    if idx.size == 0:
        return np.zeros(p, bool)
    if idx.dtype.kind not in "iu":
        raise TypeError(
            f"discrete_features must hold integer feature indices or booleans, got {idx.dtype}"
        )
    bad = (idx < -p) | (idx >= p)
    if bad.any():
        raise ValueError(
            f"discrete_features index {int(idx[np.argmax(bad)])} is out of range for {p} features"
        )
    disc = np.zeros(p, bool)
    disc[idx] = True
    return disc


def _validate(est: BaseEstimator, X: Any, y: Any, reset: bool) -> tuple[np.ndarray, Any]:
    kw = {"dtype": np.float64, "ensure_min_samples": 2} if y is not None else {}
    try:  # scikit-learn >= 1.6
        from sklearn.utils.validation import validate_data

        if y is None:
            return validate_data(est, X, reset=reset, dtype=np.float64), None
        return validate_data(est, X, y, reset=reset, y_numeric=False, **kw)
    except ImportError:  # pragma: no cover - older scikit-learn
        if y is None:
            return est._validate_data(X, reset=reset, dtype=np.float64), None
        return est._validate_data(X, y, reset=reset, **kw)


def _named(check: Any) -> Any:
    """``check()`` (scikit-learn's input validation), its errors said with the argument they
    are about first (``X: ...`` or ``y: ...``), as every infometer error names its argument;
    the same type, so scikit-learn's own tests of bad input still see what they expect."""
    try:
        return check()
    except (ValueError, TypeError) as exc:
        msg = " ".join(str(exc).split())
        about_y = any(
            w in msg
            for w in ("Input y ", "y should", " y ", "inconsistent numbers of samples", "target")
        )
        raise type(exc)(f"{'y' if about_y else 'X'}: {msg}") from None


class MutualInfoSelector(SelectorMixin, BaseEstimator):
    """Select ``k`` features by their mutual information with the target.

    Parameters
    ----------
    k
        Number of features to keep (all of them when the data has fewer, with a warning).
    criterion
        ``"relevance"`` (top-k by I(X_j; y)), ``"mrmr"`` (relevant and not redundant with
        the features already chosen; Peng et al. 2005) or ``"jmi"`` (joint information
        with each chosen feature; Yang & Moody 1999).
    method
        MI estimator, as in :func:`infometer.pairwise`: ``"auto"`` picks per pair of
        column kinds (KSG-1 continuous, GKOV continuous/discrete, Miller-Madow/NSB discrete).
    discrete_features
        ``False`` (default: every feature is a number), ``True``, or a boolean mask /
        index array of the discrete features.
    discrete_target
        ``"auto"`` (classes when scikit-learn's ``type_of_target`` says binary or
        multiclass), ``True`` or ``False``.
    n_neighbors
        k of the kNN estimators (KSG, GKOV).
    seed
        Seed of the jitter of tied values (the same seed gives the same selection). An int >= 0 (the
        same int gives the same numbers), a numpy.random.Generator (drawn from as it is) or None
        (fresh entropy from the operating system).
    n_jobs
        Threads (default: all cores).

    Attributes
    ----------
    scores_
        I(X_j; y) in nats for each feature.
    ranking_
        Indices of the chosen features in the order they were picked.
    selection_
        The :class:`infometer.workflows.allpairs._select.Selection` with the full table.
    n_features_in_, feature_names_in_
        As in scikit-learn.
    """

    def __init__(
        self,
        k: int = 10,
        criterion: str = "mrmr",
        method: str = "auto",
        discrete_features: Any = False,
        discrete_target: Any = "auto",
        n_neighbors: int = 3,
        seed: Seed = 0,
        n_jobs: int | None = None,
    ) -> None:
        self.k = k
        self.criterion = criterion
        self.method = method
        self.discrete_features = discrete_features
        self.discrete_target = discrete_target
        self.n_neighbors = n_neighbors
        self.seed = seed
        self.n_jobs = n_jobs

    def fit(self, X: Any, y: Any) -> MutualInfoSelector:
        """Estimate each feature's information about ``y`` and choose ``k`` features."""
        import warnings

        import pandas as pd
        from sklearn.utils.multiclass import type_of_target

        from infometer.workflows.allpairs._select import CRITERIA, select_features

        check_choice(self.criterion, "criterion", CRITERIA)
        k = check_int(self.k, "k", min_value=1)
        if y is None:
            raise ValueError(  # scikit-learn's wording for an estimator that needs a y
                "y is None: MutualInfoSelector requires y to be passed, but the target y is None"
            )
        X, y = _named(lambda: _validate(self, X, y, reset=True))
        p = X.shape[1]
        if k > p:
            warnings.warn(
                f"k={k} is greater than n_features={p}; all features are selected",
                InfometerWarning,
                stacklevel=2,
            )
            k = p
        disc = _discrete_mask(self.discrete_features, p)
        names = [str(c) for c in getattr(self, "feature_names_in_", [f"x{j}" for j in range(p)])]
        cols = {}
        for j, name in enumerate(names):
            col = X[:, j]
            cols[name] = col.astype(np.int64) if disc[j] and np.all(col == np.round(col)) else col
            if disc[j] and cols[name].dtype != np.int64:
                cols[name] = pd.Categorical(col)
        frame = pd.DataFrame(cols)
        target = self.discrete_target
        try:
            kind = type_of_target(y, input_name="y", raise_unknown=True)
        except TypeError:  # pragma: no cover - scikit-learn < 1.6
            kind = type_of_target(y, input_name="y")
        if isinstance(target, str):
            check_choice(target, "discrete_target", ("auto",))
            target = kind in ("binary", "multiclass")
        elif not (target is None or isinstance(target, bool | np.bool_)):
            raise TypeError(
                f"discrete_target must be True, False, None or 'auto', got "
                f"{type(target).__name__} {target!r}"
            )
        y_arr = np.asarray(y)
        if target and y_arr.dtype.kind == "f":
            y_arr = pd.Categorical(y_arr)
        knn = {} if disc.all() and target else {"n_neighbors": self.n_neighbors}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", InfometerWarning)
            sel = select_features(
                frame,
                y_arr,
                k=k,
                criterion=self.criterion,
                method=self.method,
                discrete_target=bool(target),
                seed=self.seed,
                n_jobs=self.n_jobs,
                **knn,
            )
        order = {name: j for j, name in enumerate(names)}
        rel = sel.table.set_index("feature")["relevance"]
        self.scores_ = np.array([rel[name] for name in names])
        self.ranking_ = np.array([order[name] for name in sel.selected], dtype=np.int64)
        self.selection_ = sel
        return self

    def _get_support_mask(self) -> np.ndarray:
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(self, "ranking_")
        mask = np.zeros(self.n_features_in_, bool)
        mask[self.ranking_] = True
        return mask

    def __sklearn_tags__(self):  # scikit-learn >= 1.6
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags

    def _more_tags(self) -> dict:  # pragma: no cover - scikit-learn < 1.6
        return {"requires_y": True}
