"""Every plot rendered with the Agg backend; assertions on what it shows (curves, data, labels).

Expected values are computed here independently (closed forms, enumeration of die faces).
"""
from __future__ import annotations

import itertools

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.collections import PolyCollection  # noqa: E402

import balance as bl  # noqa: E402
from balance.report import data  # noqa: E402

RULES = bl.load_rules()


@pytest.fixture(autouse=True)
def close_figures():
    import matplotlib.pyplot as plt

    yield
    plt.close("all")


def death_closed_form(seconds, negative_hp, wounds, threshold=176, wall=175):
    """P(death) = clip((100 - (threshold - k) + 1) / 100, 0, 1), 1 from the wall (RULES.md 1.2)."""
    k = (wounds + 1) * (np.asarray(seconds) + negative_hp)
    p = np.clip((100 - (threshold - k) + 1) / 100, 0, 1)
    return np.where(np.asarray(seconds) >= wall, 1.0, p)


@pytest.fixture(scope="module")
def surface():
    return data.death_surface(negative_hp=[1, 10], wounds=[0, 1, 2, 3])


def curves(ax):
    """Data lines of an axes (not the wall, not markers-only lines)."""
    return [ln for ln in ax.get_lines() if ln.get_gid() != "wall" and ln.get_linestyle() != "None"]


def test_death_curves_one_curve_per_wounds_and_hp_with_the_wall(surface):
    ax = bl.plots.death_curves(surface)
    lines = curves(ax)
    assert len(lines) == 4 * 2
    walls = [ln for ln in ax.get_lines() if ln.get_gid() == "wall"]
    assert len(walls) == 1 and walls[0].get_xdata()[0] == 175
    for line, (n, hp) in zip(lines, itertools.product(range(4), [1, 10])):
        x, y = line.get_xdata(), line.get_ydata()
        assert x.min() == 0 and x.max() == 175
        np.testing.assert_allclose(y, death_closed_form(x, hp, n), atol=1e-12)
    assert ax.get_xlabel() == "Seconds at negative HP"
    assert ax.get_ylabel() == "Probability of death"


def test_death_curves_in_french_and_for_a_variant():
    variant = RULES.updated({"injuries": {"automatic_death_seconds": 120}})
    frame = data.death_surface(negative_hp=[5], wounds=[1], rules=variant)
    ax = bl.plots.death_curves(frame, lang="fr", rules=variant)
    assert ax.get_xlabel() == "Secondes à PV négatifs"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["1 blessure, -5 PV"]
    wall = [ln for ln in ax.get_lines() if ln.get_gid() == "wall"][0]
    assert wall.get_xdata()[0] == 120
    (line,) = curves(ax)
    np.testing.assert_allclose(line.get_ydata(),
                               death_closed_form(line.get_xdata(), 5, 1, wall=120))


def test_death_curves_overlay_two_rule_sets_on_one_axes():
    variant = RULES.updated({"injuries": {"death_threshold": 180}})
    a = data.death_surface(negative_hp=[5], wounds=[0, 1])
    b = data.death_surface(negative_hp=[5], wounds=[0, 1], rules=variant)
    ax = bl.plots.compare_death_curves(a, b, names=("176", "180"))
    lines = curves(ax)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == [
        "176: 0 wounds, -5 HP", "176: 1 wound, -5 HP", "180: 0 wounds, -5 HP",
        "180: 1 wound, -5 HP"]
    assert len(lines) == 4
    assert [ln.get_linestyle() for ln in lines] == ["-", "-", "--", "--"]
    np.testing.assert_allclose(lines[3].get_ydata(),
                               death_closed_form(lines[3].get_xdata(), 5, 1, threshold=180))


