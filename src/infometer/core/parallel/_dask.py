"""The Dask back end: reaching a scheduler (failing fast and clearly) and running the
jobs as futures, resubmitting lost ones."""

from __future__ import annotations

import contextlib
import re
import socket
import struct
import time
from collections.abc import Hashable
from typing import Any

from ._outcome import describe_error

_GATHER_TIMEOUT_S = 120.0  # fetching one finished Dask result; longer = treat as lost
_NO_WORKERS_TIMEOUT_S = 300.0  # a Dask cluster with no workers this long: give up


class SchedulerUnreachable(ConnectionError):
    """The Dask scheduler address could not be reached within the connect timeout."""


_ADDRESS = re.compile(
    r"^(?:(?P<scheme>[a-z]+)://)?(?P<host>\[[0-9a-fA-F:.]+\]|[^\s:/\[\]]+)(?::(?P<port>\d+))?$"
)


#: Largest first message a Dask scheduler sends (its handshake is ~100 bytes of msgpack).
_HANDSHAKE_MAX = 1 << 16


def _dask_handshake(sock: socket.socket, timeout: float) -> str:
    """Read the handshake a Dask TCP server sends first; ``""`` if it is one, else why not.

    Dask's TCP comm opens with an 8-byte little-endian length and that many bytes of
    frames holding a msgpack dict with ``compression`` and ``pickle-protocol``.  An HTTP
    server, an SSH daemon or a silent listener fails here within ``timeout`` seconds,
    instead of the client waiting forever or reading ``'HTTP/1.1'`` as a 3 EiB length.
    """
    sock.settimeout(timeout)
    buf = b""
    try:
        while len(buf) < 8:
            chunk = sock.recv(8 - len(buf))
            if not chunk:
                return "it closed the connection without a word"
            buf += chunk
        (size,) = struct.unpack("<Q", buf)
        if not 0 < size <= _HANDSHAKE_MAX:
            start = buf.decode("ascii", "replace")
            return f"its first bytes {start!r} are not a Dask message"
        body = b""
        while len(body) < size:
            chunk = sock.recv(min(size - len(body), 1 << 14))
            if not chunk:
                return "it closed the connection mid-message"
            body += chunk
    except TimeoutError:
        return f"it sent no Dask handshake within {timeout:g} s" if not buf else "it stalled"
    except OSError as exc:
        return describe_error(exc)
    if b"pickle-protocol" not in body and b"compression" not in body:
        return "its first message is not a Dask handshake"
    return ""


def connect(scheduler: Any, timeout: float = 5.0) -> tuple[Any, bool]:
    """A ``distributed.Client`` for ``scheduler`` and whether the caller owns (must close) it.

    ``scheduler`` is an address such as ``"tcp://host:8786"`` or an existing Client
    (returned as is, not owned).  Raises :class:`SchedulerUnreachable` with one clear
    line when the address does not answer within ``timeout`` seconds, ``ValueError`` for
    an address that is not one, and ``ImportError`` naming the extra when ``distributed``
    is not installed.
    """
    try:
        from distributed import Client
    except ImportError as exc:  # pragma: no cover - optional extra
        raise ImportError(
            "running on a Dask scheduler needs the dask extra: pip install 'infometer[dask]'"
        ) from exc
    if isinstance(scheduler, Client):
        return scheduler, False
    if not isinstance(scheduler, str):
        raise TypeError(
            f"scheduler must be an address string or a distributed.Client, got "
            f"{type(scheduler).__name__}"
        )
    m = _ADDRESS.match(scheduler.strip())
    if m is None:
        raise ValueError(f"scheduler {scheduler!r} is not an address like tcp://HOST:PORT")
    scheme = m["scheme"] or "tcp"
    address = scheduler.strip() if m["scheme"] else f"tcp://{scheduler.strip()}"
    if scheme in ("tcp", "tls"):  # a plain socket first: refusals are reported at once
        port = int(m["port"] or 8786)  # Dask's default scheduler port
        if not 0 < port < 65536:
            raise ValueError(f"scheduler port must be 1-65535, got {port}")
        if m["port"] is None:
            address += ":8786"
        host = m["host"].strip("[]")
        try:
            sock = socket.create_connection((host, port), timeout=timeout)
        except OSError as exc:
            what = "no answer" if isinstance(exc, TimeoutError) else describe_error(exc)
            raise SchedulerUnreachable(
                f"cannot reach the Dask scheduler at {address}: cannot connect to {host}:{port} "
                f"within {timeout:g} s ({what}); is the scheduler running?"
            ) from None
        if scheme == "tcp":  # something listens: is it a Dask scheduler?
            with sock:
                problem = _dask_handshake(sock, timeout)
            if problem:
                raise SchedulerUnreachable(
                    f"{host}:{port} answers but is not a Dask scheduler ({problem}); "
                    f"give the scheduler's address (dask scheduler prints it, default port 8786)"
                )
        else:
            sock.close()
    import logging

    quiet = logging.getLogger("distributed")
    level = quiet.level
    quiet.setLevel(logging.CRITICAL)  # one clear error instead of logged tracebacks
    try:
        client = Client(address, timeout=timeout, set_as_default=False)
    except (OSError, TimeoutError) as exc:
        raise SchedulerUnreachable(
            f"cannot reach the Dask scheduler at {address} within {timeout:g} s "
            f"({describe_error(exc)})"
        ) from None
    finally:
        quiet.setLevel(level)
    return client, True


