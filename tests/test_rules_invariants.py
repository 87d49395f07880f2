"""Cross-field invariants of the rules (balance/rules/invariants): every variant that loads
gives valid numbers; every variant that breaks an invariant is refused in one line naming
both ends and the fix (issue 10 item 1, issue 11 "variants are checked completely at load").

Each invariant has a variant that breaks it (REFUSED: the message must name both ends) and a
variant just inside the boundary (ACCEPTED), so a check is neither missing nor over-strict.
"""
from __future__ import annotations

import copy
import math
from pathlib import Path

import pytest

import balance as bl
from balance import cli
from balance.rules.invariants import REGISTRY, reference

BASE = bl.load_rules()
SOURCE = "v.toml"


def nested(path: str, value) -> dict:
    """``{"a": {"b": value}}`` from ``"a.b"``."""
    out: dict = {}
    node = out
    *parents, last = path.split(".")
    for part in parents:
        node = node.setdefault(part, {})
    node[last] = value
    return out


def merge(*overlays: dict) -> dict:
    out: dict = {}
    for ov in overlays:
        _merge(out, ov)
    return out


def _merge(base: dict, ov: dict) -> None:
    for k, v in ov.items():
        if isinstance(v, dict) and isinstance(base.get(k), dict):
            _merge(base[k], v)
        else:
            base[k] = v


def rows(path: str, index: int | None = None, **changes) -> dict:
    """The overlay replacing the bundled table at ``path`` with row ``index`` changed."""
    table = [dict(r) for r in bl.rules.plain(BASE.get(path))]
    if index is not None:
        table[index].update(changes)
        for key, value in list(changes.items()):
            if value is None:
                del table[index][key]
    return nested(path, table)


def value(path: str, v) -> dict:
    return nested(path, v)


def load(overlay: dict):
    return BASE.updated(copy.deepcopy(overlay), source=SOURCE)


