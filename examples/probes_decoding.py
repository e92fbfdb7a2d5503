"""Decodability to bits: a simulated reader whose dwell times carry the reading goal.

Each trial is a paragraph read with one of three questions in mind.  Questions 0 and 1
share a critical span (words 10-19), question 2 has another (words 35-44); the reader
dwells longer (log-normal durations, +delta on the log scale) on the span of the true
question.  A logistic-regression decoder reads the mean log-dwell on each span
(5-fold cross-validated probabilities) and its output is turned into bits:

* 1-of-3: at most log2 3 - 2/3 = 0.918 bits are decodable, since the two same-span
  questions are indistinguishable by dwell;
* different-span pair (1-of-2): informative;
* same-span pair (1-of-2): the two candidates have identical dwell features, the decoder
  outputs exactly 0.5, and the cross-entropy bound is exactly 0 bits (p = 1 in the
  permutation test).

The paper's own accuracies (RoBERTEye-Fixations: 49.3 %, 70.9 %, 57.3 %) are converted
by the Fano bound.  Writes ``decoding_bits.png``.

    python examples/probes_decoding.py [OUT_DIR]
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_val_predict

from infometer.core.plot import _pyplot
from infometer.systems.probes import decoding

SPAN = {0: slice(10, 20), 1: slice(10, 20), 2: slice(35, 45)}


def simulate(n_trials: int, delta: float, rng: np.random.Generator):
    goal = rng.integers(0, 3, size=n_trials)
    logd = rng.normal(np.log(200.0), 0.4, size=(n_trials, 60))
    for q in range(3):
        rows = goal == q
        logd[rows, SPAN[q]] += delta
    centred = logd - logd.mean(axis=1, keepdims=True)
    feat = {q: centred[:, SPAN[q]].mean(axis=1) for q in range(3)}
    return goal, feat


def pair_task(goal, feat, a: int, b: int, rng):
    """Trials whose goal is a or b; two candidates in random order; label = which is true."""
    rows = np.flatnonzero((goal == a) | (goal == b))
    flip = rng.integers(0, 2, size=rows.size).astype(bool)
    first = np.where(flip, b, a)
    second = np.where(flip, a, b)
    x = np.array([feat[f][r] - feat[s][r] for r, f, s in zip(rows, first, second, strict=True)])
    y = (goal[rows] == second).astype(int)
    return x[:, None], y


def bounds(name, proba, y, k, out):
    ce = decoding.cross_entropy_bound(
        proba, y, priors=np.full(k, 1 / k), ci=0.95, seed=0, unit="bits"
    )
    pred = proba.argmax(axis=1)
    fano = decoding.fano_from_predictions(y, pred, k=k, unit="bits", ci=0.95)
    test = decoding.permutation_test(
        y, proba=proba, priors=np.full(k, 1 / k), n_permutations=999, seed=0, unit="bits"
    )
    out.append(
        {
            "setting": name,
            "k": k,
            "n": y.size,
            "accuracy": ce.diagnostics["accuracy"],
            "ce_bits": ce.value,
            "ce_lo": ce.ci[0],
            "ce_hi": ce.ci[1],
            "fano_bits": fano.value,
            "fano_lo": fano.ci[0],
            "fano_hi": fano.ci[1],
            "perm_p": test.p_value,
        }
    )


def main(out_dir: Path) -> pd.DataFrame:
    out_dir.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    goal, feat = simulate(3000, delta=0.15, rng=rng)
    rows: list[dict] = []
    lr = LogisticRegression(C=1.0)
    x3 = np.column_stack([feat[0], feat[2]])
    p3 = cross_val_predict(lr, x3, goal, cv=5, method="predict_proba")
    bounds("1-of-3", p3, goal, 3, rows)
    lr0 = LogisticRegression(fit_intercept=False)  # symmetric in the candidate order
    for name, (a, b) in (("different span", (0, 2)), ("same span", (0, 1))):
        x, y = pair_task(goal, feat, a, b, rng)
        p = cross_val_predict(lr0, x, y, cv=5, method="predict_proba")
        bounds(name, p, y, 2, rows)
    table = pd.DataFrame(rows)
    paper = [("1-of-3", 0.493, 3), ("different span", 0.709, 2), ("same span", 0.573, 2)]
    table["paper_acc"] = [a for _, a, _ in paper]
    table["paper_fano_bits"] = [decoding.fano_bound(a, k, unit="bits").value for _, a, k in paper]
    pd.set_option("display.width", 160)
    print(table.round(4).to_string(index=False))

    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7.5, 3.6), dpi=110)
    xs = np.arange(len(table))
    w = 0.27
    for off, col, lo, hi, label, colour in (
        (-w, "ce_bits", "ce_lo", "ce_hi", "simulated reader: H(Y) − CE", "#3b75af"),
        (0.0, "fano_bits", "fano_lo", "fano_hi", "simulated reader: Fano", "#8fbbd9"),
    ):
        v = table[col].to_numpy()
        err = [v - table[lo].to_numpy(), table[hi].to_numpy() - v]
        ax.bar(xs + off, v, w, yerr=np.maximum(err, 0), capsize=3, label=label, color=colour)
    ax.bar(xs + w, table["paper_fano_bits"], w, label="paper's accuracy: Fano", color="#e8a33d")
    ax.set_xticks(xs, table["setting"])
    ax.set_ylabel("lower bound on I(dwell; goal) [bits]")
    ax.axhline(0, color="black", lw=0.6)
    ax.legend(fontsize=8)
    ax.set_title("Decodability of the reading goal (error bars: 95% CI)", fontsize=10)
    fig.tight_layout()
    fig.savefig(out_dir / "decoding_bits.png")
    plt.close(fig)
    return table


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("examples-out"))
