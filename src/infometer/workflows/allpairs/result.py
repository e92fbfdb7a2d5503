""":class:`PairwiseResult`, the result of :func:`infometer.pairwise`, in its own module so
that ``matrix.py`` (which builds it) and ``network.py`` (which reads it) both import it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from infometer.core.estimate import resolve_unit, unit_factor
from infometer.core.plot import close_and_path, deprecated_path_form
from infometer.core.results import Result

from . import _infer, _plots

__all__ = ["PairwiseResult"]


@dataclass(eq=False)
class PairwiseResult(Result):
    """The all-pairs information of a table.

    Attributes
    ----------
    matrix
        Labelled P x P DataFrame of MI (or CMI) in :attr:`unit`; symmetric, NaN on the
        diagonal (a column's information with itself is its entropy, infinite for
        continuous data) and on the rows/columns of dropped columns.
    edges
        Tidy table of the upper triangle, one row per pair: ``x``, ``y``, ``value``,
        ``method`` and, with a permutation test, ``p_value``, ``q_value`` (adjusted by
        :attr:`correction`) and ``significant`` (``q_value <= alpha``).  Sorted by value.
    p_values, q_values
        P x P DataFrames (None without a test).
    diagnostics
        Methods used per kind of pair and why, dropped and constant columns, warnings,
        null schemes, blocks planned/computed/stored, timings, backend.

    Examples
    --------
    >>> import numpy as np, infometer as im
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=(200, 3))
    >>> res = im.pairwise(x, method="copula")
    >>> res.labels, res.unit
    (['0', '1', '2'], 'nats')
    """

    matrix: Any
    edges: Any
    unit: str
    quantity: str
    n: int
    given: list[str] | None = None
    n_permutations: int = 0
    alpha: float | None = None
    correction: str | None = None
    p_values: Any = None
    q_values: Any = None
    diagnostics: dict[str, Any] = field(default_factory=dict)

    @property
    def labels(self) -> list[str]:
        return list(self.matrix.columns)

    @property
    def significant_edges(self) -> Any:
        """The sparse edge list: pairs whose adjusted p-value (``q_value``, by
        :attr:`correction`) is at most :attr:`alpha`."""
        if "significant" not in self.edges:
            raise ValueError(
                "no permutation test was run; pass n_permutations=B (e.g. 199) to pairwise()"
            )
        return self.edges[self.edges["significant"]].reset_index(drop=True)

    def to(self, unit: str) -> PairwiseResult:
        """The same result in another unit (``"bits"``, ``"nats"``, ...)."""
        target = resolve_unit(unit)
        f = unit_factor(self.unit, target)
        edges = self.edges.copy()
        edges["value"] = edges["value"] * f
        return PairwiseResult(
            matrix=self.matrix * f,
            edges=edges,
            unit=target,
            quantity=self.quantity,
            n=self.n,
            given=self.given,
            n_permutations=self.n_permutations,
            alpha=self.alpha,
            correction=self.correction,
            p_values=self.p_values,
            q_values=self.q_values,
            diagnostics=self.diagnostics,
        )

    def _network_weights(self, significant: bool | None) -> tuple[np.ndarray, dict[str, Any]]:
        """The weights ARACNE and CLR start from: the matrix with non-finite values and the
        diagonal at 0 and, when ``significant`` (default: when a permutation test was
        run), the pairs that failed the test at 0."""
        if significant is None:
            significant = self.q_values is not None
        if significant and self.q_values is None:
            raise ValueError(
                "significant=True needs a permutation test: pairwise(..., n_permutations=B)"
            )
        return _infer.weights(self.matrix, self.q_values if significant else None, self.alpha)

    def aracne(self, tolerance: float = 0.0, significant: bool | None = None) -> Any:
        """ARACNE's data-processing-inequality pruning (:func:`.aracne` of this package)."""
        return _infer.aracne_network(self.matrix, *self._network_weights(significant), tolerance)

    def clr(self, threshold: float = 0.0, significant: bool | None = None) -> Any:
        """CLR's background-corrected scores; see :func:`infometer.workflows.allpairs.clr`."""
        weights = self._network_weights(bool(significant))
        return _infer.clr_network(self.matrix, *weights, threshold)

    def heatmap(
        self, ax: Any = None, path: Any = None, *, cluster: bool = True, title: str | None = None
    ) -> Any:
        """Draw :attr:`matrix` as a heatmap, rows and columns in clustered order; with a
        permutation test, a dot marks each pair with ``q_value <= alpha`` (the legend says
        the test); up to 12 variables each cell shows its value.

        Parameters
        ----------
        ax
            Matplotlib axes to draw on (default: a new figure).
        path
            Also save the figure there as a PNG (folder created).
        cluster
            Order rows and columns by average-linkage clustering (else input order).
        title
            Title of the axes.

        Returns
        -------
        matplotlib.axes.Axes
            (The previous release's ``res.heatmap(path)`` still saves there and returns
            the path, with a ``DeprecationWarning``.)

        Examples
        --------
        >>> import numpy as np, infometer as im
        >>> res = im.pairwise(np.random.default_rng(0).normal(size=(200, 3)), method="copula")
        >>> res.heatmap(title="three columns").get_title()
        'three columns'
        """
        ax, path, old = deprecated_path_form(ax, path, "PairwiseResult.heatmap", result=False)
        sig, test = None, None
        if self.q_values is not None:  # mark the pairs the permutation test keeps
            sig = (self.q_values.to_numpy(dtype=float) <= self.alpha) & ~np.eye(
                len(self.labels), dtype=bool
            )
            test = f"{self.correction} q <= {self.alpha:g}, {self.n_permutations} permutations"
        ax = _plots.draw_heatmap(
            self.matrix,
            self.unit,
            ax,
            path,
            cluster=cluster,
            title=title,
            significant=sig,
            test=test,
        )
        return close_and_path(ax, path) if old else ax

    def plot(
        self, ax: Any = None, path: Any = None, *, cluster: bool = True, title: str | None = None
    ) -> Any:
        """The result's figure: :meth:`heatmap` (the same parameters).

        Examples
        --------
        >>> import numpy as np, infometer as im
        >>> res = im.pairwise(np.random.default_rng(0).normal(size=(200, 3)), method="copula")
        >>> res.plot(title="three columns").get_title()
        'three columns'
        """
        ax = _plots.draw_heatmap(self.matrix, self.unit, ax, path, cluster=cluster, title=title)
        return ax

    def to_frame(self) -> Any:
        """The tidy table of pairs (:attr:`edges`, a copy)."""
        return self.edges.copy()

    def __repr__(self) -> str:
        p = self.matrix.shape[0]
        q = "CMI" if self.quantity == "cond_mutual_info" else "MI"
        used = ", ".join(f"{m} ({c})" for m, c in self.diagnostics.get("methods", {}).items())
        test = ""
        if self.n_permutations:
            k = int(self.edges["significant"].sum())
            test = (
                f"; {k} significant pairs at {self.correction} {self.alpha:g} "
                f"({self.n_permutations} permutations)"
            )
        return f"PairwiseResult({q} of {p} columns, n={self.n}, {self.unit}; {used}{test})"
