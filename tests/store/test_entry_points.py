"""Every resumable entry point on the one store service (issue 36 §2): the same analysis
resumes to the exact answer of a run without a store; a deleted, corrupted or truncated
identity, another analysis (other data, another parameter, another kind of job), a
truncated chunk, a pickled chunk, a flipped byte and ``store=<a file>`` are each refused
with a one-line ``ValueError`` naming the folder or the file, and nothing in the folder
changes.  The entry points: ``im.multiplets(store=)``, ``im.infer_network(store=)``,
``im.pairwise(store=)``, ``bench.run_sweep`` (``infometer bench --out``) and
``infometer extract bench`` (``extract.bench.run``); their CLI forms at the end."""

from __future__ import annotations

import json
import pickle
import struct
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import infometer as im
from infometer.core.store import StoreError
from infometer.core.store._files import canonical_json, sha256

from .test_service import snapshot


# ------------------------------------------------------------------ the entry points
def _x(seed=0, n=200, d=5):
    x = np.random.default_rng(seed).normal(size=(n, d))
    x[:, 1] += x[:, 0]
    return x


def _chain(n=300, seed=4):
    from infometer.measures.dynamics import simulate

    a = np.zeros((1, 3, 3))
    a[0][np.diag_indices(3)] = 0.4
    a[0, 1, 0] = a[0, 2, 1] = 0.6
    return simulate.var(a, n, seed=seed)


class Multiplets:
    chunk = "chunks/s3_c0.npz"
    argument = "store"

    def run(self, store, data=0, change=False):
        x = _x(seed=data)
        seed = 1 if change else 0
        return im.multiplets(x, sizes=(3, 3), n_permutations=4, seed=seed, store=store).frame

    same = staticmethod(lambda a, b: pd.testing.assert_frame_equal(a, b, check_exact=True))


class Network:
    chunk = "targets/te-1.json"
    argument = "store"

    def run(self, store, data=0, change=False):
        x = _chain() + (0 if data == 0 else 1e-9)
        net = im.infer_network(x, max_lag=2 if change else 1, n_permutations=20, store=store)
        return net.edges, net.targets

    @staticmethod
    def same(a, b):
        for u, v in zip(a, b, strict=True):
            pd.testing.assert_frame_equal(u, v, check_exact=True)


class Pairwise:
    chunk = "blocks/g0_h1.parquet"
    argument = "store"

    def run(self, store, data=0, change=False):
        pytest.importorskip("pyarrow")
        x = _x(seed=data, n=120, d=4)
        perms = 9 if change else 4
        res = im.pairwise(
            x, method="gaussian_copula", block_size=2, n_permutations=perms, store=store
        )
        return res.matrix, res.p_values

    same = staticmethod(Network.same)


class Bench:
    chunk = "results.sqlite"
    argument = "directory"

    def run(self, store, data=0, change=False):
        from infometer import Execution
        from infometer.workflows.bench import Store, plan, run_sweep, suite_tasks

        if data != 0 or change:
            pytest.skip("a bench store holds keyed runs of generated data (see other kinds)")
        jobs, _ = plan(suite_tasks("quick")[:2], ["plugin", "auto"], [60], [0])
        with Store(store) if store is not None else _TmpStore() as st:
            run_sweep(jobs, st, execution=Execution(n_jobs=1, progress=False))
            rows = st.rows()
        return sorted((r["task"], r["method"], r["estimate"]) for r in rows)

    @staticmethod
    def same(a, b):
        assert a == b


class _TmpStore:
    """A bench Store in a fresh temporary folder (bench always has a store)."""

    def __enter__(self):
        import tempfile

        from infometer.workflows.bench import Store

        self._d = tempfile.TemporaryDirectory()
        self._st = Store(self._d.name)
        return self._st

    def __exit__(self, *exc):
        self._st.close()
        self._d.cleanup()


