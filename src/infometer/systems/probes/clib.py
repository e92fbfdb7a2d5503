"""Calibrated information-bottleneck multi-view clustering (after CLIB, ICLR 2026).

Pieces usable on their own (numpy):

* :func:`redundancy_score` S(P) = 1 − H(P)/(2 log C) of a predicted pmf over C clusters:
  1 for a one-hot prediction, 0.5 for the uniform one, so S ∈ [0.5, 1];
* :func:`select_pseudo_labels`: keep the K = ⌊Σ_i S(P_i)⌋ most confident samples
  (K ≥ N/2 always) with pseudo-labels argmax P_i -- the selection grows as predictions
  sharpen (a curriculum);
* :func:`cluster_accuracy` (Hungarian matching), :func:`normalized_mutual_info` (through
  infometer's own plug-in MI and entropies), :func:`expected_calibration_error`
  (equal-width bins, 15 by default), :func:`make_multiview` (Gaussian mixtures seen through
  several views, some of them pure noise).

The model (:class:`CLIB`, extra ``torch``):

* per view m an encoder q(h_m | x_m) = N(μ_m(x_m), σ_m²(x_m)); compression
  I(X_m; H_m) ≤ E KL(q(h_m|x_m) ‖ N(0, I)) (variational upper bound);
* cross-view alignment: InfoNCE lower bounds of I(H_i; H_j) for every pair of views;
* fusion H_f = Σ_m w_m H_m (w = softmax of learnt logits) and prediction terms
  I(H_m; H_f), also InfoNCE lower bounds (the paper uses a MINE critic; InfoNCE is the
  lower-variance bound of the same family);
  L_IB = λ·Σ KL − Σ_{i<j} Î(H_i; H_j) − β·Σ_m Î(H_m; H_f);
* a clustering head on H_f and one calibration head per view on stop-gradient(H_m);
  k-means on H_f (warm-started, so cluster indices persist) gives clusters Q_c with soft
  targets q̂_c = mean of the clustering head's output over Q_c; the calibration heads fit
  q̂_c (L_caliH), L_re = Σ p̄ log p̄ keeps the mean prediction from collapsing, the
  clustering head learns the calibration heads' selected pseudo-labels (L_cluH) and
  agrees with them in KL (L_con); L = L_IB + α·L_Cal after an IB warm-up.

``ablation`` switches the paper's ladder: ``"ib_head"`` (IB + a head trained on the
k-means labels), ``"re"`` (+ L_re), ``"calibration"`` (+ calibration heads, L_caliH and
L_con, pseudo-labels from all samples), ``"full"`` (+ redundancy-based selection).

Reference: "Calibrated information bottleneck for trusted multi-modal clustering",
ICLR 2026 (OpenReview iedlZOdI0d).  Details marked unverified in the brief (the MINE
critic, the exact pseudo-label rule) are choices of this implementation.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from infometer.core._deprecation import deprecated_alias
from infometer.core.data import InfometerWarning, check_choice, check_float, check_int
from infometer.core.progress import check_progress
from infometer.core.seeding import Seed, as_generator, resolve_seed
from infometer.core.training import optimizer, run_epochs
from infometer.core.validation import check_stochastic_matrix

from ._common import as_float_matrix, entropy_rows

__all__ = [
    "redundancy_score",
    "select_pseudo_labels",
    "cluster_accuracy",
    "hungarian_map",
    "normalized_mutual_info",
    "expected_calibration_error",
    "make_multiview",
    "CLIB",
    "ABLATIONS",
]

#: The ablation ladder, weakest first.
ABLATIONS = ("ib_head", "re", "calibration", "full")


# ================================================================ metrics
def _proba(p: Any, name: str = "proba") -> np.ndarray:
    a = as_float_matrix(p, name)
    if a.shape[1] < 2:
        raise ValueError(f"{name} needs at least 2 columns (clusters), got {a.shape[1]}")
    # the shared check, at 1e-6: cluster pmfs often come from a float32 softmax; the rows
    # are used as given (not renormalised)
    check_stochastic_matrix(a, name, atol=1e-6, what="(samples, clusters)")
    return a


def redundancy_score(proba: Any) -> np.ndarray:
    """S(P) = 1 − H(P)/(2 log C) for each row P of an (N, C) matrix of cluster pmfs."""
    p = _proba(proba)
    return 1.0 - entropy_rows(p) / (2.0 * math.log(p.shape[1]))


def select_pseudo_labels(proba: Any) -> tuple[np.ndarray, np.ndarray, int]:
    """Indices of the K = ⌊Σ S⌋ highest-scoring samples, their labels argmax P, and K.

    Ties in S are broken by sample index.
    """
    p = _proba(proba)
    s = redundancy_score(p)
    k = int(math.floor(s.sum() + 1e-9))  # Σ S is an integer for one-hot rows: guard rounding
    idx = np.argsort(-s, kind="stable")[:k]
    return idx, p[idx].argmax(axis=1), k


def _labels(y_true: Any, y_pred: Any) -> tuple[np.ndarray, np.ndarray]:
    a, b = np.asarray(y_true).ravel(), np.asarray(y_pred).ravel()
    if a.size != b.size:
        raise ValueError(f"y_pred has {b.size} labels but y_true has {a.size}")
    if a.size == 0:
        raise ValueError("y_true is empty")
    _, a = np.unique(a, return_inverse=True)
    _, b = np.unique(b, return_inverse=True)
    return a, b


def hungarian_map(y_true: Any, y_pred: Any) -> dict[Any, Any]:
    """Cluster label → class label map maximising the number of agreeing samples
    (Hungarian algorithm); clusters left over when there are more clusters than classes
    are absent from the map."""
    from scipy.optimize import linear_sum_assignment

    _labels(y_true, y_pred)  # validation
    a_vals, a = np.unique(np.asarray(y_true).ravel(), return_inverse=True)
    b_vals, b = np.unique(np.asarray(y_pred).ravel(), return_inverse=True)
    w = np.zeros((b_vals.size, a_vals.size), dtype=np.int64)
    np.add.at(w, (b, a), 1)
    rows, cols = linear_sum_assignment(-w)
    return {b_vals[r].item(): a_vals[c].item() for r, c in zip(rows, cols, strict=True)}


def cluster_accuracy(y_true: Any, y_pred: Any) -> float:
    """Clustering accuracy: agreement after the best one-to-one relabelling (Hungarian)."""
    a, b = _labels(y_true, y_pred)
    m = hungarian_map(a, b)
    mapped = np.array([m.get(int(c), -1) for c in b])
    return float(np.mean(mapped == a))


def normalized_mutual_info(y_true: Any, y_pred: Any) -> float:
    """Normalised MI I(Y; C) / ((H(Y) + H(C))/2), plug-in, via :func:`infometer.mutual_info`.

    Matches scikit-learn's ``normalized_mutual_info_score`` (arithmetic mean); 1.0 when both
    labelings are constant, 0.0 when only one is.
    """
    from infometer.core.api import entropy, mutual_info

    a, b = _labels(y_true, y_pred)
    with warnings.catch_warnings():  # NMI is the plug-in by definition: no bias warnings
        warnings.simplefilter("ignore", InfometerWarning)
        ha = entropy(a, method="plugin").value
        hb = entropy(b, method="plugin").value
        if ha == 0 or hb == 0:
            return 1.0 if ha == hb else 0.0
        i = mutual_info(a, b, method="plugin").value
    return float(i / (0.5 * (ha + hb)))


def expected_calibration_error(proba: Any, y_true: Any, n_bins: int = 15) -> float:
    """ECE = Σ_b (n_b / N)·|accuracy_b − confidence_b| over equal-width confidence bins
    (0, 1/B], ..., ((B−1)/B, 1]; confidence = max P, correct = argmax P == y.

    ``y_true`` are column indices of ``proba`` (for clusters, map them first with
    :func:`hungarian_map`).
    """
    p = _proba(proba)
    y = np.asarray(y_true).ravel()
    if y.size != p.shape[0]:
        raise ValueError(f"y_true has {y.size} labels but proba has {p.shape[0]} rows")
    n_bins = check_int(n_bins, "n_bins", min_value=1)
    conf = p.max(axis=1)
    correct = p.argmax(axis=1) == y
    b = np.clip(np.ceil(conf * n_bins).astype(np.int64) - 1, 0, n_bins - 1)
    s_conf = np.bincount(b, weights=conf, minlength=n_bins)
    s_acc = np.bincount(b, weights=correct.astype(np.float64), minlength=n_bins)
    return float(np.abs(s_acc - s_conf).sum() / y.size)


def make_multiview(
    n: int = 1000,
    n_clusters: int = 5,
    dims: Sequence[int] = (20, 20, 20),
    *,
    separation: float = 2.0,
    noise: Sequence[float] | float = 1.0,
    corrupted: Sequence[int] = (),
    seed: Seed = 0,
) -> tuple[list[np.ndarray], np.ndarray]:
    """A Gaussian mixture seen through several views.

    View m of a sample of cluster c is μ_{m,c} + noise_m·ε with cluster means
    μ_{m,c} ~ N(0, separation²·I); the views listed in ``corrupted`` are replaced by pure
    N(0, I) noise (no information about the cluster).

    Parameters
    ----------
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).

    Returns
    -------
    (views, labels)
    """
    n = check_int(n, "n", min_value=2)
    c = check_int(n_clusters, "n_clusters", min_value=2)
    rng = as_generator(seed)
    y = rng.integers(0, c, size=n)
    noises = [float(noise)] * len(dims) if np.isscalar(noise) else list(noise)
    if len(noises) != len(dims):
        raise ValueError("noise needs one value per view")
    views = []
    for m, d in enumerate(dims):
        mu = rng.normal(0.0, separation, size=(c, d))
        x = mu[y] + noises[m] * rng.normal(size=(n, d))
        if m in corrupted:
            x = rng.normal(size=(n, d))
        views.append(x)
    return views, y


# ================================================================== model
def _nce(torch, a, b, tau):
    """Symmetric InfoNCE loss (nats) of paired rows; log B − loss lower-bounds the MI."""
    f = torch.nn.functional
    s = f.normalize(a, dim=1) @ f.normalize(b, dim=1).T / tau
    t = torch.arange(a.shape[0])
    return 0.5 * (f.cross_entropy(s, t) + f.cross_entropy(s.T, t))


def _build(torch, dims, latent, hidden, n_clusters):
    nn = torch.nn

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.enc = nn.ModuleList(
                nn.Sequential(
                    nn.Linear(d, hidden),
                    nn.ReLU(),
                    nn.Linear(hidden, hidden),
                    nn.ReLU(),
                    nn.Linear(hidden, 2 * latent),
                )
                for d in dims
            )
            self.fusion = nn.Parameter(torch.zeros(len(dims)))
            self.head = nn.Sequential(
                nn.Linear(latent, hidden), nn.ReLU(), nn.Linear(hidden, n_clusters)
            )
            self.cal = nn.ModuleList(
                nn.Sequential(nn.Linear(latent, hidden), nn.ReLU(), nn.Linear(hidden, n_clusters))
                for _ in dims
            )

        def encode(self, xs, sample: bool):
            hs, kls = [], []
            for enc, x in zip(self.enc, xs, strict=True):
                mu, logvar = enc(x).chunk(2, dim=1)
                logvar = logvar.clamp(-8.0, 8.0)
                h = mu + torch.randn_like(mu) * (0.5 * logvar).exp() if sample else mu
                kls.append(0.5 * (mu.pow(2) + logvar.exp() - 1.0 - logvar).sum(1).mean())
                hs.append(h)
            w = torch.softmax(self.fusion, 0)
            hf = sum(wi * h for wi, h in zip(w, hs, strict=True))
            return hs, hf, kls

    return Net()


class CLIB:
    """Calibrated information-bottleneck multi-view clustering (extra ``torch``).

    Parameters
    ----------
    n_clusters
        Number of clusters C.
    ablation
        ``"ib_head"``, ``"re"``, ``"calibration"`` or ``"full"`` (see the module docs).
    latent, hidden
        Width of each view's bottleneck and of the MLPs.
    beta
        Weight β of the prediction terms Σ I(H_m; H_f).
    alpha
        Weight α of the calibration losses.
    compression
        Weight λ of the compression terms Σ KL (the paper weighs them 1 against MI
        estimates of unknown scale; 1e-2 keeps a 32-d bottleneck from collapsing here).
    temperature
        InfoNCE temperature.
    warmup_epochs, epochs
        IB-only epochs, then epochs with the clustering losses.
    batch_size, lr
        Adam schedule.
    seed
        Seed of initialisation, batches, noise and k-means. An int >= 0 (the same int gives the same
        numbers), a numpy.random.Generator (drawn from as it is) or None (fresh entropy from the
        operating system).
    progress
        Show a progress bar.
    """

    def __init__(
        self,
        n_clusters: int,
        *,
        ablation: str = "full",
        latent: int = 32,
        hidden: int = 64,
        beta: float = 0.5,
        alpha: float = 0.5,
        compression: float = 1e-2,
        temperature: float = 0.5,
        warmup_epochs: int = 100,
        epochs: int = 100,
        batch_size: int = 128,
        lr: float = 3e-3,
        seed: Seed = 0,
        progress: bool | None = None,
    ) -> None:
        self.n_clusters = check_int(n_clusters, "n_clusters", min_value=2)
        self.ablation = check_choice(ablation, "ablation", ABLATIONS)
        self.latent = check_int(latent, "latent", min_value=1)
        self.hidden = check_int(hidden, "hidden", min_value=1)
        self.beta = check_float(beta, "beta", low=0.0)
        self.alpha = check_float(alpha, "alpha", low=0.0)
        self.compression = check_float(compression, "compression", low=0.0)
        self.temperature = check_float(temperature, "temperature", low=0.0, inclusive=(False, True))
        self.warmup_epochs = check_int(warmup_epochs, "warmup_epochs", min_value=0)
        self.epochs = check_int(epochs, "epochs", min_value=1)
        self.batch_size = check_int(batch_size, "batch_size", min_value=2)
        self.lr = check_float(lr, "lr", low=0.0, inclusive=(False, True))
        self.seed = resolve_seed(seed)
        self.progress = check_progress(progress)
        self.net: Any = None
        self.history: list[dict[str, float]] = []

    # ------------------------------------------------------------ data
    def _views(self, views: Sequence[Any]) -> list[np.ndarray]:
        if isinstance(views, np.ndarray) or not isinstance(views, Sequence) or len(views) < 2:
            raise TypeError("views must be a list of at least two (N, d_m) arrays")
        vs = [as_float_matrix(v, f"views[{m}]") for m, v in enumerate(views)]
        n = {v.shape[0] for v in vs}
        if len(n) != 1:
            raise ValueError(f"views must have the same number of rows, got {sorted(n)}")
        if self.net is not None:
            want = [e[0].in_features for e in self.net.enc]
            got = [v.shape[1] for v in vs]
            if got != want:
                raise ValueError(f"views have dims {got} but the model was fitted on {want}")
        return vs

    def _standardise(self, vs: list[np.ndarray], fit: bool) -> list[np.ndarray]:
        if fit:
            self._mu = [v.mean(0) for v in vs]
            self._sd = [np.where(v.std(0) > 0, v.std(0), 1.0) for v in vs]
        return [(v - m) / s for v, m, s in zip(vs, self._mu, self._sd, strict=True)]

    # ------------------------------------------------------------- fit
    def fit(self, views: Sequence[Any]) -> CLIB:
        """Train on the views (rows are samples; views are paired by row)."""
        import torch
        from sklearn.cluster import KMeans

        vs = self._views(views)
        xs_np = self._standardise(vs, fit=True)
        n = xs_np[0].shape[0]
        if n < self.n_clusters:
            raise ValueError(f"{n} samples cannot form {self.n_clusters} clusters")
        torch.manual_seed(self.seed)
        gen = torch.Generator().manual_seed(self.seed)
        xs = [torch.as_tensor(x, dtype=torch.float32) for x in xs_np]
        net = _build(torch, [x.shape[1] for x in xs], self.latent, self.hidden, self.n_clusters)
        self.net = net
        opt, _ = optimizer(net.parameters(), lr=self.lr)
        f = torch.nn.functional
        c = self.n_clusters
        lad = ABLATIONS.index(self.ablation)
        lab: dict[str, Any] = {"centres": None}  # the current epoch's clustering targets

        def recluster(epoch: int) -> dict[str, float]:
            lab["on"] = epoch >= self.warmup_epochs
            if lab["on"]:
                net.eval()
                with torch.no_grad():
                    hs, hf, _ = net.encode(xs, sample=False)
                    hf_np = hf.double().numpy()
                    centres = lab["centres"]
                    km = KMeans(
                        c,
                        init="k-means++" if centres is None else centres,
                        n_init=10 if centres is None else 1,
                        random_state=self.seed,
                    ).fit(hf_np)
                    lab["centres"] = km.cluster_centers_
                    km_lab = torch.as_tensor(km.labels_, dtype=torch.long)
                    p_clu = torch.softmax(net.head(hf), 1)
                    lab["qhat"] = torch.stack(
                        [
                            p_clu[km_lab == k].mean(0)
                            if bool((km_lab == k).any())
                            else torch.full((c,), 1.0 / c)
                            for k in range(c)
                        ]
                    )
                    pseudo, keep = [], []
                    for m, h in enumerate(hs):
                        pc = torch.softmax(net.cal[m](h), 1).double().numpy()
                        if lad >= 3:
                            idx, labels, _ = select_pseudo_labels(pc)
                        else:
                            idx, labels = np.arange(n), pc.argmax(1)
                        mask = np.zeros(n, dtype=bool)
                        mask[idx] = True
                        full = np.zeros(n, dtype=np.int64)
                        full[idx] = labels
                        pseudo.append(torch.as_tensor(full))
                        keep.append(torch.as_tensor(mask))
                    lab.update(km=km_lab, pseudo=pseudo, keep=keep)
            net.train()
            return {}

        def epoch_batches(_epoch: int):
            perm = torch.randperm(n, generator=gen)
            for s in range(0, n, self.batch_size):
                yield perm[s : s + self.batch_size]

        def batch_loss(bi):
            if bi.numel() < 2:
                return None
            hs, hf, kls = net.encode([x[bi] for x in xs], sample=True)
            l_comp = sum(kls)
            l_align = sum(
                _nce(torch, hs[i], hs[j], self.temperature)
                for i in range(len(hs))
                for j in range(i + 1, len(hs))
            )
            l_pred = sum(_nce(torch, h, hf, self.temperature) for h in hs)
            loss = self.compression * l_comp + l_align + self.beta * l_pred
            parts = {"kl": l_comp.item(), "align": l_align.item(), "pred": l_pred.item()}
            if lab["on"]:
                km_lab, qhat = lab["km"], lab["qhat"]
                logp = f.log_softmax(net.head(hf), 1)
                # every rung: the head learns the (warm-started) k-means labels,
                # which anchor its label space
                l_cal = f.nll_loss(logp, km_lab[bi])
                if lad >= 1:  # + L_re on the clustering head's mean prediction
                    pbar = logp.exp().mean(0)
                    l_cal = l_cal + (pbar * pbar.clamp_min(1e-12).log()).sum()
                if lad >= 2:  # + calibration heads (L_caliH, L_re, L_cluH, L_con)
                    target = qhat[km_lab[bi]]
                    terms = []
                    for m, h in enumerate(hs):
                        lpc = f.log_softmax(net.cal[m](h.detach()), 1)  # stop-gradient
                        l_cali = -(target * lpc).sum(1).mean()
                        pbar_c = lpc.exp().mean(0)
                        l_re = (pbar_c * pbar_c.clamp_min(1e-12).log()).sum()
                        l_con = (lpc.exp() * (lpc - logp)).sum(1).mean()
                        sel = lab["keep"][m][bi]  # all samples, or the selected ones (full)
                        l_clu = (
                            f.nll_loss(logp[sel], lab["pseudo"][m][bi][sel])
                            if bool(sel.any())
                            else torch.zeros(())
                        )
                        terms.append(l_cali + l_re + l_clu + l_con)
                    l_cal = l_cal + sum(terms) / len(terms)
                loss = loss + self.alpha * l_cal
                parts["cal"] = l_cal.item()
            return loss, parts

        self.history = run_epochs(
            opt,
            self.warmup_epochs + self.epochs,
            epoch_batches,
            batch_loss,
            before_epoch=recluster,
            desc="CLIB",
            progress=self.progress,
        )
        net.eval()
        return self

    # ----------------------------------------------------------- query
    def _check_fitted(self) -> None:
        if self.net is None:
            raise RuntimeError("call fit(views) first")

    def _forward(self, views: Sequence[Any]):
        import torch

        self._check_fitted()
        xs = self._standardise(self._views(views), fit=False)
        with torch.no_grad():
            ts = [torch.as_tensor(x, dtype=torch.float32) for x in xs]
            hs, hf, _ = self.net.encode(ts, sample=False)
            p = torch.softmax(self.net.head(hf), 1).double().numpy()
            pc = [torch.softmax(self.net.cal[m](h), 1).double().numpy() for m, h in enumerate(hs)]
        return p / p.sum(1, keepdims=True), [q / q.sum(1, keepdims=True) for q in pc]

    def predict_proba(self, views: Sequence[Any]) -> np.ndarray:
        """(N, C) cluster probabilities of the clustering head."""
        return self._forward(views)[0]

    def predict(self, views: Sequence[Any]) -> np.ndarray:
        """Cluster index of each sample."""
        return self.predict_proba(views).argmax(axis=1)

    def view_proba(self, views: Sequence[Any]) -> list[np.ndarray]:
        """Each view's calibration-head probabilities (untrained before the clustering phase
        in the ``ib_head`` and ``re`` ablations)."""
        return self._forward(views)[1]

    def selection_counts(self, views: Sequence[Any]) -> list[int]:
        """K_m = ⌊Σ_i S(p_cal_{i,m})⌋ for each view."""
        return [select_pseudo_labels(q)[2] for q in self.view_proba(views)]

    @property
    def fusion_weights(self) -> np.ndarray:
        """The learnt view weights w_m of H_f."""
        import torch

        self._check_fitted()
        with torch.no_grad():
            return torch.softmax(self.net.fusion, 0).double().numpy()

    def evaluate(self, views: Sequence[Any], y_true: Any, n_bins: int = 15) -> dict[str, float]:
        """ACC (Hungarian), NMI and ECE (after mapping clusters to classes) of the head."""
        p = self.predict_proba(views)
        pred = p.argmax(1)
        y = np.asarray(y_true).ravel()
        _, ycodes = np.unique(y, return_inverse=True)
        # ECE needs the cluster columns in class order: permute them by the Hungarian map
        cmap = hungarian_map(ycodes, pred)
        k = max(p.shape[1], int(ycodes.max()) + 1)
        free = iter(j for j in range(k) if j not in set(cmap.values()))
        pp = np.zeros((p.shape[0], k))
        for cl in range(p.shape[1]):
            pp[:, cmap[cl] if cl in cmap else next(free)] = p[:, cl]
        return {
            "acc": cluster_accuracy(ycodes, pred),
            "nmi": normalized_mutual_info(ycodes, pred),
            "ece": expected_calibration_error(pp, ycodes, n_bins),
        }


# deprecated name (issue 29: public names spell quantities in full words), for one release
nmi = deprecated_alias(normalized_mutual_info, "nmi")
