import os

import pytest

pytest.importorskip("lxml")
pytest.importorskip("rapidfuzz")

#: ``make test`` sets this after ``.ci/ensure-bwrap``: the OS sandbox must then be there.
REQUIRED = os.environ.get("INFOMETER_REQUIRE_SANDBOX") == "1"


@pytest.fixture(scope="session")
def unisolated() -> bool:
    """Whether script runs must fall back to ``allow_unisolated=True`` on this machine (no
    OS sandbox, and ``make test`` did not require one): the contract tests then still run,
    the attack suite checks the refusal instead (tests/extract/test_sandbox_attacks.py)."""
    from infometer.systems.extract.sandbox import isolation

    iso = isolation()
    if not iso.available and REQUIRED:
        pytest.fail(f"INFOMETER_REQUIRE_SANDBOX=1 but the OS sandbox is unavailable: {iso}")
    return not iso.available


@pytest.fixture
def score_args(unisolated) -> list[str]:
    """Extra ``extract score`` arguments on this machine."""
    return ["--allow-unisolated"] if unisolated else []
