"""Invariants of the GM guide: design, creatures, encounters, economy."""
from __future__ import annotations

from fractions import Fraction

from ...labels import agreed
from .registry import invariant
from ._tools import Source, dice_range, fail, known_word, named, parsed_dice, row_name, top, words

#: (section, low key, high key) pairs that bound one range
_PAIRS = (
    ("design", "modifier_min", "modifier_max"),
    ("design", "adaptability_min", "adaptability_max"),
    ("design", "creature_stat_min", "creature_stat_max"),
    ("creatures", "level_min", "level_max"),
    ("creatures", "level_min", "summary_levels_max"),
    ("creatures", "summary_levels_max", "level_max"),
    ("economy", "roll_bonus_min", "roll_bonus_max"),
    ("economy", "damage_bonus_min", "damage_bonus_max"),
    ("economy", "equipment_bonus_min", "equipment_bonus_max"),
    ("economy", "max_dice", "max_dice_two_handed"),
)


@invariant("guide.min_not_above_max", *(f"{s}.{a} <= {s}.{b}" for s, a, b in _PAIRS))
def min_not_above_max(data: dict, source_of: Source) -> None:
    """Every range of the GM guide runs upwards (GM guide, design limits, creature sheet,
    economy): a ``*_min`` is at
    most its ``*_max``, the summary table's last level lies within the level range, and a
    one-handed weapon allows no more dice than a two-handed one.

    Fix: swap the two values or move one of them.
    """
    for sec, lo_key, hi_key in _PAIRS:
        lo, hi = data[sec][lo_key], data[sec][hi_key]
        if lo > hi:
            raise fail(source_of, [f"{sec}.{lo_key}", f"{sec}.{hi_key}"],
                       f"{sec}.{lo_key} = {lo} is above {sec}.{hi_key} = {hi}; swap them or "
                       f"make {lo_key} at most {hi_key}")


@invariant("guide.default_levels_in_range", "party.level", "bestiary.default_level",
           "creatures.level_min", "creatures.level_max")
def default_levels_in_range(data: dict, source_of: Source) -> None:
    """The default party's level and the bestiary's default level are levels a sheet accepts
    (GM guide, creature sheet): within ``creatures.level_min`` .. ``creatures.level_max``.

    Fix: move the default level into the range, or widen the range.
    """
    c = data["creatures"]
    for path in ("party.level", "bestiary.default_level"):
        sec, key = path.split(".")
        level = data[sec][key]
        if not c["level_min"] <= level <= c["level_max"]:
            raise fail(source_of, [path, "creatures.level_min", "creatures.level_max"],
                       f"{path} = {level} is outside creatures.level_min..level_max = "
                       f"{c['level_min']}..{c['level_max']}; move it into the range or widen "
                       "the range")


@invariant("encounters.party_within_max_pcs", "party.members", "encounters.max_pcs")
def party_within_max_pcs(data: dict, source_of: Source) -> None:
    """The default party can be calibrated against (GM guide, adversity ratio and
    calibration): its number of members is
    at most ``encounters.max_pcs``, the largest party an encounter accepts.

    Fix: raise ``encounters.max_pcs`` or shorten the party.
    """
    pcs, cap = len(data["party"]["members"]), data["encounters"]["max_pcs"]
    if pcs > cap:
        raise fail(source_of, ["encounters.max_pcs", "party.members"],
                   f"party.members lists {pcs} PCs but encounters.max_pcs = {cap}: the default "
                   "party could not face an encounter; raise max_pcs or shorten the party")


@invariant("design.stat_meanings_cover", "design.stat_meanings", "design.creature_stat_min",
           "design.creature_stat_max")
def stat_meanings_cover(data: dict, source_of: Source) -> None:
    """Every creature stat value has a meaning (GM guide, design limits): ``design.stat_meanings`` covers
    ``creature_stat_min`` .. ``creature_stat_max``.

    Fix: add rows to ``stat_meanings`` or narrow the creature stat range.
    """
    d = data["design"]
    rows, lo, hi = d["stat_meanings"], d["creature_stat_min"], d["creature_stat_max"]
    if rows[0]["low"] > lo or top(rows) < hi:
        raise fail(source_of, ["design.stat_meanings", "design.creature_stat_min",
                               "design.creature_stat_max"],
                   f"design.stat_meanings covers {rows[0]['low']}..{top(rows)} but creature "
                   f"stats run {lo}..{hi}; add rows to stat_meanings or narrow "
                   "creature_stat_min/creature_stat_max")


