"""Execution of ``pairwise``: the blocks of the plan on threads or a Dask cluster, through
:func:`infometer.core.parallel.run_jobs`, into memory or a resumable block store.

The one entry point is :func:`run_blocks`, which takes the plan (configuration, groups of
columns, block keys) and an :class:`~infometer.core.parallel.Execution`.
"""

from __future__ import annotations

import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

from infometer.core import registry
from infometer.core.data import Variable
from infometer.core.parallel import Execution, Outcome
from infometer.core.progress import progress_bar

from . import compute
from .compute import Config, Group, prepare_group

#: The backends ``pairwise`` runs on (blocks share the prepared groups in memory, or are
#: Dask tasks that read them from the store's input file).
BACKENDS = ("threads", "dask")


class _LocalBlocks:
    """Thread backend: each group prepared once (on first use), blocks from memory."""

    def __init__(self, cfg: Config, groups: list[np.ndarray], variables: list[Variable]):
        self.cfg, self.groups, self.variables = cfg, groups, variables
        self._prepared: dict[int, Group] = {}
        self._locks = [threading.Lock() for _ in groups]

    def group(self, g: int) -> Group:
        with self._locks[g]:
            if g not in self._prepared:
                cols = self.groups[g]
                self._prepared[g] = prepare_group(self.cfg, cols, [self.variables[c] for c in cols])
            return self._prepared[g]

    def __call__(self, key: tuple[int, int]) -> compute.BlockResult:
        g, h = key
        return compute.evaluate_block(self.cfg, self.group(g), self.group(h), key)


_REMOTE_GROUPS: dict[tuple[str, int], Group] = {}
_REMOTE_LOCK = threading.Lock()


def _remote_group(cfg: Config, path: str, g: int, cols: np.ndarray) -> Group:
    key = (cfg.token, g)
    with _REMOTE_LOCK:
        if key in _REMOTE_GROUPS:
            return _REMOTE_GROUPS[key]
    from .store import read_input_columns

    grp = prepare_group(cfg, cols, read_input_columns(path, cols))
    with _REMOTE_LOCK:
        if len(_REMOTE_GROUPS) >= 32:
            _REMOTE_GROUPS.pop(next(iter(_REMOTE_GROUPS)))
        _REMOTE_GROUPS[key] = grp
    return grp


def remote_block(payload: tuple) -> compute.BlockResult:
    """A Dask task: read the block's two groups from the store's input file and evaluate."""
    cfg, path, key, cols_g, cols_h = payload
    with _REMOTE_LOCK:  # load the registry's families once, not from two threads at a time
        registry.methods(cfg.quantity)
    ga = _remote_group(cfg, path, key[0], cols_g)
    gb = ga if key[0] == key[1] else _remote_group(cfg, path, key[1], cols_h)
    return compute.evaluate_block(cfg, ga, gb, key)


class _Payloads(dict):
    """key -> payload, built when asked for (so the client never holds them all)."""

    def __init__(self, keys, make):
        super().__init__((k, None) for k in keys)
        self._make = make

    def __getitem__(self, key):
        return self._make(key)


def _bar(total: int, enabled: bool | None):
    if enabled is None and total < 20_000:
        enabled = False  # a small matrix takes no time worth a bar
    return progress_bar(total=total, unit="pair", desc="pairwise", progress=enabled)


def _client(client: Any) -> Any:
    if client is not None:
        return client
    try:
        from distributed import get_client

        return get_client()
    except (ImportError, ValueError) as exc:
        raise ValueError(
            "backend='dask' needs client= (a distributed.Client or a scheduler address "
            "such as 'tcp://host:8786')"
        ) from exc


def _run(func, jobs, sink, workers, client, on_progress):
    from infometer.core.parallel import run_jobs

    if client is None:
        return run_jobs(
            func,
            jobs,
            sink,
            workers=workers,
            pool="threads",
            progress=on_progress,
            interruptible=False,
        )
    return run_jobs(func, jobs, sink, scheduler=client, progress=on_progress, interruptible=False)


def _open_store(store, backend, cfg, variables, block_size):
    """The sink: in memory, or a :class:`BlockStore` folder (temporary for Dask if none)."""
    if store is None and backend == "threads":
        from infometer.core.parallel import MemorySink

        return MemorySink(), None
    from .store import BlockStore, fingerprint_data

    tmp = None
    if store is None:
        tmp = tempfile.TemporaryDirectory(prefix="infometer-pairwise-")
        store = tmp.name
    params = {
        "labels": [v.name for v in variables],
        "n": cfg.n,
        "quantity": cfg.quantity,
        "method": cfg.method,
        "params": {k: repr(v) for k, v in sorted(cfg.params.items())},
        "seed": cfg.seed,
        "ranks": cfg.ranks,
        "permutations": cfg.n_permutations,
        "null": cfg.null,
        "block_size": block_size,
    }
    try:
        return BlockStore(Path(store), data=fingerprint_data(variables, cfg.z), params=params), tmp
    except BaseException:
        if tmp is not None:
            tmp.cleanup()
        raise


def run_blocks(
    cfg: Config,
    variables: list[Variable],
    groups: list[np.ndarray],
    n_pairs: dict[tuple[int, int], int],
    block_size: int,
    ex: Execution,
) -> tuple[list[compute.BlockResult], Outcome, float]:
    """Evaluate every block (key ``(g, h)`` of :func:`compute.blocks`) as ``ex`` says:
    the results in key order, the run's outcome and its seconds.  A failed block is a
    ``ValueError``, Ctrl-C a ``KeyboardInterrupt`` (finished blocks stay in the store)."""
    keys = list(n_pairs)
    backend = ex.resolve_backend("threads")
    sink, owned_tmp = _open_store(ex.store, backend, cfg, variables, block_size)
    bar = _bar(sum(n_pairs.values()), ex.progress)

    def on_progress(pr) -> None:
        if bar is not None:
            bar.update(n_pairs[pr.key])

    t0 = time.perf_counter()
    try:
        return _run_on(sink, bar, on_progress, t0, cfg, variables, groups, keys, ex)
    finally:
        if hasattr(sink, "close"):
            sink.close()
        if owned_tmp is not None:
            owned_tmp.cleanup()


def _run_on(sink, bar, on_progress, t0, cfg, variables, groups, keys, ex):
    """:func:`run_blocks` once its sink is open."""
    backend = ex.resolve_backend("threads")
    try:
        if backend == "threads":
            func = _LocalBlocks(cfg, groups, variables)
            outcome = _run(func, {k: k for k in keys}, sink, ex.workers, None, on_progress)
        else:
            client = _client(ex.scheduler)
            if hasattr(sink, "write_input"):
                sink.write_input(variables)
            path = str(sink.input_path)
            jobs = _Payloads(keys, lambda k: (cfg, path, k, groups[k[0]], groups[k[1]]))
            outcome = _run(remote_block, jobs, sink, None, client, on_progress)
    finally:
        if bar is not None:
            bar.close()
    t_compute = time.perf_counter() - t0
    if outcome.errors:
        first = next(iter(outcome.errors.values()))
        raise ValueError(f"{len(outcome.errors)} block(s) failed; the first with {first}")
    if outcome.interrupted:  # Ctrl-C: the finished blocks are in the store; say so once
        raise KeyboardInterrupt("pairwise interrupted; run again with the same store to resume")
    outcome.raise_if_incomplete()
    results = [sink.results[k] if hasattr(sink, "results") else sink.read(k) for k in keys]
    return results, outcome, t_compute
