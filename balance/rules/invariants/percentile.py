"""Invariants of the percentile rules: rolls, characteristics, combat."""
from __future__ import annotations

from .registry import invariant
from ._tools import Source, fail, known_word, named, parsed_dice, row_name, top, words

#: the characteristics the percentile code reads by name (fighters, derived attributes)
CHARACTERISTICS = ("STR", "CON", "SIZ", "DEX", "INT", "POW", "CHA")
#: the tiers the percentile code reads by position (balance.percentile._common.TIERS)
TIERS = ("fumble", "failure", "success", "critical")
#: attribute tables read over sums of characteristics (percentile rules, derived attributes)
BANDED = ("action_points", "experience_modifier", "healing_rate", "luck_points",
          "damage_modifier", "location_hp")


@invariant("percentile.roll_faces", "percentile.die", "percentile.roll")
def roll_faces(data: dict, source_of: Source) -> None:
    """The skill roll's thresholds are faces of the die (percentile rules, skill roll): every threshold lies in
    1 .. ``die`` (a ``*_min`` may be ``die + 1``: never), automatic successes end before
    automatic failures begin, and a skill above ``high_skill`` fumbles no more often
    (``high_skill_fumble_min >= fumble_min``).

    Fix: restate the thresholds for the die, in that order.
    """
    p = data["percentile"]
    die, roll = p["die"], p["roll"]
    paths = ["percentile.roll", "percentile.die"]
    for key in ("automatic_failure_min", "fumble_min", "high_skill_fumble_min"):
        if roll[key] > die + 1:
            raise fail(source_of, paths, f"percentile.roll.{key} = {roll[key]} is past the "
                       f"d{die} (percentile.die); use a face 1..{die}, or {die + 1} for never")
    if roll["automatic_success_max"] > die:
        raise fail(source_of, paths, f"percentile.roll.automatic_success_max = "
                   f"{roll['automatic_success_max']} is past the d{die} (percentile.die); use "
                   f"0..{die}")
    if roll["automatic_success_max"] >= roll["automatic_failure_min"]:
        raise fail(source_of, paths, f"percentile.roll.automatic_success_max = "
                   f"{roll['automatic_success_max']} reaches automatic_failure_min = "
                   f"{roll['automatic_failure_min']}: a face would both always succeed and "
                   "always fail; lower automatic_success_max")
    if roll["high_skill_fumble_min"] < roll["fumble_min"]:
        raise fail(source_of, paths, f"percentile.roll.high_skill_fumble_min = "
                   f"{roll['high_skill_fumble_min']} is below fumble_min = {roll['fumble_min']}:"
                   " a higher skill would fumble more often; make it at least fumble_min")


@invariant("percentile.tiers_ordered", "percentile.tiers.table")
def tiers_ordered(data: dict, source_of: Source) -> None:
    """The tiers are, in order, ``fumble``, ``failure``, ``success``, ``critical`` (the code
    reads them by position; percentile rules, skill roll) and their ``value`` rises strictly with quality
    (a differential roll counts the difference).

    Fix: list the four tiers in that order with rising values.
    """
    rows = data["percentile"]["tiers"]["table"]
    keys = tuple(r["key"] for r in rows)
    if keys != TIERS:
        raise fail(source_of, ["percentile.tiers.table"],
                   f"percentile.tiers.table lists {words(keys)}; the tiers must be "
                   f"{words(TIERS)}, in that order")
    for i in range(1, len(rows)):
        if rows[i]["value"] <= rows[i - 1]["value"]:
            raise fail(source_of, ["percentile.tiers.table"],
                       f"percentile.tiers.table: {rows[i]['key']!r} has value "
                       f"{rows[i]['value']}, not above {rows[i - 1]['key']!r} "
                       f"({rows[i - 1]['value']}); make the values rise with the tier")


def _grade_names(data: dict) -> list:
    return [dict(r, en=r["en"]) for r in data["percentile"]["grades"]["table"]]


@invariant("percentile.grades_named", "percentile.grades", "percentile.combat.knockback_*_grade",
           "percentile.duel.prone_grade")
