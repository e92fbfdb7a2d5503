"""The store service itself (``infometer.core.store``): identity, checksums, atomic writes, the
lock, and the one-line refusals.  Each refusal is checked to leave every byte of the
folder as it was."""

from __future__ import annotations

import doctest
import json
import os
import pickle
import sqlite3
import struct
import threading
import time

import numpy as np
import pytest

import infometer
from infometer.core import store as st_mod
from infometer.core.store import (
    KeyedSink,
    ResultStore,
    RowStore,
    StoreError,
    Table,
    atomic_write,
    fingerprint,
)

FILES = {"chunks": r"c\d+\.npz", ".": r"part\.json"}


def _open(d, **kw):
    args = {"kind": "multiplets", "params": {"seed": 0}, "data": "d0", "files": FILES}
    return ResultStore(d, **{**args, **kw})


def snapshot(d):
    """Every file under ``d`` and its bytes; aside: the lock file (taking it writes a pid)
    and the ``-wal``/``-shm`` files SQLite makes beside a WAL database it opens."""
    return {
        p.relative_to(d): p.read_bytes()
        for p in sorted(d.rglob("*"))
        if p.is_file() and p.name != ".lock" and not p.name.endswith(("-wal", "-shm"))
    }


def refused(exc_info, *texts):
    msg = str(exc_info.value)
    assert isinstance(exc_info.value, ValueError) and "\n" not in msg, msg
    for t in texts:
        assert str(t) in msg, msg
    return msg


@pytest.fixture
def full(tmp_path):
    """A store with one chunk and one part."""
    d = tmp_path / "s"
    with _open(d) as st:
        st.put_arrays("chunks/c0.npz", {"value": np.arange(3.0)})
        st.put_json("part.json", {"a": 1})
    return d


def test_docstring_examples_run():
    from infometer.core.store import _files, _identity, _sqlite, _store

    for mod in (st_mod, _files, _identity, _store, _sqlite):
        assert doctest.testmod(mod, optionflags=doctest.ELLIPSIS).failed == 0


# ------------------------------------------------------------------ identity
def test_identity_is_written_before_the_first_result(tmp_path):
    d = tmp_path / "s"
    st = _open(d)
    man = json.loads((d / "manifest.json").read_text())  # on disk before any put()
    assert (man["kind"], man["data"], man["params"]) == ("multiplets", "d0", {"seed": 0})
    assert man["version"] == infometer.__version__ and not list((d / "chunks").iterdir())
    st.close()


def test_same_analysis_reopens_and_reads_back(full):
    with _open(full) as st:
        assert st.names("chunks") == ["c0.npz"] and st.names(".") == ["part.json"]
        assert st.get_arrays("chunks/c0.npz")["value"].tolist() == [0.0, 1.0, 2.0]
        assert st.get_json("part.json") == {"a": 1}


MANIFEST_DAMAGES = {
    "deleted": lambda m: m.unlink(),
    "not json": lambda m: m.write_text("{not json"),
    "truncated": lambda m: m.write_bytes(m.read_bytes()[:40]),
    "empty": lambda m: m.write_bytes(b""),
    "changed value": lambda m: m.write_text(m.read_text().replace('"seed": 0', '"seed": 1')),
    "not an identity": lambda m: m.write_text('{"a": 1}'),
}


@pytest.mark.parametrize("damage", sorted(MANIFEST_DAMAGES))
def test_a_store_without_a_valid_identity_is_refused_and_kept(full, damage):
    MANIFEST_DAMAGES[damage](full / "manifest.json")
    before = snapshot(full)
    with pytest.raises(StoreError) as info:
        _open(full)
    refused(info, repr(str(full)), "manifest.json", "another folder")
    assert snapshot(full) == before
    with pytest.raises(StoreError):  # reading is refused the same way
        _open(full, readonly=True)


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ({"params": {"seed": 1}}, "differs in seed (0 there, 1 here)"),
        ({"data": "d1"}, "differs in data (another data set)"),
        ({"params": {"seed": 0, "alpha": 0.05}}, "differs in alpha (absent there, 0.05 here)"),
        ({"kind": "network"}, "holds a multiplets sweep (made "),
    ],
)
def test_another_analysis_is_refused_saying_which(full, change, said):
    made = json.loads((full / "manifest.json").read_text())["created"]
    before = snapshot(full)
    with pytest.raises(StoreError) as info:
        _open(full, **change)
    msg = refused(info, said, made, repr(str(full)))
    assert "multiplets sweep" in msg
    assert snapshot(full) == before


