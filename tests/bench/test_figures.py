"""The benchmark's figures read at the width a browser shows them (issue 41): legends and
ticks of 10 points or more, heat-map numbers of 12 points with no "-0.00", family panels
that say their bars are the spread over seeds (not an interval), a small error visible
beside a large one."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from infometer.workflows.bench import figures  # noqa: E402


def _agg(runs: int = 3) -> pd.DataFrame:
    rows = []
    for t, truth in (("a-task", 0.5), ("b-task", 1.0)):
        for m, err in (("plugin", 0.002), ("ksg1", -0.004), ("gaussian", 2.5)):
            rows.append(
                {
                    "family": "fam",
                    "task": t,
                    "method": m,
                    "n": 1000,
                    "truth": truth,
                    "mean": truth + err,
                    "sd": 0.01,
                    "bias": err,
                    "runs": runs,
                }
            )
    return pd.DataFrame(rows)


def _texts(fig):
    return [t for ax in fig.axes for t in ax.texts]


def test_family_panel_says_what_its_bars_are_and_is_legible():
    [(fam, fig)] = figures.family_panels(_agg())
    ax = fig.axes[0]
    assert fam == "fam" and "± 1 sd over 3 seeds (spread, not an interval)" in ax.get_title()
    assert min(t.get_fontsize() for t in ax.get_legend().get_texts()) >= 10
    assert min(t.get_fontsize() for t in ax.get_xticklabels()) >= 10
    # errors of 0.002 and 2.5 on one axis: symlog, so the small ones are not a flat line
    assert ax.get_yscale() == "symlog"
    plt.close(fig)


def test_one_seed_draws_no_bars_and_claims_none():
    [(_, fig)] = figures.family_panels(_agg(runs=1))
    assert "sd" not in fig.axes[0].get_title()
    plt.close(fig)


def test_heatmap_numbers_are_12_points_and_never_minus_zero():
    agg = _agg()
    agg.loc[0, "bias"] = -0.001  # rounds to 0 at two decimals
    fig = figures.error_heatmap(agg)
    texts = _texts(fig)
    assert len(texts) == 6 and all(t.get_fontsize() >= 12 for t in texts)
    shown = {t.get_text() for t in texts}
    assert "-0.00" not in shown and "0.00" in shown and "+2.50" in shown
    plt.close(fig)


def test_timing_is_log_and_legible():
    df = pd.DataFrame(
        {
            "status": ["ok"] * 4,
            "wall_s": [0.001, 0.002, 0.1, 0.2],
            "method": ["a", "a", "b", "b"],
            "n": [100, 1000, 100, 1000],
        }
    )
    fig = figures.timing(df)
    ax = fig.axes[0]
    assert ax.get_xscale() == "log"
    assert min(t.get_fontsize() for t in ax.get_yticklabels()) >= 10
    plt.close(fig)
    assert figures.timing(df.assign(status="error")) is None
