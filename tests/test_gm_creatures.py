"""GM guide creature sheets and design limits (RULES.md §2.1, §2.2) against the guide's examples."""
from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

import balance as bl

GOBLIN = dict(STR=0, DEX=2, CON=-2, INT=-1, WIS=0, CHA=-1)


def test_goblin_worked_example():
    g = bl.creatures.sheet(level=5, base_hp=4, size="small", kind="standard", **GOBLIN)
    assert g.max_hp == 4 * 5 - 2 == 18


def test_dragon_worked_example():
    d = bl.creatures.sheet(level=5, base_hp=20, size="large", kind="boss",
                           STR=5, DEX=0, CON=4, INT=2, WIS=1, CHA=-3)
    assert d.max_hp == 20 * 5 + 4 == 104
    assert bl.creatures.creature("Dragon", 5).max_hp == 104
    assert bl.creatures.creature("Goblin", 5).max_hp == 18


@settings(max_examples=60, deadline=None)
@given(level=st.integers(1, 20), base=st.integers(6, 9),
       stats=st.lists(st.integers(-4, 6), min_size=6, max_size=6))
def test_formulas_match_the_guide(level, base, stats):
    names = ["STR", "DEX", "CON", "INT", "WIS", "CHA"]
    s = dict(zip(names, stats))
    c = bl.creatures.sheet(level=level, base_hp=base, size="medium", **s)
    assert c.init == 10 + s["DEX"]
    assert c.phys_def == 10 + 2 * s["CON"] + level
    assert c.mag_def == 10 + 2 * s["WIS"] + level
    assert (c.melee_atk, c.ranged_atk, c.mag_atk) == (s["STR"] + level, s["DEX"] + level,
                                                     s["INT"] + level)
    assert c.max_hp == base * level + s["CON"]
    total = sum(stats)
    expected = Fraction(1, 2) if total <= 2 else Fraction(1) if total <= 9 else Fraction(2)
    assert c.adversity_ratio == expected


def test_medium_boss_sum_12_is_three_to_one():
    assert bl.encounters.adjusted_ratio("medium", "boss", 12) == Fraction(3)
    assert bl.creatures.creature("Troll").adversity_ratio == Fraction(3)
    assert bl.creatures.creature("Dragon").adversity_ratio == Fraction(3)
    assert bl.creatures.creature("Baby Dragon").adversity_ratio == Fraction(1, 2)


def test_base_ratios_and_ladder_edges():
    r = bl.encounters.base_ratio
    assert [r(s, "standard") for s in ("tiny", "small", "medium", "large")] == \
        [Fraction(1, 3), Fraction(1, 2), Fraction(1), Fraction(2)]
    assert [r(s, "boss") for s in ("small", "medium", "large", "huge")] == \
        [Fraction(1), Fraction(2), Fraction(3), Fraction(4)]
    assert r("large", "mini-boss") == Fraction(2)          # standard column
    assert bl.encounters.adjusted_ratio("tiny", "standard", 0) == Fraction(1, 3)  # floor of ladder
    assert bl.encounters.adjusted_ratio("titanic", "boss", 20) == Fraction(6)      # beyond 5/1


def test_summary_table_levels_1_to_20():
    g = bl.creatures.sheet(level=5, base_hp=4, size="small", **GOBLIN)
    t = g.summary()
    assert list(t.index) == list(range(1, 21))
    assert list(t["max_hp"]) == [4 * lv - 2 for lv in range(1, 21)]
    assert list(t["phys_def"]) == [10 - 4 + lv for lv in range(1, 21)]


def test_french_names_and_bestiary_table():
    assert bl.creatures.creature("Gobelin").name == "Goblin"
    table = bl.creatures.bestiary()
    assert {"Goblin", "Dragon", "Baby Dragon"} <= set(table["name"])


@pytest.mark.parametrize("kwargs, word", [
    (dict(level=0), "level"), (dict(level=21), "level"),
    (dict(base_hp=7), "base_hp"), (dict(size="gigantic"), "size"),
    (dict(kind="legend"), "kind"), (dict(STR=7), "STR"), (dict(DEX=-5), "DEX"),
    (dict(STRENGTH=1), "STRENGTH"), (dict(size="huge"), "size"),
])
def test_sheet_bad_input(kwargs, word):
    args = dict(level=5, base_hp=4, size="small", kind="standard", **GOBLIN)
    args.update(kwargs)
    with pytest.raises(ValueError, match=word):
        bl.creatures.sheet(**args)