def test_injury_bands_stack_to_one_with_french_names(surface):
    ax = bl.plots.injury_bands(surface, negative_hp=10, wounds=1, lang="fr")
    polys = [c for c in ax.collections if isinstance(c, PolyCollection)]
    assert len(polys) == 5  # 0 / -5 / -10 / -15 / death
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["modificateur de test 0", "modificateur de test -5",
                      "modificateur de test -10", "modificateur de test -15", "Mort"]
    death = polys[-1].get_paths()[0].vertices
    # death band at 40 s with 1 wound and -10 HP: k = 2 * 50 = 100 -> P = 25 / 100,
    # drawn from 0.75 up to 1
    at_40 = sorted(set(np.round(death[death[:, 0] == 40][:, 1], 12)))
    assert at_40 == [0.75, 1.0]
    assert ax.get_xlabel() == "Secondes à PV négatifs"
    assert ax.get_title(loc="left") == "Blessures critiques par gravité (-10 PV, 1 blessure)"
    assert bl.plots.injury_bands(surface, negative_hp=10, wounds=3).get_title(loc="left") == (
        "Critical injuries by severity (-10 HP, 3 wounds)")


def test_injury_heatmap_has_every_row_and_the_table_order(surface):
    ax = bl.plots.injury_heatmap(surface, negative_hp=1, wounds=0, lang="fr")
    (image,) = ax.get_images()
    rows = len(RULES["injuries"]["table"]) + 1
    assert image.get_array().shape == (rows, 176)
    ticks = [t.get_text() for t in ax.get_yticklabels()]
    assert ticks[0] == "Étourdi" and ticks[-1] == "Mort"
    assert ax.get_title(loc="left") == "Table des blessures critiques (-1 PV, 0 blessure)"
    # column of 0 s, -1 HP, no wound: k = 1, faces 1..100 -> totals 2..101
    col = np.asarray(image.get_array())[:, 0]
    assert np.isclose(col[0], 9 / 100) and np.isclose(col.sum(), 1.0)


def test_d20_plots_match_the_enumeration():
    table = data.d20_table(range(0, 22))
    ax = bl.plots.d20_success(table)
    (line,) = ax.get_lines()
    expected = [sum(1 for f in range(1, 21) if f <= c) / 20 for c in range(0, 22)]
    np.testing.assert_allclose(line.get_ydata(), expected)
    ax = bl.plots.sp_distribution(table, lang="fr")
    (image,) = ax.get_images()
    arr = np.asarray(image.get_array())
    assert arr.shape == (21, 22)  # S.P. 0..20 x characteristic 0..21
    # the chance of at least y S.P.: C' = 12 gives faces 1..12 and S.P. 11..0, so
    # P(S.P. >= y) = (12 - y) / 20 for y = 0..11, and no S.P. above 11 (blank)
    np.testing.assert_allclose(arr[:12, 12], [(12 - y) / 20 for y in range(12)])
    assert np.isnan(np.asarray(arr, dtype=float)[12:, 12]).all()
    assert ax.get_ylabel() == "Points de Réussite (P.R.)"


@pytest.mark.parametrize("value", ["chance", "expected_hours"])
def test_treatment_curves_one_per_band(value):
    table = bl.treatment.cure_table()
    ax = bl.plots.treatment_curves(table, level="light", value=value, lang="fr")
    lines = ax.get_lines()
    assert len(lines) == 4
    x, y = lines[0].get_xdata(), lines[0].get_ydata()  # band 0, Cunning + 2
    p = np.clip(x + 2, 0, 20) / 20
    if value == "chance":
        np.testing.assert_allclose(y, p)
    else:  # 1 minute, then one attempt an hour: (1 + 60 (1 - p) / p) / 60 hours
        np.testing.assert_allclose(y, (1 + 60 * (1 - p) / p) / 60)
        assert ax.get_yscale() == "log"
    assert ax.get_title("left") == "Soin léger"


def expected_change(psychology: int, ask: float) -> float:
    total = 0.0
    for face in range(1, 21):
        sp = psychology - face
        if sp < 0 or sp < ask / 4:
            continue
        total += ask if sp >= ask / 2 else sp
    return total / 20


