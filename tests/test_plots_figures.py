"""The report's figures checked on their data (issue 15, item 4): encounter points never
drawn in another challenge band, distinct panel titles, the S.P. map against the enumeration
of the die with whole-number ticks, wound lines that show on white, the note on 95 % bands
too thin to see, colour bars beside their map, log ticks as plain numbers, values on hover
in the SVG."""
from __future__ import annotations

import io
import math

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

import balance as bl  # noqa: E402
from balance.plots._style import PALETTE, contrast  # noqa: E402
from balance.report import data  # noqa: E402
from balance.report.html import hover_titles, inline_svg  # noqa: E402

RULES = bl.load_rules()


def wcag(colour) -> float:
    """WCAG contrast against white, written again here from the definition."""
    r, g, b = matplotlib.colors.to_rgb(colour)
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in (r, g, b)]
    return 1.05 / (0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2] + 0.05)


def band_of(calibration: float) -> str:
    """The challenge level of a calibration, from the rules' rows: floor(c) in [low, high]."""
    c = math.floor(calibration)
    for row in RULES["encounters"]["challenges"]:
        if row.get("low", -math.inf) <= c <= row.get("high", math.inf):
            return row["en"]
    raise AssertionError(calibration)


def band_at(x: float) -> str:
    """The level whose shaded span [low, high + 1) holds the drawn position x."""
    for row in RULES["encounters"]["challenges"]:
        if row.get("low", -math.inf) <= x < row.get("high", math.inf - 1) + 1:
            return row["en"]
    raise AssertionError(x)


def encounter_table() -> pd.DataFrame:
    """Six families whose calibrations sit on band edges, inside them and just below the next."""
    rows = []
    for i, fam in enumerate(["A", "B", "C", "D", "E", "F"]):
        for c in (-3.0, -1.0, -0.3333, 0.0, 0.6667, 0.95, 1.0, 2.0, 3.0):
            p = 1 / (1 + math.exp(2 * c + i / 5))
            rows.append({"family": fam, "encounter": f"{fam} {c}", "level": 5, "calibration": c,
                         "party_win_rate": p, "win_ci_low": p * 0.9, "win_ci_high": min(1, p * 1.1),
                         "knockout_rate": 1 - p, "ko_ci_low": (1 - p) * 0.9,
                         "ko_ci_high": min(1, (1 - p) * 1.1)})
    return pd.DataFrame(rows)


def test_encounter_points_stay_in_their_challenge_band_and_panels_are_named_apart():
    table = encounter_table()
    fig = Figure(figsize=(10, 8), layout="constrained")
    top, bottom = fig.subplots(2, 1)
    bl.plots.calibration_rates(table, ax=top)
    bl.plots.calibration_rates(table, metric="knockout_rate", ax=bottom)
    data_lines = [ln for ln in top.get_lines() if ln.get_marker() == "o"]
    assert len(data_lines) == 6
    drawn = np.concatenate([ln.get_xdata() for ln in data_lines])
    true = np.tile(table.groupby("family", sort=False)["calibration"].apply(
        lambda s: np.sort(s.to_numpy())).iloc[0], 6)
    assert [band_at(x) for x in drawn] == [band_of(c) for c in true]
    assert np.all(drawn >= true) and np.all(drawn - true <= 0.4 + 1e-9)  # moved right a little
    assert len({round(x, 6) for x in drawn[true == -1.0]}) == 6  # apart where there is room
    assert top.get_title("left") != bottom.get_title("left")
    assert top.get_title("left").startswith("Party win rate")
    assert bottom.get_title("left").startswith("Share of PCs knocked out")


def test_sp_map_is_the_chance_of_at_least_y_points_with_whole_ticks():
    table = data.d20_table(range(0, 22))
    fig = Figure(layout="constrained")
    ax = bl.plots.sp_distribution(table, ax=fig.add_subplot())
    arr = np.asarray(np.ma.filled(ax.get_images()[0].get_array(), np.nan), dtype=float)
    # roll under: face f of 1d20 gives C' - f S.P. when f <= C'; P(S.P. >= y) = (C' - y) / 20
    expected = np.array([[min(max(c - y, 0), 20) / 20 for c in range(22)] for y in range(21)])
    np.testing.assert_allclose(np.nan_to_num(arr), expected)
    assert np.nanstd(arr) > 0.2  # not one flat colour
    fig.canvas.draw()
    for axis in (ax.xaxis, ax.yaxis):
        ticks = [t for t in axis.get_majorticklocs() if axis.get_view_interval()[0] <= t
                 <= axis.get_view_interval()[1]]
        assert ticks and all(float(t).is_integer() for t in ticks), ticks


