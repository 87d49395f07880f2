"""Bad input to the percentile rules: one-line ValueErrors naming the argument."""
from __future__ import annotations

import re

import pytest

import balance as bl

P = bl.percentile


@pytest.mark.parametrize("call,name", [
    (lambda: P.tiers(-1), "skill"),
    (lambda: P.tiers("65"), "skill"),
    (lambda: P.tiers(65.5), "skill"),
    (lambda: P.tiers(None), "skill"),
    (lambda: P.tiers(65, grade="hrad"), "grade"),
    (lambda: P.tiers(65, grade=2), "grade"),
    (lambda: P.graded_skill(65, "formidible"), "grade"),
    (lambda: P.opposed(-5, 50), "first"),
    (lambda: P.opposed(50, "x"), "second"),
    (lambda: P.opposed(50, 50, second_grade="impossible"), "second_grade"),
    (lambda: P.differential(50, 50, first_grade="eazy"), "first_grade"),
    (lambda: P.tier_table([10, -2]), "skills"),
    (lambda: P.tier_table([10], grades=["Hard", "Hardest"]), "grades"),
    (lambda: P.sample_tiers(50, -1), "n"),
    (lambda: P.sample_tiers(50, 10, seed="x"), "seed"),
    (lambda: P.tier_sampler(-1, 1, skill=50), "n"),
    (lambda: P.tier_codes(0, 50), "rolls"),
    (lambda: P.tier_codes([5, 101], 50), "rolls"),
    (lambda: P.tier_codes(5, [50, -5]), "skills"),
    (lambda: P.tier_codes(5, "x"), "skills"),
    (lambda: P.tier_sampler(10, 1, skill=-50), "skill"),
    (lambda: P.tier_table([10**30]), "skills"),
    (lambda: P.contest_skills(130), "skills"),
    (lambda: P.location_of(21), "roll"),
    (lambda: P.duel_sampler(10, 1, "spec"), "spec"),
    (lambda: P.action_points(-1), "int_dex"),
    (lambda: P.action_points(12.5), "int_dex"),
    (lambda: P.experience_modifier(10**6), "cha"),
    (lambda: P.damage_modifier(-3), "str_siz"),
    (lambda: P.damage_modifier("big"), "str_siz"),
    (lambda: P.location_hp(0), "con_siz"),
    (lambda: P.human_distribution("action_point"), "attribute"),
    (lambda: P.abilities_known(-20), "skill"),
    (lambda: P.best_source({}), "sources"),
    (lambda: P.best_source({"self": -1}), "sources"),
    (lambda: P.location_source(10, 5), "strength"),
    (lambda: P.casting_conditions(wound="mortal"), "wound"),
    (lambda: P.casting_conditions(voice="no"), "voice"),
    (lambda: P.hit_locations(mounted="yes"), "mounted"),
    (lambda: P.combatant(-10), "combat_style"),
    (lambda: P.combatant(10**20), "combat_style"),
    (lambda: P.combatant(50, evade=10**20), "evade"),
    (lambda: P.combatant(50, endurance=10**20), "endurance"),
    (lambda: P.combatant(50, action_points=10**20), "action_points"),
    (lambda: P.combatant(50, armour=10**20), "armour"),
    (lambda: P.combatant(50, armour={"head": 10**20}), "armour['head']"),
    (lambda: P.combatant(50, armour_enc=10**20), "armour_enc"),
    (lambda: P.combatant(50, weapon="longsword"), "weapon"),
    (lambda: P.combatant(50, weapon=("1d8", "Gigantic")), "weapon size"),
    (lambda: P.combatant(50, weapon=("1x8", "Medium")), "weapon"),
    (lambda: P.combatant(50, shield="tower"), "shield"),
    (lambda: P.combatant(50, armour=-1), "armour"),
    (lambda: P.combatant(50, armour={"tail": 2}), "armour"),
    (lambda: P.combatant(50, characteristics={"STR": 0}), "characteristics"),
    (lambda: P.combatant(50, characteristics={"LUCK": 10}), "characteristics"),
    (lambda: P.weapon_size("Tiny"), "size"),
    (lambda: P.duel_spec("bob", P.combatant(50)), "first"),
    (lambda: P.duel_spec(P.combatant(50), P.combatant(50), max_rounds=0), "max_rounds"),
    (lambda: P.duel(P.combatant(50), P.combatant(50), trials=0), "trials"),
])
def test_bad_input_names_the_argument(call, name):
    with pytest.raises(ValueError) as info:
        call()
    message = str(info.value)
    assert "\n" not in message
    assert re.search(rf"(?<![\w']){re.escape(name)}(?![\w'])", message), message


def test_did_you_mean_for_grades_and_weapons():
    with pytest.raises(ValueError, match="did you mean 'hard'"):
        P.tiers(65, grade="hrad")
    with pytest.raises(ValueError, match="did you mean"):
        P.combatant(50, weapon="brodsword")
