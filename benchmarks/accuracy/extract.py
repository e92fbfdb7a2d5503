"""Information extraction, measured: the full-size runs behind benchmarks/results/extract.md.

    PYTHONPATH=src OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/accuracy/extract.py \
        --out /tmp/extract-full [--render chromium]

Runs SCRIBES (3 seeds x 15 train / 15 test groups of 5 pages, 600 GRPO steps), LiteCoST
(3 seeds x 12 train / 12 test filings, 96 test items per system and seed), LiveWeb-IE/VGS
(5 groups x 4 pages, 15 queries, 6 versions) and the bridge, resumable (one JSON per part),
then prints the tables that go into the results page and records the load and the machine.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time

from infometer.systems.extract.bench import PARTS, run


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="/tmp/extract-full")
    ap.add_argument("--parts", default=",".join(PARTS))
    ap.add_argument("--size", default="full")
    ap.add_argument("--render", default="html")
    ap.add_argument("--similarity", default="lexical")
    a = ap.parse_args()
    load0 = os.getloadavg()
    t0 = time.time()
    res = run(
        a.out,
        parts=a.parts.split(","),
        size=a.size,
        render=a.render,
        similarity=a.similarity,
        progress=False,
    )
    meta = {
        "loadavg_start": load0,
        "loadavg_end": os.getloadavg(),
        "wall_s": time.time() - t0,
        "machine": f"{platform.machine()} {os.cpu_count()} CPUs, {platform.python_version()}",
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    }
    print(json.dumps(meta))
    for p, r in res.items():
        print(p, json.dumps(r["result"])[:4000])


if __name__ == "__main__":
    main()
