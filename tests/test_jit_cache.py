"""numba's cache directory (infometer.core.jit): a user cache directory unless the user chose
one, so compiled kernels are cached even when the package is installed read-only."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

PROBE = "import infometer.core.jit, numba; print(numba.config.CACHE_DIR)"


pytestmark = pytest.mark.slow  # the slow lane: deselected by make test-fast


def _cache_dir(env: dict[str, str], code: str = PROBE) -> str:
    base = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "XDG_CACHE_HOME")}
    out = subprocess.run(
        [sys.executable, "-c", code], env={**base, **env}, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    return out.stdout.strip().splitlines()[-1]


def test_default_is_a_user_cache_dir(tmp_path):
    if sys.platform in ("win32", "darwin"):  # XDG_CACHE_HOME is the Linux/BSD rule
        return
    want = os.path.join(str(tmp_path), "infometer", "numba")
    assert _cache_dir({"XDG_CACHE_HOME": str(tmp_path)}) == want
    assert os.path.isdir(want)


def test_numba_imported_first_gets_it_too(tmp_path):
    if sys.platform in ("win32", "darwin"):
        return
    code = "import numba\n" + PROBE
    want = os.path.join(str(tmp_path), "infometer", "numba")
    assert _cache_dir({"XDG_CACHE_HOME": str(tmp_path)}, code) == want


def test_user_setting_is_kept(tmp_path):
    mine = str(tmp_path / "mine")
    got = _cache_dir({"NUMBA_CACHE_DIR": mine, "XDG_CACHE_HOME": str(tmp_path / "x")})
    assert got == mine


def test_unwritable_location_leaves_numba_alone(tmp_path):
    if sys.platform in ("win32", "darwin") or os.geteuid() == 0:  # root writes anywhere
        return
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        assert _cache_dir({"XDG_CACHE_HOME": str(ro)}) == ""
    finally:
        ro.chmod(0o700)


def test_modules_import_numba_through_jit():
    """The convention that keeps the cache directory right: compiled modules take numba
    from ``infometer.core.jit`` (``from ..jit import nb``), never directly."""
    import pathlib
    import re

    import infometer

    root = pathlib.Path(infometer.__file__).parent
    direct = re.compile(r"^\s*(import numba|from numba[ .])", re.M)
    offenders = [
        str(p.relative_to(root))
        for p in root.rglob("*.py")
        if p.name != "jit.py" and direct.search(p.read_text(encoding="utf-8"))
    ]
    assert offenders == []
