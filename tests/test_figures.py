"""Figures that show the error (issue 31 §5): what the bars are, capped scales said,
ceilings drawn, selections marked, labels apart; and the plot_x(result, ax, path) form."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

import infometer as im  # noqa: E402


def test_a_capped_heatmap_says_so(tmp_path, monkeypatch):
    rng = np.random.default_rng(0)
    a = rng.normal(size=300)
    df = pd.DataFrame({f"c{j}": rng.normal(size=300) for j in range(12)})
    df["c0"], df["c1"] = a, a + 0.01 * rng.normal(size=300)  # one pair far above the rest
    res = im.pairwise(df, method="copula", progress=False)
    labels = []
    real = matplotlib.figure.Figure.colorbar

    def spy(self, mappable, **kw):
        labels.append((kw.get("label"), kw.get("extend")))
        return real(self, mappable, **kw)

    monkeypatch.setattr(matplotlib.figure.Figure, "colorbar", spy)
    res.heatmap(path=tmp_path / "h.png")
    assert "capped at the 99th percentile" in labels[-1][0] and labels[-1][1] == "max"
    small = im.pairwise(df[["c2", "c3", "c4"]], method="copula", progress=False)
    small.heatmap(path=tmp_path / "s.png")  # 3 pairs: the 99th percentile is nearly the max
    assert labels[-1][1] in ("max", "neither")


def test_layers_plot_has_error_bars_and_the_ceiling():
    from infometer.estimators.neural import plot_layers

    frame = pd.DataFrame(
        {
            "layer": ["a", "b", "c"],
            "quantity": "I(T;Y)",
            "value": [0.1, 0.3, 0.6],
            "ci": [None] * 3,
            "stderr": [0.02, 0.05, 0.01],
            "unit": "nats",
        }
    )
    ax = plot_layers({"model": frame}, ceiling=np.log(2), ceiling_label="log 2")
    bars = ax.containers[0]
    lo, hi = bars.lines[2][0].get_segments()[1][:, 1]  # the error bar of layer "b"
    assert np.allclose([lo, hi], [0.3 - 1.96 * 0.05, 0.3 + 1.96 * 0.05])
    assert any(np.allclose(ln.get_ydata(), np.log(2)) for ln in ax.lines)
    assert "1.96 stderr" in ax.get_title()
    assert "log 2" in [t.get_text() for t in ax.get_legend().get_texts()]
    fig, own = plt.subplots()
    assert plot_layers({"model": frame}, ax=own) is own  # plot_x(result, ax=None, path=None)
    plt.close("all")


def test_bar_chart_marks_the_selected(tmp_path):
    from infometer.core.plot import bar_with_errors

    bar_with_errors(
        ["a", "b", "c"],
        [3, 2, 1],
        None,
        None,
        title="t",
        xlabel="x",
        path=tmp_path / "r.png",
        marked=["a", "c"],
        marked_label="selected by mrmr",
    )
    assert (tmp_path / "r.png").stat().st_size > 1000


def test_point_labels_do_not_overlap():
    from infometer.systems.text.measure import _label_points

    fig, ax = plt.subplots()
    xs, ys = np.array([0.30, 0.31, 0.32, 0.9]), np.array([0.0, 0.0, 0.01, 0.5])
    ax.scatter(xs, ys)
    ax.set_xlim(0, 1)
    ax.set_ylim(-0.1, 1)
    _label_points(ax, ["top-2", "mig-16", "lead-2", "far"], xs, ys)
    fig.canvas.draw()
    boxes = [matplotlib.text.Text.get_window_extent(t) for t in ax.texts]  # text, not arrow
    for i in range(len(boxes)):
        for j in range(i + 1, len(boxes)):
            assert not boxes[i].overlaps(boxes[j]), (ax.texts[i].get_text(), ax.texts[j].get_text())
    plt.close(fig)


def test_scan_plot_takes_ax_or_path(tmp_path):
    from infometer.estimators.diffusion.infosedd import ScanResult

    res = ScanResult(
        starts=np.arange(5), values=np.linspace(0, 1, 5), stderr=np.full(5, 0.05), window=3
    )
    fig, own = plt.subplots()
    assert res.plot(own) is own
    ax = res.plot(tmp_path / "scan.png")  # the older plot(path) form
    assert (tmp_path / "scan.png").exists() and ax is not own
    assert "± 2 stderr (Monte Carlo)" in [t.get_text() for t in ax.get_legend().get_texts()]
    plt.close("all")
