"""``make demo`` installs the core only (issue 41): ``demo``, ``bench`` and ``report`` run
with every extra's package missing, and a missing extra is named with its ``pip install``
line (never "None", never "an internal error").  Each extra is blocked in a fresh
interpreter by an import hook that finds none of its packages, as in an install without it
(``sys.modules[name] = None`` would not do: scipy reads ``sys.modules["torch"]``)."""

from __future__ import annotations

import subprocess
import sys

import pytest

#: The top-level packages the extras bring (pyproject's optional-dependencies).
EXTRAS = (
    "torch",
    "safetensors",
    "dask",
    "distributed",
    "pyarrow",
    "polars",
    "pyfastx",
    "transformers",
    "sentence_transformers",
    "networkx",
    "lxml",
    "rapidfuzz",
    "bs4",
)


def _blocked(extras: tuple[str, ...] = EXTRAS) -> str:
    """Python source that makes ``extras`` uninstalled for the rest of the interpreter."""
    return (
        "import sys\n"
        "class _NoExtra:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        f"        if name.split('.')[0] in {extras!r}:\n"
        "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
        "sys.meta_path.insert(0, _NoExtra())\n"
    )


def _cli(args: list[str], cwd) -> subprocess.CompletedProcess:
    code = (
        _blocked() + f"sys.argv = ['infometer', *{args!r}]\n"
        "from infometer.cli.app import main\n"
        "main()\n"
    )
    env = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"}
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=cwd, env=env
    )


@pytest.mark.slow  # three fresh interpreters running the demo's commands: ~25 s
def test_demo_bench_and_report_run_without_any_extra(tmp_path):
    r = _cli(["demo", "--dataset", "wine", "--top", "3", "-q", "-o", "d"], tmp_path)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "d" / "wine_mi.png").exists()
    bench = ["bench", "--tasks", "gauss-entropy-1d", "--n", "50", "--seeds", "1", "-j", "1"]
    r = _cli([*bench, "-e", "histogram", "--out", "b", "-q"], tmp_path)
    assert r.returncode == 0, r.stderr
    r = _cli(["report", "b", "-o", "r.html"], tmp_path)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "r.html").read_text().startswith("<!DOCTYPE html>")


@pytest.mark.parametrize(
    ("args", "extra"),
    [
        (["entropy", "t.parquet", "-c", "a"], "io"),
        (["extract", "score", "--script", "s.py", "--allow-unisolated"], "extract"),
    ],
)
def test_a_missing_extra_is_named_with_its_install_line(tmp_path, args, extra):
    (tmp_path / "t.parquet").write_bytes(b"PAR1")
    (tmp_path / "s.py").write_text("def main(html):\n    return []\n")
    r = _cli(args, tmp_path)
    assert r.returncode == 2, r.stderr
    assert f"pip install 'infometer[{extra}]'" in r.stderr, r.stderr
    assert "None" not in r.stderr and "internal error" not in r.stderr


def test_help_lists_no_name_whose_extra_is_missing():
    code = (
        _blocked(("torch",)) + "import contextlib, io, infometer\n"
        "buf = io.StringIO()\n"
        "with contextlib.redirect_stdout(buf):\n"
        "    help(infometer)\n"
        "assert 'InfoSEDD' not in dir(infometer) and 'mutual_info' in dir(infometer)\n"
        "print(buf.getvalue())\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "needs torch" not in r.stdout and "mutual_info" in r.stdout
