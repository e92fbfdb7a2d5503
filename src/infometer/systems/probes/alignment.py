"""Embedding alignment: sqrt-JSD of dimension-softmax distributions, InfoNCE, retrieval ranks.

After Hong et al., "Improving semantic proximity in IR through cross-lingual alignment"
(ICLR 2026).  Paired embeddings z_a[i] (say, an English passage) and z_b[i] (its
translation) are compared three ways:

* **sqrt-JSD**: each embedding becomes a pmf over its *coordinates*, softmax(z / T); the
  Jensen–Shannon divergence JSD(P, Q) = H((P+Q)/2) − (H(P) + H(Q))/2 of the pair is at most
  1 bit, and its square root is a metric (Endres & Schindelin 2003).  The paper trains
  with the loss sqrt(JSD) + ε.  **Caveat**: the softmax is taken over the coordinates, so
  the value depends on the basis: a rotation of both embedding spaces, which changes no
  cosine and no retrieval result, changes the JSD.  ``basis="pca"`` measures in the
  pooled data's PCA-whitened basis (signs fixed by skewness), which is invariant to a
  common rotation; a matrix passes any basis of your own.
* **InfoNCE**: with critic scores s(a_i, b_j) (cosine / T by default), positives on the
  diagonal, I(A; B) ≥ log n − L_NCE (Oord et al. 2018; Poole et al. 2019), a bound that
  cannot exceed log n.  The per-row terms are :func:`infometer.systems.text.channel.channel_terms`,
  the same InfoNCE kernel as the compressor channel MI.
* **Retrieval**: Max@R (rank of the worst-ranked relevant document), its normalised form
  100·(log D − log Max@R)/(log D − log |R|), Comp@k (all relevant documents in the top k)
  and the inclination rate (fraction of queries where an irrelevant distractor document,
  e.g. English, outranks the relevant target-language one).

:func:`fit_adapter` trains per-side linear maps with sqrt-JSD + InfoNCE (extra ``torch``).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from infometer.core.data import InfometerWarning, check_float, check_int
from infometer.core.estimate import Estimate
from infometer.core.saturation import ceiling_flags
from infometer.core.seeding import Seed, resolve_seed
from infometer.core.training import optimizer, run_epochs
from infometer.core.uncertainty import make_estimate
from infometer.core.validation import check_pmf, check_real_array
from infometer.measures import exact

from ._common import as_float_matrix, entropy_rows, mean_estimate

__all__ = [
    "softmax_dims",
    "jsd_rows",
    "js_divergence_pmf",
    "pca_basis",
    "js_divergence",
    "infonce_bound",
    "max_at_r",
    "max_at_r_norm",
    "comp_at_k",
    "retrieval_metrics",
    "inclination_rate",
    "Adapter",
    "fit_adapter",
]


# ------------------------------------------------------------------ kernels
def softmax_dims(z: np.ndarray, temperature: float = 1.0) -> np.ndarray:
    """Row-wise softmax over the embedding coordinates (float64)."""
    a = check_real_array(z, "z") / temperature
    a = a - a.max(axis=-1, keepdims=True)
    e = np.exp(a)
    return e / e.sum(axis=-1, keepdims=True)


def jsd_rows(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """JSD (nats) between matching rows of two row-stochastic matrices.

    H(M) − (H(P) + H(Q))/2 with M = (P + Q)/2; identical rows give exactly 0.
    """
    return entropy_rows(0.5 * (p + q)) - 0.5 * (entropy_rows(p) + entropy_rows(q))


def js_divergence_pmf(p: Any, q: Any, *, unit: str = "nats") -> Estimate:
    """Exact JSD of two given pmfs, from :mod:`infometer.measures.exact` entropies (≤ 1 bit)."""
    a, b = check_pmf(p, "p"), check_pmf(q, "q")
    if a.shape != b.shape:
        raise ValueError(f"p has shape {a.shape} but q has shape {b.shape}")
    hp, hq = exact.entropy(a).value, exact.entropy(b).value
    hm = exact.entropy(0.5 * (a / a.sum() + b / b.sum())).value
    return make_estimate(hm - 0.5 * (hp + hq), quantity="js_divergence", method="exact", unit=unit)


def pca_basis(
    z: np.ndarray, *, n_components: int | None = None, rel_tol: float = 1e-10
) -> tuple[np.ndarray, np.ndarray]:
    """Mean and (d, r) PCA-whitening matrix of ``z``; a common rotation of the data rotates
    the eigenvectors with it, so ``(z − mean) @ W`` does not change.

    Keeps the ``n_components`` leading components (default all whose variance exceeds
    ``rel_tol`` × the largest); each component's sign is chosen so that the projected data
    have non-negative third moment.
    """
    mu = z.mean(axis=0)
    c = np.cov(z - mu, rowvar=False)
    lam, u = np.linalg.eigh(np.atleast_2d(c))
    order = np.argsort(lam)[::-1]
    lam, u = lam[order], u[:, order]
    keep = lam > rel_tol * max(lam[0], 0.0)
    if n_components is not None:
        keep &= np.arange(lam.size) < check_int(n_components, "n_components", min_value=1)
    lam, u = lam[keep], u[:, keep]
    if lam.size == 0:
        raise ValueError("the embeddings are constant: no basis to whiten")
    w = u / np.sqrt(lam)
    proj = (z - mu) @ w
    sign = np.where((proj**3).mean(axis=0) < 0, -1.0, 1.0)
    return mu, w * sign


def _pair(z_a: Any, z_b: Any) -> tuple[np.ndarray, np.ndarray]:
    a = as_float_matrix(z_a, "z_a")
    b = as_float_matrix(z_b, "z_b")
    if a.shape != b.shape:
        raise ValueError(
            f"z_a has shape {a.shape} but z_b has {b.shape}; pass paired rows of one dimension"
        )
    return a, b


def _apply_basis(
    a: np.ndarray, b: np.ndarray, basis: Any, n_components: int | None = None
) -> tuple[np.ndarray, np.ndarray, str]:
    if basis is None:
        return a, b, "raw coordinates"
    if isinstance(basis, str):
        if basis != "pca":
            raise ValueError(f"basis must be None, 'pca' or a (d, r) matrix, got {basis!r}")
        mu, w = pca_basis(np.vstack([a, b]), n_components=n_components)
        return (a - mu) @ w, (b - mu) @ w, f"pooled PCA whitening ({w.shape[1]} components)"
    m = as_float_matrix(basis, "basis")
    if m.shape[0] != a.shape[1]:
        raise ValueError(f"basis has {m.shape[0]} rows but the embeddings have {a.shape[1]} dims")
    return a @ m, b @ m, f"given {m.shape[0]}x{m.shape[1]} basis"


# ---------------------------------------------------------------------- JSD
def js_divergence(
    z_a: Any,
    z_b: Any,
    *,
    temperature: float = 1.0,
    basis: Any = None,
    n_components: int | None = None,
    unit: str = "nats",
    ci: float | None = None,
) -> Estimate:
    """Mean JSD between the dimension-softmax distributions of paired embeddings.

    Parameters
    ----------
    z_a, z_b
        (n, d) paired embeddings (row i of each describes the same item).
    temperature
        T in softmax(z / T); the paper uses 1.  Unit-norm sentence embeddings have
        coordinates of order 1/sqrt(d), so at T = 1 their softmax is close to uniform and
        the JSD small: compare values at one T only.
    basis
        ``None`` (raw coordinates, as in the paper), ``"pca"`` (pooled PCA whitening:
        invariant to a rotation applied to both sides) or a (d, r) matrix.  Whitening
        needs many more pairs than dimensions: with n ≲ d the smallest components are
        noise scaled up to unit variance, and they dominate the softmax.
    n_components
        With ``basis="pca"``: keep only the leading components.
    unit
        Unit of the JSD (bits: JSD ≤ 1).
    ci
        Level of the t-interval of the mean over pairs.

    Returns
    -------
    Estimate
        The mean JSD (``quantity="js_divergence"``).  ``diagnostics["sqrt_jsd"]`` is the
        mean of per-pair sqrt(JSD in bits), the paper's metric and loss (≤ 1, a metric, not
        an amount of information, so it is not an ``Estimate`` whose unit could be
        converted), with ``sqrt_jsd_se``.
    """
    t = check_float(temperature, "temperature", low=0.0, inclusive=(False, True))
    a, b = _pair(z_a, z_b)
    a, b, how = _apply_basis(a, b, basis, n_components)
    jsd = jsd_rows(softmax_dims(a, t), softmax_dims(b, t))
    # rounding can make an exact 0 come out as -1e-17: clip before the square root only
    root = np.sqrt(np.maximum(jsd / math.log(2), 0.0))
    diag = {
        "sqrt_jsd": float(root.mean()),
        "sqrt_jsd_se": float(root.std(ddof=1) / math.sqrt(root.size)) if root.size > 1 else None,
        "basis": how,
    }
    return mean_estimate(
        jsd,
        quantity="js_divergence",
        method="softmax_dims",
        unit=unit,
        ci=ci,
        params={"temperature": t, "basis": how},
        diagnostics=diag,
    )


# ------------------------------------------------------------------ InfoNCE
def _unit_rows(a: np.ndarray) -> np.ndarray:
    norm = np.linalg.norm(a, axis=1, keepdims=True)
    if np.any(norm == 0):
        raise ValueError("an embedding is all zeros: its cosine similarity is undefined")
    return a / norm


def infonce_bound(
    scores: Any = None,
    *,
    z_a: Any = None,
    z_b: Any = None,
    temperature: float = 0.05,
    symmetric: bool = False,
    unit: str = "nats",
    ci: float | None = None,
) -> Estimate:
    """InfoNCE lower bound I(A; B) ≥ log n − L_NCE of paired samples.

    Parameters
    ----------
    scores
        (n, n) critic scores s(a_i, b_j) with the positive pairs on the diagonal.
    z_a, z_b
        Instead of ``scores``: paired embeddings; s = cosine(a_i, b_j) / ``temperature``.
    temperature
        Temperature of the cosine critic (ignored with ``scores``).
    symmetric
        Average the a→b and b→a losses (rows and columns of the score matrix).
    unit, ci
        Unit of the bound; level of the t-interval over rows (an approximation: rows
        share negatives).

    Returns
    -------
    Estimate
        ``quantity="mutual_info_lower_bound"``, ``method="infonce"``; the bound can never
        exceed log n (``diagnostics["ceiling"]``): a value near it means the true MI may be
        much larger (warned).
    """
    if scores is None:
        if z_a is None or z_b is None:
            raise ValueError("pass scores=, or both z_a= and z_b=")
        t = check_float(temperature, "temperature", low=0.0, inclusive=(False, True))
        a, b = _pair(z_a, z_b)
        s = _unit_rows(a) @ _unit_rows(b).T / t
        critic = f"cosine / {t:g}"
    else:
        if z_a is not None or z_b is not None:
            raise ValueError("pass scores= or z_a=/z_b=, not both")
        s = as_float_matrix(scores, "scores")
        if s.shape[0] != s.shape[1]:
            raise ValueError(f"scores must be square (positives on the diagonal), got {s.shape}")
        critic = "given scores"
    n = s.shape[0]
    if n < 2:
        raise ValueError("InfoNCE needs at least 2 pairs")
    from infometer.systems.text.channel import (
        channel_terms,  # InfoNCE terms s_ii − logsumexp_j s_ij + log n
    )

    pos = np.arange(n)
    per_row = channel_terms(s, pos)
    if symmetric:
        per_row = 0.5 * (per_row + channel_terms(s.T, pos))
    ceiling = math.log(n)
    diag: dict[str, Any] = {"ceiling_nats": ceiling, "critic": critic, "symmetric": symmetric}
    value = float(per_row.mean())
    flags = ceiling_flags(value, ceiling)  # the rule of infometer.core.saturation
    diag["sensitivity"] = flags["sensitivity"]
    if flags["saturated"]:
        msg = (
            f"InfoNCE bound {value:.3g} nats is within log 2 of its ceiling log n = "
            f"{ceiling:.3g} (sensitivity {flags['sensitivity']:.2f}): the true MI may be much "
            "larger (use more pairs)"
        )
        diag["saturated"] = True
        diag["warnings"] = [msg]
        warnings.warn(msg, InfometerWarning, stacklevel=2)
    return mean_estimate(
        per_row,
        quantity="mutual_info_lower_bound",
        method="infonce",
        unit=unit,
        ci=ci,
        params={"critic": critic, "symmetric": symmetric},
        diagnostics=diag,
    )


# ---------------------------------------------------------------- retrieval
def _relevant_set(relevant: Iterable[Any], name: str = "relevant") -> set:
    r = set(relevant)
    if not r:
        raise ValueError(f"{name} is empty: every query needs at least one relevant document")
    return r


def max_at_r(ranking: Sequence[Any], relevant: Iterable[Any]) -> int:
    """Max@R: the 1-based rank of the worst-ranked relevant document in ``ranking``.

    >>> max_at_r(["en7", "zh3", "en3", "x"], {"en3", "zh3"})
    3
    """
    r = _relevant_set(relevant)
    pos = {doc: i for i, doc in reversed(list(enumerate(ranking)))}
    missing = [d for d in r if d not in pos]
    if missing:
        raise ValueError(f"relevant documents {missing!r} are not in the ranking")
    return max(pos[d] for d in r) + 1


def max_at_r_norm(max_r: float, n_docs: int, n_relevant: int) -> float:
    """100·(log D − log Max@R)/(log D − log |R|): 100 when the |R| relevant documents come
    first, 0 when the last of them is ranked last."""
    n_docs = check_int(n_docs, "n_docs", min_value=2)
    n_relevant = check_int(n_relevant, "n_relevant", min_value=1, max_value=n_docs - 1)
    m = check_float(max_r, "max_r", low=n_relevant, high=n_docs)
    return 100.0 * (math.log(n_docs) - math.log(m)) / (math.log(n_docs) - math.log(n_relevant))


def comp_at_k(ranking: Sequence[Any], relevant: Iterable[Any], k: int = 10) -> bool:
    """Comp@k: whether every relevant document is among the top ``k``."""
    k = check_int(k, "k", min_value=1)
    return max_at_r(ranking, relevant) <= k


def _relevant_lists(relevant: Any, n_q: int, n_d: int) -> list[np.ndarray]:
    if isinstance(relevant, np.ndarray) and relevant.dtype == bool:
        if relevant.shape != (n_q, n_d):
            raise ValueError(f"relevant mask must have shape {(n_q, n_d)}, got {relevant.shape}")
        out = [np.flatnonzero(row) for row in relevant]
    else:
        out = [
            np.asarray(sorted(_relevant_set(r, f"relevant[{i}]")), dtype=np.int64)
            for i, r in enumerate(relevant)
        ]
        if len(out) != n_q:
            raise ValueError(f"relevant has {len(out)} entries but sim has {n_q} queries")
    for i, r in enumerate(out):
        if r.size == 0:
            raise ValueError(f"query {i} has no relevant document")
        if r.min() < 0 or r.max() >= n_d:
            raise ValueError(f"relevant[{i}] holds a document index outside 0..{n_d - 1}")
    return out


def retrieval_metrics(
    sim: Any,
    relevant: Any,
    *,
    k: int = 10,
    target: Any = None,
    distractors: Any = None,
) -> Any:
    """Per-query retrieval diagnostics from a (queries × documents) similarity matrix.

    Parameters
    ----------
    sim
        (n_queries, n_docs) similarities; documents are ranked by decreasing similarity,
        ties in document order.
    relevant
        For each query, the indices of its relevant documents (or a boolean mask).
    k
        Cut-off of Comp@k.
    target, distractors
        For the inclination rate: ``target[q]`` is the relevant document in the query's own
        language, ``distractors`` a boolean mask over documents (e.g. English ones).
        Query q is *inclined* when some distractor that is not relevant to q scores higher
        than ``target[q]``.

    Returns
    -------
    pandas.DataFrame
        One row per query: ``max_at_r``, ``max_at_r_norm``, ``comp_at_k`` and, with
        ``target``, ``inclined``.  Column means are the paper's summary numbers.
    """
    import pandas as pd

    s = as_float_matrix(sim, "sim")
    n_q, n_d = s.shape
    rel = _relevant_lists(relevant, n_q, n_d)
    k = check_int(k, "k", min_value=1)
    order = np.argsort(-s, axis=1, kind="stable")
    rank = np.empty_like(order)
    rank[np.arange(n_q)[:, None], order] = np.arange(1, n_d + 1)[None, :]
    worst = np.array([rank[i, r].max() for i, r in enumerate(rel)])
    norm = [
        max_at_r_norm(m, n_d, len(r)) if len(r) < n_d else 100.0
        for m, r in zip(worst, rel, strict=True)
    ]
    df = pd.DataFrame({"max_at_r": worst, "max_at_r_norm": norm, "comp_at_k": worst <= k})
    if target is not None:
        df["inclined"] = _inclined(s, rel, target, distractors)
    return df


def _inclined(s: np.ndarray, rel: list[np.ndarray], target: Any, distractors: Any) -> np.ndarray:
    n_q, n_d = s.shape
    t = np.asarray(target)
    if t.shape != (n_q,) or t.dtype.kind not in "iu":
        raise ValueError(f"target must hold one document index per query ({n_q})")
    if distractors is None:
        raise ValueError("target= needs distractors= (a boolean mask over the documents)")
    dmask = np.asarray(distractors, dtype=bool)
    if dmask.shape != (n_d,):
        raise ValueError(f"distractors must be a boolean mask of length {n_d}")
    out = np.zeros(n_q, dtype=bool)
    for i in range(n_q):
        cand = dmask.copy()
        cand[rel[i]] = False
        out[i] = bool(cand.any() and s[i, cand].max() > s[i, t[i]])
    return out


def inclination_rate(sim: Any, target: Any, distractors: Any, relevant: Any = None) -> float:
    """Fraction of queries where an irrelevant distractor outranks the query's target
    document (see :func:`retrieval_metrics`); ``relevant`` defaults to ``target`` alone."""
    s = as_float_matrix(sim, "sim")
    t = np.asarray(target)
    rel = [[int(x)] for x in t] if relevant is None else relevant
    rel = _relevant_lists(rel, *s.shape)
    return float(_inclined(s, rel, t, distractors).mean())


# ----------------------------------------------------------------- adapter
@dataclass
class Adapter:
    """Per-side linear maps ``a' = z_a @ w_a``, ``b' = z_b @ w_b`` (numpy, (d, d))."""

    w_a: np.ndarray
    w_b: np.ndarray
    history: list[dict[str, float]]

    def transform(self, z: Any, side: str = "a") -> np.ndarray:
        """Apply the map of ``side`` (``"a"`` or ``"b"``) to embeddings ``z``."""
        if side not in ("a", "b"):
            raise ValueError(f"side must be 'a' or 'b', got {side!r}")
        m = as_float_matrix(z, "z")
        w = self.w_a if side == "a" else self.w_b
        if m.shape[1] != w.shape[0]:
            raise ValueError(f"z has {m.shape[1]} dims but the adapter expects {w.shape[0]}")
        return m @ w


def fit_adapter(
    z_a: Any,
    z_b: Any,
    *,
    q_a: Any = None,
    epochs: int = 200,
    lr: float = 1e-3,
    batch_size: int = 64,
    jsd_temperature: float = 1.0,
    nce_temperature: float = 0.05,
    weight_decay: float = 1e-3,
    seed: Seed = 0,
    progress: bool | None = None,
) -> Adapter:
    """Train per-side linear adapters with the paper's loss sqrt(JSD) + InfoNCE.

    ``L = mean sqrt(JSD(softmax(a'/T), softmax(b'/T)) + ε) + L_NCE(b', q_a')``: the JSD term
    pulls the coordinate-softmax of each pair together; InfoNCE (in-batch negatives, cosine
    critic) makes the *b*-side document retrieve its paired *a*-side query (``q_a``; the
    paired ``z_a`` rows when not given), the paper's cross-lingual positive.  Both maps
    start at the identity; weight decay pulls them back towards it.  (The paper fine-tunes
    the encoder itself on text in every language; a linear map per side is the smallest
    stand-in that sees which side a text comes from.)

    Parameters
    ----------
    z_a, z_b
        (n, d) paired training embeddings (e.g. English and target-language passages).
    q_a
        (n, d) *a*-side queries paired with the rows of ``z_b`` (optional).
    epochs, lr, batch_size, weight_decay
        AdamW schedule (full passes over the pairs).
    jsd_temperature, nce_temperature
        Softmax temperature of the JSD term; temperature of the InfoNCE critic.
    seed
        Seed of the initialisation and batch order. An int >= 0 (the same int gives the same
        numbers), a numpy.random.Generator (drawn from as it is) or None (fresh entropy from the
        operating system).
    progress
        Show a progress bar.

    Returns
    -------
    Adapter
        The two maps and the per-epoch mean losses.
    """
    import torch

    a, b = _pair(z_a, z_b)
    q = a if q_a is None else _pair(q_a, z_b)[0]
    epochs = check_int(epochs, "epochs", min_value=1)
    batch_size = check_int(batch_size, "batch_size", min_value=2)
    lr = check_float(lr, "lr", low=0.0, inclusive=(False, True))
    jt = check_float(jsd_temperature, "jsd_temperature", low=0.0, inclusive=(False, True))
    nt = check_float(nce_temperature, "nce_temperature", low=0.0, inclusive=(False, True))
    gen = torch.Generator().manual_seed(resolve_seed(seed))
    d = a.shape[1]
    ta, tb, tq = (torch.as_tensor(x, dtype=torch.float32) for x in (a, b, q))
    w_a = torch.nn.Parameter(torch.eye(d))
    w_b = torch.nn.Parameter(torch.eye(d))
    eye = torch.eye(d)
    opt, _ = optimizer([w_a, w_b], lr=lr)

    def epoch_batches(_epoch: int):
        perm = torch.randperm(len(ta), generator=gen)
        for start in range(0, len(perm), batch_size):
            yield perm[start : start + batch_size]

    def pair_loss(idx):
        if idx.numel() < 2:
            return None
        xa, xb, xq = ta[idx] @ w_a, tb[idx] @ w_b, tq[idx] @ w_a
        pa = torch.softmax(xa / jt, dim=1)
        pb = torch.softmax(xb / jt, dim=1)
        m = 0.5 * (pa + pb)
        jsd = 0.5 * (pa * (pa.clamp_min(1e-30) / m).log()).sum(1) + 0.5 * (
            pb * (pb.clamp_min(1e-30) / m).log()
        ).sum(1)
        l_jsd = torch.sqrt(jsd.clamp_min(0) / math.log(2) + 1e-8).mean()
        s = torch.nn.functional.normalize(xb, dim=1) @ torch.nn.functional.normalize(xq, dim=1).T
        l_nce = torch.nn.functional.cross_entropy(s / nt, torch.arange(len(idx)))
        reg = weight_decay * (((w_a - eye) ** 2).sum() + ((w_b - eye) ** 2).sum())
        return l_jsd + l_nce + reg, {"jsd": l_jsd.item(), "nce": l_nce.item()}

    history = run_epochs(
        opt,
        epochs,
        epoch_batches,
        pair_loss,
        keys=("jsd", "nce"),
        desc="adapter",
        progress=progress,
    )
    return Adapter(
        w_a=w_a.detach().double().numpy(), w_b=w_b.detach().double().numpy(), history=history
    )