def test_another_infometer_version_is_another_analysis(full, monkeypatch):
    made_by = infometer.__version__
    monkeypatch.setattr(infometer, "__version__", "9.9.9")
    with pytest.raises(StoreError) as info:
        _open(full)
    refused(info, f"infometer version ({made_by} there, 9.9.9 here)")
    with _open(full, readonly=True, params=None) as st:  # reading an older store is fine
        assert st.names("chunks") == ["c0.npz"]


def test_a_non_empty_folder_without_identity_is_refused(tmp_path):
    d = tmp_path / "mine"
    d.mkdir()
    (d / "notes.txt").write_text("my notes")
    with pytest.raises(StoreError) as info:
        _open(d)
    refused(info, "notes.txt", "no manifest.json")
    assert snapshot(d) == {d.joinpath("notes.txt").relative_to(d): b"my notes"}


def test_store_that_is_a_file_names_the_argument(tmp_path):
    f = tmp_path / "f"
    f.write_text("x")
    with pytest.raises(ValueError) as info:
        _open(f)
    refused(info, f"store={str(f)!r} is a file")
    with pytest.raises(ValueError, match=r"^out="):
        _open(f, argument="out")
    with pytest.raises(TypeError, match="store must be a folder path"):
        _open(3)
    assert f.read_text() == "x"


# ------------------------------------------------------------------ files
def _forge_record(path, store_digest):
    """A checksum record for ``path`` as the store would write it (to get past the checksum
    and exercise the reader)."""
    data = path.read_bytes()
    rec = {"file": path.name, "sha256": st_mod._files.sha256(data), "bytes": len(data)}
    rec["store"] = store_digest
    path.with_name(f".{path.name}.sha256").write_bytes(st_mod._files.canonical_json(rec))


def _digest(d):
    return json.loads((d / "manifest.json").read_text())["sha256"]


class _Payload:
    """Unpickling it would create ``sentinel``: proof that nothing is unpickled."""

    def __init__(self, sentinel):
        self.sentinel = sentinel

    def __reduce__(self):
        return (open, (str(self.sentinel), "w"))


def _pickled_npz(path, sentinel):
    np.savez(path, value=np.array([_Payload(sentinel)], dtype=object))


DAMAGES = {
    "truncated": lambda p, s: p.write_bytes(p.read_bytes()[:-7]),
    "flipped byte": lambda p, s: p.write_bytes(
        p.read_bytes()[:50] + bytes([p.read_bytes()[50] ^ 1]) + p.read_bytes()[51:]
    ),
    "no checksum record": lambda p, s: p.with_name(f".{p.name}.sha256").unlink(),
    "pickled": lambda p, s: _pickled_npz(p, s),  # without a record that matches
}


@pytest.mark.parametrize("kind", sorted(DAMAGES))
def test_a_damaged_file_is_refused_naming_it(full, kind, tmp_path):
    chunk = full / "chunks" / "c0.npz"
    sentinel = tmp_path / "unpickled"
    DAMAGES[kind](chunk, sentinel)
    before = snapshot(full)
    with pytest.raises(StoreError) as info:
        _open(full)
    refused(info, str(chunk), "delete it")
    assert snapshot(full) == before and not sentinel.exists()


def test_a_pickled_chunk_with_a_forged_record_is_never_unpickled(full, tmp_path):
    chunk = full / "chunks" / "c0.npz"
    sentinel = tmp_path / "unpickled"
    _pickled_npz(chunk, sentinel)
    _forge_record(chunk, _digest(full))
    with _open(full) as st:  # the checksum holds; the reader refuses
        with pytest.raises(StoreError) as info:
            st.get_arrays("chunks/c0.npz")
    refused(info, str(chunk), "object arrays (pickled data)", "never loads")
    assert not sentinel.exists()


