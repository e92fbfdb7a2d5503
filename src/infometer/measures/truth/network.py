"""Ground truth for network recovery: simulated systems whose graph is known.

A network task samples ``x`` (rows = time, columns = nodes) from a stable Gaussian VAR
(:func:`infometer.measures.dynamics.simulate.random_var`) and knows its directed links
``extra["edges"]`` (source, target, lag).  A contender's recovered graph is scored on the
directed links between distinct nodes, lags aside (:func:`score_edges`): precision, recall,
false-positive rate over the absent links, and F1, the task's scalar (``truth`` = 1, a
perfect recovery).  On a network without links F1 is 1 when nothing is found and 0
otherwise, so its mean over seeds is 1 minus the network-wide false-positive rate.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from infometer.measures.dynamics import simulate as _sim

from .base import Task, register_task

__all__ = ["score_edges", "var_network_task"]


def score_edges(
    true_edges: Iterable[tuple[int, ...]], found_edges: Iterable[tuple[int, ...]], n_nodes: int
) -> dict[str, float]:
    """Precision, recall, false-positive rate and F1 of a recovered directed graph.

    Edges are ``(source, target[, lag])``; lags and self-links are ignored.

    Examples
    --------
    >>> s = score_edges([(0, 1, 1), (1, 2, 2)], [(0, 1, 2), (2, 0, 1)], 3)
    >>> s["precision"], s["recall"], s["fpr"], s["f1"]
    (0.5, 0.5, 0.25, 0.5)
    """
    true = {(int(e[0]), int(e[1])) for e in true_edges if int(e[0]) != int(e[1])}
    found = {(int(e[0]), int(e[1])) for e in found_edges if int(e[0]) != int(e[1])}
    tp, fp, fn = len(true & found), len(found - true), len(true - found)
    negatives = n_nodes * (n_nodes - 1) - len(true)
    precision = tp / (tp + fp) if tp + fp else (1.0 if not true else 0.0)
    recall = tp / len(true) if true else 1.0
    if not true and not found:
        f1 = 1.0
    else:
        f1 = 2 * tp / (2 * tp + fp + fn)
    return {
        "precision": float(precision),
        "recall": float(recall),
        "fpr": fp / negatives if negatives else 0.0,
        "f1": float(f1),
        "tp": tp,
        "fp": fp,
        "fn": fn,
    }


def var_network_task(
    name: str, n_nodes: int, n_edges: int, lags: tuple[int, ...], structure_seed: int
) -> Task:
    """A random stable VAR with ``n_edges`` links (lags from ``lags``) on ``n_nodes`` nodes;
    ``n_edges = 0`` gives independent AR(1) nodes (self-coupling 0.4)."""
    if n_edges:
        coefs, edges = _sim.random_var(n_nodes, n_edges, lags, seed=structure_seed)
    else:
        coefs = np.zeros((1, n_nodes, n_nodes))
        coefs[0][np.diag_indices(n_nodes)] = 0.4
        edges = []

    def sampler(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        return {"x": _sim.var(coefs, n, seed=int(rng.integers(2**62)))}

    return Task(
        name=name,
        quantity="network",
        sampler=sampler,
        truth=1.0,
        dims=(n_nodes,),
        family="network-var",
        tags=frozenset({"network", "timeseries"}),
        description=(
            f"Gaussian VAR on {n_nodes} nodes with {n_edges} directed links at lags "
            f"{sorted({e[2] for e in edges}) or '-'}; the score is the F1 of the recovered links"
        ),
        extra={"edges": [list(map(int, e)) for e in edges], "n_nodes": n_nodes},
        params={"max_lag": max(lags)},
    )


def _register() -> None:
    register_task(var_network_task("var4-3links", 4, 3, (1, 2), structure_seed=3))
    register_task(var_network_task("var5-5links", 5, 5, (1, 2, 3), structure_seed=7))
    register_task(var_network_task("var5-null", 5, 0, (1, 2), structure_seed=0))


_register()
