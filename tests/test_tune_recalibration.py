"""bl.encounters.recalibrate at fixed seeds: the held-out families' reversals, spread and
prediction error drop; every figure of the check recomputed here from the encounter table;
the variant file reproduces the proposed ratios and calibrations."""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

import balance as bl
from balance.errors import RulesError


@pytest.fixture(scope="module")
def rec():
    return bl.encounters.recalibrate(levels=(5,), trials=400, seed=0)


def held(rec):
    return rec.held_out()


def test_held_out_reversals_spread_and_error_drop(rec):
    row = held(rec)
    assert row["encounters"] == 42
    assert row["reversals_after"] < row["reversals_before"]
    assert row["widest_spread_after"] < row["widest_spread_before"]
    assert row["rmse_after"] < row["rmse_before"]
    assert row["rmse_after"] <= 0.10  # the target on held-out families


def brute_reversals(g, cal_col):
    """Pairs (i, j): challenge band of i below j's, j won significantly more (CIs apart)."""
    band = np.floor(g[cal_col].to_numpy(float) + 1e-9)
    lo, hi = g["win_ci_low"].to_numpy(), g["win_ci_high"].to_numpy()
    return sum(1 for i in range(len(g)) for j in range(len(g))
               if band[i] < band[j] and lo[j] > hi[i])


def test_the_check_is_what_the_table_says(rec):
    t = rec.table[rec.table["split"] == "held-out"]
    win = t["party_win_rate"].to_numpy()
    row = held(rec)
    assert row["rmse_after"] == pytest.approx(np.sqrt(np.mean((t["predicted_after"] - win) ** 2)))
    assert row["rmse_before"] == pytest.approx(
        np.sqrt(np.mean((t["predicted_before"] - win) ** 2)))
    assert row["reversals_before"] == brute_reversals(t, "guide_calibration")
    assert row["reversals_after"] == brute_reversals(t, "calibration")
    for when, col in (("before", "guide_calibration"), ("after", "calibration")):
        bands = np.floor(t[col] + 1e-9)
        spread = max(t[bands == b]["party_win_rate"].max() - t[bands == b]["party_win_rate"].min()
                     for b in bands.unique())
        assert row[f"widest_spread_{when}"] == pytest.approx(spread)
    # the curve: 1 / (1 + exp((calibration - midpoint) / scale)), midpoint 0
    expected = 1 / (1 + np.exp((t["calibration"] - rec.midpoint) / rec.scale))
    assert t["predicted_after"].to_numpy() == pytest.approx(expected.to_numpy())


@pytest.mark.filterwarnings("ignore::balance.guide.adversity.EncounterAdvice")  # big swarms
def test_the_variant_file_gives_the_proposed_ratios_and_calibrations(rec, tmp_path):
    path = rec.save(tmp_path / "ratios.toml")
    rules = bl.load_rules(path)
    for _, r in rec.ratios.iterrows():
        assert bl.creatures.creature(r["creature"], rules=rules).adversity_ratio == \
            r["proposed_ratio"]
        assert r["proposed_ratio"].denominator <= 12
    for _, e in rec.table.iterrows():
        value = bl.encounters.calibration(
            [bl.creatures.creature(n, e["level"], rules=rules) for n in e["names"]],
            4, rules=rules).value
        assert float(value) == pytest.approx(e["calibration"])
    # the guide's calibrations are the bundled ones
    e = rec.table.iloc[0]
    assert bl.encounters.calibration(
        [bl.creatures.creature(n, e["level"]) for n in e["names"]], 4).value == \
        Fraction(e["guide_calibration"])
    with pytest.raises(ValueError, match="already exists"):
        rec.save(path)


def test_the_ladder_model_shares_a_ratio_per_rung():
    rec = bl.encounters.recalibrate(levels=(5,), trials=200, seed=2, model="ladder",
                                    families=[("Wolf",), ("Skeleton",), ("Goblin",),
                                              ("Ogre", "Wolf")],
                                    held_out=[("Skeleton", "Goblin")])
    r = rec.ratios.set_index("creature")["proposed_ratio"]
    assert r["Wolf"] == r["Skeleton"]  # both 1/1 in the guide
    assert set(rec.ratios["creature"]) == {"Wolf", "Skeleton", "Goblin", "Ogre"}


