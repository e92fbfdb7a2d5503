"""When a bound with a ceiling can no longer tell MI values apart (pure Python, no torch).

InfoNCE with ``B`` candidates is at most ``log B``.  With the optimal critic (the density
ratio ``r``) its value is ``E log(B r_1 / (r_1 + sum_{j>=2} r_j))``; for a pair with MI
``I`` the negatives' ratios average 1 and the positive's is about ``e^I``, so

    InfoNCE(I) ≈ log B − log(1 + (B − 1) e^{−I}),     d InfoNCE / d I ≈ 1 − e^{v} / B

at value ``v``.  The slope ``1 − e^{v}/B`` is the bound's *sensitivity*: how many nats the
value moves per nat of MI.  Below one half, a true MI larger by a nat moves the value by
less than half a nat, and (with a finite batch and a trained, not optimal, critic) the
value no longer tells MI values apart.  The rule, for every bound with a ceiling ``c``:

    saturated  ⇔  sensitivity 1 − e^{v − c} < 1/2  ⇔  v > c − log 2.

(The audit's 4-D Gaussian pair, 7.83 nats of MI, gave 5.34 against a ceiling of 5.55:
sensitivity 0.19, flagged.)  See docs/neural.md.
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["SATURATION_GAP", "ceiling_flags"]

#: A value within this many nats of its ceiling is saturated (sensitivity below 1/2).
SATURATION_GAP = math.log(2.0)


def ceiling_flags(value: float, ceiling: float) -> dict[str, Any]:
    """``{"ceiling", "sensitivity", "saturated"}`` for a bound ``value`` under ``ceiling``
    (both in nats).

    Examples
    --------
    >>> ceiling_flags(5.34, 5.55)["saturated"]
    True
    >>> round(ceiling_flags(1.0, math.log(256))["sensitivity"], 3)
    0.989
    """
    gap = ceiling - value
    sens = -math.expm1(-gap) if math.isfinite(gap) else math.nan
    return {
        "ceiling": float(ceiling),
        "sensitivity": float(sens),
        "saturated": bool(math.isfinite(value) and gap < SATURATION_GAP),
    }
