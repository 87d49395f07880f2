"""The explorers driven headless (issue 14, item 1): set a control as a designer would, then
read the figure's data and compare it with the rule computed here by enumeration of the die
(RULES.md 1.2, 1.3, 1.5), or with the public simulator run again with the same seed."""
from __future__ import annotations

import html
import subprocess
import sys
import tomllib

import numpy as np
import pytest

pytest.importorskip("ipywidgets")

import balance as bl  # noqa: E402
from balance.rules.variant_file import changes  # noqa: E402


# -- independent computations -----------------------------------------------------------------
def death_by_enumeration(seconds, negative_hp, wounds, *, threshold=176, automatic=175, die=100):
    """P(death) for each seconds value: faces f of 1d{die} with f + k >= threshold."""
    out = []
    for s in seconds:
        k = (wounds + 1) * (s + negative_hp)
        out.append(1.0 if s >= automatic else
                   sum(f + k >= threshold for f in range(1, die + 1)) / die)
    return np.array(out)


def band_by_enumeration(s, negative_hp, wounds, low, high, die=100):
    k = (wounds + 1) * (s + negative_hp)
    return sum(low <= f + k <= high for f in range(1, die + 1)) / die


def curves(ax):
    return [line for line in ax.get_lines() if line.get_gid() not in ("wall", "state")]


def band_heights(ax, s):
    """Height of each stacked band at x = s, read from the polygons' vertices."""
    heights = []
    for poly in ax.collections:
        v = poly.get_paths()[0].vertices
        ys = v[np.isclose(v[:, 0], s), 1]
        heights.append(ys.max() - ys.min() if ys.size else 0.0)
    return heights


def test_import_balance_does_not_import_ipywidgets():
    code = "import sys, balance; balance.injuries; assert 'ipywidgets' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


# -- injuries ------------------------------------------------------------------------------
def test_threshold_slider_moves_every_death_curve():
    e = bl.explore.injuries()
    e.negative_hp.value = 5
    before = [line.get_ydata().copy() for line in curves(e.axes[0])]
    e.death_threshold.value = 180
    assert e.error is None and e.rules["injuries"]["death_threshold"] == 180
    lines = curves(e.axes[0])
    assert len(lines) == len(e.curve_wounds) == 4 and len(before) == 4
    seconds = np.arange(176)
    for wounds, line, old in zip(e.curve_wounds, lines, before):
        np.testing.assert_array_equal(line.get_xdata(), seconds)
        np.testing.assert_allclose(line.get_ydata(), death_by_enumeration(seconds, 5, wounds,
                                                                          threshold=180))
        assert not np.allclose(line.get_ydata(), old)  # every curve moved


def test_state_sliders_pick_the_curves_bands_and_readout():
    e = bl.explore.injuries()
    e.wounds.value, e.negative_hp.value, e.seconds.value = 5, 3, 20
    assert e.curve_wounds == [0, 1, 2, 3, 5]
    np.testing.assert_allclose(curves(e.axes[0])[-1].get_ydata(),
                               death_by_enumeration(range(176), 3, 5))
    state = [line for line in e.axes[1].get_lines() if line.get_gid() == "state"]
    assert [float(x) for x in state[0].get_xdata()] == [20.0, 20.0]
    # 20 s at -3 HP with 5 wounds: k = 6 x 23 = 138; death on 38..100 = 63 %
    assert "death <b>63.0 %</b>" in e.readout.value


def test_automatic_death_slider_moves_the_wall_and_the_seconds():
    e = bl.explore.injuries()
    e.automatic_death_seconds.value = 120
    wall = [line for line in e.axes[0].get_lines() if line.get_gid() == "wall"]
    assert [float(x) for x in wall[0].get_xdata()] == [120.0, 120.0]
    # the frame keeps the starting rules' 0..175 s: past the wall death is certain
    line = curves(e.axes[0])[0]
    np.testing.assert_array_equal(line.get_xdata(), np.arange(176))
    np.testing.assert_allclose(line.get_ydata(),
                               death_by_enumeration(range(176), 6, 0, automatic=120))
    assert e.seconds.max == 120
    e.automatic_death_seconds.value = 205  # a later wall: the frame grows to 225 s
    line = curves(e.axes[0])[0]
    np.testing.assert_array_equal(line.get_xdata(), np.arange(226))
    np.testing.assert_allclose(line.get_ydata(),
                               death_by_enumeration(range(226), 6, 0, automatic=205))
    assert e.axes[1].get_xlim() == (0.0, 225.0) and e.seconds.max == 205


def _pixels(explorer):
    """The picture the widget shows."""
    from PIL import Image
    import io

    return np.asarray(Image.open(io.BytesIO(explorer.image.value)))


