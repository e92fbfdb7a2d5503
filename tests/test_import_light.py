"""``import infometer`` and ``infometer --help`` stay light (issue 10): heavy libraries are
imported where they are used, never at the top of a module these load."""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = ("scipy", "numba", "torch", "pandas", "sklearn", "matplotlib", "transformers")


def _loaded(code: str) -> list[str]:
    """Top-level packages from HEAVY in ``sys.modules`` after running ``code`` in a fresh
    interpreter."""
    probe = (
        f"{code}\nimport sys\n"
        f"print(' '.join(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r}))))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


def test_import_loads_nothing_heavy():
    assert _loaded("import infometer") == []


def test_help_loads_nothing_heavy():
    code = (
        "import contextlib, io, sys\n"
        "sys.argv = ['infometer', '--help']\n"
        "from infometer.cli.app import main\n"
        "with contextlib.redirect_stdout(io.StringIO()) as f:\n"
        "    try:\n"
        "        main()\n"
        "    except SystemExit as e:\n"
        "        assert e.code in (0, None), e.code\n"
        "assert 'Usage' in f.getvalue(), f.getvalue()\n"
    )
    assert _loaded(code) == []


def test_small_knn_call_does_not_load_numba():
    """A small problem runs on the scipy backend: no numba load or compile."""
    code = (
        "import numpy as np, infometer as im\n"
        "x = np.random.default_rng(0).normal(size=(300, 2))\n"
        "im.mutual_info(x[:, :1], x[:, 1:], method='ksg1')\n"
        "import sys\n"
        "assert 'numba' not in sys.modules\n"
    )
    assert "torch" not in _loaded(code)


@pytest.mark.parametrize("name", [n for n in __import__("infometer").__all__ if n != "InfoSEDD"])
def test_public_names_resolve(name):
    import infometer

    assert getattr(infometer, name) is not None
    assert name in dir(infometer)


def test_estimate_is_the_function_not_the_submodule():
    # the Estimate class lives in the private module infometer.core.estimate (issue 29), so
    # no submodule named "estimate" can shadow the function im.estimate
    import infometer
    import infometer.core.estimate  # noqa: F401
    from infometer.core.api import estimate

    assert infometer.estimate is estimate
    assert infometer.Estimate is infometer.core.estimate.Estimate
    assert not hasattr(infometer, "_Package")