#: names the creature formulas look up by their English name (balance.creatures)
_REQUIRED = {"attacks": ("melee", "ranged", "magic"), "defences": ("phys_def", "mag_def")}


@invariant("creatures.stats_and_profiles", "design.stats", "creatures.init_stat",
           "creatures.hp_stat", "creatures.defences", "creatures.attacks",
           "creatures.default_attack", "creatures.default_damage")
def stats_and_profiles(data: dict, source_of: Source) -> None:
    """The creature formulas name known things (GM guide, creature sheet): ``init_stat``, ``hp_stat`` and
    every defence's and attack's ``stat`` are among ``design.stats``; the attacks ``melee``,
    ``ranged``, ``magic`` and the defences ``phys_def``, ``mag_def`` exist; each attack's
    ``defence`` names a defence; ``default_attack`` names an attack and ``default_damage``
    is a dice expression.

    Fix: use a stat of ``design.stats``, a defence or attack of the tables, or restore the
    renamed row.
    """
    stats = list(data["design"]["stats"])
    c = data["creatures"]
    fix = "use one of design.stats"
    for key in ("init_stat", "hp_stat"):
        known_word(source_of, [f"creatures.{key}", "design.stats"], c[key], stats,
                   f"creatures.{key}", fix)
    for table in ("defences", "attacks"):
        for i, row in enumerate(c[table]):
            known_word(source_of, [f"creatures.{table}", "design.stats"], row["stat"], stats,
                       f"creatures.{table} {row_name(row, i)}: stat", fix)
        names = [r["en"] for r in c[table]]
        for need in _REQUIRED[table]:
            if need not in names:
                raise fail(source_of, [f"creatures.{table}"],
                           f"creatures.{table} has no row '{need}' (rows: {words(names)}); the "
                           f"creature sheet computes it: restore the row '{need}'")
    defences = [r["en"] for r in c["defences"]]
    for i, row in enumerate(c["attacks"]):
        known_word(source_of, ["creatures.attacks", "creatures.defences"], row["defence"],
                   defences,
                   f"creatures.attacks {row_name(row, i)}: defence",
                   "name a row of creatures.defences")
    if not named(c["attacks"], c["default_attack"]):
        raise fail(source_of, ["creatures.default_attack", "creatures.attacks"],
                   f"creatures.default_attack = {c['default_attack']!r} is not an attack of "
                   f"creatures.attacks ({words(r['en'] for r in c['attacks'])}); name one")
    parsed_dice(source_of, "creatures.default_damage", c["default_damage"],
                "creatures.default_damage")


@invariant("creatures.sizes_and_kinds", "creatures.sizes", "creatures.kinds",
           "creatures.base_hp", "encounters.base_ratios")
def sizes_and_kinds(data: dict, source_of: Source) -> None:
    """The base-HP and base-ratio tables speak of known sizes and kinds (GM guide, creature sheet;
    adversity ratio and calibration):
    each row's ``size`` is an English name of ``creatures.sizes``, its ``kind`` a column some
    kind reads (``creatures.kinds`` ``hp_column`` for base HP, ``ratio_column`` for ratios),
    each (kind, size) appears once, and every kind's column exists in its table.

    Fix: correct the size or kind, drop the repeated row, or point the kind at an existing
    column.
    """
    c = data["creatures"]
    sizes = [r["en"] for r in c["sizes"]]
    for path, rows, column in (("creatures.base_hp", c["base_hp"], "hp_column"),
                               ("encounters.base_ratios", data["encounters"]["base_ratios"],
                                "ratio_column")):
        columns = sorted({k[column] for k in c["kinds"]})
        seen: dict[tuple[str, str], int] = {}
        for i, row in enumerate(rows):
            where = f"table {path}, row {i + 1}"
            known_word(source_of, [path, "creatures.sizes"], row["size"], sizes,
                       f"{where}: size",
                       "use an English name of creatures.sizes")
            known_word(source_of, [path, "creatures.kinds"], row["kind"], columns,
                       f"{where}: kind",
                       f"use a {column} of creatures.kinds")
            pair = (row["kind"], row["size"])
            if pair in seen:
                raise fail(source_of, [path], f"table {path}: rows {seen[pair] + 1} and {i + 1} "
                           f"both give {row['size']} {row['kind']} creatures; drop one")
            seen[pair] = i
        present = {r["kind"] for r in rows}
        for kind in c["kinds"]:
            if kind[column] not in present:
                raise fail(source_of, ["creatures.kinds", path],
                           f"creatures.kinds {kind['en']!r}: {column} = {kind[column]!r} has "
                           f"no row in {path}; add its rows or point the kind at "
                           f"{words(sorted(present))}")