class Extract:
    chunk = "litecost.json"
    argument = "out"

    def run(self, store, data=0, change=False):
        import tempfile

        from infometer.systems.extract import bench

        if data != 0:
            pytest.skip("extract bench generates its data from its settings (see other kinds)")
        folder = store if store is not None else tempfile.mkdtemp()
        size = "small" if change else "tiny"
        res = bench.run(folder, parts=["litecost", "bridge"], size=size, seed=3)
        return {p: r["result"] for p, r in res.items()}

    same = staticmethod(Bench.same)


def _fake_part(part, *, size, seed, progress, render, similarity):
    """A deterministic stand-in for an extraction part (the store is what is tested)."""
    rng = np.random.default_rng([seed, len(part), len(size)])
    return {
        "part": part,
        "size": size,
        "seed": seed,
        "render": render,
        "similarity": similarity,
        "seconds": 0.5,
        "result": {"score": float(rng.random())},
    }


@pytest.fixture(autouse=True)
def _fast_extract(monkeypatch):
    from infometer.systems.extract import bench

    monkeypatch.setattr(bench, "run_part", _fake_part)
    monkeypatch.setattr(bench, "write_html", lambda results, path: Path(path))


ENTRY_POINTS = {
    "multiplets": Multiplets(),
    "network": Network(),
    "pairwise": Pairwise(),
    "bench": Bench(),
    "extract": Extract(),
}


@pytest.fixture(scope="module")
def _made(tmp_path_factory):
    """One finished store per entry point (copied by each test that damages it)."""
    import shutil

    from infometer.systems.extract import bench

    base = tmp_path_factory.mktemp("made")
    out = {}
    mp = pytest.MonkeyPatch()
    mp.setattr(bench, "run_part", _fake_part)
    mp.setattr(bench, "write_html", lambda results, path: Path(path))
    try:
        for name, ep in ENTRY_POINTS.items():
            if name == "pairwise" and not _has_pyarrow():
                continue
            d = base / name
            out[name] = (d, ep.run(d))
    finally:
        mp.undo()
    yield out
    shutil.rmtree(base, ignore_errors=True)


def _has_pyarrow():
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return False
    return True


@pytest.fixture
def made(_made, tmp_path, request):
    """``(folder, first answer)``: a private copy of the entry point's finished store."""
    import shutil

    name = request.param
    if name not in _made:
        pytest.skip("pyarrow is not installed")
    src, first = _made[name]
    d = tmp_path / name
    shutil.copytree(src, d, ignore=shutil.ignore_patterns(".lock"))
    return ENTRY_POINTS[name], d, first


NAMES = sorted(ENTRY_POINTS)


def _refused(ep, d, *texts, **run):
    before = snapshot(d) if d.is_dir() else d.read_bytes()
    with pytest.raises(ValueError) as info:
        ep.run(d, **run)
    msg = str(info.value)
    assert "\n" not in msg, msg
    for t in texts:
        assert str(t) in msg, msg
    assert (snapshot(d) if d.is_dir() else d.read_bytes()) == before  # nothing overwritten
    print(f"{type(ep).__name__}: {msg}")  # pytest -s shows every refusal
    return msg


# ------------------------------------------------------------------ resuming
@pytest.mark.parametrize("made", NAMES, indirect=True)
def test_the_same_analysis_resumes_to_the_answer_without_a_store(made):
    ep, d, first = made
    ep.same(first, ep.run(None))  # the store changes no number
    ep.same(first, ep.run(d))  # everything read back
    if ep.chunk != "results.sqlite":  # one result lost: recomputed to the same bytes
        chunk = d / ep.chunk
        kept = chunk.read_bytes()
        chunk.unlink()
        ep.same(first, ep.run(d))
        assert chunk.read_bytes() == kept