def _drawn_whole(explorer):
    """The explorer's figure drawn whole by matplotlib, as it is now (no saved background)."""
    canvas = explorer.figure.canvas
    canvas.draw()
    return np.asarray(canvas.buffer_rgba())


# each step: (control, value); the state after all of them is rebuilt in a fresh explorer
REDRAW_STEPS = [("negative_hp", 9), ("wounds", 2), ("seconds", 70), ("wounds", 4),
                ("death_threshold", 181), ("negative_hp", 3), (("cells", 3, "modifier"), -6),
                ("automatic_death_seconds", 150), ("wounds", 3), ("seconds", 33),
                (("cells", 4, "high"), 55), (("cells", 5, "low"), 56), ("negative_hp", 12)]
REFUSED = {10}  # Broken ends at 55 while Weak still starts at 51: refused until the next step


def _control(explorer, name):
    if isinstance(name, tuple):
        return explorer.cells[name[1]][name[2]]
    return getattr(explorer, name)


def test_redraws_in_place_show_what_a_fresh_explorer_draws():
    """Issue 14: most changes redraw only the curves, bands, labels and title over a saved
    background. After each step the figure's data matches the enumeration and the picture is
    the one matplotlib draws for the whole figure; at the end it is pixel for pixel the one a
    new explorer draws for the same rules and state."""
    e = bl.explore.injuries()
    backgrounds = []
    e._draw_background = lambda draw=e._draw_background: (backgrounds.append(1), draw())
    final: dict = {}
    for step, (name, value) in enumerate(REDRAW_STEPS):
        _control(e, name).value = value
        final[name] = value
        if step in REFUSED:
            assert e.error is not None and "overlap" in e.error
            continue
        assert e.error is None, (step, e.error)
        inj = e.rules["injuries"]
        hp, n, s = e.negative_hp.value, e.wounds.value, e.seconds.value
        seconds = np.arange(176)
        for wounds, line in zip(e.curve_wounds, curves(e.axes[0])):
            np.testing.assert_allclose(line.get_ydata(), death_by_enumeration(
                seconds, hp, wounds, threshold=inj["death_threshold"],
                automatic=inj["automatic_death_seconds"]))
        table = inj["table"]
        highs = [row["high"] for row in table[:-1]] + [inj["death_threshold"] - 1]  # RULES 1.2
        bands = sorted({row["modifier"] for row in table}, reverse=True)
        expected = [sum(band_by_enumeration(s, hp, n, row["low"], high)
                        for row, high in zip(table, highs) if row["modifier"] == m)
                    for m in bands]
        if s < inj["automatic_death_seconds"]:
            expected.append(band_by_enumeration(s, hp, n, inj["death_threshold"], 10**6))
            np.testing.assert_allclose(band_heights(e.axes[1], s), expected, atol=1e-12)
        assert f"({-hp} HP, {n} wound" in e.axes[1].get_title(loc="left")
        legend = [t.get_text() for t in e.axes[0].get_legend().get_texts()]
        assert legend == [f"{w} wound{'s' if w != 1 else ''}, {-hp} HP" for w in e.curve_wounds]
        np.testing.assert_array_equal(_pixels(e), _drawn_whole(e))
    assert backgrounds == []  # the frame never changed: no step drew the whole figure
    fresh = bl.explore.injuries()
    rule_sliders = [k for k in ("death_threshold", "automatic_death_seconds") if k in final]
    cells = [k for k in final if isinstance(k, tuple)]          # in the order they were edited
    state = [k for k in final if isinstance(k, str) and k not in rule_sliders]
    for name in rule_sliders + cells + state:
        _control(fresh, name).value = final[name]
    assert fresh.rules == e.rules and fresh.error is None
    np.testing.assert_array_equal(_pixels(e), _pixels(fresh))


def test_table_cell_edit_moves_the_severity_bands():
    e = bl.explore.injuries()
    e.negative_hp.value, e.wounds.value = 5, 1
    e.cells[-2]["high"].value = 145      # Bleeding 141..145: refused alone (a gap)...
    assert e.error is not None and "\n" not in e.error
    assert e.rules == bl.load_rules()    # ...so the rules are still the bundled ones
    e.cells[-1]["low"].value = 146       # The end is near 146..175: the table tiles again
    assert e.error is None
    table = e.rules["injuries"]["table"]
    assert (table[-2]["high"], table[-1]["low"]) == (145, 146)
    # bands 0, -5, -10, -15, death at 20 s, -5 HP, 1 wound (k = 50)
    expected = [band_by_enumeration(20, 5, 1, lo, hi) for lo, hi in
                ((1, 50), (51, 100), (101, 145), (146, 175), (176, 10**6))]
    np.testing.assert_allclose(band_heights(e.axes[1], 20), expected)
    assert expected[3] == 0.05           # 146..150 newly in the -15 band


