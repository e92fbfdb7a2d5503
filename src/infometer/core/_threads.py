"""How many threads infometer uses: one answer for the compiled kernels, torch and BLAS.

The policy (docs/architecture.md, "Threads"):

* **Kernels** (numba, the kNN thread pools): :func:`n_threads` -- ``INFOMETER_NUM_THREADS``
  or ``NUMBA_NUM_THREADS`` when set, else the *physical* cores this process may run on
  (hyper-threads share one core's arithmetic units: a second thread per core only adds
  contention).  :func:`cap_numba` applies the same cap to numba's own pool.
* **Training** (neural bounds, InfoSEDD, FlowNIB, fitted models): :func:`training_threads`
  sets torch's intra-op threads for the duration of a training loop and gives them back
  after.  The default is :data:`TRAINING_THREADS` (one) unless the caller passes
  ``threads=`` or the user set ``INFOMETER_TORCH_THREADS`` / ``OMP_NUM_THREADS``: the
  networks trained here are small (width 64-256, batches of 128-256), for which torch's own
  default of one thread per core spends more time synchronising than computing, and on a
  loaded machine far more (30 InfoSEDD steps: 38.5 s with torch's default threads, 2.7 s
  with one; docs/architecture.md "Threads").
* **No nesting**: inside a training loop BLAS (numpy's, scipy's) runs on one thread, so
  torch's pool and OpenBLAS's never compete for the same cores; thread-pool workers of
  :mod:`infometer.core.parallel` run BLAS on ``threads_per_worker`` threads, and spawned
  worker processes get the same count through their environment.

Examples
--------
>>> from infometer.core._threads import n_threads, physical_cores
>>> n_threads() >= 1 and physical_cores() >= 1
True
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
from collections.abc import Iterator
from pathlib import Path

__all__ = [
    "TRAINING_THREADS",
    "cap_numba",
    "limit_blas",
    "n_threads",
    "physical_cores",
    "set_training_threads",
    "torch_threads",
    "training_threads",
]

#: torch intra-op threads of a training loop when neither the call nor the environment
#: says otherwise (small networks; see the module docstring).
TRAINING_THREADS = 1

_chosen: int | None = None  # set_training_threads(): the session's choice (CLI --threads)
_active: int | None = None  # the thread count of the training_threads() block running


def _usable_cpus() -> list[int]:
    try:
        return sorted(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return list(range(os.cpu_count() or 1))


@functools.cache
def physical_cores() -> int:
    """Physical cores among the CPUs this process may run on (hyper-threads of one core
    count once); the number of usable CPUs where the topology cannot be read.

    Examples
    --------
    >>> physical_cores() <= len(_usable_cpus())
    True
    """
    cpus = _usable_cpus()
    cores = set()
    for c in cpus:
        topo = Path(f"/sys/devices/system/cpu/cpu{c}/topology")
        try:
            core = (topo / "core_id").read_text().strip()
            package = (topo / "physical_package_id").read_text().strip()
        except OSError:
            return max(1, len(cpus))
        cores.add((package, core))
    return max(1, len(cores))


def _env_int(*names: str) -> int | None:
    for name in names:
        v = os.environ.get(name, "").strip()
        if v.isdigit() and int(v) > 0:
            return int(v)
    return None


def n_threads() -> int:
    """Threads the compiled kernels use: ``INFOMETER_NUM_THREADS`` or ``NUMBA_NUM_THREADS``
    if set, else :func:`physical_cores`.

    Examples
    --------
    >>> n_threads() >= 1
    True
    """
    return _env_int("INFOMETER_NUM_THREADS", "NUMBA_NUM_THREADS") or physical_cores()


def cap_numba() -> None:
    """numba's parallel pool to :func:`n_threads` (numba starts one thread per logical CPU);
    called where a ``parallel=True`` kernel is about to run."""
    from infometer.core._jit import nb  # numba through the cache directory's module (lightness)

    want = min(n_threads(), nb.config.NUMBA_NUM_THREADS)
    if nb.get_num_threads() != want:
        nb.set_num_threads(want)


def set_training_threads(threads: int | None) -> None:
    """The torch threads of every later training loop of this process (``None``: back to
    the default); what ``infometer.core.training.set_threads`` and the CLI's ``--threads``
    set."""
    global _chosen
    _chosen = None if threads is None else max(1, int(threads))


def torch_threads(threads: int | None = None) -> int:
    """torch intra-op threads of a training loop: ``threads`` if given, else the session's
    :func:`set_training_threads`, else ``INFOMETER_TORCH_THREADS`` or ``OMP_NUM_THREADS`` if
    set, else :data:`TRAINING_THREADS`; never more than the physical cores.

    Examples
    --------
    >>> torch_threads(1)
    1
    """
    if threads is None:
        threads = (
            _chosen or _env_int("INFOMETER_TORCH_THREADS", "OMP_NUM_THREADS") or TRAINING_THREADS
        )
    return max(1, min(int(threads), physical_cores()))


@contextlib.contextmanager
def limit_blas(threads: int | None) -> Iterator[None]:
    """Within this block BLAS/OpenMP libraries loaded by numpy and scipy use at most
    ``threads`` threads (``None``: unchanged); restored after."""
    if threads is None:
        yield
        return
    with _blas_controller().limit(limits=int(threads), user_api="blas"):
        yield


_controller: tuple[int, object] | None = None


def _blas_controller():
    """threadpoolctl's view of the loaded thread pools, found again only when modules were
    imported since the last call (finding them walks every loaded shared library: ~0.2 ms,
    as much as a 10^4 x 20 matrix product)."""
    global _controller
    if _controller is None or _controller[0] != len(sys.modules):
        from threadpoolctl import ThreadpoolController

        _controller = (len(sys.modules), ThreadpoolController())
    return _controller[1]


@contextlib.contextmanager
def training_threads(threads: int | None = None) -> Iterator[int]:
    """torch on :func:`torch_threads` threads and BLAS on one for the duration of a
    training loop; both restored after.  Yields the torch thread count.  Inside another
    such block, ``threads=None`` keeps the enclosing block's count (a model that sets its
    own ``threads=`` and then runs :func:`infometer.core.training.run_epochs`).

    Examples
    --------
    >>> import torch  # doctest: +SKIP
    >>> with training_threads(1) as t:  # doctest: +SKIP
    ...     torch.get_num_threads() == t
    True
    """
    import torch

    global _active
    outer = _active
    want = outer if threads is None and outer is not None else torch_threads(threads)
    before = torch.get_num_threads()
    if before != want:
        torch.set_num_threads(want)
    _active = want
    try:
        with limit_blas(1):
            yield want
    finally:
        _active = outer
        if torch.get_num_threads() != before:
            torch.set_num_threads(before)