def test_negotiation_curves_mark_the_best_ask():
    table = data.negotiation_table([8, 12])
    ax = bl.plots.negotiation_curves(table)
    lines = [ln for ln in ax.get_lines() if ln.get_marker() != "*"]
    stars = [ln for ln in ax.get_lines() if ln.get_marker() == "*"]
    assert len(lines) == 2 and len(stars) == 2
    for line, star, psy in zip(lines, stars, (8, 12)):
        asks = line.get_xdata()
        np.testing.assert_allclose(line.get_ydata(), [expected_change(psy, a) for a in asks])
        best = max(range(1, 200), key=lambda a: (expected_change(psy, a), -a))
        assert star.get_xdata()[0] == best
    assert ax.get_xlabel() == "Ask X (%)"


def test_negotiation_rules_compares_psychology_and_charisma():
    table = data.negotiation_rules_table()
    ax = bl.plots.negotiation_rules(table, lang="fr")
    psy, cha = ax.get_lines()
    # Charisma modifier 0, difficulty 14, 200 NX: faces 14..19 -> 150, 20 -> 100, else 200
    expected_price = (13 * 200 + 6 * 150 + 1 * 100) / 20
    i = list(table[table.rule == "charisma"].value).index(0)
    assert np.isclose(cha.get_ydata()[i], 100 * (200 - expected_price) / 200)
    assert np.isclose(cha.get_xdata()[i], 7 / 20)
    assert psy.get_xdata().max() == 1.0
    assert ax.get_title("left") == "Règle de Psychologie vs règle de Charisme"


def test_mc_check_draws_intervals_and_exact_values():
    sim = bl.injuries.simulate(40, 6, 1, trials=20_000, seed=3, progress=False)
    exact = bl.injuries.injury_distribution(40, 6, 1)
    ax = bl.plots.mc_check(sim.table, exact)
    crosses = [ln for ln in ax.get_lines() if ln.get_marker() == "x"]
    np.testing.assert_allclose(crosses[0].get_ydata(), exact["probability"])
    assert len(ax.get_xticklabels()) == len(exact)


@pytest.fixture(scope="module")
def rescue_curve():
    return bl.rescue.curve(times=range(0, 176, 25), negative_hp="3", wounds=[0, 2],
                           trials=20_000, seed=5, progress=False)


def test_rescue_curves_bands_and_exact(rescue_curve):
    ax = bl.plots.rescue_curves(rescue_curve, lang="fr")
    bands = [c for c in ax.collections if isinstance(c, PolyCollection)]
    assert len(bands) == 2
    solid = [ln for ln in ax.get_lines() if ln.get_linestyle() == "-" and ln.get_gid() != "wall"]
    dotted = [ln for ln in ax.get_lines() if ln.get_linestyle() == ":"]
    assert len(solid) == 2 and len(dotted) == 2
    # exact curve: support of 1 A.P. completes 1 s after arrival
    x = dotted[1].get_xdata()
    np.testing.assert_allclose(dotted[1].get_ydata(), death_closed_form(x + 1, 3, 2))
    assert ax.get_xlabel() == "Arrivée du secouriste après (secondes)"
    # French counts agree: 0 and 1 take the singular
    assert [t.get_text() for t in ax.get_legend().get_texts()][:2] == ["0 blessure",
                                                                      "2 blessures"]


def test_interval_curves_fills_each_band(rescue_curve):
    ax = bl.plots.interval_curves(rescue_curve, "arrival", group="wounds")
    bands = [c for c in ax.collections if isinstance(c, PolyCollection)]
    assert len(bands) == 2 and len(ax.get_lines()) == 2
    lows = rescue_curve[rescue_curve.wounds == 0]["ci_low"]
    assert bands[0].get_paths()[0].vertices[:, 1].min() == pytest.approx(lows.min())


@pytest.fixture(scope="module")
def campaign():
    return bl.campaign.simulate(fights=4, knockout_chance=0.5, arrival="40", negative_hp="5",
                                trials=4_000, seed=2, progress=False)