def test_bad_edit_shows_one_line_and_keeps_the_last_valid_rules():
    e = bl.explore.injuries()
    e.death_threshold.value = 190
    valid = e.rules
    line = curves(e.axes[0])[1].get_ydata().copy()
    e.cells[3]["low"].value = 35         # Tired starts at 35: 31..34 in no row
    assert e.error.startswith("<explorer>: table injuries.table, row 4 (Tired)")
    assert "\n" not in e.error and "Traceback" not in e.message.value
    assert e.error in html.unescape(e.message.value)
    assert e.rules is valid
    np.testing.assert_array_equal(curves(e.axes[0])[1].get_ydata(), line)
    e.death_threshold.value = 150        # a refused rule slider, while the cell is still bad
    assert "death_threshold = 150" in e.error and e.rules is valid
    e.cells[3]["low"].value = 31         # the cell fixed: valid again, the slider's 150 is not kept
    assert e.error is None and e.rules["injuries"]["death_threshold"] == 190
    assert e.death_threshold.value == 190  # the slider shows the rules again


@pytest.mark.parametrize("make, steps", [
    (bl.explore.negotiation, [("psychology", 9), ("full_divisor", 3), ("psychology", 15),
                              ("partial_divisor", 4), ("psychology", 12)]),
    (lambda: bl.explore.treatment(), [("cunning", 8), ("cunning", 15), ("cunning", 3)]),
], ids=["negotiation", "treatment"])
def test_the_other_exact_explorers_redraw_what_a_fresh_one_draws(make, steps):
    """Over a saved background too: each step shows what matplotlib draws for the figure;
    after the steps, pixel for pixel a new explorer's figure."""
    e = make()
    for name, value in steps:
        getattr(e, name).value = value
        assert e.error is None
        np.testing.assert_array_equal(_pixels(e), _drawn_whole(e))
    fresh = make()
    for name in dict(steps):
        getattr(fresh, name).value = getattr(e, name).value
    assert fresh.rules == e.rules
    np.testing.assert_array_equal(_pixels(e), _pixels(fresh))


def test_a_treatment_bonus_redraws_what_a_fresh_explorer_draws():
    e = bl.explore.treatment()
    e.bonus["light"].value = 4
    e.cunning.value = 14
    e.bonus["light"].value = -3
    np.testing.assert_array_equal(_pixels(e), _drawn_whole(e))
    fresh = bl.explore.treatment()
    fresh.bonus["light"].value, fresh.cunning.value = -3, 14
    np.testing.assert_array_equal(_pixels(e), _pixels(fresh))


def test_save_round_trips_and_holds_only_what_changed(tmp_path):
    e = bl.explore.injuries()
    e.death_threshold.value = 182
    e.cells[0]["modifier"].value = -1
    path = e.save(tmp_path / "variant.toml")
    saved = tomllib.loads(path.read_text(encoding="utf-8"))
    assert set(saved) == {"injuries"}
    assert set(saved["injuries"]) == {"death_threshold", "table"}
    loaded = bl.load_rules(path)
    assert loaded == e.rules and loaded.fingerprint == e.rules.fingerprint
    assert loaded["injuries"]["table"][0]["modifier"] == -1
    with pytest.raises(ValueError, match="already exists"):
        e.save(path)
    e.death_threshold.value = 176        # back to the bundled value: no longer saved
    assert "death_threshold" not in tomllib.loads(
        e.save(path, overwrite=True).read_text(encoding="utf-8"))["injuries"]


def test_save_refuses_a_folder_in_one_line(tmp_path):
    e = bl.explore.negotiation()
    with pytest.raises(ValueError, match="not a regular file"):
        e.save(tmp_path)


# -- negotiation and treatment -------------------------------------------------------------
def expected_change(psychology, ask, partial=4, full=2, die=20):
    total = 0.0
    for face in range(1, die + 1):
        points = psychology - face
        if points < 0 or partial * points < ask:
            continue
        total += ask if full * points >= ask else points
    return total / die


def test_negotiation_divisor_slider_moves_the_curve():
    e = bl.explore.negotiation()
    e.psychology.value = 14
    e.full_divisor.value = 3
    assert e.rules["negotiation"]["full_divisor"] == 3
    line = e.axes[0].get_lines()[0]
    asks = line.get_xdata()
    np.testing.assert_array_equal(asks, np.arange(1, 41))
    np.testing.assert_allclose(line.get_ydata(),
                               [expected_change(14, a, full=3) for a in range(1, 41)])
    base = [ln for ln in e.axes[0].get_lines() if ln.get_gid() == "base"][0]
    np.testing.assert_allclose(base.get_ydata(), [expected_change(14, a) for a in range(1, 41)])
    best = max(range(1, 200), key=lambda a: (expected_change(14, a, full=3), -a))
    assert f"X = {best} %" in e.readout.value