def _ratio(text: str) -> Fraction | None:
    from ..ratios import parse_ratio

    try:
        return parse_ratio(text)
    except ValueError:
        return None


@invariant("encounters.ladder_ordered", "encounters.ladder", "encounters.base_ratios",
           "encounters.area_ability_ratio", "encounters.creature_ratios")
def ladder_ordered(data: dict, source_of: Source) -> None:
    """The adversity-ratio ladder (GM guide, adversity ratio and calibration) has at least one rung,
    each a ratio such as
    ``"1/2"``, strictly increasing; every base ratio and ``area_ability_ratio`` is a ratio
    (a base ratio off the ladder is allowed; see ``guide.sheets_buildable``); each row of
    ``encounters.creature_ratios`` names a bestiary creature (once) and a ratio.

    Fix: list the rungs in increasing order; write ratios as ``a/b``; name creatures as the
    bestiary does.
    """
    _creature_ratios(data, source_of)
    enc = data["encounters"]
    rungs = enc["ladder"]
    if not rungs:
        raise fail(source_of, ["encounters.ladder"], "encounters.ladder is empty; list at "
                   "least one ratio, e.g. ['1/3', '1/2', '1/1', '2/1']")
    values: list[Fraction] = []
    for i, text in enumerate(rungs):
        value = _ratio(text)
        if value is None:
            raise fail(source_of, ["encounters.ladder"],
                       f"encounters.ladder item {i + 1} = {text!r} is not a ratio > 0; write "
                       "it as 'a/b', e.g. '1/2'")
        if values and value <= values[-1]:
            raise fail(source_of, ["encounters.ladder"],
                       f"encounters.ladder item {i + 1} = {text!r} does not rise above item "
                       f"{i} = {rungs[i - 1]!r}; list the rungs in increasing order")
        values.append(value)
    for i, row in enumerate(enc["base_ratios"]):
        if _ratio(row["ratio"]) is None:
            raise fail(source_of, ["encounters.base_ratios"],
                       f"table encounters.base_ratios, row {i + 1} ({row['size']} "
                       f"{row['kind']}): ratio {row['ratio']!r} is not a ratio > 0; write it "
                       "as 'a/b', e.g. '2/1'")
    if _ratio(enc["area_ability_ratio"]) is None:
        raise fail(source_of, ["encounters.area_ability_ratio"],
                   f"encounters.area_ability_ratio = {enc['area_ability_ratio']!r} is not a "
                   "ratio > 0; write it as 'a/b', e.g. '2/1'")


def _creature_ratios(data: dict, source_of: Source) -> None:
    rows = data["encounters"].get("creature_ratios", [])
    known = {r.get(k) for r in data["bestiary"]["creatures"] for k in ("en", "fr")} - {None}
    seen: set = set()
    for i, row in enumerate(rows):
        name = row.get("creature") if isinstance(row, dict) else None
        ratio = row.get("ratio") if isinstance(row, dict) else None
        where = f"table encounters.creature_ratios, row {i + 1}"
        if not isinstance(name, str) or name not in known:
            raise fail(source_of, ["encounters.creature_ratios", "bestiary.creatures"],
                       f"{where}: creature {name!r} is not in the bestiary; accepted: "
                       f"{', '.join(sorted(r['en'] for r in data['bestiary']['creatures']))}")
        if not isinstance(ratio, str) or _ratio(ratio) is None:
            raise fail(source_of, ["encounters.creature_ratios"],
                       f"{where} ({name}): ratio {ratio!r} is not a ratio > 0; write it as "
                       "'a/b', e.g. '3/2'")
        if name in seen:
            raise fail(source_of, ["encounters.creature_ratios"],
                       f"{where}: {name} is listed twice; keep one row per creature")
        seen.add(name)