def test_campaign_plots(campaign):
    ax = bl.plots.campaign_deaths(campaign, lang="fr")
    (line,) = ax.get_lines()
    np.testing.assert_allclose(line.get_xdata(), [1, 2, 3, 4])
    np.testing.assert_allclose(line.get_ydata(), campaign.table["probability"])
    assert np.all(np.diff(line.get_ydata()) >= 0)  # cumulative
    assert ax.get_xlabel() == "Combat"
    ax = bl.plots.wound_burden(campaign)
    bands = [c for c in ax.collections if isinstance(c, PolyCollection)]
    handles, labels = ax.get_legend_handles_labels()
    labels = [t for h, t in zip(handles, labels) if h.get_gid() != "band-note"]  # the note
    assert len(bands) == len(labels) == len(ax.get_lines()) and labels[-1] == "dead"
    wounds = campaign.extra["wounds"]
    dead = wounds[wounds.wounds == "dead"].sort_values("fight")
    np.testing.assert_allclose(ax.get_lines()[-1].get_ydata(), dead["probability"])
    # at every fight the shares of the curves drawn (the others are all zero) sum to 1
    total = sum(ln.get_ydata() for ln in ax.get_lines())
    np.testing.assert_allclose(total, 1.0)
    ax = bl.plots.knockout_risk(campaign)
    assert ax.get_ylabel() == "Probability of death"


def test_percentile_tier_and_grade_plots():
    table = bl.percentile.tier_table(range(1, 101))
    ax = bl.plots.grade_curves(table, lang="fr")
    lines = ax.get_lines()
    assert len(lines) == 7
    assert [t.get_text() for t in ax.get_legend().get_texts()][3] == "Difficile"
    standard = lines[2]
    # Standard grade, skill s <= 100: success or critical = rolls 1..max(s, 5), not 96..100
    expected = [len([r for r in range(1, 101) if (r <= s or r <= 5) and r < 96]) / 100
                for s in range(1, 101)]
    np.testing.assert_allclose(standard.get_ydata(), expected)
    ax = bl.plots.tier_curves(table, grade="Standard", lang="fr")
    assert [t.get_text() for t in ax.get_legend().get_texts()] == \
        ["Maladresse", "Échec", "Réussite", "Réussite critique"]
    assert ax.get_title("left") == "Niveaux de résultat, degré Standard"


def test_opposed_heatmap_and_duels():
    opposed = data.opposed_table([20, 50, 80])
    ax = bl.plots.opposed_heatmap(opposed)
    (image,) = ax.get_images()
    arr = np.asarray(image.get_array())
    assert arr.shape == (3, 3)
    assert arr[2, 0] > 0.5 > arr[0, 2]  # 80 vs 20 wins more often than 20 vs 80
    duels = bl.percentile.duel_table([40, 70], trials=300, seed=1)
    ax = bl.plots.duel_gap(duels)
    lines = [ln for ln in ax.get_lines() if ln.get_linestyle() == "-"]
    assert len(lines) == 2
    gaps = sorted(set(np.concatenate([ln.get_xdata() for ln in lines])))
    assert gaps == [-30, 0, 30]


def test_attribute_distribution_bars_match_enumeration():
    dist = bl.percentile.human_distribution("action_points")
    ax = bl.plots.attribute_distribution(dist, lang="fr")
    heights = [p.get_height() for p in ax.patches]
    # INT 2d6+6 + DEX 3d6: <= 12 -> 1, 13..24 -> 2, 25..36 -> 3
    counts = {1: 0, 2: 0, 3: 0}
    for dice in itertools.product(range(1, 7), repeat=5):
        total = sum(dice) + 6
        counts[1 if total <= 12 else 2 if total <= 24 else 3] += 1
    np.testing.assert_allclose(heights, [counts[k] / 6**5 for k in (1, 2, 3)])
    assert ax.get_title("left") == "Points d'action des humains tirés au sort"


