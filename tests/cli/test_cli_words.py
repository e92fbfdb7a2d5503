"""The CLI's words (issue 31 §1): text printed as it is, one ``error:`` line for a bad
option value, missing extras named, CLI flags in hints, no ``<bool>`` in help, and a
``--scheduler`` that is not a Dask scheduler refused at once."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from infometer.cli.app import app

runner = CliRunner()


def one_error(r, text: str, code: int = 2) -> str:
    assert r.exit_code == code, r.output
    assert "Traceback" not in r.output
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    lines = [ln for ln in r.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), r.output
    assert text in r.output, r.output
    return lines[0]


@pytest.fixture
def table(tmp_path):
    rng = np.random.default_rng(0)
    f = tmp_path / "d.csv"
    pd.DataFrame({"dose[mg]": rng.integers(0, 3, 40), "y": rng.integers(0, 2, 40)}).to_csv(
        f, index=False
    )
    return f


def test_brackets_in_user_text_print_as_they_are(table):
    # was: "no column 'dose'; columns are: dose, y" (the console ate "[mg]")
    line = one_error(runner.invoke(app, ["mi", str(table), "--x", "dose", "--y", "y"]), "dose")
    assert "columns are: dose[mg], y" in line
    # was: a MarkupError traceback from the error printer itself
    one_error(runner.invoke(app, ["mi", str(table), "--x", "a[/x]", "--y", "y"]), "'a[/x]'")
    r = runner.invoke(app, ["mi", str(table), "--x", "dose[mg]", "--y", "y", "-m", "plugin"])
    assert r.exit_code == 0 and "[plugin, n=40]" in r.output, r.output


def test_a_bad_option_value_is_one_error_line(table):
    # was: a usage box of 6 lines
    one_error(runner.invoke(app, ["mi", str(table), "--x", "y", "--y", "y", "--ci", "x"]), "--ci")
    one_error(runner.invoke(app, ["mi", str(table), "--bogus"]), "--bogus")
    one_error(runner.invoke(app, ["nope"]), "nope")


def _commands(group, prefix=()):
    for name, cmd in group.commands.items():
        if hasattr(cmd, "commands"):
            yield from _commands(cmd, (*prefix, name))
        else:
            yield (*prefix, name)


def test_help_shows_no_bool_type_on_flags():
    import typer.main

    paths = list(_commands(typer.main.get_command(app)))
    assert len(paths) >= 15  # every sub-command, groups included
    for path in paths:
        r = runner.invoke(app, [*path, "--help"], terminal_width=120)
        assert r.exit_code == 0, (path, r.output)
        assert "<bool>" not in r.output, (path, r.output)
        assert "--help" in r.output


def test_hints_name_cli_flags(tmp_path):
    f = tmp_path / "f.csv"
    rng = np.random.default_rng(1)
    pd.DataFrame({"a": rng.normal(size=30), "b": rng.normal(size=30)}).to_csv(f, index=False)
    # the library says "pass discrete=True"; the CLI says the flag
    line = one_error(
        runner.invoke(app, ["mi", str(f), "--x", "a", "--y", "b", "-m", "plugin"]), "--discrete"
    )
    assert "discrete=True" not in line


def test_missing_extra_names_it_in_the_cli(tmp_path, monkeypatch):
    f = tmp_path / "f.csv"
    pd.DataFrame({"a": np.arange(20.0), "b": np.arange(20.0) ** 2}).to_csv(f, index=False)
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch now fails
    r = runner.invoke(app, ["mi", str(f), "--x", "a", "--y", "b", "-m", "infonce"])
    # was: "internal error: please report it"
    one_error(r, "pip install 'infometer[torch]'")


def test_missing_extra_names_it_in_the_api():
    code = (
        "import sys; sys.modules['torch'] = None\n"
        "import infometer as im\n"
        "for get in (lambda: im.NeuralMI, lambda: im.layer_info(None, None),\n"
        "            lambda: im.probes.flow):\n"
        "    try:\n"
        "        get()\n"
        "    except ImportError as e:\n"
        "        print(type(e).__name__, e)\n"
    )
    src = str(Path(__file__).resolve().parents[2] / "src")  # this checkout, not an install
    env = {**os.environ, "PYTHONPATH": src}
    r = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env
    )
    lines = r.stdout.strip().splitlines()
    assert len(lines) == 3, r.stdout + r.stderr
    # the lazy module names its own path (infometer.systems.probes.flow since issue 37)
    for line, who in zip(lines, ("NeuralMI", "layer_info", "systems.probes.flow"), strict=True):
        assert line.startswith("MissingExtraError infometer." + who), line
        assert line.endswith("pip install 'infometer[torch]'"), line


class _Server:
    """A local TCP listener that answers each connection with ``reply`` (or says nothing)."""

    def __init__(self, reply: bytes | None):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(4)
        self.port = self.sock.getsockname()[1]
        self.reply = reply
        self.conns: list[socket.socket] = []
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while True:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            self.conns.append(c)
            if self.reply is not None:
                c.sendall(self.reply)

    def close(self):
        for c in self.conns:
            c.close()
        self.sock.close()


@pytest.mark.parametrize(
    "reply, text",
    [
        (b"HTTP/1.1 400 Bad Request\r\n\r\n", "are not a Dask message"),  # was: a 3 EiB MemoryError
        (None, "sent no Dask handshake within 1 s"),  # was: a silent hang
        (b"\x05\x00\x00\x00\x00\x00\x00\x00hello", "is not a Dask handshake"),
    ],
)
def test_a_scheduler_that_is_not_dask_is_one_error_line(tmp_path, reply, text):
    pytest.importorskip("distributed")
    srv = _Server(reply)
    try:
        r = runner.invoke(
            app,
            ["bench", "--tasks", "gauss-entropy-1d", "--n", "50", "--seeds", "1"]
            + ["--out", str(tmp_path / "o"), "--connect-timeout", "1"]
            + ["--scheduler", f"tcp://127.0.0.1:{srv.port}"],
        )
    finally:
        srv.close()
    line = one_error(r, text)
    assert "is not a Dask scheduler" in line
    assert not (tmp_path / "o").exists()
