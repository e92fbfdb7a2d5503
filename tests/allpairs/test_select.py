"""Feature selection (relevance, mRMR, JMI) and the scikit-learn MutualInfoSelector."""

import warnings

import numpy as np
import pandas as pd
import pytest

from infometer import InfometerWarning
from infometer.workflows.allpairs import select_features


@pytest.fixture(scope="module")
def copies():
    """y = 3 bits; x1, x2, x3 each carry one bit (x3 weakly); x1c, x2c are near-copies."""
    rng = np.random.default_rng(0)
    n = 1000
    bits = rng.integers(0, 2, (n, 3))
    y = bits @ np.array([1, 2, 4])
    x1 = bits[:, 0] + 0.4 * rng.standard_normal(n)
    x2 = bits[:, 1] + 0.4 * rng.standard_normal(n)
    x3 = bits[:, 2] + 0.8 * rng.standard_normal(n)
    X = pd.DataFrame(
        {
            "x1": x1,
            "x1c": x1 + 0.05 * rng.standard_normal(n),
            "x2": x2,
            "x2c": x2 + 0.05 * rng.standard_normal(n),
            "x3": x3,
            "n1": rng.standard_normal(n),
            "n2": rng.standard_normal(n),
        }
    )
    return X, y


def test_mrmr_picks_the_informative_features_not_their_copies(copies):
    X, y = copies
    # I(x1;y) ~ I(x2;y) ~ 0.48 nats, I(x3;y) ~ 0.12: relevance alone takes a copy pair
    rel = select_features(X, y, k=3, criterion="relevance")
    groups = [{"x1", "x1c"}, {"x2", "x2c"}]
    assert any(g <= set(rel.selected) for g in groups)
    # mRMR: a copy's redundancy with its original (~ 2.3 nats) dwarfs its relevance
    mrmr = select_features(X, y, k=3, criterion="mrmr")
    sel = set(mrmr.selected)
    assert "x3" in sel and all(len(g & sel) == 1 for g in groups)
    t = mrmr.table
    assert list(t.feature[:3]) == mrmr.selected and t["rank"].tolist()[:3] == [1, 2, 3]
    assert t.relevance.iloc[3:].is_monotonic_decreasing  # the rest by relevance
    # JMI's first two picks carry different bits
    jmi = select_features(X, y, k=2, criterion="jmi")
    assert all(len(g & set(jmi.selected)) == 1 for g in groups)


def test_selection_errors():
    rng = np.random.default_rng(0)
    X = rng.random((50, 3))
    y = rng.random(50)
    with pytest.raises(ValueError, match="criterion"):
        select_features(X, y, criterion="best")
    with pytest.raises(ValueError, match="only 3"):
        select_features(X, y, k=4)
    with pytest.raises(ValueError, match="rows"):
        select_features(X, y[:10], k=2)


def test_selector_fit_transform_pipeline_clone():
    from sklearn.base import clone
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import cross_val_score
    from sklearn.pipeline import make_pipeline

    from infometer.workflows.sklearn import MutualInfoSelector

    rng = np.random.default_rng(4)
    bits = rng.integers(0, 2, (300, 3))
    y = bits @ np.array([1, 2, 4])  # 8 classes, one bit in each of the first 3 features
    X = np.column_stack([bits + 0.4 * rng.standard_normal((300, 3)), rng.standard_normal((300, 9))])
    sel = MutualInfoSelector(k=3, criterion="mrmr").fit(X, y)
    assert sel.transform(X).shape == (300, 3)
    assert sel.get_support().sum() == 3 and set(sel.get_support(indices=True)) == {0, 1, 2}
    assert sel.scores_.shape == (12,) and len(sel.ranking_) == 3
    again = clone(sel).fit(X, y)
    assert np.array_equal(again.ranking_, sel.ranking_)  # seeded: the same selection
    pipe = make_pipeline(MutualInfoSelector(k=3), LogisticRegression())
    assert cross_val_score(pipe, X, y, cv=3).mean() > 0.6  # chance is 1/8
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(12)])
    fitted = MutualInfoSelector(k=2, criterion="relevance").fit(frame, y)
    assert list(fitted.get_feature_names_out()) == [f"f{j}" for j in sorted(fitted.ranking_)]
    with pytest.warns(InfometerWarning, match="greater than n_features"):
        MutualInfoSelector(k=20).fit(X, y)
    disc = MutualInfoSelector(k=1, discrete_features=True, criterion="relevance")
    disc.fit(np.round(X[:, :3]).astype(int), y)
    assert disc.selection_.table.method.iloc[0] in ("miller_madow", "nsb")


def test_check_estimator():
    """Every scikit-learn estimator check passes (the array-API check is skipped by
    scikit-learn itself unless SCIPY_ARRAY_API is set; MutualInfoSelector skips none)."""
    from sklearn.utils.estimator_checks import check_estimator

    from infometer.workflows.sklearn import MutualInfoSelector

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = check_estimator(MutualInfoSelector(k=2), on_fail=None)
    bad = [(r["check_name"], str(r["exception"])[:200]) for r in res if r["status"] == "failed"]
    assert not bad
    skipped = {r["check_name"] for r in res if r["status"] == "skipped"}
    assert skipped <= {"check_array_api_input"}