def grades_named(data: dict, source_of: Source) -> None:
    """Every grade the rules name is a row of ``percentile.grades.table`` (percentile rules, difficulty
    grades; combat):
    the default grade, the knockback grades, the duel's prone grade; ``no_roll_tier`` is a
    tier key.

    Fix: name a grade of the table (English or French).
    """
    p = data["percentile"]
    rows = p["grades"]["table"]
    names = [r["en"] for r in rows]
    for path, value in (("percentile.grades.default", p["grades"]["default"]),
                        ("percentile.combat.knockback_acrobatics_grade",
                         p["combat"]["knockback_acrobatics_grade"]),
                        ("percentile.combat.knockback_athletics_grade",
                         p["combat"]["knockback_athletics_grade"]),
                        ("percentile.duel.prone_grade", p["duel"]["prone_grade"])):
        if not named(rows, value.replace("_", " ")):
            raise fail(source_of, [path, "percentile.grades.table"],
                       f"{path} = {value!r} is not a grade of percentile.grades.table "
                       f"({words(names)}); name one of them")
    tiers = [r["key"] for r in p["tiers"]["table"]]
    if "no_roll_tier" in p["grades"]:
        known_word(source_of, ["percentile.grades.no_roll_tier", "percentile.tiers.table"],
                   p["grades"]["no_roll_tier"],
                   tiers, "percentile.grades.no_roll_tier", "name a tier key")


@invariant("percentile.grades_ordered", "percentile.grades.table")
def grades_ordered(data: dict, source_of: Source) -> None:
    """The grades run from easiest to hardest (percentile rules, difficulty grades;
    combat: "one grade harder" is the
    next row): each rolled grade's factor ``numerator / denominator`` is at most the previous
    one's, and a grade that allows no roll (``roll = false``) comes after every rolled grade.

    Fix: list the grades from easiest to hardest.
    """
    rows = data["percentile"]["grades"]["table"]
    for i in range(1, len(rows)):
        prev, row = rows[i - 1], rows[i]
        if prev["roll"] and row["roll"] and \
                row["numerator"] * prev["denominator"] > prev["numerator"] * row["denominator"]:
            raise fail(source_of, ["percentile.grades.table"],
                       f"percentile.grades.table: {row_name(row, i)} (x{row['numerator']}/"
                       f"{row['denominator']}) is easier than {row_name(prev, i - 1)} before it "
                       f"(x{prev['numerator']}/{prev['denominator']}); list the grades from "
                       "easiest to hardest")
        if not prev["roll"] and row["roll"]:
            raise fail(source_of, ["percentile.grades.table"],
                       f"percentile.grades.table: {row_name(row, i)} allows a roll but comes "
                       f"after {row_name(prev, i - 1)}, which allows none; put the no-roll "
                       "grades last")


@invariant("percentile.characteristics_known", "percentile.characteristics",
           "percentile.humans", "percentile.<attribute>.inputs", "percentile.derived")
def characteristics_known(data: dict, source_of: Source) -> None:
    """The characteristics are the seven the rules compute with (STR, CON, SIZ, DEX, INT,
    POW, CHA, in any order; percentile rules, characteristics); every attribute's ``inputs`` name at least one of
    them, and only them; each
    human's dice stay within ``minimum`` .. ``maximum``; a linear attribute divides by a
    ``denominator`` of at least 1.

    Fix: restore the characteristic's name, name an input, or change the input, dice or
    bounds.
    """
    p = data["percentile"]
    ch = p["characteristics"]
    names = list(ch["names"])
    if sorted(names) != sorted(CHARACTERISTICS):
        missing = [c for c in CHARACTERISTICS if c not in names]
        extra = [c for c in names if c not in CHARACTERISTICS]
        what = f"lacks {words(missing)}" if missing else f"adds {words(extra)}"
        raise fail(source_of, ["percentile.characteristics.names"],
                   f"percentile.characteristics.names {what}; the percentile rules compute "
                   f"with exactly {', '.join(CHARACTERISTICS)} (any order)")
    if ch["minimum"] > ch["maximum"]:
        raise fail(source_of, ["percentile.characteristics"],
                   f"percentile.characteristics.minimum = {ch['minimum']} is above maximum = "
                   f"{ch['maximum']}; swap them")
    for name in names:
        path = f"percentile.humans.{name}"
        d = parsed_dice(source_of, path, p["humans"][name], path)
        if d.min < ch["minimum"] or d.max > ch["maximum"]:
            raise fail(source_of, [path, "percentile.characteristics"],
                       f"{path} = {p['humans'][name]!r} rolls {d.min}..{d.max}, outside "
                       f"percentile.characteristics.minimum..maximum = {ch['minimum']}.."
                       f"{ch['maximum']}; change the dice or the bounds")
    specs = [(f"percentile.{a}", p[a]) for a in BANDED] + \
        [(f"percentile.derived.{a}", spec) for a, spec in p["derived"].items()]
    for path, spec in specs:
        if not spec["inputs"]:
            raise fail(source_of, [f"{path}.inputs"],
                       f"{path}.inputs is empty: the attribute would be of no characteristic; "
                       f"name one or more of {', '.join(names)}")
        for item in spec["inputs"]:
            known_word(source_of, [f"{path}.inputs", "percentile.characteristics.names"], item,
                       names, f"{path}.inputs item",
                       "use one of percentile.characteristics.names")
        if "denominator" in spec and spec["denominator"] < 1:
            raise fail(source_of, [path], f"{path}.denominator = {spec['denominator']} must "
                       "be at least 1 (the attribute divides by it)")