def test_plots_accept_an_axes_and_return_it():
    from matplotlib.figure import Figure

    ax = Figure().add_subplot()
    assert bl.plots.d20_success(data.d20_table([5, 10]), ax=ax) is ax


@pytest.mark.parametrize("call", [
    lambda: bl.plots.d20_success(data.d20_table([5]), lang="de"),
    lambda: bl.plots.death_curves(data.death_surface(negative_hp=[5], wounds=[0]), lang="es"),
])
def test_unknown_language_names_the_argument(call):
    with pytest.raises(ValueError, match="lang"):
        call()


def test_missing_state_is_a_clear_error(surface):
    with pytest.raises(ValueError, match="negative_hp"):
        bl.plots.death_curves(surface, negative_hp=[7])
    with pytest.raises(ValueError, match="level"):
        bl.plots.treatment_curves(bl.treatment.cure_table(), level="medium")


def test_labels_exist_in_both_languages():
    import tomllib
    from importlib import resources

    raw = tomllib.loads((resources.files("balance.report") / "labels.toml").read_text("utf-8"))
    missing = [k for k, v in raw.items() if not v.get("en") or not v.get("fr")]
    assert missing == []


def test_calibration_rates_show_every_encounter_with_named_levels():
    check = bl.fights.calibration_check(levels=(3,), calibrations=(-2, 0, 2),
                                        families=(("Wolf",),), trials=200, seed=1)
    ax = bl.plots.calibration_rates(check, lang="fr")
    (line,) = [ln for ln in ax.get_lines() if ln.get_linestyle() == "-"]
    np.testing.assert_allclose(line.get_xdata(), [-2, 0, 2])
    np.testing.assert_allclose(line.get_ydata(), check.table["party_win_rate"])
    names = [t.get_text() for t in ax.child_axes[0].get_xticklabels()]
    assert names == ["Facile", "Gérable", "Exigeant", "Intense", "Impossible"]
    assert ax.get_ylabel() == "Taux de victoire du groupe"
    ax = bl.plots.calibration_rates(check.table, metric="knockout_rate")
    assert ax.get_ylabel() == "Share of PCs knocked out"
    with pytest.raises(ValueError, match="metric"):
        bl.plots.calibration_rates(check, metric="wins")


def test_rescue_curves_take_a_simulation_too():
    sim = bl.rescue.simulate(arrival="1d20", negative_hp="2", wounds=[1], trials=5_000, seed=4,
                             progress=False)
    ax = bl.plots.rescue_curves(sim)
    solid = [ln for ln in ax.get_lines() if ln.get_linestyle() == "-" and ln.get_gid() != "wall"]
    np.testing.assert_allclose(solid[0].get_xdata(), np.arange(1, 21))


def test_save_writes_png_and_svg(tmp_path):
    ax = bl.plots.d20_success(data.d20_table([5, 10]))
    bl.plots.save(ax, tmp_path / "d20.png")
    bl.plots.save(ax, tmp_path / "d20.svg")
    assert (tmp_path / "d20.png").read_bytes()[:4] == b"\x89PNG"
    assert "<svg" in (tmp_path / "d20.svg").read_text()


def test_tornado_bars_span_the_metric_at_both_ends_widest_on_top():
    import pandas as pd

    table = pd.DataFrame({"key": ["a", "b", "c"], "low": [1, 10, 5], "high": [3, 12, 7],
                          "metric_low": [0.2, 0.1, 0.3], "metric": [0.3] * 3,
                          "metric_high": [0.5, 0.35, 0.3], "swing": [0.3, 0.25, 0.0]})
    ax = bl.plots.tornado(table)
    assert [t.get_text() for t in ax.get_yticklabels()] == ["c", "b", "a"]
    widths = [round(p.get_width(), 12) for p in ax.patches]
    lefts = [round(p.get_x(), 12) for p in ax.patches]
    assert widths == [0.0, 0.25, 0.3] and lefts == [0.3, 0.1, 0.2]