def test_foreign_json_and_a_copied_file_are_refused(full, tmp_path):
    part = full / "part.json"
    part.write_text('{"something": "else"}')
    _forge_record(part, _digest(full))
    with _open(full) as st:
        with pytest.raises(StoreError) as info:
            st.get_json("part.json", required=("a",))
    refused(info, str(part), "no key 'a'")
    # the same file name recorded for another analysis
    other = tmp_path / "other"
    with _open(other, params={"seed": 5}) as st:
        st.put_json("part.json", {"a": 2})
    for name in ("part.json", ".part.json.sha256"):
        (full / name).write_bytes((other / name).read_bytes())
    with pytest.raises(StoreError) as info:
        _open(full)
    refused(info, str(part), "another store")


def test_files_the_store_does_not_know_are_left_alone(full):
    (full / "chunks" / "README").write_text("mine")
    (full / "report.html").write_text("<html>")
    with _open(full) as st:
        assert st.names("chunks") == ["c0.npz"]
        with pytest.raises(ValueError, match="not a file name"):
            st.put("chunks/README", b"x")
    assert (full / "chunks" / "README").read_text() == "mine"


def test_crash_leftovers_are_cleaned_and_orphan_records_ignored(full):
    # a write cut off before its rename, and a record whose file never arrived
    (full / "chunks" / ".c1.npz.0a1b2c.tmp").write_bytes(b"half")
    (full / "chunks" / ".c2.npz.sha256").write_text("{}")
    with _open(full) as st:
        assert st.names("chunks") == ["c0.npz"]
        st.put_arrays("chunks/c2.npz", {"value": np.ones(1)})
        assert st.get_arrays("chunks/c2.npz")["value"].tolist() == [1.0]
    assert not (full / "chunks" / ".c1.npz.0a1b2c.tmp").exists()


def test_replacing_a_file_keeps_it_verifiable(full):
    with _open(full) as st:
        st.put_json("part.json", {"a": 2})
    with _open(full) as st:
        assert st.get_json("part.json") == {"a": 2}


def test_atomic_write_leaves_the_old_file_when_interrupted(tmp_path, monkeypatch):
    p = tmp_path / "f"
    atomic_write(p, b"old")

    def boom(*a):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(KeyboardInterrupt):
        atomic_write(p, b"new")
    assert p.read_bytes() == b"old" and [q.name for q in tmp_path.iterdir()] == ["f"]


def test_fingerprint_reads_dtype_shape_and_bytes():
    a = np.arange(6.0)
    assert fingerprint(a) == fingerprint(a.copy())
    assert fingerprint(a) != fingerprint(a.reshape(2, 3))
    assert fingerprint(a) != fingerprint(a.astype(np.float32))
    b = a.copy()
    b[3] = np.nextafter(b[3], 10)  # one ulp
    assert fingerprint(a) != fingerprint(b)
    assert fingerprint(a, ["x"]) != fingerprint(a, ["y"])


