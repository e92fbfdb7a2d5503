"""InfoSEDD's defaults on a real table that ships with scikit-learn (issue 35 §5).

The digits images (1797 rows, 8x8 pixels, 17 intensity levels) are discrete sequences.
Each number is checked against a reference computed another way, or flagged by the
model's own bias check: the MI between two pixel blocks of different images (the rows
of one block shuffled) is 0 exactly; the entropy of a pair of pixels (at most 289
joint symbols for 1797 rows) is what NSB and the plug-in estimate from counts.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import infometer as im

torch = pytest.importorskip("torch")
datasets = pytest.importorskip("sklearn.datasets")

pytestmark = pytest.mark.slow  # two models of 1300 training rows (~20 s of CPU each)


@pytest.fixture(scope="module")
def digits():
    return datasets.load_digits().data.astype(int)


def _quiet(f, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(*args, **kwargs)


def test_digits_shuffled_blocks_have_zero_mi_or_are_flagged(digits):
    a, b = digits[:, 19:23], digits[:, 43:47]  # the centres of image rows 2 and 5
    b = b[np.random.default_rng(0).permutation(len(b))]
    est = _quiet(im.mutual_info, a, b, method="infosedd", discrete=True)
    d = est.diagnostics
    covers = abs(est.value) <= abs(d["bias_check"]) + 3 * d["mc_stderr"]
    assert d["bias_check_large"] or covers, (est.value, d["bias_check"], d["mc_stderr"])


def test_digits_pixel_pair_entropy_against_counting_estimators(digits):
    pair = digits[:, [19, 20]]
    est = _quiet(im.entropy, pair, method="infosedd")
    nsb = _quiet(im.entropy, pair, method="nsb", discrete=True)
    plugin = _quiet(im.entropy, pair, method="plugin", discrete=True)
    d = est.diagnostics
    # NSB and the plug-in bracket the entropy of a well-sampled 289-symbol alphabet (the
    # plug-in is biased low by about (K - 1) / 2n < 0.08 nats; NSB's posterior sd is ~0.03)
    ref, spread = nsb.value, abs(nsb.value - plugin.value) + 3 * nsb.stderr
    tol = abs(d["bias_check"]) + 3 * d["mc_stderr"] + spread
    assert d["bias_check_large"] or abs(est.value - ref) <= tol, (est.value, ref, d["bias_check"])