# (invariant, variant that breaks it, fragments the one-line message must hold: both ends)
REFUSED = [
    ("numbers.finite", value("percentile.combat.sizes.parry_block", [1.0, math.nan]),
     ["parry_block.2", "finite number", "nan"]),
    ("numbers.finite", value("percentile.magic.location_fractions", [0.25, 0.5, 0.75, math.inf]),
     ["location_fractions.4", "finite number", "inf"]),
    ("names.unique", rows("creatures.sizes", 1, en="Tiny"),
     ["creatures.sizes", "rows 1 ('tiny') and 2 ('Tiny')", "share the name 'Tiny'"]),
    ("names.unique", rows("injuries.table", 1, fr="Étourdi"),
     ["injuries.table", "rows 1 ('Dazed') and 2 ('Feeble')", "'Étourdi'"]),
    ("names.unique", rows("percentile.weapons.table", 1, key="dagger"),
     ["percentile.weapons.table", "rows 1 and 2 share the key 'dagger'"]),
    ("names.unique", value("fights.damage_types", ["fire", "ice", "fire"]),
     ["fights.damage_types names 'fire' twice (items 1 and 3)"]),
    ("injuries.threshold_after_table", value("injuries.death_threshold", 151),
     ["injuries.death_threshold = 151", "row 'The end is near' (151-175)", "above 175"]),
    ("injuries.threshold_after_table", value("injuries.death_threshold", 175),
     ["injuries.table: the last row 'The end is near' (151-175) runs past "
      "injuries.death_threshold = 175", "totals 175-175 would be death", "end the row at 174"]),
    ("injuries.threshold_after_table", rows("injuries.table", 28, high=176),
     ["last row 'The end is near' (151-176)", "injuries.death_threshold = 176"]),
    ("treatment.attempt_within_retry", value("treatment.light.minutes", 61),
     ["treatment.light.minutes = 61", "treatment.light.retry_minutes = 60"]),
    ("negotiation.divisors_ordered", value("negotiation.partial_divisor", 1),
     ["negotiation.partial_divisor = 1", "negotiation.full_divisor = 2"]),
    ("negotiation.rule_known", value("negotiation.rule", "charsima"),
     ["negotiation.rule = 'charsima'", "'charisma'"]),
    ("rest.window_holds_cap", merge(value("rest.max_hours_per_day", 24),
                                    value("rest.window_hours", 23)),
     ["rest.max_hours_per_day = 24", "rest.window_hours = 23"]),
    ("rest.armour_comfort_in_range", value("rest.armour_comfort", 5),
     ["rest.armour_comfort = 5", "rest.comfort_max = 4"]),
    ("guide.min_not_above_max", value("design.modifier_min", 4),
     ["design.modifier_min = 4", "design.modifier_max = 3"]),
    ("guide.min_not_above_max", value("creatures.summary_levels_max", 21),
     ["creatures.summary_levels_max = 21", "creatures.level_max = 20"]),
    ("guide.min_not_above_max", value("economy.max_dice", 5),
     ["economy.max_dice = 5", "economy.max_dice_two_handed = 4"]),
    ("guide.default_levels_in_range", value("party.level", 21),
     ["party.level = 21", "creatures.level_min..level_max = 1..20"]),
    ("guide.default_levels_in_range", merge(value("creatures.level_max", 4),
                                            value("creatures.summary_levels_max", 4)),
     ["party.level = 5", "creatures.level_min..level_max = 1..4"]),
    ("encounters.party_within_max_pcs", value("encounters.max_pcs", 3),
     ["party.members lists 4 PCs but encounters.max_pcs = 3"]),
    ("design.stat_meanings_cover", value("design.creature_stat_max", 7),
     ["design.stat_meanings covers -4..6", "creature stats run -4..7"]),
    ("design.stat_meanings_cover", value("design.creature_stat_min", -5),
     ["design.stat_meanings covers -4..6", "creature stats run -5..6"]),
    ("creatures.stats_and_profiles", value("creatures.hp_stat", "LUCK"),
     ["creatures.hp_stat = 'LUCK'", "design.stats"]),
    ("creatures.stats_and_profiles", rows("creatures.attacks", 0, en="brawl"),
     ["creatures.attacks has no row 'melee'", "restore the row 'melee'"]),
    ("creatures.stats_and_profiles", rows("creatures.attacks", 2, defence="armour"),
     ["creatures.attacks 'magic': defence = 'armour'", "creatures.defences"]),
    ("creatures.stats_and_profiles", value("creatures.default_attack", "kick"),
     ["creatures.default_attack = 'kick'", "creatures.attacks"]),
    ("creatures.stats_and_profiles", value("creatures.default_damage", "1x6"),
     ["creatures.default_damage = '1x6' is not a dice expression"]),
    ("creatures.sizes_and_kinds", rows("encounters.base_ratios", 0, size="gigantic"),
     ["encounters.base_ratios, row 1: size = 'gigantic'", "creatures.sizes"]),
    ("creatures.sizes_and_kinds", rows("creatures.base_hp", 8, kind="elite"),
     ["creatures.base_hp, row 9: kind = 'elite'", "hp_column of creatures.kinds"]),
    ("creatures.sizes_and_kinds", rows("creatures.kinds", 2, ratio_column="elite"),
     ["creatures.kinds 'mini-boss': ratio_column = 'elite'", "encounters.base_ratios"]),
    ("creatures.sizes_and_kinds", rows("encounters.base_ratios", 1, size="tiny"),
     ["encounters.base_ratios: rows 1 and 2 both give tiny standard"]),
    ("encounters.ladder_ordered", value("encounters.ladder", []),
     ["encounters.ladder is empty"]),
    ("encounters.ladder_ordered", value("encounters.ladder", ["1/2", "1/3"]),
     ["encounters.ladder item 2 = '1/3' does not rise above item 1 = '1/2'"]),
    ("encounters.ladder_ordered", value("encounters.ladder", ["1/3", "half"]),
     ["encounters.ladder item 2 = 'half' is not a ratio"]),
    ("encounters.ladder_ordered", value("encounters.area_ability_ratio", "two"),
     ["encounters.area_ability_ratio = 'two'"]),
    ("encounters.open_ended_tables", rows("encounters.challenges", 4, high=5),
     ["encounters.challenges, last row 'Impossible' ends at 5"]),
    ("encounters.open_ended_tables", rows("guide.falls.bands", 3, high=5000),
     ["guide.falls.bands, last row 'dead' ends at 5000"]),
    ("encounters.open_ended_tables", rows("encounters.stat_sum_steps", 2, high=35),
     ["encounters.stat_sum_steps ends at 35", "6 x design.creature_stat_max = 36"]),
    ("guide.falls_roll_dice", value("guide.falls.metres_per_die", 3),
     ["guide.falls.metres_per_die = 3 gives no die to a fall of 200 cm", "'damage'"]),
    ("guide.fall_dice_budget", merge(value("guide.falls.metres_per_die", 1), value(
        "guide.falls.bands", [
            {"low": 0, "high": 199, "outcome": "none", "en": "no damage", "fr": "n"},
            {"low": 200, "high": 100100, "outcome": "dice", "en": "damage", "fr": "d"},
            {"low": 100101, "outcome": "dead", "en": "dead", "fr": "m"}])),
     ["'damage' ends at 100100 cm", "1,001 dice"]),
    ("guide.words_and_dice", rows("guide.falls.bands", 1, outcome="hurt"),
     ["guide.falls.bands, 'damage': outcome = 'hurt'", "'dice'"]),
    ("guide.words_and_dice", value("guide.falls.die", "1d6+1"),
     ["guide.falls.die = '1d6+1' must be one kind of die"]),
    ("guide.words_and_dice", value("fights.targeting", "strongest"),
     ["fights.targeting = 'strongest'", "'weakest', 'random'"]),
    ("guide.words_and_dice", value("economy.negotiation.buy_rounding", "nearest"),
     ["economy.negotiation.buy_rounding = 'nearest'", "'up' or 'down'"]),
    ("guide.words_and_dice", value("guide.checks.critical_success", 21),
     ["guide.checks.critical_success = 21", "d20 (guide.checks.die)"]),
    ("guide.words_and_dice", value("guide.checks.critical_failure", 20),
     ["critical_success and critical_failure are both face 20"]),
    ("economy.dice_and_caps", rows("economy.dice_values", 1, die="d7"),
     ["economy.dice_values, row 2: die 'd7' does not match faces = 6"]),
    ("economy.dice_and_caps", merge(value("economy.roll_bonus_min", 1),
                                    value("economy.roll_bonus_max", 5)),
     ["economy.roll_bonus_min..roll_bonus_max = 1..5 leaves out 0"]),
    ("economy.dice_and_caps", value("economy.equipment_bonus_max", -1),
     ["economy.equipment_bonus_min..equipment_bonus_max = -3..-1 leaves out 0"]),
    ("economy.dice_and_caps", value("economy.cap_reduction_per_extra_die", 3),
     ["economy.roll_bonus_max = 3 lowered by cap_reduction_per_extra_die x 3 extra dice is -6",
      "economy.roll_bonus_min = -3"]),
    ("economy.negotiation_ordered", value("economy.negotiation.buy_critical_percent", 80),
     ["buy_critical_percent = 80", "buy_success_percent = 75"]),
    ("economy.negotiation_ordered", value("economy.negotiation.buy_success_percent", 101),
     ["buy_success_percent = 101", "standard price (100)"]),
    ("economy.negotiation_ordered", value("economy.negotiation.sell_success_percent", 99),
     ["sell_success_percent = 99", "resale price"]),
    ("economy.negotiation_ordered", value("economy.negotiation.sell_critical_percent", 62),
     ["sell_critical_percent = 62", "sell_success_percent = 125", "50 % of the value"]),
    ("guide.sheets_buildable", rows("bestiary.creatures", 0, base_hp=6),
     ["bestiary.creatures, 'Goblin': base_hp 6", "small standard range 3-5"]),
    ("guide.sheets_buildable", rows("bestiary.creatures", 0, stats={"STR": 7}),
     ["bestiary.creatures, 'Goblin': STR = 7", "creature_stat_min..max = -4..6"]),
    ("guide.sheets_buildable", rows("party.members", 2, stats={"INT": 2.5}),
     ["party.members, 'Mage': stat INT = 2.5 is not an integer"]),
    ("guide.sheets_buildable", rows("bestiary.creatures", 2, abilities=[1]),
     ["bestiary.creatures, 'Baby Dragon': abilities must be a list of names (text)"]),
    ("guide.sheets_buildable", rows("party.members", 0, attack="kick"),
     ["party.members, 'Warrior': attack 'kick'", "creatures.attacks"]),
    ("guide.sheets_buildable", rows("party.members", 1, stats={"LUCK": 1}),
     ["party.members, 'Ranger': stat 'LUCK'", "design.stats"]),
    ("guide.sheets_buildable", rows("bestiary.creatures", 1, abilities=["a", "b", "c", "d", "e"]),
     ["'Dragon': 5 abilities", "design.max_abilities"]),
    ("guide.sheets_buildable",
     merge(rows("encounters.base_ratios", 2, ratio="3/2"),
           rows("bestiary.creatures", 4, stats={"STR": 6, "DEX": 4})),
     ["'Wolf': its stat sum 10 moves its base ratio 3/2 +1 step", "encounters.ladder"]),
    ("percentile.roll_faces", value("percentile.die", 20),
     ["percentile.roll.automatic_failure_min = 96 is past the d20 (percentile.die)"]),
    ("percentile.roll_faces", value("percentile.roll.automatic_success_max", 96),
     ["automatic_success_max = 96 reaches automatic_failure_min = 96"]),
    ("percentile.roll_faces", value("percentile.roll.high_skill_fumble_min", 98),
     ["high_skill_fumble_min = 98 is below fumble_min = 99"]),
    ("percentile.tiers_ordered",
     value("percentile.tiers.table", [dict(r) for r in bl.rules.plain(
         BASE.get("percentile.tiers.table"))[1::-1]] + [dict(r) for r in bl.rules.plain(
             BASE.get("percentile.tiers.table"))[2:]]),
     ["percentile.tiers.table lists 'failure', 'fumble', 'success', 'critical'"]),
    ("percentile.tiers_ordered", rows("percentile.tiers.table", 2, value=1),
     ["'success' has value 1, not above 'failure' (1)"]),
    ("percentile.grades_named", value("percentile.grades.default", "Medium"),
     ["percentile.grades.default = 'Medium'", "percentile.grades.table"]),
    ("percentile.grades_named", value("percentile.duel.prone_grade", "Tricky"),
     ["percentile.duel.prone_grade = 'Tricky'", "'Hard'"]),
    ("percentile.grades_named", value("percentile.grades.no_roll_tier", "loss"),
     ["percentile.grades.no_roll_tier = 'loss'", "'failure'"]),
    ("percentile.grades_ordered", rows("percentile.grades.table", 5, denominator=1),
     ["'Herculean' (x1/1) is easier than 'Formidable' before it (x1/2)"]),
    ("percentile.grades_ordered", rows("percentile.grades.table", 4, roll=False),
     ["'Herculean' allows a roll but comes after 'Formidable', which allows none"]),
    ("percentile.characteristics_known",
     value("percentile.characteristics.names", ["CON", "SIZ", "DEX", "INT", "POW", "CHA"]),
     ["percentile.characteristics.names lacks 'STR'"]),
    ("percentile.characteristics_known", value("percentile.damage_modifier.inputs", []),
     ["percentile.damage_modifier.inputs is empty"]),
    ("percentile.characteristics_known", value("percentile.luck_points.inputs", ["LUCK"]),
     ["percentile.luck_points.inputs item = 'LUCK'", "percentile.characteristics.names"]),
    ("percentile.characteristics_known", value("percentile.humans.STR", "3d6+982"),
     ["percentile.humans.STR = '3d6+982' rolls 985..1000", "minimum..maximum = 1..999"]),
    ("percentile.characteristics_known", value("percentile.characteristics.maximum", 17),
     ["percentile.humans.STR = '3d6' rolls 3..18", "1..17"]),
    ("percentile.characteristics_known",
     value("percentile.derived.evade", {"inputs": ["DEX"], "numerator": 2, "denominator": 0}),
     ["percentile.derived.evade.denominator = 0"]),
    ("percentile.bands_cover_sums", value("percentile.characteristics.minimum", 0),
     ["percentile.location_hp.table starts at 1 but CON+SIZ can be 0"]),
    ("percentile.bands_cover_sums", rows("percentile.action_points.table", 2, high=1997),
     ["percentile.action_points.table ends at 1997 but INT+DEX can reach 1998"]),
    ("percentile.damage_modifier_progression",
     rows("percentile.damage_modifier.table", 16, dice="+2d10+1d3"),
     ["last row's dice '+2d10+1d3'", "continuation.extras"]),
    ("percentile.damage_modifier_progression",
     rows("percentile.damage_modifier.table", 3, dice="-1x2"),
     ["percentile.damage_modifier.table, row 4: dice = '-1x2' is not a dice expression"]),
    ("percentile.hit_locations_consistent",
     value("percentile.location_hp.locations", ["head", "chest", "abdomen", "arm", "tail"]),
     ["percentile.location_hp.locations item = 'tail'", "'leg'"]),
    ("percentile.hit_locations_consistent",
     value("percentile.location_hp.locations", ["head", "chest", "abdomen", "arm"]),
     ["'right leg': hp = 'leg'", "percentile.location_hp.locations"]),
    ("percentile.hit_locations_consistent", value("percentile.hit_locations.mounted_roll",
                                                  "1d10+11"),
     ["percentile.hit_locations.mounted_roll = '1d10+11' rolls 12..21", "covers 1..20"]),
    ("percentile.hit_locations_consistent", value("percentile.duel.weapon_arm", "tentacle"),
     ["percentile.duel.weapon_arm = 'tentacle'", "'right_arm'"]),
    ("percentile.magic_consistent", rows("percentile.magic.conditions", 3, key="smell"),
     ["percentile.magic.conditions, row 4: key = 'smell'", "'sight'"]),
    ("percentile.magic_consistent", value("percentile.magic.location_fractions",
                                          [0.25, 0.75, 0.5, 1.0]),
     ["percentile.magic.location_fractions item 3 = 0.5"]),
    ("percentile.magic_consistent", rows("percentile.magic.wounds", 1, passed=3),
     ["percentile.magic.wounds, 'serious wound': passed = 3, failed = 2"]),
    ("percentile.special_effects_consistent", rows("percentile.special_effects.table", 0,
                                                   chooser="either"),
     ["'Choose Location': effect 'choose_location' acts through the blow"]),
    ("percentile.special_effects_consistent", rows("percentile.special_effects.table", 6,
                                                   requires="sometimes"),
     ["'Trip Opponent' requires = 'sometimes' is not one of"]),
    ("percentile.combat_sizes_and_dice", rows("percentile.weapons.table", 4, size="Gigantic"),
     ["percentile.weapons.table, 'Great axe': size 'Gigantic'", "percentile.combat.sizes"]),
    ("percentile.combat_sizes_and_dice", rows("percentile.shields.table", 0, damage="d"),
     ["percentile.shields.table, 'Buckler': damage = 'd' is not a dice expression"]),
    ("percentile.combat_sizes_and_dice", value("percentile.combat.stun_roll", "1d3-4"),
     ["percentile.combat.stun_roll = '1d3-4' can roll -3 turns"]),
    ("percentile.combat_sizes_and_dice", value("percentile.combat.sizes.parry_block", [1.5]),
     ["parry_block item 1 = 1.5 is not a fraction"]),
]

