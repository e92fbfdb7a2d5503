"""``infometer bench`` with one extra estimator, ``crash_in_worker``, whose every run kills
the worker process running it (as a segfault or the OOM killer would); in the planning
process it returns 0, so the sweep plans it.  Used by test_kill.py as a script:
``python crashing_bench.py bench --out DIR -e plugin,crash_in_worker ...``.  Spawned workers
re-import this script, so they know the estimator too.
"""

import multiprocessing
import os

from infometer.core import registry
from infometer.core.registry import Raw


@registry.register(
    "crash_in_worker", "mutual_info", kinds=["discrete"], family="test", resampling="none"
)
def _crash_in_worker(x, y) -> Raw:
    """Kills its worker process; returns 0 in the planning process."""
    if multiprocessing.parent_process() is not None:
        os._exit(9)
    return Raw(0.0)


if __name__ == "__main__":
    from infometer.cli.bench import _standalone

    _standalone()()
