"""The ground-truth helpers agree with independent references."""

import numpy as np
from scipy import integrate, stats

from .truth import additive_uniform_mi, gauss_cmi, gauss_entropy, student_entropy, student_mi


def test_student_entropy_matches_scipy():
    for nu in (1.0, 3.0, 10.0):
        assert abs(student_entropy(nu, 1) - stats.t(nu).entropy()) < 1e-10


def test_student_mi_known_value():
    # bmi / Beyond Normal: 2x2 with nu = 2 is exactly log 2 - 1/2; 1x1 nu = 1 is 0.2242
    assert abs(student_mi(2, 2, 2) - (np.log(2) - 0.5)) < 1e-12
    assert abs(student_mi(1, 1, 1) - 0.2242) < 5e-5


def test_gauss_formulas_consistent():
    cov = np.array([[1.0, 0.75], [0.75, 1.0]])
    mi = gauss_cmi(cov, [0], [1], [])
    assert abs(mi + 0.5 * np.log(1 - 0.75**2)) < 1e-12
    assert abs(gauss_entropy(cov[:1, :1]) * 2 - gauss_entropy(cov) - mi) < 1e-12


def test_additive_uniform_by_integration():
    eps = 0.1  # h(Y) - log(2 eps), h(Y) by quadrature of the trapezoidal density

    def f(y):
        return np.clip(np.minimum(y + eps, 1) - np.maximum(y - eps, 0), 0, None) / (2 * eps)

    h, _ = integrate.quad(lambda y: -f(y) * np.log(f(y)) if f(y) > 0 else 0.0, -eps, 1 + eps,
                          points=[eps, 1 - eps], limit=200)
    assert abs(h - np.log(2 * eps) - additive_uniform_mi(eps)) < 1e-8
