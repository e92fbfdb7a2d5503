"""Shared start and finish of the model examples (command line, plotting backend, results)."""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any


def start(doc: str, add_args: Callable[[argparse.ArgumentParser], None] | None = None):
    """Parse ``OUT_DIR [--quick] [--threads N] ...``, select the Agg backend, set torch threads.

    Returns ``(args, plt, out_dir, t0)``.
    """
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("out", nargs="?", default=None, help="folder for PNGs and JSON")
    ap.add_argument("--out", dest="out_option", default=None, help="the same, as an option")
    ap.add_argument("--quick", action="store_true", help="tiny settings (smoke test)")
    ap.add_argument(
        "--threads",
        type=int,
        default=1,
        help="torch threads (1: these models are small, and two threads thrash on a busy machine)",
    )
    if add_args is not None:
        add_args(ap)
    args = ap.parse_args()
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import torch

    torch.set_num_threads(args.threads)
    out = Path(args.out or args.out_option or "examples-out")
    out.mkdir(parents=True, exist_ok=True)
    return args, plt, out, time.time()


def finish(out: Path, name: str, summary: dict[str, Any], t0: float) -> None:
    """Add wall and CPU seconds and the load average, write ``name`` as JSON, print timing."""
    summary["seconds"] = time.time() - t0
    summary["cpu_seconds"] = time.process_time()
    summary["load"] = os.getloadavg()
    (out / name).write_text(json.dumps(summary, indent=1, ensure_ascii=False))
    print(
        f"{summary['seconds']:.0f} s wall, {summary['cpu_seconds']:.0f} s CPU, "
        f"load {tuple(round(v, 1) for v in summary['load'])}"
    )
