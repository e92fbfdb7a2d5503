"""The two CPU-sized tasks of the FleS demo, and the one classifier-training call.

* :func:`digits_patches`: scikit-learn's bundled 8×8 digits (offline) as 16 tokens of 2×2
  patches (4 features, scaled to [0, 1]), 10 classes;
* :func:`context_task`: a synthetic sequence task whose label lies in the *context*: token
  0 is a noisy copy of one of ``k`` prototypes (the query); the label says whether that
  prototype also occurs among the other tokens (each a noisy copy of a prototype).  No
  single token carries the label; the model has to compare the query with the rest.
* :func:`train_classifier`: AdamW, cross-entropy, minibatches through
  :func:`infometer.core.training.run_epochs`; :func:`accuracy`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from infometer.core._torch import check_module
from infometer.core.data import check_float, check_int
from infometer.core.seeding import Seed, as_generator, resolve_seed
from infometer.core.training import optimizer, run_epochs
from infometer.core.validation import check_memory

__all__ = ["digits_patches", "context_task", "split", "train_classifier", "accuracy"]


def digits_patches() -> tuple[np.ndarray, np.ndarray]:
    """Digits as ``(1797, 16, 4)`` float32 tokens (2×2 patches, row-major) and labels.

    Examples
    --------
    >>> x, y = digits_patches()
    >>> x.shape, int(y.max())
    ((1797, 16, 4), 9)
    """
    from sklearn.datasets import load_digits

    d = load_digits()
    img = d.images.astype(np.float32) / 16.0  # (n, 8, 8), pixel values 0..16
    n = img.shape[0]
    patches = img.reshape(n, 4, 2, 4, 2).transpose(0, 1, 3, 2, 4).reshape(n, 16, 4)
    return patches, d.target.astype(np.int64)


def context_task(
    n: int, *, n_tokens: int = 16, d: int = 4, k: int = 6, noise: float = 0.25, seed: Seed = 0
) -> tuple[np.ndarray, np.ndarray]:
    """``n`` sequences of ``n_tokens`` noisy prototypes; label 1 iff the query recurs.

    Parameters
    ----------
    n
        Number of sequences (labels balanced in expectation).
    n_tokens, d
        Tokens per sequence and features per token.
    k
        Number of prototypes (random unit vectors scaled to norm 2, drawn from ``seed``).
    noise
        Standard deviation of the Gaussian noise on every token.
    seed
        Seed of prototypes, sequences and noise. An int >= 0 (the same int gives the same numbers),
        a numpy.random.Generator (drawn from as it is) or None (fresh entropy from the operating
        system).

    Examples
    --------
    >>> x, y = context_task(100, seed=0)
    >>> x.shape, sorted(set(y.tolist()))
    ((100, 16, 4), [0, 1])
    """
    n = check_int(n, "n", min_value=1)
    n_tokens = check_int(n_tokens, "n_tokens", min_value=2)
    d = check_int(d, "d", min_value=1)
    k = check_int(k, "k", min_value=2)
    noise = check_float(noise, "noise", low=0.0)
    check_memory(  # the float64 tokens, their noise and the float32 copy returned
        20.0 * n * n_tokens * d,
        what=f"{n} sequences of {n_tokens} tokens x {d} features",
        name="n",
        override="fewer sequences, tokens or features",
    )
    rng = as_generator(seed)
    protos = rng.normal(size=(k, d))
    protos *= 2.0 / np.linalg.norm(protos, axis=1, keepdims=True)
    q = rng.integers(0, k, n)
    y = rng.integers(0, 2, n)
    ids = np.empty((n, n_tokens), dtype=np.int64)
    ids[:, 0] = q
    # context: prototypes other than the query...
    other = rng.integers(0, k - 1, (n, n_tokens - 1))
    ids[:, 1:] = other + (other >= q[:, None])
    # ...and, for label 1, the query once at a random context position
    pos = rng.integers(1, n_tokens, n)
    rows = np.flatnonzero(y == 1)
    ids[rows, pos[rows]] = q[rows]
    x = protos[ids] + noise * rng.normal(size=(n, n_tokens, d))
    return x.astype(np.float32), y.astype(np.int64)


def split(
    x: np.ndarray, y: np.ndarray, *, test_fraction: float = 0.3, seed: Seed = 0
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A seeded random train / test split ``(x_train, y_train, x_test, y_test)``.

    Parameters
    ----------
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).

    Examples
    --------
    >>> x, y = context_task(10)
    >>> [a.shape[0] for a in split(x, y, test_fraction=0.3)]
    [7, 7, 3, 3]
    """
    test_fraction = check_float(
        test_fraction, "test_fraction", low=0.0, high=1.0, inclusive=(False, False)
    )
    n = len(y)
    perm = as_generator(seed).permutation(n)
    n_test = max(1, int(round(test_fraction * n)))
    te, tr = perm[:n_test], perm[n_test:]
    return x[tr], y[tr], x[te], y[te]


