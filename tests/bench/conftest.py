import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src"


@pytest.fixture
def bench_env():
    """Environment for a `python -m infometer.cli.bench` subprocess using this checkout."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(SRC) + os.pathsep + env.get("PYTHONPATH", "")
    env["PYTHONWARNINGS"] = "ignore"
    return env


@pytest.fixture
def bench_cmd():
    """Command line of `infometer bench` (as a module, so no install is needed)."""
    return _bench_cmd


def _bench_cmd(out, *args):
    return [
        sys.executable,
        "-m",
        "infometer.cli.bench",
        "bench",
        "--out",
        str(out),
        "-q",
        *args,
    ]