def test_unknown_creature_did_you_mean():
    with pytest.raises(ValueError, match="did you mean 'Goblin'"):
        bl.creatures.creature("Goblinn")


def test_design_messages_say_limit_and_amount():
    r = bl.design.check_ancestry(STR=4, DEX=2, adaptability=5)
    assert not r.ok
    assert "STR = +4 is above the maximum +3 by 1" in r.problems
    assert "sum of modifiers +6 is above the maximum +3 by 3" in r.problems
    assert "adaptability 5 is above the maximum 3 by 2" in r.problems
    with pytest.raises(ValueError, match="invalid ancestry"):
        r.raise_if_invalid()
    ok = bl.design.check_class(STR=2, CON=-1)
    assert ok.ok and ok.free_points == 2
    assert bl.design.check_class(CHA=-3).problems == ("CHA = -3 is below the minimum -2 by 1",)
    c = bl.design.check_creature(STR=7, abilities=["a", "b", "c", "d", "e"])
    assert c.problems == ("STR = +7 is above the maximum +6 by 1",
                          "5 abilities is above the maximum 4 by 1")
    with pytest.raises(ValueError, match="unknown stat"):
        bl.design.check_class(LUCK=1)


def test_stat_meanings():
    m = bl.design.stat_meaning
    assert [m(v) for v in (-4, -3, -2, -1, 1, 2, 3, 4, 5, 6)] == [
        "very weak", "weak", "weak", "average", "average", "good", "good", "very good",
        "exceptional", "superhuman"]
    assert m(5, lang="fr") == "exceptionnel"
    with pytest.raises(ValueError, match="value"):
        m(7)


def test_a_creature_needs_one_hp():
    with pytest.raises(ValueError, match="CON = -4 leaves creature with max HP 1 x 1 -4 = -3"):
        bl.creatures.sheet(level=1, base_hp=1, size="tiny", CON=-4)


def test_mini_boss_has_boss_base_hp_and_the_standard_ratio():
    # RULES.md 2.2: base HP ranges "Boss or mini-boss" (medium 17-19); 2.4: a mini-boss's
    # ratio comes from the standard column (medium 1/1), a boss's from the boss column (2/1).
    stats = dict(STR=2, DEX=1, CON=1, INT=0, WIS=0, CHA=0)          # sum 4: no adjustment
    mini = bl.creatures.sheet(level=5, base_hp=18, size="medium", kind="mini-boss", **stats)
    boss = bl.creatures.sheet(level=5, base_hp=18, size="medium", kind="boss", **stats)
    assert mini.max_hp == boss.max_hp == 18 * 5 + 1
    assert (mini.adversity_ratio, boss.adversity_ratio) == (Fraction(1), Fraction(2))
    with pytest.raises(ValueError, match="base_hp must be an integer between 17 and 19 for a "
                                         "medium mini-boss creature, got 8"):
        bl.creatures.sheet(level=5, base_hp=8, size="medium", kind="mini-boss", **stats)


def test_a_single_name_is_one_name():
    s = bl.creatures.sheet(level=5, base_hp=4, size="small", weaknesses="fire",
                           resistances="ice", abilities="Fire Breath", **GOBLIN)
    assert (s.weaknesses, s.resistances, s.abilities) == (("fire",), ("ice",), ("Fire Breath",))


@pytest.mark.parametrize("kwargs, message", [
    (dict(size="gigantic"), "unknown size 'gigantic'; accepted: tiny, small, medium, large, "
                            "huge, titanic"),
    (dict(kind="legend"), "unknown kind 'legend'; accepted: standard, boss, mini-boss"),
    (dict(weaknesses=3), "weaknesses must be a name or a list of names, got 3"),
    (dict(targets="2"), "targets must be an integer >= 1, got '2'"),
])
def test_sheet_errors_list_what_is_accepted(kwargs, message):
    args = dict(level=5, base_hp=4, size="small", kind="standard", **GOBLIN)
    args.update(kwargs)
    with pytest.raises(ValueError) as err:
        bl.creatures.sheet(**args)
    assert str(err.value) == message


def test_design_ability_names_and_adaptability_type():
    assert bl.design.check_creature(abilities="Fire Breath").ok
    assert bl.design.check_creature(abilities=["a"] * 4).ok
    with pytest.raises(ValueError, match="adaptability must be an integer, got None"):
        bl.design.check_ancestry(STR=1, adaptability=None)
