"""Bayesian persuasion: the sender's value v_hat(mu), its concave envelope, the optimal split.

    PYTHONPATH=src python examples/persuasion_concavification.py [OUT_DIR]

Left: the prosecutor and the judge (prior P(guilty) = 0.3; the judge convicts iff
P(guilty) >= 1/2): v_hat is a step, cav v_hat = min(1, 2 mu), the optimal signal splits the
prior into posteriors 0 and 1/2 and is worth 0.6.  Right: a receiver with three actions and a
sender who likes the middle one, where the optimal split is between two interior posteriors.
Also trains the policy-gradient sender (torch) and prints its fraction of the LP value.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from infometer.core.plot import _pyplot
from infometer.systems.decision.multiturn import evaluate_multiturn, train_sender
from infometer.systems.decision.persuasion import concave_envelope, persuade

PROBLEMS = {
    "prosecutor and judge": (
        0.3,
        np.array([[1.0, 0.0], [0.0, 1.0]]),  # judge: acquit, convict
        np.array([[0.0, 0.0], [1.0, 1.0]]),  # prosecutor wants conviction
    ),
    "three actions, sender likes the middle": (
        0.15,
        np.array([[1.0, 0.0], [0.7, 0.7], [0.0, 1.0]]),
        np.array([[0.0, 0.2], [1.0, 1.0], [0.3, 0.0]]),
    ),
}


def panel(ax, title, mu0, u, v):
    env = concave_envelope(u, v)
    res = persuade([1 - mu0, mu0], u, v, unit="bits")
    mu = np.linspace(0, 1, 801)
    ax.plot(mu, env.v_hat(mu), lw=1.5, color="#888888", label=r"$\hat v(\mu)$")
    ax.plot(mu, env(mu), lw=2.2, color="#d62728", label=r"cav $\hat v(\mu)$")
    knots, probs = env.posteriors(mu0)
    ax.plot(knots, env(knots), "o", color="#1f77b4", ms=7, label="posteriors of the optimal signal")
    for k, p in zip(knots, probs, strict=True):
        ax.annotate(
            f"P={p:.2f}", (k, env(k)), textcoords="offset points", xytext=(4, 6), fontsize=8
        )
    ax.axvline(mu0, color="black", lw=0.8, ls=":")
    ax.plot([mu0], [res.value.value], "s", color="#d62728")
    ax.set_title(
        f"{title}\nprior {mu0}: value {res.value.value:.3f}, gain {res.gain.value:.3f}, "
        f"I(S;W) {res.signal_mi.value:.3f} bits",
        fontsize=9,
    )
    ax.set_xlabel(r"posterior $\mu$ = P(state 1)")
    ax.set_ylabel("sender's expected utility")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="best")
    return res


def main() -> None:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "examples-out")
    out.mkdir(parents=True, exist_ok=True)
    plt = _pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), dpi=110)
    for ax, (title, (mu0, u, v)) in zip(axes, PROBLEMS.items(), strict=True):
        res = panel(ax, title, mu0, u, v)
        print(f"{title}: {res}")
    fig.tight_layout()
    fig.savefig(out / "persuasion_concavification.png")
    plt.close(fig)

    mu0, u, v = PROBLEMS["prosecutor and judge"]
    prior = [1 - mu0, mu0]
    for turns in (1, 2):
        # several turns have local optima: keep the best of four restarts
        t = train_sender(
            prior, u, v, n_turns=turns, steps=1500, restarts=1 if turns == 1 else 4, unit="bits"
        )
        cmi = ", ".join(f"{e.value:.3f}" for e in t.result.per_turn_cmi)
        print(
            f"policy-gradient sender, {turns} turn(s): value {t.result.value.value:.4f} = "
            f"{t.fraction_of_lp:.3f} of the LP value {t.lp_value:.3f}; "
            f"I(M_t; W | H_t-1) per turn [{cmi}] bits"
        )
    lp = persuade(prior, u, v)
    check = evaluate_multiturn(prior, u, v, [lp.scheme[:, None, :]])
    print(f"the LP scheme sent in one turn is worth {check.value.value:.4f}")
    print(f"wrote {out / 'persuasion_concavification.png'}")


if __name__ == "__main__":
    main()
