"""Information of channels: capacity (Blahut–Arimoto), rate–distortion, the information
bottleneck, and capacity estimated from (input, output) samples.

The exact functions take pmfs and matrices and are also
``infometer.measures.exact.channel_capacity``,
``infometer.measures.exact.rate_distortion``, ``rate_distortion_curve``,
``information_bottleneck`` and ``ib_curve``.
"""

from __future__ import annotations

from .bottleneck import IBCurve, InformationBottleneck, ib_curve, information_bottleneck
from .capacity import ChannelCapacity, channel_capacity
from .rate_distortion import (
    RateDistortionCurve,
    RateDistortionPoint,
    rate_distortion,
    rate_distortion_curve,
)
from .samples import channel_capacity_from_samples

__all__ = [
    "ChannelCapacity",
    "channel_capacity",
    "RateDistortionPoint",
    "RateDistortionCurve",
    "rate_distortion",
    "rate_distortion_curve",
    "InformationBottleneck",
    "IBCurve",
    "information_bottleneck",
    "ib_curve",
    "channel_capacity_from_samples",
]
