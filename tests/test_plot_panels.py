"""The plot convention for figures of several panels (issue 29 §2, infometer.core.plot):
``plot_x(result, ax=None, path=None)`` where ``ax`` is None, a Figure/SubFigure or a
sequence of exactly n Axes, returning the n Axes; the older ``plot_x(result, path)`` form
warns, saves, closes its figure and returns the path."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from infometer.core.plot import finish, new_panels  # noqa: E402
from infometer.systems.decision import render_maps, render_world, tmaze  # noqa: E402
from infometer.systems.models.activations.information import plot_layer_curves  # noqa: E402
from infometer.systems.text import plot_compressors, plot_needle  # noqa: E402

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _compressors(with_accuracy: bool) -> pd.DataFrame:
    df = pd.DataFrame(
        {
            "compressor": ["top-1", "lead-2", "mig-16"],
            "mi_bits": [3.1, 0.0, 1.7],
            "ci_low_bits": [2.9, -0.1, 1.4],
            "ci_high_bits": [3.3, 0.1, 2.0],
            "ceiling_bits": [3.58] * 3,
            "bits_per_token": [0.4, 0.0, 0.1],
        }
    )
    if with_accuracy:
        df["distortion"] = [0.0, 1.0, 0.3]
    return df


def _needle() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "method": ["mig"] * 2 + ["mean-pool"] * 2,
            "rate": [4, 16, 4, 16],
            "retention": [0.9, 0.8, 0.6, 0.4],
            "recall": [1.0, 0.75, 0.5, 0.25],
            "bits_per_vector": [0.3, 0.9, 0.1, 0.2],
        }
    )


def _maps_args():
    w = tmaze(3)
    n = len(w.cells)
    return w, np.arange(n, dtype=float), np.linspace(0, 1, n)


# ----------------------------------------------------------------- the shared rule
def test_new_panels_accepts_none_a_figure_a_subfigure_or_n_axes():
    fig, axes = new_panels(None, 3)
    assert fig is not None and axes.shape == (3,) and {a.figure for a in axes} == {fig}
    own = plt.figure()
    f2, in_fig = new_panels(own, 2)
    assert f2 is None and len(in_fig) == 2 and all(a.figure is own for a in in_fig)
    sub = plt.figure().subfigures(1, 2)[1]
    _, in_sub = new_panels(sub, 2)
    assert all(a.figure is sub for a in in_sub)
    mine = list(plt.subplots(1, 3)[1])
    _, given = new_panels(mine, 3)
    assert list(given) == mine  # the caller's Axes, in order
    _, grid = new_panels(plt.subplots(2, 2)[1], 4)  # a 2-D array of Axes is flattened
    assert grid.shape == (4,)


@pytest.mark.parametrize(
    ("bad", "err", "match"),
    [
        (
            "one",
            TypeError,
            r"ax must be None, a Figure/SubFigure or a sequence of 3 Axes.*one Axes",
        ),
        ("two", ValueError, r"ax must hold 3 Axes \(one per panel\), got 2"),
        ("junk", TypeError, r"ax must hold matplotlib Axes only, got int"),
        ("number", TypeError, r"ax must be None, a Figure/SubFigure or a sequence of 3 Axes, got"),
    ],
)
def test_new_panels_refuses_what_cannot_hold_the_panels(bad, err, match):
    value = {
        "one": plt.subplots()[1],
        "two": plt.subplots(1, 2)[1],
        "junk": [plt.subplots()[1], 1, 2],
        "number": 3.0,
    }[bad]
    with pytest.raises(err, match=match):
        new_panels(value, 3)


def test_finish_saves_the_root_figure_of_panels_in_a_subfigure(tmp_path):
    root = plt.figure(figsize=(8, 3))
    left, right = root.subfigures(1, 2)
    left.subplots().plot([0, 1])
    axes = plot_needle(_needle(), right)
    p = tmp_path / "sub" / "both.png"
    assert finish(axes, p) is axes
    assert p.read_bytes()[:8] == PNG
    assert len(root.axes) == 4  # the caller's panel and the three of plot_needle


# ------------------------------------------------------- every multi-panel function
MULTI = [
    ("compressors", lambda ax=None, path=None: plot_compressors(_compressors(False), ax, path), 2),
    (
        "compressors+rd",
        lambda ax=None, path=None: plot_compressors(_compressors(True), ax, path),
        3,
    ),
    ("needle", lambda ax=None, path=None: plot_needle(_needle(), ax, path), 3),
    ("maps", lambda ax=None, path=None: render_maps(*_maps_args(), ax, path), 2),
]


@pytest.mark.parametrize(("name", "draw", "n"), MULTI, ids=[m[0] for m in MULTI])
def test_multi_panel_figures_follow_the_rule(name, draw, n, tmp_path):
    axes = draw()
    assert isinstance(axes, np.ndarray) and axes.shape == (n,)
    mine = list(plt.subplots(1, n)[1])
    assert list(draw(mine)) == mine
    assert all(a.has_data() for a in mine)
    sub = plt.figure().subfigures(1, 1)
    assert all(a.figure is sub for a in draw(sub))
    p = tmp_path / f"{name}.png"
    draw(path=p)
    assert p.read_bytes()[:8] == PNG
    with pytest.raises(ValueError, match=f"ax must hold {n} Axes"):
        draw(mine[:-1])


@pytest.mark.parametrize(("name", "draw", "n"), MULTI, ids=[m[0] for m in MULTI])
def test_the_older_path_form_warns_saves_closes_and_returns_the_path(name, draw, n, tmp_path):
    before = plt.get_fignums()
    p = tmp_path / f"old-{name}.png"
    with pytest.warns(DeprecationWarning, match=r"\(result, path\) is deprecated"):
        out = draw(str(p))  # a path where ax goes
    assert out == p and p.read_bytes()[:8] == PNG
    assert plt.get_fignums() == before  # closed, as the old form did


def test_panels_draw_the_table():
    df = _needle()
    axes = plot_needle(df)
    for ax, col in zip(axes, ("retention", "recall", "bits_per_vector"), strict=True):
        for line, (_, g) in zip(ax.lines, df.groupby("method", sort=False), strict=True):
            assert np.array_equal(line.get_xdata(), g["rate"])
            assert np.array_equal(line.get_ydata(), g[col])
    bars = plot_compressors(_compressors(False))[0].patches
    assert [b.get_width() for b in bars] == [3.1, 0.0, 1.7]


def test_the_title_goes_over_a_new_or_given_figure_not_over_the_callers_axes():
    axes = plot_needle(_needle())
    assert axes[0].figure.get_suptitle().startswith("Needle in a haystack")
    fig, mine = plt.subplots(1, 3)
    plot_needle(_needle(), mine)
    assert fig.get_suptitle() == ""  # the caller composes that figure
    plot_needle(_needle(), mine, title="mine")
    assert fig.get_suptitle() == "mine"


# --------------------------------------------------------------- one-panel figures
def test_one_panel_figures_take_an_axes_and_keep_the_path_form(tmp_path):
    from infometer.systems.probes.flow import plot_knockout

    table = pd.DataFrame(
        {"block": ["a", "a", "b", "b"], "layer": [0, 1, 0, 1], "delta_bits": [0.5, 0, 0, 1.0]}
    )
    curves = pd.DataFrame(
        {
            "model": ["gelu"] * 2,
            "layer": ["a", "b"],
            "position": [0, 1],
            "quantity": ["I(T;Y)"] * 2,
            "value": [1.0, 0.8],
            "unit": ["bits"] * 2,
        }
    )
    draws = {
        "knockout": lambda ax=None, path=None: plot_knockout(table, ax, path),
        "world": lambda ax=None, path=None: render_world(tmaze(3), ax, path),
        "layer_curves": lambda ax=None, path=None: plot_layer_curves(curves, "I(T;Y)", ax, path),
    }
    for name, draw in draws.items():
        _, own = plt.subplots()
        assert draw(own) is own and own.has_data()
        p = tmp_path / f"{name}.png"
        ax = draw(path=p)
        assert p.read_bytes()[:8] == PNG and ax.figure is not own.figure
    image = plot_knockout(table).images[0].get_array()
    assert np.array_equal(image, [[0.5, 0.0], [0.0, 1.0]])  # block × layer
    for name in ("knockout", "world"):
        p = tmp_path / f"old-{name}.png"
        with pytest.warns(DeprecationWarning, match="is deprecated"):
            assert draws[name](p) == p
        assert p.read_bytes()[:8] == PNG