def test_negotiation_refused_divisor_keeps_the_rules():
    e = bl.explore.negotiation()
    e.partial_divisor.value = 1          # partial at X / 1 would need more S.P. than full (X / 2)
    assert e.error.startswith("<explorer>: negotiation.partial_divisor = 1 is below")
    assert e.rules == bl.load_rules()
    e.full_divisor.value = 1             # both at X / 1: valid, and the refused 1 was not kept
    assert e.error is None
    assert (e.rules["negotiation"]["partial_divisor"], e.rules["negotiation"]["full_divisor"]) \
        == (4, 1)
    assert e.partial_divisor.value == 4  # the refused 1 is no longer shown
    np.testing.assert_allclose(e.axes[0].get_lines()[0].get_ydata(),
                               [expected_change(12, a, full=1) for a in range(1, 41)])


def test_treatment_bonus_slider_moves_each_band():
    e = bl.explore.treatment()
    e.bonus["light"].value = 5
    ax = e.axes[0]
    lines = ax.get_lines()
    bands = sorted({r["modifier"] for r in bl.load_rules()["injuries"]["table"]}, reverse=True)
    drawn = [ln for ln in lines if ln.get_gid() != "state"]
    assert len(drawn) == len(bands)
    for band, line in zip(bands, drawn):
        cunning = np.arange(1, 21)
        np.testing.assert_array_equal(line.get_xdata(), cunning)
        chance = [sum(face <= c + 5 + band for face in range(1, 21)) / 20 for c in cunning]
        np.testing.assert_allclose(line.get_ydata(), chance)
    assert e.rules["treatment"]["light"]["bonus"] == 5


# -- Monte Carlo explorers -----------------------------------------------------------------
def test_encounter_runs_quick_while_moving_and_full_on_release():
    e = bl.explore.encounter(["Wolf", "Wolf"], level=3, trials=2_000, quick_trials=200,
                             seed=7, debounce=3600)  # the timer never fires in the test
    assert e.result.trials == 2_000
    e.level.value = 4
    assert e.result.trials == 200 and "quick run" in e.readout.value
    e.settle()
    assert e.result.trials == 2_000
    again = bl.fights.simulate(["Wolf", "Wolf"], level=4, trials=2_000, seed=7)
    points = e.axes[0].get_lines()[0].get_xdata()
    want = again.table.set_index("metric").loc[list(e.METRICS), "estimate"].to_numpy()
    np.testing.assert_array_equal(points, want)
    bars = e.axes[0].collections[0].get_segments()  # the intervals: ci_low..ci_high
    lows = again.table.set_index("metric").loc[list(e.METRICS), "ci_low"].to_numpy()
    np.testing.assert_allclose([s[0][0] for s in bars], lows)


def test_encounter_rule_slider_and_no_creatures():
    e = bl.explore.encounter(["Goblin"], level=2, trials=500, debounce=None)
    e.pc_wounds.value = 2
    assert e.rules["fights"]["pc_wounds"] == 2 and e.result.trials == 500
    valid = e.result
    e.counts["Goblin"].value = 0
    assert e.error == "creatures: pick at least one creature" and e.result is valid
    assert changes(e.rules.to_dict(), bl.load_rules().to_dict()) == {"fights": {"pc_wounds": 2}}


def test_duel_win_probability_matches_the_simulator():
    e = bl.explore.duel(trials=3_000, quick_trials=300, seed=3, debounce=None)
    e.sides[0]["skill"].value = 80
    e.sides[1]["weapon"].value = "great_axe"
    e.sides[1]["armour"].value = 2
    first = bl.percentile.combatant(80)
    second = bl.percentile.combatant(50, weapon="great_axe", armour=2)
    again = bl.percentile.duel(first, second, trials=3_000, seed=3, progress=False)
    want = again.table.loc[list(e.METRICS), "estimate"].to_numpy()
    np.testing.assert_array_equal(e.axes[0].get_lines()[0].get_xdata(), want)
    rounds = again.table.loc["rounds"]
    assert f"rounds <b>{rounds['estimate']:.2f}</b>" in e.readout.value
    e.max_rounds.value = 2
    assert e.rules["percentile"]["duel"]["max_rounds"] == 2
    assert e.result.table.loc["timeout", "estimate"] > 0


def test_a_name_with_control_characters_renders_without_a_warning(recwarn):
    table = bl.load_rules().to_dict()["injuries"]["table"]
    rules = bl.load_rules().updated({"injuries": {"death": {"en": "De\x1bath", "fr": "Mort"}}})
    e = bl.explore.injuries(rules=rules)
    assert e.error is None and len(e.cells) == len(table)
    assert not [w for w in recwarn if "Glyph" in str(w.message)]
    assert any(t.get_text() == "Death" for t in e.axes[1].get_legend().get_texts())