@pytest.mark.parametrize("kwargs, fragment", [
    (dict(families=[("Wolf",)], held_out=[("Ogre",)]), "Ogre .* is in no training family"),
    (dict(families=[("Wolf", "Ogre", "Goblin")]), "1 or 2 creature names"),
    (dict(families=[]), "non-empty list"),
    (dict(model="free"), "model"),
    (dict(trials=10), "trials"),
    (dict(families=[("Wolfe",)], held_out=[("Wolfe",)]), "creature"),
])
def test_bad_input_is_one_line(kwargs, fragment):
    with pytest.raises(ValueError, match=fragment) as err:
        bl.encounters.recalibrate(**(dict(levels=(5,), trials=100) | kwargs))
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("rows, fragment", [
    ([{"creature": "Gobbo", "ratio": "1/2"}], "not in the bestiary"),
    ([{"creature": "Goblin", "ratio": "half"}], "not a ratio"),
    ([{"creature": "Goblin", "ratio": "0/1"}], "not a ratio"),
    ([{"creature": "Goblin", "ratio": "1/2"}, {"creature": "Goblin", "ratio": "1/3"}], "twice"),
])
def test_creature_ratios_rows_are_checked_at_load(rows, fragment):
    with pytest.raises(RulesError, match=fragment):
        bl.load_rules().updated({"encounters": {"creature_ratios": rows}})


def test_a_creature_ratio_replaces_the_guides_at_every_level_and_by_french_name():
    rules = bl.load_rules().updated(
        {"encounters": {"creature_ratios": [{"creature": "Gobelin", "ratio": "2/3"}]}})
    assert bl.creatures.creature("Goblin", 3, rules=rules).adversity_ratio == Fraction(2, 3)
    assert bl.creatures.creature("Goblin", rules=rules).at_level(8).adversity_ratio == \
        Fraction(2, 3)
    assert bl.creatures.creature("Wolf", rules=rules).adversity_ratio == 1  # unchanged
    assert math.isclose(float(bl.encounters.calibration(
        [bl.creatures.creature("Goblin", rules=rules)] * 3, 4).value), -2.0)


def test_the_report_section_is_opt_in_and_renders(tmp_path):
    from balance.report import build_report
    from balance.report.topics import available_topics

    assert "recalibration" not in [m.KEY for m in available_topics()[0]]
    path = build_report(None, out=tmp_path / "rep", topics=["recalibration"], trials=100,
                        seed=0, progress=False)
    text = (path / "report.md").read_text(encoding="utf-8")
    assert "Encounters: proposed adversity ratios" in text and "Goblin" in text


def test_two_worker_processes_give_the_same_recalibration():
    kw = dict(levels=(5,), trials=400, seed=4, families=[("Wolf",), ("Goblin",)],
              held_out=[("Wolf", "Goblin")])
    one = bl.encounters.recalibrate(workers=1, **kw)
    two = bl.encounters.recalibrate(workers=2, **kw)
    assert one.table["party_win_rate"].equals(two.table["party_win_rate"])
    assert one.ratios.equals(two.ratios) and one.check.equals(two.check)


def test_challenges_come_from_exact_calibrations(monkeypatch):
    """GM guide: calibration in exact fractions. In floats 4 x 1/12 + 7 x 2/3 - 4 is
    0.9999999999999991 when added in that order, one band too low (Demanding, not Intense),
    and numpy's dot product gives 0.999... or 1.0 by machine (its order and fused
    multiply-adds): every challenge the recalibration names is read from a Fraction, and that
    sum reads Intense."""
    from balance.guide import recalibration
    assert bl.encounters.challenge(4 * (1 / 12) + 7 * (2 / 3) - 4) == "Demanding"  # Python floats
    (exact,) = recalibration._exact_calibrations(np.array([[4.0, 7.0]]),
                                                 [Fraction(1, 12), Fraction(2, 3)], 4)
    assert exact == 1 and bl.encounters.challenge(exact) == "Intense"
    seen = []
    real = recalibration.challenge
    monkeypatch.setattr(recalibration, "challenge",
                        lambda value, **kw: seen.append(value) or real(value, **kw))
    rec = bl.encounters.recalibrate(levels=(5,), trials=100, seed=0)
    assert len(seen) == 2 * len(rec.table) and all(isinstance(v, Fraction) for v in seen)
    assert [float(v) for v in seen[:len(rec.table)]] == pytest.approx(
        rec.table["guide_calibration"].tolist(), abs=1e-12)