@invariant("encounters.open_ended_tables", "encounters.stat_sum_steps", "encounters.challenges",
           "guide.falls.bands", "design.stats", "design.creature_stat_max")
def open_ended_tables(data: dict, source_of: Source) -> None:
    """Tables read with unbounded values reach them (GM guide, adversity ratio and
    calibration; falls): the challenge table
    and the fall bands end with an open-ended row (calibrations and heights have no upper
    bound), and ``encounters.stat_sum_steps`` reaches the largest stat sum a creature can
    have (number of ``design.stats`` x ``creature_stat_max``).

    Fix: leave ``high`` out of the last row, or extend it.
    """
    for path in ("encounters.challenges", "guide.falls.bands"):
        sec, *rest = path.split(".")
        rows = data[sec]
        for part in rest:
            rows = rows[part]
        last = rows[-1]
        if "high" in last:
            raise fail(source_of, [path], f"table {path}, last row {row_name(last, len(rows) - 1)}"
                       f" ends at {last['high']}, but higher values can occur; leave 'high' out "
                       "of the last row (open-ended)")
    d = data["design"]
    rows = data["encounters"]["stat_sum_steps"]
    biggest = len(d["stats"]) * d["creature_stat_max"]
    if top(rows) < biggest:
        raise fail(source_of, ["encounters.stat_sum_steps", "design.creature_stat_max"],
                   f"encounters.stat_sum_steps ends at {top(rows)}, but a creature's stat sum "
                   f"reaches {len(d['stats'])} x design.creature_stat_max = {biggest}; extend "
                   "the last row (or leave its 'high' out)")


_FALL_OUTCOMES = ("none", "dice", "unconscious", "dead")


@invariant("guide.falls_roll_dice", "guide.falls.bands", "guide.falls.metres_per_die",
           "guide.falls.centimetres_per_metre")
def falls_roll_dice(data: dict, source_of: Source) -> None:
    """A fall in the damage band rolls at least one die (GM guide, falls: one die per
    ``metres_per_die`` metres): every ``dice`` band starts at or above ``metres_per_die x
    centimetres_per_metre`` centimetres.

    Fix: start the damage band higher, or lower ``metres_per_die``.
    """
    f = data["guide"]["falls"]
    per_die = f["metres_per_die"] * f["centimetres_per_metre"]
    for i, row in enumerate(f["bands"]):
        if row["outcome"] == "dice" and row["low"] < per_die:
            raise fail(source_of, ["guide.falls.metres_per_die", "guide.falls.bands",
                                   "guide.falls.centimetres_per_metre"],
                       f"guide.falls.metres_per_die = {f['metres_per_die']} gives no die to a "
                       f"fall of {row['low']} cm, where table guide.falls.bands, "
                       f"{row_name(row, i)} starts rolling damage ({row['low']} < "
                       f"{f['metres_per_die']} x {f['centimetres_per_metre']} cm); start the "
                       "band higher or lower metres_per_die")


@invariant("guide.words_and_dice", "guide.falls", "guide.checks", "fights.targeting",
           "fights.initiative_ties", "economy.*_rounding")