# (invariant, variant just inside its boundary: must load)
ACCEPTED = [
    ("numbers.finite", value("percentile.combat.sizes.parry_block", [1.0, 0.25])),
    ("names.unique", rows("creatures.sizes", 1, fr="petiot")),
    ("injuries.threshold_after_table", merge(value("injuries.death_threshold", 152),
                                             rows("injuries.table", 28, high=151))),
    ("injuries.threshold_after_table", merge(value("injuries.death_threshold", 152),
                                             rows("injuries.table", 28, high=None))),
    ("injuries.threshold_after_table", value("injuries.death_threshold", 100_000)),
    ("treatment.attempt_within_retry", value("treatment.light.minutes", 60)),
    ("negotiation.divisors_ordered", value("negotiation.partial_divisor", 2)),
    ("negotiation.rule_known", value("negotiation.rule", "charisma")),
    ("rest.window_holds_cap", merge(value("rest.max_hours_per_day", 24),
                                    value("rest.window_hours", 24))),
    ("rest.armour_comfort_in_range", value("rest.armour_comfort", 4)),
    ("guide.min_not_above_max", merge(value("design.modifier_min", 3),
                                      value("creatures.summary_levels_max", 20),
                                      value("economy.max_dice", 4))),
    ("guide.default_levels_in_range", merge(value("party.level", 20),
                                            value("bestiary.default_level", 1))),
    ("encounters.party_within_max_pcs", value("encounters.max_pcs", 4)),
    ("design.stat_meanings_cover", merge(value("design.creature_stat_max", 7),
                                         rows("design.stat_meanings", 6, high=None))),
    ("creatures.stats_and_profiles", value("creatures.default_attack", "magie")),
    ("creatures.sizes_and_kinds", rows("creatures.kinds", 2, ratio_column="boss")),
    ("encounters.ladder_ordered", merge(value("encounters.ladder", ["1/2", "1/1", "2/1"]),
                                        rows("encounters.base_ratios", 0, ratio="1/2"))),
    ("encounters.open_ended_tables", rows("encounters.stat_sum_steps", 2, high=36)),
    ("guide.fall_dice_budget", value("guide.falls.metres_per_die", 1)),
    ("guide.falls_roll_dice", merge(value("guide.falls.metres_per_die", 3), value(
        "guide.falls.bands", [dict(r, **c) for r, c in zip(
            bl.rules.plain(BASE.get("guide.falls.bands")),
            [{"high": 299}, {"low": 300}, {}, {}])]))),
    ("guide.words_and_dice", merge(value("guide.checks.critical_success", 0),
                                   value("guide.checks.critical_failure", 0),
                                   value("guide.falls.die", "2d4"))),
    ("economy.dice_and_caps", value("economy.cap_reduction_per_extra_die", 2)),
    ("economy.negotiation_ordered", merge(
        value("economy.negotiation.buy_critical_percent", 75),
        value("economy.negotiation.buy_success_percent", 75),
        value("economy.negotiation.sell_critical_percent", 63))),
    ("guide.sheets_buildable", merge(rows("encounters.base_ratios", 2, ratio="3/2"),
                                     rows("bestiary.creatures", 0, base_hp=5))),
    ("percentile.roll_faces", merge(value("percentile.roll.automatic_success_max", 95),
                                    value("percentile.roll.high_skill_fumble_min", 99))),
    ("percentile.tiers_ordered", rows("percentile.tiers.table", 3, value=5)),
    ("percentile.grades_named", merge(value("percentile.grades.default", "very_easy"),
                                      value("percentile.duel.prone_grade", "Difficile"))),
    ("percentile.grades_ordered", rows("percentile.grades.table", 5, denominator=2)),
    ("percentile.characteristics_known", merge(
        value("percentile.characteristics.names", ["CHA", "STR", "CON", "SIZ", "DEX", "INT",
                                                   "POW"]),
        value("percentile.humans.STR", "3d6+981"))),
    ("percentile.bands_cover_sums", rows("percentile.action_points.table", 2, high=1998)),
    ("percentile.damage_modifier_progression",
     rows("percentile.damage_modifier.table", 16, dice="+2d10+1d4")),
    ("percentile.hit_locations_consistent",
     value("percentile.hit_locations.mounted_roll", "1d10+10")),
    ("percentile.magic_consistent", merge(
        value("percentile.magic.location_fractions", [0.0, 0.5, 0.5, 1.0]),
        rows("percentile.magic.wounds", 1, passed=2))),
    ("percentile.special_effects_consistent", rows("percentile.special_effects.table", 6,
                                                   chooser="defender")),
    ("percentile.combat_sizes_and_dice", merge(
        rows("percentile.weapons.table", 4, size="medium"),
        value("percentile.combat.sizes.parry_block", [1.0, 0.0]))),
]