def train_classifier(
    model: Any,
    x: np.ndarray,
    y: np.ndarray,
    *,
    epochs: int = 20,
    batch_size: int = 64,
    lr: float = 3e-3,
    weight_decay: float = 0.01,
    seed: Seed = 0,
    progress: bool | None = None,
) -> list[dict[str, float]]:
    """Train ``model`` (logits out) on ``(x, y)`` with cross-entropy; return the epoch log.

    AdamW with a cosine learning-rate decay, gradient-norm clipping at 1, shuffled
    minibatches of ``batch_size`` drawn from ``seed`` (a last partial batch is kept), all
    through :func:`infometer.core.training.run_epochs`.  The model ends in evaluation mode.

    Parameters
    ----------
    seed
        An int >= 0 (the same int gives the same numbers), a numpy.random.Generator (drawn from as
        it is) or None (fresh entropy from the operating system).

    Examples
    --------
    >>> from infometer.systems.models.activations._nets import PatchTransformer
    >>> x, y = context_task(64)
    >>> net = PatchTransformer(4, 16, 2, d_model=8, seed=0)
    >>> log = train_classifier(net, x, y, epochs=1)
    >>> sorted(log[0])
    ['accuracy', 'loss']
    """
    import torch
    import torch.nn.functional as F

    check_module(model)
    epochs = check_int(epochs, "epochs", min_value=1)
    batch_size = check_int(batch_size, "batch_size", min_value=1)
    lr = check_float(lr, "lr", low=0.0, inclusive=(False, True))
    xt = torch.as_tensor(np.asarray(x, dtype=np.float32))
    yt = torch.as_tensor(np.asarray(y, dtype=np.int64))
    if xt.shape[0] != yt.shape[0]:
        raise ValueError(f"x has {xt.shape[0]} rows but y has {yt.shape[0]}")
    n = xt.shape[0]
    gen = torch.Generator().manual_seed(resolve_seed(seed))
    steps = epochs * -(-n // batch_size)
    opt, sched = optimizer(
        model.parameters(),
        lr=lr,
        weight_decay=weight_decay,
        cosine_steps=steps,
        decoupled=True,
        min_lr=0.05 * lr,
    )

    def batches(_epoch: int):
        perm = torch.randperm(n, generator=gen)
        for i in range(0, n, batch_size):
            yield perm[i : i + batch_size]

    def batch_loss(idx: Any):
        logits = model(xt[idx])
        loss = F.cross_entropy(logits, yt[idx])
        acc = float((logits.argmax(1) == yt[idx]).float().mean())
        return loss, {"loss": float(loss.detach()), "accuracy": acc}

    model.train()
    log = run_epochs(
        opt,
        epochs,
        batches,
        batch_loss,
        scheduler=sched,
        grad_clip=1.0,
        keys=("loss", "accuracy"),
        desc="train",
        progress=progress,
    )
    model.eval()
    return log


def accuracy(model: Any, x: np.ndarray, y: np.ndarray, *, batch_size: int = 512) -> float:
    """Fraction of correct argmax predictions in evaluation mode (no gradients).

    Examples
    --------
    >>> import torch
    >>> from infometer.systems.models.activations._nets import PatchTransformer
    >>> x, y = context_task(20)
    >>> 0.0 <= accuracy(PatchTransformer(4, 16, 2, d_model=8), x, y) <= 1.0
    True
    """
    import torch

    xt = torch.as_tensor(np.asarray(x, dtype=np.float32))
    yt = np.asarray(y)
    was = model.training
    model.eval()
    with torch.no_grad():
        pred = np.concatenate(
            [model(xt[i : i + batch_size]).argmax(1).numpy() for i in range(0, len(yt), batch_size)]
        )
    model.train(was)
    return float((pred == yt).mean())
