"""IE-CL entropy increment (ΔH = log|det A| for linear maps) and the generated images."""

from __future__ import annotations

import numpy as np
import pytest

import infometer as im
from infometer.systems.models import entropy_increment, linear_entropy_increment
from infometer.systems.models.synthetic import texture_images


def test_linear_map_increment_is_log_abs_det():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(4000, 4)) @ rng.normal(size=(4, 4))
    a = rng.normal(size=(4, 4))
    truth = np.log(abs(np.linalg.det(a)))
    assert linear_entropy_increment(a).value == pytest.approx(truth, abs=1e-12)
    # Gaussian plug-in: the sample covariance of AX is A Σ̂ Aᵀ, so ΔH is log|det A| for any
    # sample (and the Wishart bias terms cancel): exact up to rounding
    g = entropy_increment(x, x @ a.T)
    assert g.value == pytest.approx(truth, abs=1e-9)
    assert g.diagnostics["h_x_new"] - g.diagnostics["h_x"] == pytest.approx(g.value)
    assert g.to("bits").value == pytest.approx(truth / np.log(2), abs=1e-9)


def test_rotations_and_flips_add_no_entropy():
    rng = np.random.default_rng(1)
    q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    assert abs(linear_entropy_increment(q).value) < 1e-12
    flip = np.diag([1.0, -1.0, 1.0])
    assert abs(linear_entropy_increment(flip).value) < 1e-15
    x = rng.normal(size=(500, 3))
    assert abs(entropy_increment(x, x @ q.T).value) < 1e-9


def test_bad_input():
    with pytest.raises(ValueError, match="singular"):
        linear_entropy_increment(np.ones((2, 2)))
    with pytest.raises(ValueError, match="square"):
        linear_entropy_increment(np.ones((2, 3)))
    with pytest.raises(ValueError, match="NaN"):
        linear_entropy_increment([[1.0, np.nan], [0.0, 1.0]])
    x = np.random.default_rng(2).normal(size=(50, 2))
    with pytest.raises(ValueError, match="x_new has 3 columns but x has 2"):
        entropy_increment(x, np.hstack([x, x[:, :1]]))
    with pytest.raises(ValueError, match="unknown method"):
        entropy_increment(x, x, method="nope")


def test_texture_images():
    x, y = texture_images(3, seed=4)
    assert x.shape == (30, 3, 32, 32) and x.dtype == np.float32
    assert 0.0 <= x.min() and x.max() <= 1.0
    assert np.array_equal(np.bincount(y), np.full(10, 3))
    x2, y2 = texture_images(3, seed=4)
    assert np.array_equal(x, x2) and np.array_equal(y, y2)
    # the classes are told apart by frequency: high-frequency classes (5-9) have more
    # energy in differences of neighbouring pixels
    grad = np.abs(np.diff(x, axis=3)).mean((1, 2, 3))
    assert grad[y >= 5].mean() > grad[y < 5].mean()
    with pytest.raises(ValueError, match="n_classes must be <= 10"):
        texture_images(2, n_classes=11)
    assert im.entropy(y, method="plugin").value == pytest.approx(np.log(10))