@pytest.mark.parametrize("name, overlay, fragments", REFUSED,
                         ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(REFUSED)])
def test_a_variant_breaking_an_invariant_is_refused_naming_both_ends(name, overlay, fragments):
    with pytest.raises(bl.RulesError) as info:
        load(overlay)
    message = str(info.value)
    assert message.startswith(f"{SOURCE}: "), message
    assert "\n" not in message
    for fragment in fragments:
        assert fragment in message, (name, message)


@pytest.mark.parametrize("name, overlay", ACCEPTED, ids=[n for n, _ in ACCEPTED])
def test_a_variant_at_the_boundary_is_accepted(name, overlay):
    load(overlay)


def test_every_invariant_has_a_refused_and_an_accepted_case():
    assert {n for n, _, _ in REFUSED} == set(REGISTRY)
    assert {n for n, _ in ACCEPTED} == set(REGISTRY)


def test_bundled_rules_and_variants_pass_every_invariant():
    from balance.rules.invariants import check_invariants

    for name in [None, *bl.rules.bundled_variants()]:
        rules = bl.load_rules() if name is None else bl.load_rules(name)
        check_invariants(rules.to_dict(), rules.source_of)  # raises nothing


def test_the_issue_example_message(tmp_path, monkeypatch, capsys):
    # issue 10: the one-line variant that gave negative chances; the bundled last row is
    # 151-175 (the issue quoted an open-ended 171-), so the fix names 175
    monkeypatch.chdir(tmp_path)
    Path("deadly.toml").write_text("[injuries]\ndeath_threshold = 100\n", encoding="utf-8")
    expected = ("deadly.toml: injuries.death_threshold = 100 falls inside the injury table: "
                "rows 'Paralyzed' (101-110) to 'The end is near' (151-175) could never be rolled; "
                "raise the threshold above 175 or shorten the table")
    with pytest.raises(bl.RulesError) as info:
        bl.load_rules("deadly.toml")
    assert str(info.value) == expected
    assert cli.main(["rules", "check", "deadly.toml"]) == 2
    out, err = capsys.readouterr()
    assert err.strip() == f"balance: error: {expected}" and out == ""
    assert cli.main(["injuries", "--seconds", "30", "--negative-hp", "5", "--rules",
                     "deadly.toml", "--all"]) == 2