# ------------------------------------------------------------------ identities
IDENTITY_DAMAGES = {
    "deleted": lambda m: m.unlink(),
    "corrupted": lambda m: m.write_text("{not json"),
    "truncated": lambda m: m.write_bytes(m.read_bytes()[: len(m.read_bytes()) // 2]),
}


@pytest.mark.parametrize("made", NAMES, indirect=True)
@pytest.mark.parametrize("damage", sorted(IDENTITY_DAMAGES))
def test_a_missing_or_damaged_identity_is_refused(made, damage):
    ep, d, _ = made
    IDENTITY_DAMAGES[damage](d / "manifest.json")
    _refused(ep, d, repr(str(d)), "manifest.json")


@pytest.mark.parametrize("made", NAMES, indirect=True)
def test_another_analysis_other_data_is_refused(made):
    ep, d, _ = made
    made_at = json.loads((d / "manifest.json").read_text())["created"]
    _refused(ep, d, repr(str(d)), "differs in data", made_at, data=1)


@pytest.mark.parametrize("made", NAMES, indirect=True)
def test_another_analysis_another_parameter_is_refused(made):
    ep, d, _ = made
    made_at = json.loads((d / "manifest.json").read_text())["created"]
    msg = _refused(ep, d, repr(str(d)), made_at, change=True)
    assert "differs in" in msg and "there" in msg and "here" in msg


@pytest.mark.parametrize("made", NAMES, indirect=True)
def test_another_infometer_version_is_refused(made, monkeypatch):
    ep, d, _ = made
    version = im.__version__
    monkeypatch.setattr(im, "__version__", "99.0")
    _refused(ep, d, repr(str(d)), f"infometer version ({version} there, 99.0 here)")


@pytest.mark.parametrize("made", NAMES, indirect=True)
def test_a_store_of_another_kind_of_job_is_refused(made, _made):
    ep, d, _ = made
    other = "network" if ep is not ENTRY_POINTS["network"] else "multiplets"
    import shutil

    shutil.rmtree(d)
    shutil.copytree(_made[other][0], d, ignore=shutil.ignore_patterns(".lock"))
    kind = {"network": "a network inference", "multiplets": "a multiplets sweep"}[other]
    _refused(ep, d, repr(str(d)), f"holds {kind} (made ")


# ------------------------------------------------------------------ chunks
def _flip(path, at):
    raw = path.read_bytes()
    path.write_bytes(raw[:at] + bytes([raw[at] ^ 0x01]) + raw[at + 1 :])


def _flip_a_result(ep, path):
    if path.name == "results.sqlite":  # a bit of a stored estimate
        import sqlite3

        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        est = con.execute("SELECT estimate FROM runs WHERE estimate IS NOT NULL").fetchone()[0]
        con.close()
        _flip(path, path.read_bytes().index(struct.pack(">d", est)) + 7)
    else:
        _flip(path, len(path.read_bytes()) // 2)


class _Payload:
    def __init__(self, sentinel):
        self.sentinel = sentinel

    def __reduce__(self):
        return (open, (str(self.sentinel), "w"))


def _pickle_into(path, sentinel, d):
    """The chunk replaced by pickled data, with a checksum record as the store would write
    (for the SQLite file, no record: SQLite must refuse it)."""
    if path.suffix == ".npz":
        np.savez(path, value=np.array([_Payload(sentinel)], dtype=object))
    else:
        path.write_bytes(pickle.dumps(_Payload(sentinel)))
    if path.name != "results.sqlite":
        data = path.read_bytes()
        digest = json.loads((d / "manifest.json").read_text())["sha256"]
        rec = {"file": path.name, "sha256": sha256(data), "bytes": len(data), "store": digest}
        path.with_name(f".{path.name}.sha256").write_bytes(canonical_json(rec))


@pytest.mark.parametrize("made", NAMES, indirect=True)
def test_a_truncated_chunk_is_refused_naming_it(made):
    ep, d, _ = made
    chunk = d / ep.chunk
    chunk.write_bytes(chunk.read_bytes()[: len(chunk.read_bytes()) // 3])
    msg = _refused(ep, d, str(chunk))
    assert "truncated" in msg


@pytest.mark.parametrize("made", NAMES, indirect=True)
def test_a_flipped_byte_is_refused_naming_the_file(made):
    ep, d, _ = made
    chunk = d / ep.chunk
    _flip_a_result(ep, chunk)
    msg = _refused(ep, d, str(chunk))
    assert "checksum" in msg or "malformed" in msg


@pytest.mark.parametrize("made", NAMES, indirect=True)
def test_a_pickled_chunk_is_refused_and_never_unpickled(made, tmp_path):
    ep, d, _ = made
    chunk = d / ep.chunk
    sentinel = tmp_path / "unpickled"
    _pickle_into(chunk, sentinel, d)
    _refused(ep, d, str(chunk))
    assert not sentinel.exists()


@pytest.mark.parametrize("made", NAMES, indirect=True)
def test_a_chunk_without_its_checksum_record_is_refused(made):
    ep, d, _ = made
    if ep.chunk == "results.sqlite":
        pytest.skip("SQLite rows carry their checksums (a flipped byte covers them)")
    chunk = d / ep.chunk
    chunk.with_name(f".{chunk.name}.sha256").unlink()  # as a foreign file dropped in
    _refused(ep, d, str(chunk), "no checksum record")


@pytest.mark.parametrize("name", NAMES)
def test_store_that_is_a_file_is_refused_naming_the_argument(name, tmp_path):
    ep = ENTRY_POINTS[name]
    f = tmp_path / "a-file"
    f.write_text("mine")
    msg = _refused(ep, f, f"{ep.argument}={str(f)!r} is a file")
    assert "folder" in msg


# ------------------------------------------------------------------ the command line
runner = CliRunner()


def _table(tmp_path):
    p = tmp_path / "t.csv"
    pd.DataFrame(_chain(), columns=["a", "b", "c"]).to_csv(p, index=False)
    return p


def _out(s):
    return str(Path(s).parent / "o")


CLI = {
    "multiplets": lambda f, s: ["multiplets", str(f), "--store", s, "-o", _out(s)],
    "network": lambda f, s: [
        "network",
        str(f),
        "--store",
        s,
        "--permutations",
        "20",
        "--max-lag",
        "1",
    ],
    "matrix": lambda f, s: ["matrix", str(f), "--store", s, "-o", _out(s)],
    "bench": lambda f, s: ["bench", "--tasks", "gauss-entropy-1d", "-e", "gaussian", "--out", s],
    "extract bench": lambda f, s: ["extract", "bench", "--parts", "litecost", "--out", s],
}


@pytest.mark.parametrize("command", sorted(CLI))
@pytest.mark.parametrize("case", ["no identity", "another kind", "a file"])
def test_cli_refuses_with_one_error_line(command, case, tmp_path, _made):
    import shutil

    from infometer.cli.app import app

    if command == "matrix":
        pytest.importorskip("pyarrow")
    s = tmp_path / "s"
    if case == "a file":
        s.write_text("mine")
    else:
        shutil.copytree(_made["network" if command != "network" else "multiplets"][0], s)
        if case == "no identity":
            (s / "manifest.json").unlink()
    before = snapshot(s) if s.is_dir() else s.read_bytes()
    r = runner.invoke(app, CLI[command](_table(tmp_path), str(s)))
    lines = [ln for ln in r.output.splitlines() if ln.strip()]
    assert r.exit_code == 2 and len(lines) == 1 and lines[0].startswith("error: "), r.output
    assert str(s) in " ".join(r.output.split()), r.output
    assert "Traceback" not in r.output
    assert (snapshot(s) if s.is_dir() else s.read_bytes()) == before


def test_the_refusal_is_a_store_error():
    assert issubclass(StoreError, ValueError)


def test_a_discrete_multiplet_sweep_resumes_and_refuses_other_symbols(tmp_path):
    # symbols are fingerprinted by their codes: the same answer from the store, other data
    # (one symbol changed) refused
    x = np.random.default_rng(2).integers(0, 3, size=(150, 5))
    x[:, 1] = (x[:, 0] + x[:, 2]) % 3
    kw = {"sizes": (3, 3), "n_permutations": 3, "method": "plugin", "store": tmp_path / "s"}
    first = im.multiplets(x, **kw).frame
    pd.testing.assert_frame_equal(first, im.multiplets(x, **{**kw, "store": None}).frame)
    pd.testing.assert_frame_equal(first, im.multiplets(x, **kw).frame, check_exact=True)
    y = x.copy()
    y[0, 0] = (y[0, 0] + 1) % 3
    with pytest.raises(StoreError, match="differs in data"):
        im.multiplets(y, **kw)