def _worker_death(exc: BaseException | None) -> bool:
    from distributed import KilledWorker

    try:
        from distributed.comm.core import CommClosedError
    except ImportError:  # pragma: no cover
        CommClosedError = OSError  # noqa: N806
    import asyncio
    import concurrent.futures

    dead = (
        KilledWorker,
        CommClosedError,
        asyncio.CancelledError,
        concurrent.futures.CancelledError,
    )
    return isinstance(exc, dead)


def run_dask(run: Any, client: Any) -> None:
    from distributed import as_completed

    key_of: dict[Any, Hashable] = {}
    ac = as_completed(loop=client.loop)
    broken: list[str] = []

    def submit(key: Hashable) -> None:
        if broken:
            run.gave_up[key] = f"lost: {broken[0]}"
            return
        try:
            fut = client.submit(run.func, run.jobs[key], pure=False)
        except Exception as exc:  # the client lost its scheduler
            broken.append(f"could not submit to the scheduler ({describe_error(exc)})")
            run.gave_up[key] = f"lost: {broken[0]}"
            return
        key_of[fut] = key
        ac.add(fut)

    for key in run.todo:
        submit(key)
    no_workers_since: float | None = None
    last_check = time.monotonic()
    try:
        while not ac.is_empty():
            if run.stop.requested:
                return
            batch = ac.next_batch(block=False) if ac.has_ready() else []
            if not batch:
                time.sleep(0.02)
                now = time.monotonic()
                if now - last_check > 5:  # a cluster whose workers are all gone
                    last_check = now
                    if client.nthreads():
                        no_workers_since = None
                    elif no_workers_since is None:
                        no_workers_since = now
                    elif now - no_workers_since > _NO_WORKERS_TIMEOUT_S:
                        for key in key_of.values():
                            run.gave_up[key] = (
                                f"lost: the cluster had no workers for {_NO_WORKERS_TIMEOUT_S:g} s"
                            )
                        return
                continue
            for fut in batch:
                key = key_of.pop(fut)
                status = fut.status
                if status == "finished":
                    try:
                        value = fut.result(timeout=_GATHER_TIMEOUT_S)
                    except BaseException as exc:  # the worker holding it died meanwhile
                        if isinstance(exc, KeyboardInterrupt):
                            raise
                        if run.lost(key, f"result lost ({describe_error(exc)})"):
                            submit(key)
                    else:
                        run.deliver(key, True, value)
                elif status == "error":
                    exc = fut.exception()
                    if _worker_death(exc):
                        if run.lost(key, f"worker lost ({describe_error(exc)})"):
                            submit(key)
                    else:
                        run.deliver(key, False, describe_error(exc))
                elif run.lost(key, f"future {status}"):  # lost, cancelled, pending again
                    submit(key)
                fut.release()
    finally:
        pending = list(key_of)
        if pending:
            with contextlib.suppress(Exception):
                client.cancel(pending)
