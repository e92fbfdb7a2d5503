"""``infometer bench``: run estimators on ground-truth tasks, store and report the results.

>>> from infometer.workflows.bench import plan, suite_tasks
>>> jobs, skipped = plan(suite_tasks("quick")[:1], ["plugin"], [100], [0])
>>> len(jobs), skipped[0][1]
(0, 'plugin')
"""

from .runner import Job, SweepResult, applicable, plan, run_job, run_sweep
from .store import Store
from .suites import SUITES, Suite, suite_tasks

__all__ = [
    "Job",
    "SweepResult",
    "applicable",
    "plan",
    "run_job",
    "run_sweep",
    "Store",
    "SUITES",
    "Suite",
    "suite_tasks",
]
