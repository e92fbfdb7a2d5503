"""Local values average exactly to their estimators' values."""

from __future__ import annotations

import numpy as np
import pytest

import infometer as im
from infometer.dynamics import local_cond_mutual_info, local_mutual_info, local_transfer_entropy


def _cont(n=600, seed=0):
    rng = np.random.default_rng(seed)
    z = rng.normal(size=n)
    x = z + rng.normal(size=n)
    y = x + z + rng.normal(size=n)
    return x, y, z


def _disc(n=600, seed=0):
    rng = np.random.default_rng(seed)
    z = rng.integers(0, 3, n)
    x = (z + (rng.random(n) < 0.3)) % 3
    y = (x + (rng.random(n) < 0.3)) % 3
    return x, y, z


@pytest.mark.parametrize(
    ("method", "data", "core"),
    [
        ("plugin", _disc, {}),
        ("gaussian", _cont, {"bias_correct": False}),
        ("ksg1", _cont, {"k": 4}),
    ],
)
def test_local_mi_and_cmi_average_to_the_estimate(method, data, core):
    x, y, z = data()
    kw = {"k": 4} if method == "ksg1" else {}
    lm = local_mutual_info(x, y, method=method, **kw)
    assert len(lm) == x.size
    assert lm.mean == pytest.approx(im.mutual_info(x, y, method=method, **core).value, abs=1e-10)
    lc = local_cond_mutual_info(x, y, z, method=method, **kw)
    ref = im.cond_mutual_info(x, y, z, method=method, **core).value
    assert lc.mean == pytest.approx(ref, abs=1e-10)
    assert lc.values.std() > 0  # genuinely pointwise, not the mean repeated


def test_local_plugin_mi_is_the_pointwise_log_ratio():
    # x = y uniform on 4 symbols: every local MI is log 4 exactly
    x = np.tile(np.arange(4), 25)
    np.testing.assert_allclose(local_mutual_info(x, x, method="plugin").values, np.log(4))
    # a rare co-occurrence is surprising: x=1,y=0 happens once in 4 rows
    x = np.array([0, 0, 1, 1])
    y = np.array([0, 0, 0, 1])
    v = local_mutual_info(x, y, method="plugin").values
    np.testing.assert_allclose(v, np.log([4 * 2 / (2 * 3), 4 * 2 / (2 * 3), 4 / (2 * 3), 4 / 2]))


def test_local_te_and_ais_average_to_te_and_ais():
    rng = np.random.default_rng(1)
    n = 800
    x = rng.normal(size=n)
    y = np.zeros(n)
    for t in range(1, n):
        y[t] = 0.5 * y[t - 1] + 0.6 * x[t - 1] + rng.normal()
    lt = local_transfer_entropy(x, y, k=2, method="gaussian")
    te = im.transfer_entropy(x, y, k=2, method="gaussian", bias_correct=False)
    assert lt.mean == pytest.approx(te.value, abs=1e-10)
    assert lt.times[0] == 2 and lt.times[-1] == n - 1
    lk = local_transfer_entropy(x, y, method="ksg1", cmi_k=4)
    assert lk.mean == pytest.approx(
        im.transfer_entropy(x, y, method="ksg1", cmi_k=4).value, abs=1e-10
    )
    la = im.active_info_storage(y, method="ksg1", local=True, k=2)
    ais = im.active_info_storage(y, method="ksg1", k=2)
    assert la.mean == pytest.approx(ais.value, abs=1e-10)
    assert la.diagnostics["lags"] == [1, 2]
    bits = im.active_info_storage(y, method="gaussian", local=True, unit="bits")
    assert bits.unit == "bits"
    assert bits.estimate().to("nats").value == pytest.approx(
        im.active_info_storage(y, method="gaussian", bias_correct=False).value, abs=1e-10
    )


def test_local_values_frame_and_plot(tmp_path):
    x, y, _ = _disc()
    lv = local_transfer_entropy(x, y, method="plugin")
    frame = lv.to_frame()
    assert list(frame.columns) == ["time", "local"] and len(frame) == len(lv)
    lv.plot(path=tmp_path / "local.png")
    assert (tmp_path / "local.png").stat().st_size > 1000


def test_unsupported_local_method_is_refused():
    x, y, _ = _cont()
    with pytest.raises(ValueError, match="available for methods"):
        local_mutual_info(x, y, method="histogram")
    with pytest.raises(ValueError, match="discrete data"):
        local_mutual_info(x, y, method="plugin")