def words_and_dice(data: dict, source_of: Source) -> None:
    """Text values the GM-guide code reads as words are known words (GM guide, checks and
    attacks; falls; economy):
    fall outcomes (``none``, ``dice``, ``unconscious``, ``dead``), ``fights.targeting``
    (``weakest``, ``random``), ``fights.initiative_ties`` (``random``, ``position``), the
    economy's roundings (``up``, ``down``); ``guide.falls.die`` is one die such as ``1d6``;
    the critical faces of ``guide.checks`` are faces of its die (0: none) and differ.

    Fix: write one of the listed words, or a face of the die.
    """
    falls = data["guide"]["falls"]
    for i, row in enumerate(falls["bands"]):
        known_word(source_of, "guide.falls.bands", row["outcome"], _FALL_OUTCOMES,
                   f"table guide.falls.bands, {row_name(row, i)}: outcome",
                   "write one of those words")
    die = parsed_dice(source_of, "guide.falls.die", falls["die"], "guide.falls.die")
    if len(die.terms) != 1 or die.terms[0][0] < 0 or die.constant:
        raise fail(source_of, ["guide.falls.die"], f"guide.falls.die = {falls['die']!r} must be "
                   "one kind of die such as '1d6' (the count grows with the height)")
    f = data["fights"]
    known_word(source_of, "fights.targeting", f["targeting"], ("weakest", "random"),
               "fights.targeting", "write one of those words")
    known_word(source_of, "fights.initiative_ties", f["initiative_ties"], ("random", "position"),
               "fights.initiative_ties", "write one of those words")
    e = data["economy"]
    for path, value in (("economy.resale_rounding", e["resale_rounding"]),
                        ("economy.negotiation.buy_rounding", e["negotiation"]["buy_rounding"]),
                        ("economy.negotiation.sell_rounding", e["negotiation"]["sell_rounding"])):
        known_word(source_of, path, value, ("up", "down"), path, "write 'up' or 'down'")
    chk = data["guide"]["checks"]
    for key in ("critical_success", "critical_failure"):
        if chk[key] > chk["die"]:
            raise fail(source_of, [f"guide.checks.{key}", "guide.checks.die"],
                       f"guide.checks.{key} = {chk[key]} is not a face of the d{chk['die']} "
                       f"(guide.checks.die); use a face 1..{chk['die']}, or 0 for none")
    if chk["critical_success"] == chk["critical_failure"] != 0:
        raise fail(source_of, ["guide.checks.critical_success", "guide.checks.critical_failure"],
                   f"guide.checks.critical_success and critical_failure are both face "
                   f"{chk['critical_success']}; give them different faces")


def _sheet_problem(row: dict, data: dict, creature: bool) -> str | None:
    """What keeps a bestiary creature or party member from having a sheet, or None."""
    d, c = data["design"], data["creatures"]
    stats = list(d["stats"])
    unknown = [k for k in row["stats"] if k not in stats]
    if unknown:
        return f"stat {unknown[0]!r} is not one of design.stats ({', '.join(stats)})"
    bad = [k for k, v in row["stats"].items() if isinstance(v, bool) or not isinstance(v, int)]
    if bad:
        return f"stat {bad[0]} = {row['stats'][bad[0]]!r} is not an integer"
    for key in ("weaknesses", "resistances", "abilities"):
        if not all(isinstance(v, str) for v in row.get(key, [])):
            return f"{key} must be a list of names (text), got {row[key]!r}"
    if not named(c["attacks"], row["attack"]):
        return f"attack {row['attack']!r} is not in creatures.attacks"
    if dice_range(row["damage"]) is None:
        return f"damage {row['damage']!r} is not a dice expression"
    hp_stat = row["stats"].get(c["hp_stat"], 0)
    if row["base_hp"] * c["level_min"] + hp_stat < 1:
        return (f"max HP at level {c['level_min']} is {row['base_hp']} x {c['level_min']} "
                f"{hp_stat:+d} < 1")
    if not creature:
        return None
    lo, hi = d["creature_stat_min"], d["creature_stat_max"]
    out = [f"{k} = {v}" for k, v in row["stats"].items() if not lo <= v <= hi]
    if out:
        return f"{out[0]} is outside design.creature_stat_min..max = {lo}..{hi}"
    if len(row["abilities"]) > d["max_abilities"]:
        return f"{len(row['abilities'])} abilities is more than design.max_abilities"
    if not named(c["sizes"], row["size"]) or not named(c["kinds"], row["kind"]):
        return f"size {row['size']!r} or kind {row['kind']!r} is not in creatures.sizes/kinds"
    kind = next(k for k in c["kinds"] if named([k], row["kind"]))
    size = next(s for s in c["sizes"] if named([s], row["size"]))["en"]
    band = next((r for r in c["base_hp"] if r["kind"] == kind["hp_column"]
                 and r["size"] == size), None)
    if band is None:
        return f"a {size} {kind['en']} has no base-HP range in creatures.base_hp"
    if not band["low"] <= row["base_hp"] <= band.get("high", row["base_hp"]):
        return (f"base_hp {row['base_hp']} is outside the {size} {kind['en']} range "
                f"{band['low']}-{band.get('high', '')} of creatures.base_hp")
    return _ratio_problem(row, size, kind, data)