def test_every_public_plot_is_exercised_here():
    import inspect

    source = inspect.getsource(inspect.getmodule(test_save_writes_png_and_svg))
    missing = [name for name in bl.plots.__all__
               if name != "PALETTE" and f"bl.plots.{name}(" not in source]
    assert missing == []


# -- rest and the Reaction timeline (RULES.md 1.4, 1.6) ----------------------------------------

def test_rest_regeneration_one_line_per_quick_score_flat_past_the_cap():
    ax = bl.plots.rest_regeneration(data.rest_day(), lang="fr")
    lines = [ln for ln in ax.get_lines() if ln.get_gid() != "cap"]
    assert len(lines) == 4
    for line, score in zip(lines, (10, 15, 20, 25)):  # the document's quick scores
        hours = np.asarray(line.get_xdata())
        np.testing.assert_array_equal(hours, np.arange(25))
        # one rest from hour 0: every hour counts until 12 have counted in the 24 h window
        np.testing.assert_array_equal(line.get_ydata(), score * np.minimum(hours, 12))
    (cap,) = [ln for ln in ax.get_lines() if ln.get_gid() == "cap"]
    assert cap.get_xdata()[0] == 12
    assert [t.get_text() for t in ax.get_legend().get_texts()] == [
        "médiocre (10)", "convenable (15)", "bon (20)", "excellent (25)"]
    assert ax.get_xlabel() == "Heures de repos ininterrompu"
    assert ax.get_ylabel() == "PV ou Flux régénérés"
    assert any(t.get_text() == "plafond : 12 heures comptées sur 24 h" for t in ax.texts)


def test_rest_regeneration_follows_a_variant_cap():
    variant = RULES.updated({"rest": {"max_hours_per_day": 8}})
    ax = bl.plots.rest_regeneration(data.rest_day(["good"], rules=variant), rules=variant)
    (line,) = [ln for ln in ax.get_lines() if ln.get_gid() != "cap"]
    assert max(line.get_ydata()) == 20 * 8
    assert [ln.get_xdata()[0] for ln in ax.get_lines() if ln.get_gid() == "cap"] == [8]
    assert ax.get_xlabel() == "Hours of uninterrupted rest"


def test_rest_breakdown_reproduces_the_documents_examples():
    ex = data.rest_breakdown({"forest": [dict(hours=8, thirst="enough", hunger="satiated",
                                              sleep_hours=6, comfort=1)],
                              "cave": [dict(hours=3, thirst="enough", hunger="fresh",
                                            sleep_hours=2, comfort=1),
                                       dict(hours=5, thirst="enough", hunger="fresh",
                                            sleep_hours=3, comfort=0)]})
    assert ex["score"].tolist() == [6 + 4 + 4 + 1, 6 + 6 + 0 + 1, 6 + 6 + 0 + 0]
    assert ex.groupby("example", sort=False)["regeneration"].sum().to_dict() == \
        {"forest": 120, "cave": 99}


def test_reaction_grid_answers_every_cooldown_seconds():
    table = data.reaction_grid(range(0, 11), range(0, 60))
    ax = bl.plots.reaction_grid(table, lang="fr", seconds=30, highlight=8)
    (image,) = ax.get_images()
    shown = np.asarray(image.get_array())
    assert shown.shape == (11, 30)
    for c in range(11):  # a trigger every second: answered at 0, c, 2c, ... (every second if c=0)
        want = [t % max(c, 1) == 0 for t in range(30)]
        np.testing.assert_array_equal(shown[c].astype(bool), want)
    counts = table.groupby("cooldown")["answered"].sum()
    assert counts.tolist() == [-(-60 // max(c, 1)) for c in range(11)]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == [
        "suivi d'une Réaction", "manqué : recharge commune en cours"]
    assert ax.get_ylabel() == "Temps de recharge (s)"
    bold = [t.get_text() for t in ax.get_yticklabels() if t.get_fontweight() == "bold"]
    assert bold == ["8"]
    assert any(t.get_text() == "Attaque d'opportunité" for t in ax.texts)
