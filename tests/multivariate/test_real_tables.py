"""The Gaussian-default functions at their defaults on real tables that ship with
scikit-learn (issue 35 §5, for §2): every number is either one stated reading, checked
against a reference computed another way, or a clear error naming the choices.

* digits (1,797 8x8 images): pixel counts 0-16 stored as *floats* (17 distinct values):
  refused by name; with ``discrete=True`` the discrete reading, equal to the same quantity
  of the empirical pmf built independently (``numpy.histogramdd`` → ``infometer.measures.exact``);
* diabetes: ``sex`` is a float column with 2 values beside continuous ones: refused, naming
  ``sex``; ``discrete=False`` gives the Gaussian-copula reading, which is invariant to
  monotone maps of the columns (checked on the continuous columns);
* wine: continuous features: ``gaussian_copula`` (stated), invariant to monotone maps;
  features with the integer class as target: a mixed table, refused by name.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import infometer as im
from infometer.measures import exact

datasets = pytest.importorskip("sklearn.datasets")

PIXELS = [20, 28, 36]  # three central pixels of the 8x8 digits


def _pmf(cols: list[np.ndarray]) -> np.ndarray:
    """Empirical joint pmf, one axis per column (values re-coded 0..K-1)."""
    codes = [np.unique(c, return_inverse=True)[1] for c in cols]
    shape = [int(c.max()) + 1 for c in codes]
    h, _ = np.histogramdd(
        np.column_stack(codes), bins=shape, range=[(-0.5, k - 0.5) for k in shape]
    )
    return h / h.sum()


@pytest.fixture(scope="module")
def digits():
    d = datasets.load_digits()
    return d.data, d.target


def test_digits_pixels_are_refused_then_counted(digits):
    x, y = digits
    cols = x[:, PIXELS]
    assert cols.dtype == np.float64  # as scikit-learn ships them
    for f in (im.o_information, im.total_correlation, im.s_information):
        with pytest.raises(ValueError, match="distinct values.*discrete=True"):
            f(cols)
    with pytest.raises(ValueError, match="discrete=True"):
        im.multiplets(x[:, PIXELS + [44]], sizes=3)
    with pytest.raises(ValueError, match="discrete=True"):
        im.pid_pairs(cols, y)  # float pixels, integer class: and mixed
    # the discrete reading, against the empirical pmf built another way
    p = _pmf([cols[:, 0], cols[:, 1], cols[:, 2]])
    for name in ("o_information", "total_correlation", "dual_total_correlation"):
        got = getattr(im, name)(cols, discrete=True, method="plugin").value
        want = getattr(exact, name)(p).value
        assert got == pytest.approx(want, abs=1e-10), name
    auto = im.o_information(cols, discrete=True)
    assert auto.method in ("miller_madow", "nsb") and "discrete" in auto.diagnostics["auto_reason"]


def test_digits_pid_pairs_on_symbols(digits):
    x, y = digits
    cols = x[:, PIXELS].astype(np.int64)  # counts as symbols
    r = im.pid_pairs(cols, y, measure="mmi", method="plugin")
    for p, (i, j) in enumerate(r.pairs):
        want = exact.pid(_pmf([cols[:, i], cols[:, j], y]), measure="mmi")
        got = [r.values[k][p] for k in ("redundancy", "unique_i", "unique_j", "synergy")]
        ref = [want.redundancy.value, *(u.value for u in want.unique), want.synergy.value]
        assert got == pytest.approx(ref, abs=1e-10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # few rows per joint symbol: warned, and tested
        auto = im.pid_pairs(cols, y)
    assert auto.method == "miller_madow"
    # Miller-Madow MIs: the discrete family's, computed per pair from counts
    for p, (i, j) in enumerate(auto.pairs):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = im.mutual_info(cols[:, [i, j]], y, method="miller_madow").value
        assert auto.values["mutual_info"][p] == pytest.approx(want, abs=1e-10)


def test_diabetes_float_coded_sex():
    d = datasets.load_diabetes(as_frame=True).frame
    t = d[["age", "sex", "bmi"]]
    with pytest.raises(ValueError, match="'?sex'? takes 2 distinct values"):
        im.o_information(t)
    with pytest.raises(ValueError, match="sex"):
        im.pid_pairs(d[["age", "sex", "bmi"]], d["target"])
    # the Gaussian reading, chosen: invariant to monotone maps of the continuous columns
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = im.o_information(t, discrete=False).value
        b = im.o_information(
            t.assign(age=np.exp(10 * t["age"]), bmi=t["bmi"] ** 3), discrete=False
        ).value
    assert a == pytest.approx(b, abs=1e-12)


def test_wine_continuous_and_mixed():
    w = datasets.load_wine(as_frame=True)
    f = w.data[["alcohol", "malic_acid", "ash", "flavanoids"]]
    e = im.o_information(f)
    assert e.method == "gaussian_copula" and "continuous" in e.diagnostics["auto_reason"]
    g = im.o_information(f.assign(alcohol=np.log(f["alcohol"]), ash=f["ash"] ** 5))
    assert g.value == pytest.approx(e.value, abs=1e-12)  # ranks: monotone maps change nothing
    r = im.pid_pairs(f, w.data["proline"])
    assert r.method == "gaussian_copula"
    with pytest.raises(ValueError, match="discrete=True.*discrete=False"):
        im.pid_pairs(f, w.target)  # integer classes beside float features
    with pytest.raises(ValueError, match="discrete=True.*discrete=False"):
        im.pid(f[["alcohol", "ash"]], w.target)
