"""Other libraries as contenders of a benchmark sweep, each run in its own process.

A peer (``dit``, ``hoi``, ``jidt`` through IDTxl, ...) is never imported here: each run
starts the peer's own Python interpreter on ``_peer_driver.py`` (a script that imports
only numpy and the peer), passes the task's samples as ``.npy`` files and reads the answer
back as JSON.  The peer's pins therefore cannot break infometer's, and a peer that is not
installed, crashes, hangs or raises is a stored failure (``status`` ``peer-missing``,
``peer-crashed``, ``peer-timeout`` or ``error``), never a stopped sweep.  A wrong answer
is judged like any other estimate, against the task's truth.

In a sweep a peer is the method ``peer:NAME``.  Its interpreter is
``INFOMETER_PEER_PYTHON_<NAME>`` (upper case, e.g. ``INFOMETER_PEER_PYTHON_DIT``), or
``<INFOMETER_PEER_DIR>/<name>/bin/python``; ``infometer bench --peers`` sets them.

Examples
--------
>>> from infometer.measures import truth
>>> supports("dit", truth.get_task("xor3-oinfo")) is None
True
>>> supports("dit", truth.get_task("gauss3-redundant-oinfo"))
'dit takes symbols (discrete data), not continuous samples'
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from infometer.core.seeding import Seed, resolve_seed
from infometer.measures import truth

__all__ = [
    "PEERS",
    "Peer",
    "PREFIX",
    "DRIVER",
    "is_peer",
    "peer_name",
    "peer_python",
    "supports",
    "run_peer",
    "PeerRun",
    "configure",
]

PREFIX = "peer:"
DRIVER = Path(__file__).with_name("_peer_driver.py")
#: How long one peer run may take (seconds) before it is stopped and stored as a timeout.
DEFAULT_TIMEOUT = 300.0

_C, _D = "continuous", "discrete"


@dataclass(frozen=True)
class Peer:
    """A peer library: what it is, how to install it, and which tasks it can answer.

    ``quantities`` maps a quantity to the kinds of data the peer takes for it
    (``"continuous"``, ``"discrete"``); ``scalar`` lists the quantities for which it takes
    only one column per role; ``measures`` restricts PID measures / complexity methods.
    """

    name: str
    package: str
    summary: str
    quantities: dict[str, tuple[str, ...]]
    scalar: tuple[str, ...] = ()
    measures: tuple[str, ...] = ()
    atoms: tuple[str, ...] = ()
    settings: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


_KNN = {"mutual_info": (_C, _D), "cond_mutual_info": (_C, _D), "entropy": (_C, _D)}
_MULTI = ("total_correlation", "dual_total_correlation", "o_information", "s_information")

PEERS: dict[str, Peer] = {
    p.name: p
    for p in (
        Peer(
            "sklearn",
            "scikit-learn",
            "mutual_info_regression (KSG-type, k = 3), mutual_info_score on symbols",
            {"mutual_info": (_C, _D)},
            scalar=("mutual_info",),
        ),
        Peer(
            "npeet",
            "npeet-plus",
            "NPEET: KSG MI/CMI, Kozachenko-Leonenko entropy (k = 3), plug-in on symbols",
            _KNN,
        ),
        Peer(
            "ennemi",
            "ennemi",
            "ennemi: KSG MI/CMI (k = 3) of one-column variables, kNN entropy",
            {"mutual_info": (_C,), "cond_mutual_info": (_C,), "entropy": (_C,)},
            scalar=("mutual_info",),
        ),
        Peer(
            "infomeasure",
            "infomeasure",
            "infomeasure: KSG (k = 3) / Kozachenko-Leonenko, discrete plug-in; TE with "
            "src_hist_len = l, dest_hist_len = k",
            {**_KNN, "transfer_entropy": (_C, _D)},
            scalar=("transfer_entropy",),
        ),
        Peer(
            "jidt",
            "idtxl (with its JIDT jar; Java)",
            "JIDT through IDTxl: Kraskov (algorithm 1, IDTxl's default k = 4) on numbers, "
            "the discrete estimators on symbols",
            {
                "mutual_info": (_C, _D),
                "cond_mutual_info": (_C, _D),
                "transfer_entropy": (_C, _D),
                "active_info_storage": (_C, _D),
            },
            scalar=("transfer_entropy", "active_info_storage"),
        ),
        Peer(
            "jidt_gaussian",
            "idtxl (with its JIDT jar; Java)",
            "JIDT's Gaussian estimators through IDTxl",
            {
                "mutual_info": (_C,),
                "cond_mutual_info": (_C,),
                "transfer_entropy": (_C,),
                "active_info_storage": (_C,),
            },
            scalar=("transfer_entropy", "active_info_storage"),
        ),
        Peer(
            "idtxl",
            "idtxl (with its JIDT jar; Java)",
            "IDTxl: multivariate TE network inference (JidtGaussianCMI, its default "
            "permutations and FDR); TartuPID (BROJA) on symbols",
            {"network": (_C,), "pid_atom": (_D,)},
            measures=("broja",),
        ),
        Peer(
            "hoi",
            "hoi (JAX)",
            "hoi: TC, DTC, O- and S-information and MMI redundancy/synergy with its "
            "Gaussian-copula ('gc') or binning entropies",
            {**{q: (_C, _D) for q in _MULTI}, "pid_atom": (_C, _D)},
            measures=("mmi",),
            atoms=("{0}{1}", "{01}"),
        ),
        Peer(
            "dit",
            "dit",
            "dit: exact measures of the plug-in (empirical) distribution of the symbols",
            {
                "entropy": (_D,),
                "mutual_info": (_D,),
                "cond_mutual_info": (_D,),
                **{q: (_D,) for q in _MULTI},
                "pid_atom": (_D,),
            },
            measures=("mmi", "broja", "imin", "ccs"),
        ),
        Peer(
            "frites",
            "frites",
            "frites: Gaussian-copula MI and CMI (gcmi_nd_cc, gccmi_nd_ccc)",
            {"mutual_info": (_C,), "cond_mutual_info": (_C,)},
        ),
        Peer(
            "tigramite",
            "tigramite (and numba for CMIknn)",
            "Tigramite: CMIknn (knn = 0.1 n) and CMIsymb; PCMCI with ParCorr "
            "(alpha_level 0.05) for networks",
            {"cond_mutual_info": (_C, _D), "network": (_C,)},
        ),
        Peer(
            "antropy",
            "antropy",
            "antropy: perm_entropy, svd_entropy, sample_entropy (r = 0.2 sd only)",
            {"complexity": (_C,)},
            measures=("permutation", "svd", "sample"),
        ),
        Peer(
            "entropyhub",
            "EntropyHub",
            "EntropyHub: PermEn (plain, weighted, modified), SampEn, DispEn (ncdf)",
            {"complexity": (_C,)},
            measures=(
                "permutation",
                "weighted_permutation",
                "modified_permutation",
                "sample",
                "dispersion",
            ),
        ),
        Peer(
            "ordpy",
            "ordpy",
            "ordpy: permutation_entropy, weighted_permutation_entropy",
            {"complexity": (_C,)},
            measures=("permutation", "weighted_permutation"),
        ),
    )
}


def is_peer(method: str) -> bool:
    """``True`` for a contender ``peer:NAME``."""
    return isinstance(method, str) and method.startswith(PREFIX)


def peer_name(method: str) -> str:
    """``peer:dit`` -> ``dit`` (a ``ValueError`` listing the peers for an unknown one)."""
    name = method[len(PREFIX) :] if is_peer(method) else method
    if name not in PEERS:
        raise ValueError(f"unknown peer {name!r}; the peers are {', '.join(PEERS)}")
    return name


def _env_key(name: str) -> str:
    return "INFOMETER_PEER_PYTHON_" + name.upper().replace("-", "_")


def peer_python(name: str) -> str | None:
    """The interpreter that runs peer ``name``, or ``None`` when none is configured.

    ``INFOMETER_PEER_PYTHON_<NAME>`` first, then ``$INFOMETER_PEER_DIR/<name>/bin/python``
    (``jidt``, ``jidt_gaussian`` and ``idtxl`` share the ``idtxl`` environment).
    """
    explicit = os.environ.get(_env_key(name))
    if explicit:
        return explicit
    root = os.environ.get("INFOMETER_PEER_DIR")
    if root:
        folder = {"jidt": "idtxl", "jidt_gaussian": "idtxl"}.get(name, name)
        cand = Path(root) / folder / "bin" / "python"
        if cand.exists():
            return str(cand)
    return None


def supports(name: str, task: truth.Task) -> str | None:
    """``None`` when peer ``name`` can answer ``task``, else the reason it cannot."""
    p = PEERS[peer_name(name)]
    if task.quantity not in p.quantities:
        return f"{p.name} has no {task.quantity}"
    kind = {True: _D, False: _C, None: "mixed"}[task.discrete]
    if kind not in p.quantities[task.quantity]:
        takes = " and ".join(p.quantities[task.quantity])
        what = "symbols (discrete data)" if takes == _D else f"{takes} data"
        return f"{p.name} takes {what}, not {kind} samples"
    if task.quantity in p.scalar and any(d != 1 for d in task.dims):
        return f"{p.name} takes one column per variable for {task.quantity}"
    if task.quantity == "complexity":
        method = task.methods[0] if task.methods else ""
        if method not in p.measures:
            return f"{p.name} has no {method or 'such'} complexity measure"
        if p.name == "antropy" and method == "sample" and task.params.get("r", 0.2) != 0.2:
            return "antropy's sample entropy has r = 0.2 sd only"
    if task.quantity == "pid_atom":
        if p.measures and task.params.get("measure") not in p.measures:
            return f"{p.name} has no {task.params.get('measure')} PID"
        if p.atoms and task.params.get("atom") not in p.atoms:
            return f"{p.name} gives no {task.params.get('atom')} atom"
    if task.quantity == "transfer_entropy" and p.name != "infomeasure" and len(task.dims) > 2:
        return f"{p.name} has no conditional transfer entropy here"
    return None


@dataclass
class PeerRun:
    """What one peer run gave: ``status`` as stored (``ok``, ``error``, ``peer-missing``,
    ``peer-crashed``, ``peer-timeout``), the value or edges, times and the message."""

    status: str
    value: float | None = None
    edges: list | None = None
    message: str | None = None
    wall_s: float | None = None
    cpu_s: float | None = None
    startup_s: float | None = None
    total_s: float | None = None
    version: str | None = None


def run_peer(
    name: str,
    task: truth.Task,
    data: dict[str, np.ndarray],
    seed: Seed,
    *,
    timeout: float | None = None,
    python: str | None = None,
) -> PeerRun:
    """Run peer ``name`` on ``data`` of ``task`` in its own interpreter.

    Parameters
    ----------
    name
        A key of :data:`PEERS` (or ``peer:NAME``).
    task, data
        The task (its quantity, kind and ``params``) and its samples.
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).  The peer receives one int
        (:func:`infometer.core.seeding.resolve_seed`).
    timeout
        Seconds before the peer's process is killed (default
        ``INFOMETER_PEER_TIMEOUT`` or :data:`DEFAULT_TIMEOUT`).
    python
        The interpreter (default :func:`peer_python`).

    Returns
    -------
    PeerRun
        Never raises for the peer's failures: they are the result's ``status``.
    """
    name = peer_name(name)
    seed = resolve_seed(seed)
    python = python or peer_python(name)
    if timeout is None:
        timeout = float(os.environ.get("INFOMETER_PEER_TIMEOUT", DEFAULT_TIMEOUT))
    if not python:
        return PeerRun(
            "peer-missing",
            message=f"no interpreter for peer {name}: set {_env_key(name)} or "
            f"INFOMETER_PEER_DIR, or pass --peers {name}=PYTHON",
        )
    if not Path(python).exists():
        return PeerRun("peer-missing", message=f"peer {name}: {python} does not exist")
    params = dict(task.params)
    if task.quantity == "complexity" and task.methods:
        params["method"] = task.methods[0]
    with tempfile.TemporaryDirectory(prefix=f"infometer-peer-{name}-") as tmp:
        files = {}
        for role, arr in data.items():
            path = os.path.join(tmp, f"{role}.npy")
            np.save(path, np.ascontiguousarray(arr), allow_pickle=False)
            files[role] = path
        req = os.path.join(tmp, "request.json")
        resp = os.path.join(tmp, "response.json")
        with open(req, "w") as f:  # a request to the peer process, not resumable state
            f.write(
                json.dumps(
                    {
                        "peer": name,
                        "quantity": task.quantity,
                        "discrete": bool(task.discrete),
                        "params": params,
                        "seed": int(seed),
                        "data": files,
                    }
                )
            )
        env = dict(os.environ)
        env.pop("PYTHONPATH", None)  # the peer's own packages only
        for k in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            env.setdefault(k, "1")
        env.setdefault("JAX_PLATFORMS", "cpu")
        t0 = time.perf_counter()
        try:
            proc = subprocess.run(
                [python, str(DRIVER), req, resp],
                capture_output=True,
                text=True,
                timeout=timeout,
                env=env,
                cwd=tmp,
                start_new_session=True,
            )
        except subprocess.TimeoutExpired:
            return PeerRun(
                "peer-timeout",
                message=f"peer {name} did not answer within {timeout:g} s",
                total_s=time.perf_counter() - t0,
            )
        except OSError as exc:
            return PeerRun("peer-missing", message=f"peer {name}: {python}: {exc}")
        total = time.perf_counter() - t0
        if not os.path.exists(resp):
            tail = (proc.stderr or proc.stdout or "").strip().splitlines()[-3:]
            return PeerRun(
                "peer-crashed",
                message=f"peer {name} exited with status {proc.returncode} without an "
                f"answer: {' | '.join(tail)}"[:2000],
                total_s=total,
            )
        with open(resp) as f:
            out = json.load(f)
    if "error" in out:
        status = "peer-missing" if out.get("kind") == "missing" else "error"
        return PeerRun(status, message=f"{name}: {out['error']}", total_s=total)
    value = out.get("value")
    return PeerRun(
        "ok",
        value=None if value is None else float(value),
        edges=out.get("edges"),
        wall_s=out.get("wall_s"),
        cpu_s=out.get("cpu_s"),
        startup_s=out.get("startup_s"),
        total_s=total,
        version=out.get("version"),
    )


def configure(specs: list[str], peer_dir: str | None = None) -> list[str]:
    """Set the interpreters of the named peers for this process and its workers.

    ``specs`` are ``NAME`` or ``NAME=PYTHON`` (``all``: every peer); returns the
    contenders ``peer:NAME``.  A ``ValueError`` names an unknown peer.
    """
    if peer_dir:
        os.environ["INFOMETER_PEER_DIR"] = str(peer_dir)
    out = []
    for spec in specs:
        name, _, path = spec.partition("=")
        name = name.strip()
        names = list(PEERS) if name == "all" else [peer_name(name)]
        if path and name == "all":
            raise ValueError("--peers all=PYTHON: give one interpreter per peer name")
        if path:
            os.environ[_env_key(names[0])] = path
        out += [PREFIX + n for n in names if PREFIX + n not in out]
    return out
