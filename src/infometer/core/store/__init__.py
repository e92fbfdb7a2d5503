"""The one store service: resumable results that can never mix two analyses.

Every resumable job of infometer keeps its finished work here (``bench.run_sweep`` /
``infometer bench --out``, ``im.pairwise(store=)``, ``im.multiplets(store=)``,
``im.infer_network(store=)``, ``infometer extract bench``); no other module writes
resumable state (``tests/store/test_home.py`` walks the source for stray copies).

What a store folder guarantees
------------------------------
* **One analysis per folder.**  ``manifest.json`` records the identity of the analysis:
  the kind of job, a fingerprint of the input data (:func:`fingerprint`), every parameter
  that changes a number, the infometer version and when it was made, with a checksum of
  its own.  It is written atomically *before* the first result and compared on *every*
  open.  A folder holding another analysis is refused with one line that says which (its
  kind, when it was made, what differs); a folder whose identity is missing (deleted),
  not JSON or changed is refused too, and nothing in it is reused or overwritten.  A new
  store needs a missing or empty folder.
* **Every stored file is checksummed.**  Each file has a checksum record
  (``.NAME.sha256`` beside it: SHA-256, size, and the identity it belongs to), written
  before the file itself; every file is verified when the store opens (before any work)
  and again when it is read.  A truncated file, a changed byte, a file without a record
  (a foreign or copied file) or one recorded for another analysis is refused with one
  line naming the file and what to do.  Arrays are ``.npz`` read with
  ``allow_pickle=False``: nothing is ever unpickled.  SQLite rows (:class:`RowStore`)
  carry the checksum of their values.
* **Atomic writes.**  A temporary file in the same folder, ``fsync``, rename, ``fsync``
  of the folder (:func:`atomic_write`): a ``kill -9`` at any moment leaves each file
  complete or absent, so a re-run resumes to the same bytes.
* **One writer.**  A store open for writing holds ``.lock`` (an ``flock`` the kernel
  drops when its holder dies): a second run on the same folder waits for the first.

Layout: ``_files`` (atomic writes, checksum records), ``_identity`` (identities,
fingerprints, :class:`StoreError` and the refusals about identities), ``_codecs`` (npz,
JSON, Parquet), ``_store`` (:class:`ResultStore`, :class:`KeyedSink`), ``_sqlite``
(:class:`RowStore`).

Examples
--------
>>> import tempfile
>>> import numpy as np
>>> d = tempfile.mkdtemp()
>>> kw = {"kind": "demo", "data": fingerprint(np.arange(3)), "files": {"chunks": r"c\\d+\\.npz"}}
>>> with ResultStore(d, params={"seed": 0}, **kw) as st:
...     st.put_arrays("chunks/c0.npz", {"value": np.ones(2)})
>>> try:
...     ResultStore(d, params={"seed": 1}, **kw)
... except StoreError as e:
...     print(str(e).split(" (made")[0])
store '...' holds another demo job
"""

from __future__ import annotations

from ._codecs import parquet_modules as parquet_modules  # for readers of stored Parquet
from ._files import atomic_write
from ._identity import MANIFEST, StoreError, fingerprint
from ._sqlite import RowStore, Table
from ._store import LOCK, KeyedSink, ResultStore, check_folder

__all__ = [
    "ResultStore",
    "KeyedSink",
    "RowStore",
    "Table",
    "StoreError",
    "fingerprint",
    "atomic_write",
    "check_folder",
    "MANIFEST",
    "LOCK",
]
