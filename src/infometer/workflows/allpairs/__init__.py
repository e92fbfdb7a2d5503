"""All-pairs information: MI / CMI matrices, significance, network inference, feature selection.

``infometer.pairwise(data)`` is :func:`.matrix.pairwise`; ``infometer.aracne``,
``infometer.clr`` and ``infometer.select_features`` come from here too.  The package is
imported only when one of them is used (``import infometer`` stays light).  It is named
``allpairs`` rather than ``pairwise`` so that the function ``infometer.pairwise`` is never
shadowed by a module of the same name.
"""

from .matrix import pairwise
from .network import Network, aracne, clr, plot_heatmap, plot_network
from .result import PairwiseResult
from .select import Selection, select_features

__all__ = [
    "pairwise",
    "PairwiseResult",
    "aracne",
    "clr",
    "Network",
    "plot_heatmap",
    "plot_network",
    "select_features",
    "Selection",
]