@invariant("percentile.bands_cover_sums", "percentile.<attribute>.table",
           "percentile.characteristics.minimum", "percentile.characteristics.maximum")
def bands_cover_sums(data: dict, source_of: Source) -> None:
    """Every banded attribute's table covers the sums its inputs can take (percentile rules, derived
    attributes):
    its first row starts at or below ``len(inputs) x minimum`` and its last row is
    open-ended or reaches ``len(inputs) x maximum``.

    Fix: start the table lower / extend its last row, or narrow the characteristic bounds.
    """
    p = data["percentile"]
    ch = p["characteristics"]
    for attribute in BANDED:
        spec, path = p[attribute], f"percentile.{attribute}.table"
        rows, n = spec["table"], len(spec["inputs"])
        lo, hi = n * ch["minimum"], n * ch["maximum"]
        inputs = "+".join(spec["inputs"])
        if rows[0]["low"] > lo:
            raise fail(source_of, [path, "percentile.characteristics.minimum"],
                       f"{path} starts at {rows[0]['low']} but {inputs} can be {lo} "
                       f"({n} x percentile.characteristics.minimum); start the table at {lo} "
                       "or raise the minimum")
        if top(rows) < hi:
            raise fail(source_of, [path, "percentile.characteristics.maximum"],
                       f"{path} ends at {top(rows)} but {inputs} can reach {hi} "
                       f"({n} x percentile.characteristics.maximum); leave 'high' out of the "
                       "last row or lower the maximum")


@invariant("percentile.damage_modifier_progression", "percentile.damage_modifier.table",
           "percentile.damage_modifier.continuation")
def damage_modifier_progression(data: dict, source_of: Source) -> None:
    """Damage modifiers are dice, and the progression past the table continues from its last
    row (percentile rules, damage modifier): every row's ``dice`` parses; the last row is some d{``die``} plus at
    most one other term, written as an item of ``continuation.extras`` (which holds ``""``
    for none).

    Fix: write the last row in the continuation's terms (e.g. ``+2d10+1d2``), or adjust
    ``continuation``.
    """
    dm = data["percentile"]["damage_modifier"]
    rows = dm["table"]
    for i, row in enumerate(rows):
        parsed_dice(source_of, "percentile.damage_modifier.table", row["dice"],
                    f"table percentile.damage_modifier.table, {row_name(row, i)}: dice")
    cont = dm["continuation"]
    extras = list(cont["extras"])
    for item in extras:
        if item:
            parsed_dice(source_of, "percentile.damage_modifier.continuation", item,
                        "percentile.damage_modifier.continuation.extras item")
    last = parsed_dice(source_of, "percentile.damage_modifier.table", rows[-1]["dice"], "dice")
    rest = [f"{c}d{f}" for s, c, f in last.terms if f != cont["die"]]
    if len(rest) > 1 or last.constant or (rest[0] if rest else "") not in extras:
        raise fail(source_of, ["percentile.damage_modifier.table",
                               "percentile.damage_modifier.continuation"],
                   f"percentile.damage_modifier.table: the last row's dice "
                   f"{rows[-1]['dice']!r} is not N d{cont['die']} plus one of "
                   f"continuation.extras ({words(extras)}), so the progression past the table "
                   "cannot continue; write it in those terms or adjust continuation")


@invariant("percentile.hit_locations_consistent", "percentile.hit_locations",
           "percentile.location_hp.locations", "percentile.duel.weapon_arm",
           "percentile.duel.shield_arm")