def test_the_threshold_just_above_the_last_row_gives_a_distribution():
    # at the boundary (threshold 152) the last row keeps exactly one total, 151; checked by
    # classifying each face of the d100 by hand: total = face + (0 + 1) x (50 + 1)
    rules = load(merge(value("injuries.death_threshold", 152),
                       rows("injuries.table", 28, high=None)))
    table = [dict(r) for r in BASE["injuries"]["table"]]
    table[-1]["high"] = 151  # open-ended: up to the threshold - 1
    expected = [0] * (len(table) + 1)
    for face in range(1, 101):
        total = face + 51
        row = next((i for i, r in enumerate(table) if r["low"] <= total <= r["high"]), None)
        expected[len(table) if total >= 152 else row] += 1
    got = bl.injuries.injury_distribution(seconds=50, negative_hp=1, rules=rules)
    assert got["probability"].tolist() == pytest.approx([c / 100 for c in expected], abs=1e-15)
    assert expected[-2] == 1 and expected[-1] == 0  # 'The end is near' once, no death


# -- issue 11: variants that passed `rules check` and failed later -------------------------
def test_integers_written_as_floats_are_read_as_integers():
    # `low = 1.0` passed the check and failed later: "Unknown format code 'd'"
    overlay = rows("injuries.table", 0, low=1.0, modifier=0.0)
    rules = load(overlay)
    row = rules["injuries"]["table"][0]
    assert type(row["low"]) is int and type(row["modifier"]) is int
    assert rules.fingerprint == BASE.fingerprint  # 1.0 and 1 are the same rules
    bl.regression.snapshot.take(rules, trials=200, seed=1)  # formats the modifiers with :+d


