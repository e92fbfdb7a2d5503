"""Shared plotting helpers (matplotlib, headless).

Every figure the library draws follows one convention::

    def plot_x(result, ax=None, path=None) -> matplotlib.axes.Axes:
        fig, ax = new_axes(ax, figsize=(6, 4))
        ...draw on ax...
        return finish(ax, path)

``ax`` draws into the caller's axes; ``path`` also saves the figure as a PNG (its folder
is created); the axes are returned either way.

A figure of several panels follows the same convention, with one rule for ``ax``::

    def plot_y(result, ax=None, path=None) -> numpy.ndarray:   # of n Axes
        fig, axes = new_panels(ax, n, figsize=(4.2 * n, 3.6), name="ax")
        ...draw on axes[0], ..., axes[n - 1]...
        return finish(axes, path)

``ax`` is ``None`` (a new figure of n panels side by side), a ``Figure`` or ``SubFigure``
(the n panels are made in it) or a sequence of exactly n ``Axes`` (drawn there, in
order); one ``Axes`` is refused, since n panels do not fit in it.  The n Axes are returned
as a numpy array; ``path`` saves the whole (root) figure they are in.

The older form ``plot_x(result, path)``, a path where ``ax`` goes, still works for one
release with a ``DeprecationWarning`` (:func:`deprecated_path_form`): it saves, closes the
figure and returns the path, as it used to.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

__all__ = [
    "bar_with_errors",
    "bars_beside_map",
    "new_axes",
    "new_panels",
    "finish",
    "save",
    "axes_and_path",
    "deprecated_path_form",
    "close_and_path",
]


def _pyplot():
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    return plt


def _ranked_bars(
    ax,
    labels,
    values,
    lows,
    highs,
    *,
    title: str,
    xlabel: str,
    marked: Sequence[str] = (),
    marked_label: str | None = None,
) -> None:
    """Horizontal bars, largest on top, with asymmetric error bars, on ``ax``; bars whose
    label is in ``marked`` (e.g. the features a selection picked) are drawn in another
    colour, with ``marked_label`` in a legend."""
    n = len(labels)
    ypos = list(range(n))[::-1]
    xerr = None
    if lows is not None and highs is not None:
        xerr = [
            [max(v - lo, 0.0) for v, lo in zip(values, lows, strict=True)],
            [max(hi - v, 0.0) for v, hi in zip(values, highs, strict=True)],
        ]
    picked = set(marked)
    colours = ["#e07b39" if lab in picked else "#3b75af" for lab in labels]
    ax.barh(ypos, values, xerr=xerr, color=colours, ecolor="#333333", capsize=2.5)
    ax.set_yticks(ypos)
    ax.set_yticklabels(labels, fontsize=8)
    ax.set_xlabel(xlabel)
    ax.set_title(title, fontsize=10)
    ax.axvline(0, color="black", lw=0.6)
    ax.grid(axis="x", alpha=0.3)
    if picked:
        from matplotlib.patches import Patch

        handles = [Patch(color="#e07b39", label=marked_label or "marked")]
        if len(picked) < n:
            handles.append(Patch(color="#3b75af", label="not selected"))
        ax.legend(handles=handles, loc="lower right", fontsize=8, framealpha=0.9)


def _save(fig, path: str | Path) -> Path:
    plt = _pyplot()
    fig.tight_layout()
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(p)
    plt.close(fig)
    return p


def bar_with_errors(
    labels: Sequence[str],
    values: Sequence[float],
    lows: Sequence[float] | None,
    highs: Sequence[float] | None,
    *,
    title: str,
    xlabel: str,
    path: str | Path,
    marked: Sequence[str] = (),
    marked_label: str | None = None,
) -> Path:
    """Horizontal bar chart (largest on top) with asymmetric error bars; returns the PNG path.

    ``marked`` labels (e.g. the features mRMR selected) get their own colour and a legend
    entry ``marked_label``.
    """
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7.5, max(3.0, 0.28 * len(labels) + 1.2)), dpi=110)
    _ranked_bars(
        ax,
        labels,
        values,
        lows,
        highs,
        title=title,
        xlabel=xlabel,
        marked=marked,
        marked_label=marked_label,
    )
    return _save(fig, path)


def bars_beside_map(
    labels: Sequence[str],
    values: Sequence[float],
    lows: Sequence[float] | None,
    highs: Sequence[float] | None,
    grid: Sequence[Sequence[float]],
    *,
    title: str,
    xlabel: str,
    map_title: str,
    unit: str,
    path: str | Path,
) -> Path:
    """Ranked bars (left) beside a heat map of the same quantity laid out on a grid (right).

    For image data: ``grid[r][c]`` is the value of pixel (r, c), drawn with its number in
    each cell and a colour bar in ``unit``.  Returns the PNG path.
    """
    import numpy as np

    plt = _pyplot()
    g = np.asarray(grid, dtype=float)
    if g.ndim != 2:
        raise ValueError(f"grid must be 2-D, got shape {g.shape}")
    height = max(4.5, 0.28 * len(labels) + 1.2)
    fig, (left, right) = plt.subplots(
        1, 2, figsize=(13.0, height), dpi=110, gridspec_kw={"width_ratios": [1.15, 1.0]}
    )
    _ranked_bars(left, labels, values, lows, highs, title=title, xlabel=xlabel)
    top = float(np.nanmax(g)) if np.isfinite(g).any() else 1.0
    im = right.imshow(g, cmap="viridis", vmin=0.0, vmax=max(top, 1e-12))
    for (r, c), v in np.ndenumerate(g):
        if np.isfinite(v):
            right.text(
                c,
                r,
                f"{v:.2f}",
                ha="center",
                va="center",
                fontsize=7,
                color="white" if v < 0.6 * top else "black",
            )
    right.set_xticks(range(g.shape[1]))
    right.set_yticks(range(g.shape[0]))
    right.set_xlabel("column")
    right.set_ylabel("row")
    right.set_title(map_title, fontsize=10)
    fig.colorbar(im, ax=right, fraction=0.046, pad=0.04, label=unit)
    return _save(fig, path)


def new_axes(ax=None, path=None, figsize=(6.0, 4.0)):
    """``(figure or None, axes)``: a new Agg figure unless ``ax`` is given."""
    plt = _pyplot()
    if ax is not None:
        return None, ax
    fig, ax = plt.subplots(figsize=figsize, dpi=110)
    return fig, ax


def axes_and_path(ax, path):
    """``(ax, path)`` for a ``plot_x(result, ax=None, path=None)`` whose older form took
    ``(path, ax)``: a path (str or PathLike) passed where ``ax`` goes is taken as the path.

    Examples
    --------
    >>> axes_and_path("fig.png", None)
    (None, 'fig.png')
    """
    import os

    if isinstance(ax, str | os.PathLike) and (path is None or not isinstance(path, str)):
        return path, ax
    return ax, path


def _root_figure(ax):
    """The top-level ``Figure`` of an Axes (not the ``SubFigure`` it may sit in)."""
    return ax.get_figure(root=True)


def finish(ax, path: str | Path | None = None, *, tight_layout: bool = True, **savefig_kw):
    """Return ``ax``; with ``path``, first save its figure as a PNG there (folder created).

    The end of every ``plot_x(result, ax=None, path=None) -> Axes`` function.  ``ax`` may
    also be the array (or sequence) of Axes of a figure of several panels: the root figure
    of the first is saved.  ``tight_layout`` runs first unless it is False, the figure
    already has a layout engine or it holds sub-figures; ``savefig_kw`` go to ``savefig``
    (e.g. ``bbox_inches="tight"``).

    Examples
    --------
    >>> fig, ax = new_axes()
    >>> finish(ax) is ax
    True
    """
    if path is not None:
        fig = _root_figure(_first(ax))
        if tight_layout and fig.get_layout_engine() is None and not fig.subfigs:
            fig.tight_layout()
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(p, **savefig_kw)
    return ax


def _first(axes):
    """``axes`` if it is one Axes, else the first of an array or sequence of them."""
    from matplotlib.axes import Axes

    return axes if isinstance(axes, Axes) else _flat(axes)[0]


def _flat(axes):
    import numpy as np

    return np.asarray(axes, dtype=object).ravel()


def new_panels(ax=None, n: int = 1, *, figsize=(6.0, 4.0), name: str = "ax", **subplots_kw):
    """``(figure or None, array of n Axes)`` for a figure of ``n`` panels side by side.

    Parameters
    ----------
    ax
        ``None``: a new Agg figure of 1 × n panels (returned as the figure);
        a ``matplotlib.figure.Figure`` or ``SubFigure``: the n panels are made in it;
        a sequence (list, tuple, numpy array) of exactly ``n`` Axes: drawn there, in order.
    n
        Number of panels the caller draws.
    figsize
        Size of a new figure (inches).
    name
        The caller's name for ``ax`` (in error messages).
    **subplots_kw
        Passed to ``subplots`` for a new figure or a given Figure/SubFigure
        (e.g. ``gridspec_kw``).

    Returns
    -------
    tuple
        The new figure (``None`` when ``ax`` is given) and a numpy array of ``n`` Axes.

    Examples
    --------
    >>> fig, axes = new_panels(None, 3, figsize=(9, 3))
    >>> axes.shape
    (3,)
    >>> new_panels(fig, 2)[1].shape   # two more panels in a given figure
    (2,)
    """
    import numpy as np
    from matplotlib.axes import Axes
    from matplotlib.figure import FigureBase

    plt = _pyplot()
    if isinstance(ax, Axes):
        raise TypeError(
            f"{name} must be None, a Figure/SubFigure or a sequence of {n} Axes for this "
            f"figure of {n} panels, got one Axes"
        )
    if ax is None:
        fig, axes = plt.subplots(1, n, figsize=figsize, dpi=110, squeeze=False, **subplots_kw)
        return fig, axes.ravel()
    if isinstance(ax, FigureBase):
        return None, np.asarray(ax.subplots(1, n, squeeze=False, **subplots_kw)).ravel()
    if isinstance(ax, str | bytes) or not isinstance(ax, Sequence | np.ndarray):
        raise TypeError(
            f"{name} must be None, a Figure/SubFigure or a sequence of {n} Axes, "
            f"got {type(ax).__name__}"
        )
    axes = _flat(ax)
    if len(axes) != n:
        raise ValueError(f"{name} must hold {n} Axes (one per panel), got {len(axes)}")
    bad = [type(a).__name__ for a in axes if not isinstance(a, Axes)]
    if bad:
        raise TypeError(f"{name} must hold matplotlib Axes only, got {bad[0]}")
    return None, axes


def _panel_title(ax, axes, title: str | None, default: str, fontsize: float = 10) -> None:
    """The title over a figure of panels: on the new figure (``ax`` None) or the given
    Figure/SubFigure, with ``default`` when ``title`` is None; over a caller's sequence of
    Axes (whose figure the caller composes) only an explicit ``title``, on their figure."""
    from matplotlib.figure import FigureBase

    if ax is None or isinstance(ax, FigureBase):
        _flat(axes)[0].figure.suptitle(title or default, fontsize=fontsize)
    elif title:
        _flat(axes)[0].figure.suptitle(title, fontsize=fontsize)


def deprecated_path_form(ax, path, func: str, *, result: bool = True):
    """``(ax, path, old)``: a path (str or PathLike) passed where ``ax`` goes, the older
    ``func(result, path)`` form, is taken as the path with a ``DeprecationWarning``
    (``old`` is then True: the caller returns :func:`close_and_path`, as it used to).
    ``result=False`` words it for a method, whose older form was ``func(path)``.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     deprecated_path_form("fig.png", None, "plot_needle")
    (None, 'fig.png', True)
    """
    import os
    import warnings

    from infometer.core._deprecation import REMOVED_IN

    if isinstance(ax, str | os.PathLike):
        if path is not None:
            raise TypeError(f"{func}() got a path for ax and path={path!r}; pass path= only")
        first = "result, " if result else ""
        warnings.warn(
            f"{func}({first}path) is deprecated and goes in infometer {REMOVED_IN}; use "
            f"{func}({first}path=path), which returns the matplotlib Axes",
            DeprecationWarning,
            stacklevel=3,
        )
        return None, ax, True
    return ax, path, False


def close_and_path(axes, path) -> Path:
    """Close the figure of ``axes`` (one Axes or an array of them) and return ``Path(path)``:
    the end of the older ``plot_x(result, path) -> Path`` form.

    Examples
    --------
    >>> fig, ax = new_axes()
    >>> close_and_path(ax, "unsaved.png").name
    'unsaved.png'
    """
    _pyplot().close(_root_figure(_first(axes)))
    return Path(path)


def save(fig, path) -> Path | None:
    """Save ``fig`` (from :func:`new_axes`) as a PNG at ``path`` and close it; no-op if None."""
    if fig is None or path is None:
        return None
    return _save(fig, path)
