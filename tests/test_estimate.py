import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from infometer import Estimate
from infometer.core.estimate import resolve_unit, unit_factor


def make(**kw):
    base = dict(
        value=0.6931,
        unit="nats",
        method="plugin",
        quantity="entropy",
        n=10000,
        stderr=0.012,
        ci=(0.67, 0.72),
        ci_level=0.95,
        params={"k": 3},
        diagnostics={"warnings": ["w"], "ties": 0.1},
    )
    base.update(kw)
    return Estimate(**base)


def test_repr_reads_like_the_spec():
    assert repr(make()) == "0.693 nats ± 0.012 (95% CI 0.670–0.720) [plugin, n=10000]"
    assert repr(Estimate(1.0, "bits", "exact")) == "1 bits [exact]"


def test_behaves_like_a_float():
    e = make()
    assert float(e) == 0.6931
    assert e + 1 == pytest.approx(1.6931)
    assert 1 - e == pytest.approx(0.3069)
    assert 2 * e == pytest.approx(1.3862)
    assert e / 2 == pytest.approx(0.34655)
    assert e > 0.5 and e < 1 and e >= 0.6931 and e <= 0.6931
    assert e == 0.6931
    assert -e == -0.6931 and abs(make(value=-2.0)) == 2.0
    assert math.isclose(math.exp(e), 2.0, rel_tol=1e-4)


def test_to_bits_converts_value_stderr_and_ci_exactly():
    e = make().to("bits")
    f = 1 / math.log(2)
    assert e.unit == "bits"
    assert e.value == pytest.approx(0.6931 * f, rel=1e-15)
    assert e.stderr == pytest.approx(0.012 * f, rel=1e-15)
    assert e.ci == pytest.approx((0.67 * f, 0.72 * f), rel=1e-15)
    back = e.to("nats")
    assert back.value == pytest.approx(0.6931, rel=1e-15)


@given(
    st.floats(-1e6, 1e6, allow_nan=False),
    st.sampled_from(["nats", "bits", "hartleys"]),
    st.sampled_from(["nats", "bits", "hartleys"]),
)
def test_unit_round_trip_is_exact(v, a, b):
    e = Estimate(v, a)
    assert e.to(b).to(a).value == pytest.approx(v, rel=1e-12, abs=1e-12)


def test_unit_factor_known_values():
    assert unit_factor("bits", "nats") == pytest.approx(math.log(2))
    assert unit_factor("hartleys", "bits") == pytest.approx(math.log2(10))
    assert resolve_unit("nats", base=2) == "bits"
    assert resolve_unit(None, base=10) == "hartleys"
    assert resolve_unit("nats", base=3) == "base-3"
    assert unit_factor("base-3", "nats") == pytest.approx(math.log(3))


@pytest.mark.parametrize("bad", ["parsecs", "base-1", "base-x"])
def test_unknown_unit_is_a_clear_error(bad):
    with pytest.raises(ValueError, match="unit"):
        Estimate(1.0, bad)


def test_bad_base_is_rejected():
    with pytest.raises(ValueError, match="base"):
        resolve_unit("nats", base=1)
    with pytest.raises(TypeError, match="base"):
        resolve_unit("nats", base="2")


def test_json_round_trip():
    e = make(diagnostics={"warnings": ["x"], "inf": float("inf")})
    d = json.loads(json.dumps(e.to_dict()))
    e2 = Estimate.from_dict(d)
    assert e2.value == e.value and e2.ci == e.ci and e2.stderr == e.stderr
    assert e2.params == {"k": 3} and e2.n == 10000 and e2.method == "plugin"
    assert e2.to_dict() == e.to_dict()


def test_from_dict_rejects_garbage():
    with pytest.raises(ValueError, match="value"):
        Estimate.from_dict({"unit": "nats"})


def test_none_error_bars_by_default():
    e = Estimate(1.0)
    assert e.stderr is None and e.ci is None and e.warnings == []


def test_utility_unit_is_a_value_not_information():
    # values of decisions (value of information, persuasion value) carry the problem's
    # utility units: they round-trip and print, but never convert to nats/bits
    e = Estimate(8.0, "utility", "exact", "value_of_information")
    assert e.unit == "utility" and repr(e) == "8 utility [exact]"
    assert Estimate(1.0, "utils").unit == "utility"
    assert e.to("utility").value == 8.0
    assert Estimate.from_dict(json.loads(json.dumps(e.to_dict()))) == e
    with pytest.raises(ValueError, match="not an amount of information"):
        e.to("bits")
    with pytest.raises(ValueError, match="not an amount of information"):
        make().to("utility")
    assert unit_factor("utility", "utility") == 1.0
    with pytest.raises(ValueError, match="values of decisions"):
        resolve_unit("utility")