def hit_locations_consistent(data: dict, source_of: Source) -> None:
    """Hit locations, their hit points and the rolls agree (percentile rules, hit locations;
    combat): every
    ``location_hp.locations`` item is a column of ``location_hp.table``; every hit location's
    ``hp`` is one of those locations; the hit-location ``roll`` and ``mounted_roll`` only
    give values the table covers; the duel's ``weapon_arm`` and ``shield_arm`` are keys of
    the table.

    Fix: name an existing column or location key, or change the roll to the table's range.
    """
    p = data["percentile"]
    lhp, hl = p["location_hp"], p["hit_locations"]
    columns = [k for k in lhp["table"][0] if k not in ("low", "high", "step", "increment")]
    for item in lhp["locations"]:
        known_word(source_of, "percentile.location_hp.locations", item, columns,
                   "percentile.location_hp.locations item",
                   "name a column of percentile.location_hp.table")
    rows = hl["table"]
    for i, row in enumerate(rows):
        known_word(source_of, ["percentile.hit_locations.table",
                                "percentile.location_hp.locations"], row["hp"],
                   list(lhp["locations"]),
                   f"table percentile.hit_locations.table, {row_name(row, i)}: hp",
                   "name one of percentile.location_hp.locations")
    for key in ("roll", "mounted_roll"):
        path = f"percentile.hit_locations.{key}"
        d = parsed_dice(source_of, path, hl[key], path)
        if d.min < rows[0]["low"] or d.max > top(rows):
            raise fail(source_of, [path, "percentile.hit_locations.table"],
                       f"{path} = {hl[key]!r} rolls {d.min}..{d.max} but "
                       f"percentile.hit_locations.table covers {rows[0]['low']}..{top(rows)}; "
                       "change the roll or the table")
    keys = [r["key"] for r in rows]
    for key in ("weapon_arm", "shield_arm"):
        known_word(source_of, [f"percentile.duel.{key}", "percentile.hit_locations.table"],
                   p["duel"][key], keys,
                   f"percentile.duel.{key}", "name a key of percentile.hit_locations.table")


@invariant("percentile.combat_sizes_and_dice", "percentile.combat",
           "percentile.weapons.table", "percentile.shields.table")
def combat_sizes_and_dice(data: dict, source_of: Source) -> None:
    """Weapons, shields and combat rolls are usable (percentile rules, combat): each weapon's and
    shield's ``size`` names a row of ``percentile.combat.sizes.table`` and its ``damage`` is
    a dice expression; ``initiative_roll`` and ``stun_roll`` are dice (stun turns >= 0); each
    ``parry_block`` fraction lies in 0..1.

    Fix: name a size of the table, write dice such as ``1d8+1``, or a fraction in 0..1.
    """
    p = data["percentile"]
    combat = p["combat"]
    sizes = combat["sizes"]["table"]
    for table in ("weapons", "shields"):
        path = f"percentile.{table}.table"
        for i, row in enumerate(p[table]["table"]):
            where = f"table {path}, {row_name(row, i)}"
            if not named(sizes, row["size"].replace("_", " "), ("key", "en", "fr")):
                raise fail(source_of, [path, "percentile.combat.sizes.table"],
                           f"{where}: size {row['size']!r} is not a size of "
                           f"percentile.combat.sizes.table ({words(s['en'] for s in sizes)}); "
                           "name one of them")
            parsed_dice(source_of, path, row["damage"], f"{where}: damage")
    for key in ("initiative_roll", "stun_roll"):
        path = f"percentile.combat.{key}"
        d = parsed_dice(source_of, path, combat[key], path)
        if key == "stun_roll" and d.min < 0:
            raise fail(source_of, [path], f"{path} = {combat[key]!r} can roll {d.min} turns; "
                       "stun turns must be at least 0")
    for i, value in enumerate(combat["sizes"]["parry_block"]):
        if not 0 <= value <= 1:
            raise fail(source_of, ["percentile.combat.sizes.parry_block"],
                       f"percentile.combat.sizes.parry_block item {i + 1} = {value} is not a "
                       "fraction; write a number from 0 to 1")


#: casting requirements balance.percentile.casting_conditions takes as arguments
_CONDITIONS = ("clear_thought", "free_hand", "voice", "sight")