# ------------------------------------------------------------------ lock
def test_a_second_open_waits_for_the_first(full):
    first = _open(full)
    opened, logs = [], []

    def second():
        with _open(full, log=logs.append):
            opened.append(time.monotonic())

    # in this process a second open is refused at once (it would wait for itself)...
    with pytest.raises(StoreError, match="already open in this process"):
        _open(full)
    # ... and another process waits: shown with the same flock in a child
    import subprocess
    import sys

    code = (
        "import sys; from infometer.core.store import ResultStore\n"
        f"ResultStore({str(full)!r}, kind='multiplets', params={{'seed': 0}}, data='d0',"
        f" files={FILES!r}, log=print, lock_timeout=0.5)"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode != 0 and "LockTimeout" in r.stderr, r.stderr
    assert f"locked by pid {os.getpid()}" in r.stdout
    first.close()
    th = threading.Thread(target=second)
    th.start()
    th.join(30)
    assert opened and not logs


def test_keyed_sink_is_a_run_jobs_sink(tmp_path):
    from infometer.core.parallel import run_jobs

    with _open(tmp_path / "s") as st:
        sink = KeyedSink(st, "chunks", name="c{}.npz".format, key=lambda n: int(n[1:-4]))
        out = run_jobs(np.arange, {1: 1, 4: 4}, sink, workers=1)
        assert out.complete and sorted(sink.done_keys()) == [1, 4]
        assert sink.get(4)["value"].tolist() == [0, 1, 2, 3]
    with _open(tmp_path / "s") as st:  # resumed: nothing to run
        sink = KeyedSink(st, "chunks", name="c{}.npz".format, key=lambda n: int(n[1:-4]))
        assert run_jobs(np.arange, {1: 1, 4: 4}, sink, workers=1).ran == 0


# ------------------------------------------------------------------ SQLite rows
TABLES = {"runs": Table({"k": "TEXT NOT NULL", "n": "INTEGER", "v": "REAL"}, ("k",))}


def _rows(d, **kw):
    args = {"kind": "bench", "params": {}, "tables": TABLES, "db_name": "rows.sqlite"}
    return RowStore(d, **{**args, **kw})


def test_rows_round_trip_exactly_with_their_checksums(tmp_path):
    vals = [0.1, 1 / 3, -2.5e-300, float("inf"), float("nan"), None]
    with _rows(tmp_path / "r") as rs:
        rs.insert("runs", [{"k": f"r{i}", "n": i, "v": v} for i, v in enumerate(vals)])
        rs.insert("runs", [{"k": "r0", "n": True, "v": 7}])  # replaced; bool -> 1, int -> 7.0
    with _rows(tmp_path / "r", readonly=True, params=None) as rs:
        got = {k: (n, v) for k, n, v in rs.select("runs")}
    assert got["r0"] == (1, 7.0) and got["r1"][1] == 1 / 3 and got["r3"][1] == float("inf")
    assert got["r4"][1] is None and got["r5"][1] is None  # SQLite keeps NaN as NULL
    assert got["r2"][1] == -2.5e-300


def test_a_changed_row_value_is_refused(tmp_path):
    d = tmp_path / "r"
    with _rows(d) as rs:
        rs.insert("runs", [{"k": "a", "n": 1, "v": 0.123456789}])
    db = d / "rows.sqlite"
    raw = db.read_bytes()
    at = raw.index(struct.pack(">d", 0.123456789))
    db.write_bytes(raw[:at] + bytes([raw[at] ^ 0x01]) + raw[at + 1 :])  # one flipped bit
    before = snapshot(d)
    with pytest.raises(StoreError) as info:
        _rows(d)
    refused(info, str(db), "row {'k': 'a'}", "checksum")
    assert snapshot(d) == before


def test_a_foreign_or_damaged_database_is_refused(tmp_path):
    d = tmp_path / "r"
    with _rows(d):
        pass
    db = d / "rows.sqlite"
    db.unlink()
    sqlite3.connect(db).execute("CREATE TABLE foo (x)")
    with pytest.raises(StoreError) as info:
        _rows(d)
    refused(info, "another program's SQLite database")
    db.write_bytes(pickle.dumps(_Payload(tmp_path / "unpickled")))
    with pytest.raises(StoreError) as info:
        _rows(d)
    refused(info, str(db), "not a readable results store")
    assert not (tmp_path / "unpickled").exists()


@pytest.mark.parametrize("seed", [None, np.random.default_rng(0)])
def test_a_store_needs_a_seed_it_can_repeat(tmp_path, seed):
    with pytest.raises(StoreError) as info:
        _open(tmp_path / "s", params={"seed": seed})
    refused(info, "give an int seed")
    assert not (tmp_path / "s" / "manifest.json").exists()
    with _open(tmp_path / "s", params={"seed": np.int64(3)}):  # numpy ints are ints
        pass


def test_a_chunk_of_the_wrong_shape_is_refused(full):
    # a chunk recorded as the store would, but holding fewer values than its job
    with _open(full) as st:
        sink = KeyedSink(st, "chunks", name="c{}.npz".format, key=lambda n: int(n[1:-4]))
        assert sink.get(0, shapes={"value": (3,)})["value"].tolist() == [0.0, 1.0, 2.0]
        with pytest.raises(StoreError) as info:
            sink.get(0, shapes={"value": (4,)})
    refused(info, "c0.npz", "shape (3,), not the (4,)")