def test_list_items_keep_the_bundled_kind():
    with pytest.raises(bl.RulesError, match=r"^v.toml: design.stats item 2 must be text, got 3"):
        load(value("design.stats", ["STR", 3, "CON", "INT", "WIS", "CHA"]))
    rules = load(value("percentile.combat.sizes.parry_block", [1, 0.5]))
    assert rules["percentile"]["combat"]["sizes"]["parry_block"] == (1, 0.5)


@pytest.mark.parametrize("overlay, fragment", [
    (value("percentile.luck_points.inputs", ["LUCK"]), "'LUCK'"),          # was: error: LUCK
    (value("percentile.characteristics.names",
           ["LUCK", "CON", "SIZ", "DEX", "INT", "POW", "CHA"]), "lacks 'STR'"),  # was: STR
    (merge(value("creatures.level_min", 20), value("creatures.level_max", 1)),
     "creatures.level_min = 20 is above creatures.level_max = 1"),  # level between 20 and 1
    (value("encounters.ladder", []), "encounters.ladder is empty"),       # was: IndexError
    (value("percentile.combat.sizes.parry_block", [math.nan]), "nan"),    # was: -2**63
], ids=["LUCK", "STR", "level", "ladder", "parry-nan"])
def test_late_failures_of_issue_11_are_refused_at_load(overlay, fragment, tmp_path, capsys):
    with pytest.raises(bl.RulesError, match=f"^{SOURCE}: .*{fragment}"):
        load(overlay)