@invariant("percentile.magic_consistent", "percentile.magic.conditions",
           "percentile.magic.location_fractions", "percentile.magic.wounds")
def magic_consistent(data: dict, source_of: Source) -> None:
    """Magic rules stay meaningful (percentile rules, magic): each casting condition's ``key`` is one the
    casting checklist knows (``clear_thought``, ``free_hand``, ``voice``, ``sight``); each
    ``location_fractions`` item is a fraction in 0..1, rising with Magical Strength; a wound
    makes casting no easier (``passed`` and ``failed`` steps >= 0) and failing the Willpower
    check is no better than passing it (``failed >= passed``).

    Fix: use a known condition key, a fraction in 0..1 in rising order, or order the steps.
    """
    magic = data["percentile"]["magic"]
    for i, row in enumerate(magic["conditions"]):
        known_word(source_of, "percentile.magic.conditions", row["key"], _CONDITIONS,
                   f"table percentile.magic.conditions, row {i + 1}: key",
                   "the casting checklist takes only those")
    fractions = magic["location_fractions"]
    for i, value in enumerate(fractions):
        if not 0 <= value <= 1 or (i and value < fractions[i - 1]):
            raise fail(source_of, ["percentile.magic.location_fractions"],
                       f"percentile.magic.location_fractions item {i + 1} = {value} is not a "
                       "fraction in 0..1 at least the previous one; write rising fractions")
    for i, row in enumerate(magic["wounds"]):
        if row["passed"] < 0 or row["failed"] < row["passed"]:
            raise fail(source_of, ["percentile.magic.wounds"],
                       f"table percentile.magic.wounds, {row_name(row, i)}: passed = "
                       f"{row['passed']}, failed = {row['failed']}; a wound makes casting no "
                       "easier (passed >= 0) and failing Willpower no easier (failed >= passed)")


#: vocabulary of the percentile rules' special effects the simulator reads (balance.percentile.effects)
EFFECT_CHOOSERS = ("attacker", "defender", "either")
EFFECT_REQUIREMENTS = ("any", "hit", "critical", "parried", "evaded", "defended",
                       "attack_failed", "prone")
EFFECT_MECHANICS = ("choose_location", "bypass_armour", "maximise_damage", "impale", "stun",
                    "prone", "stand", "lose_turn", "destroy_shield", "none")
BLOW_MECHANICS = ("choose_location", "bypass_armour", "maximise_damage", "impale", "stun")


@invariant("percentile.special_effects_consistent", "percentile.special_effects",
           "percentile.special_effects.policies")
def special_effects_consistent(data: dict, source_of: Source) -> None:
    """Special effects are rows the simulator can read (percentile rules, special effects): each has a known
    ``chooser``, ``requires`` and ``effect``, keys are unique, an effect that acts through the
    blow (choose location, bypass armour, maximise damage, impale, stun) is chosen by the
    attacker only, and every policy names effects of the table.

    Fix: use the words listed in the message, or add the effect to the table.
    """
    sec = data["percentile"]["special_effects"]
    rows = sec["table"]
    path = ["percentile.special_effects.table"]
    keys = [r["key"] for r in rows]
    for i, r in enumerate(rows):
        for column, choices in (("chooser", EFFECT_CHOOSERS), ("requires", EFFECT_REQUIREMENTS),
                                ("effect", EFFECT_MECHANICS)):
            known_word(source_of, path, r[column], choices,
                       f"percentile.special_effects.table {row_name(r, i)} {column}",
                       f"use one of {words(choices)}")
        if r["effect"] in BLOW_MECHANICS and r["chooser"] != "attacker":
            raise fail(source_of, path, f"percentile.special_effects.table {row_name(r, i)}: "
                       f"effect {r['effect']!r} acts through the blow, so only the attacker "
                       f"may choose it (chooser = {r['chooser']!r}); set chooser = 'attacker'")
        if keys.count(r["key"]) > 1:
            raise fail(source_of, path, f"percentile.special_effects.table: key "
                       f"{r['key']!r} appears twice; keys must be unique")
    for name, pol in sec["policies"].items():
        for role in ("attacker", "defender"):
            for key in pol.get(role, ()):
                known_word(source_of, ["percentile.special_effects.policies", *path], key, keys,
                           f"percentile.special_effects.policies.{name}.{role}",
                           "name an effect key of percentile.special_effects.table")
