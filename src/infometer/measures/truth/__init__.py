"""Ground truth: samplers whose information quantities are known exactly.

>>> from infometer.measures import truth
>>> t = truth.get_task("symchannel-5pairs-V4-1nat")
>>> round(t.truth, 6)
5.0
>>> t.sample(3, seed=0)["x"].shape
(3, 5)
"""

from . import ising
from .base import TASKS, Task, get_task, register_task, tasks

__all__ = ["Task", "TASKS", "get_task", "register_task", "tasks", "ising"]