def test_rules_check_and_every_command_refuse_a_broken_variant(tmp_path, capsys):
    path = tmp_path / "ladder.toml"
    path.write_text("[encounters]\nladder = []\n", encoding="utf-8")
    for argv in (["rules", "check", str(path)], ["calibrate", "3/1", "--rules", str(path)],
                 ["snapshot", "--rules", str(path), "--out", str(tmp_path / "s.json")]):
        assert cli.main(argv) == 2, argv
        out, err = capsys.readouterr()
        assert err.count("\n") == 1 and "encounters.ladder is empty" in err, argv
    assert not (tmp_path / "s.json").exists()


# -- the reference page ---------------------------------------------------------------------
def test_every_invariant_documents_what_holds_and_the_fix():
    for inv in REGISTRY.values():
        assert inv.summary and inv.fix, inv.name
        assert inv.ties, inv.name


def test_the_committed_reference_page_is_the_generated_one():
    page = Path(__file__).parents[1] / "docs" / "reference" / "rules-invariants.md"
    assert page.read_text(encoding="utf-8") == reference(), \
        "regenerate: python -m balance.rules.invariants > docs/reference/rules-invariants.md"


@pytest.mark.parametrize("open_ended", [False, True])
def test_the_threshold_advice_is_the_smallest_threshold_the_table_takes(open_ended):
    # the fix of the refusal says "raise the threshold above N": N + 1 loads, N is refused
    import re

    table = bl.rules.plain(bl.load_rules().get("injuries.table"))
    if open_ended:
        table[-1].pop("high")
    with pytest.raises(bl.RulesError) as info:
        bl.load_rules().updated({"injuries": {"death_threshold": 100, "table": table}})
    n = int(re.search(r"raise the threshold above (\d+)", str(info.value)).group(1))
    assert n == (151 if open_ended else 175)  # the last row: 151-175 as bundled, or 151-
    bl.load_rules().updated({"injuries": {"death_threshold": n + 1, "table": table}})
    with pytest.raises(bl.RulesError):
        bl.load_rules().updated({"injuries": {"death_threshold": n, "table": table}})