def test_wound_and_treatment_lines_show_on_white():
    campaign = bl.campaign.simulate(fights=6, knockout_chance=0.6, trials=20_000, seed=4)
    fig = Figure(layout="constrained")
    ax = bl.plots.wound_burden(campaign, ax=fig.add_subplot())
    colours = [ln.get_color() for ln in ax.get_lines()]
    assert len(colours) >= 5
    assert min(wcag(c) for c in colours) >= 3.0, colours  # WCAG's minimum for graphics
    rgb = np.array([matplotlib.colors.to_rgb(c) for c in colours])
    gaps = [np.abs(a - b).sum() for i, a in enumerate(rgb) for b in rgb[i + 1:]]
    assert min(gaps) > 0.1  # no two the same
    ax = bl.plots.treatment_curves(bl.treatment.cure_table(), ax=Figure().add_subplot())
    assert min(wcag(ln.get_color()) for ln in ax.get_lines()) >= 3.0
    assert wcag(PALETTE[6]) >= 3.0  # the Okabe-Ito yellow (1.3:1 on white) is darkened
    assert min(wcag(c) for c in PALETTE) > 2.2
    assert contrast("#ffffff") == pytest.approx(1.0) and \
        contrast("#000000") == pytest.approx(wcag("#000000"))


def campaign_table(trials: int) -> pd.DataFrame:
    p = np.array([0.05, 0.1, 0.15, 0.2])
    half = 1.96 * np.sqrt(p * (1 - p) / trials)
    return pd.DataFrame({"fight": [1, 2, 3, 4], "deaths": (p * trials).astype(int),
                         "probability": p, "ci_low": np.clip(p - half, 0, 1),
                         "ci_high": p + half, "trials": trials})


@pytest.mark.parametrize("trials, noted", [(1_000_000, True), (300, False)])
def test_bands_too_thin_to_see_are_said_so(trials, noted):
    ax = bl.plots.campaign_deaths(campaign_table(trials), ax=Figure().add_subplot())
    legend = ax.get_legend()
    texts = [t.get_text() for t in legend.get_texts()] if legend else []
    assert any("narrower than" in t for t in texts) is noted, texts
    # the band a 1,000,000-trial curve has is under 1.2 % of the axis: one line's width
    widths = campaign_table(trials)["ci_high"] - campaign_table(trials)["ci_low"]
    low, high = ax.get_ylim()
    assert bool(widths.min() < 0.012 * (high - low)) is noted


def test_colour_bars_sit_beside_their_map():
    """The percentile section's layout: a wide legend beside the panel above the opposed-roll
    map made a gap between the map and its scale."""
    fig = Figure(figsize=(10, 8), layout="constrained")
    (a, b), (c, d) = fig.subplots(2, 2)
    bl.plots.grade_curves(bl.percentile.tier_table(range(1, 201, 10)), ax=a)
    bl.plots.opposed_heatmap(data.opposed_table(range(10, 101, 10)), ax=c)
    fig.canvas.draw()
    heat = c.get_window_extent()
    bar = c.child_axes[-1].get_window_extent()
    assert 0 < bar.x0 - heat.x1 < 0.06 * heat.width  # beside it, no gap
    assert abs(bar.y0 - heat.y0) < 1 and abs(bar.y1 - heat.y1) < 1  # as tall


def test_log_ticks_are_plain_numbers():
    ax = bl.plots.treatment_curves(bl.treatment.cure_table(), value="expected_hours",
                                   ax=Figure(layout="constrained").add_subplot())
    ax.figure.canvas.draw()
    labels = [t.get_text() for t in ax.get_yticklabels() if t.get_text()]
    assert labels and not any("$" in t or "mathdefault" in t for t in labels), labels
    assert all(float(t) in (0.01, 0.1, 1, 10, 100, 1000, 10000) for t in labels), labels


def test_hover_values_become_svg_titles_in_marker_order():
    fig = Figure(figsize=(3, 2))
    ax = fig.add_subplot()
    line, = ax.plot([1, 2, 3], [0.1, 0.5, 0.9], marker="o")
    bl.plots._style.hover(line, ["one <b>", "two & more", "three"])
    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "path", "svg.hashsalt": "t"}):
        fig.savefig(buffer, format="svg", metadata={"Date": None})
    svg = hover_titles(inline_svg(buffer.getvalue()), "fig-hover")
    assert "hover_" not in svg and 'id="fig-hover-1"' in svg
    assert svg.count("<title>") == 3
    assert svg.index("<title>one &lt;b&gt;</title>") < svg.index("<title>two &amp; more</title>") \
        < svg.index("<title>three</title>")
    assert svg.startswith("<svg") and "http" not in svg and "viewBox" in svg
    assert "<metadata>" not in svg and "*{" not in svg  # no global style rule from matplotlib


def test_french_hover_values_take_a_space_before_the_colon():
    fig = Figure(figsize=(3, 2))
    line, = fig.add_subplot().plot([1], [1], marker="o")
    bl.plots._style.hover(line, ["Combat 3: 31,92 %"], lang="fr")
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg")
    assert "<title>Combat 3 : 31,92 %</title>" in hover_titles(inline_svg(buffer.getvalue()))
