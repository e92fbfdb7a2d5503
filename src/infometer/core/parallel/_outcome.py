"""What a run reports: the progress of each finished job, the outcome, the error naming
what is missing, and the one-line description of an exception."""

from __future__ import annotations

import collections
from collections.abc import Hashable
from dataclasses import dataclass, field

#: What an interrupted run says (the CLI prints it as its one line, exit status 130).
INTERRUPTED = "interrupted; run again to resume"


@dataclass(frozen=True)
class Progress:
    """Passed to the ``progress`` callback after each job that finished in this call."""

    done: int  #: jobs finished in this call (results and errors)
    total: int  #: jobs this call set out to run (planned minus already held)
    key: Hashable  #: the job that just finished
    ok: bool  #: False when ``func`` raised for it
    retried: int  #: resubmissions so far after lost workers


@dataclass
class Outcome:
    """What :func:`run_jobs` did, and what the sink still lacks."""

    planned: int = 0  #: keys in ``jobs``
    already_done: int = 0  #: held by the sink before this call
    ran: int = 0  #: results handed to the sink by this call
    retried: int = 0  #: resubmissions after a worker died or a result was lost
    interrupted: bool = False  #: stopped by Ctrl-C
    #: keys for which ``func`` raised -> ``"TypeName: message"``
    errors: dict[Hashable, str] = field(default_factory=dict)
    #: planned keys the sink does not hold at the end -> why
    missing: dict[Hashable, str] = field(default_factory=dict)

    @property
    def complete(self) -> bool:
        """The sink holds every planned key."""
        return not self.missing

    def describe(self, limit: int = 5) -> str:
        """One paragraph: how many planned results are missing, why, and the first few."""
        if not self.missing:
            return f"all {self.planned} planned results are stored"
        why = collections.Counter(r.split(":")[0] for r in self.missing.values())
        reasons = ", ".join(f"{n} {w}" for w, n in why.most_common())
        first = "; ".join(f"{k!r}: {r}" for k, r in list(self.missing.items())[:limit])
        more = f" (and {len(self.missing) - limit} more)" if len(self.missing) > limit else ""
        return (
            f"{len(self.missing)} of {self.planned} planned results are missing "
            f"({reasons}); first: {first}{more}"
        )

    def raise_if_incomplete(self) -> None:
        """Raise :class:`IncompleteRun` when any planned result is missing, or
        ``KeyboardInterrupt`` when Ctrl-C stopped the run (what Ctrl-C raises in Python;
        finished results are in the sink, so a store resumes from them)."""
        if self.missing and self.interrupted:
            raise KeyboardInterrupt(INTERRUPTED)
        if self.missing:
            raise IncompleteRun(self)


class IncompleteRun(RuntimeError):
    """Some planned results are missing; ``.outcome`` says which and why."""

    def __init__(self, outcome: Outcome) -> None:
        super().__init__(outcome.describe())
        self.outcome = outcome


def describe_error(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"[:2000]