def _ratio_problem(row: dict, size: str, kind: dict, data: dict) -> str | None:
    """Why the creature's adversity ratio cannot be adjusted for its stat sum, or None."""
    enc = data["encounters"]
    base = next((r for r in enc["base_ratios"] if r["kind"] == kind["ratio_column"]
                 and r["size"] == size), None)
    if base is None:
        return f"a {size} {kind['en']} has no ratio in encounters.base_ratios"
    total = sum(row["stats"].values())
    steps_rows = enc["stat_sum_steps"]
    steps = steps_rows[0]["steps"] if total < steps_rows[0]["low"] else next(
        (r["steps"] for r in steps_rows if r["low"] <= total <= r.get("high", total)), 0)
    rungs = [r for r in map(_ratio, enc["ladder"]) if r is not None]
    value = _ratio(base["ratio"])
    if value is None or len(rungs) < len(enc["ladder"]):
        return f"its base ratio {base['ratio']!r} or a rung of encounters.ladder is not a ratio"
    extra = (value - rungs[-1]) / enc["ladder_step_beyond"]
    if steps and value not in rungs and (extra <= 0 or extra.denominator != 1):
        return agreed(f"its stat sum {total} moves its base ratio {base['ratio']} {steps:+d} "
                      "step(s), but that ratio is not on encounters.ladder", "en")
    return None


@invariant("guide.sheets_buildable", "bestiary.creatures", "party.members", "design",
           "creatures")
def sheets_buildable(data: dict, source_of: Source) -> None:
    """Every bestiary creature and party member has a sheet under these rules (GM guide, design
    limits; creature sheet): its stats are integers among ``design.stats`` (creatures: within the creature stat
    range), its weaknesses, resistances and abilities are names (text), its attack is
    in ``creatures.attacks``, its damage is a dice expression, its max HP at
    ``level_min`` is at least 1, and a creature has at most ``max_abilities`` abilities, a
    known size and kind, a base HP within its size and kind's range, and a base ratio the
    stat-sum adjustment can move (on the ladder, or beyond its last rung by whole steps).

    Fix: correct the creature's row, or widen the rule it breaks.
    """
    for path, creature in (("bestiary.creatures", True), ("party.members", False)):
        sec, key = path.split(".")
        for i, row in enumerate(data[sec][key]):
            problem = _sheet_problem(row, data, creature)
            if problem:
                raise fail(source_of, [path, "design", "creatures"],
                           f"table {path}, {row_name(row, i)}: {problem}; correct the row or "
                           "the rule it breaks")


@invariant("guide.fall_dice_budget", "guide.falls.bands", "guide.falls.metres_per_die",
           "guide.falls.centimetres_per_metre", "guide.falls.die")
def fall_dice_budget(data: dict, source_of: Source) -> None:
    """A fall rolls at most the dice budget (GM guide, falls: ``floor(h / metres_per_die)``
    dice; budgets: 1,000 dice): a ``dice`` band with a ``high`` rolls at most 1,000 dice at
    its top (an open-ended ``dice`` band refuses a taller fall when it is asked for).

    Fix: end the dice band lower, or raise ``metres_per_die``.
    """
    from ...budgets import MAX_DICE

    falls = data["guide"]["falls"]
    unit = falls["metres_per_die"] * falls["centimetres_per_metre"]
    die = parsed_dice(source_of, "guide.falls.die", falls["die"], "guide.falls.die")
    per = die.terms[0][1] if die.terms else 1
    for i, row in enumerate(falls["bands"]):
        if row["outcome"] != "dice" or "high" not in row:
            continue
        # a closed band holds exactly high cm; an open one everything below high + 1 cm
        most = (row["high"] // unit if row.get("closed")
                else (row["high"] + unit) // unit - 1) * per
        if most > MAX_DICE:
            raise fail(source_of, ["guide.falls.bands", "guide.falls.metres_per_die",
                                   "guide.falls.centimetres_per_metre"],
                       f"table guide.falls.bands, {row_name(row, i)} ends at {row['high']} cm, "
                       f"where a fall rolls {most:,} dice (guide.falls.metres_per_die = "
                       f"{falls['metres_per_die']}); falls roll at most {MAX_DICE:,} dice (the "
                       "dice budget): end the band lower or raise metres_per_die")
