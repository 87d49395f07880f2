"""Hypothesis strategies for rules variants, derived from the bundled data (issue 10 item 2).

Everything is read from ``balance/rules/data/*.toml``: the defaults give each key's type and
each table's shape, ``[limits]`` the accepted ranges. A *valid* variant changes a random subset
of one rule set's numbers and tables, inside the limits (clipped to :data:`BUDGET`, sizes small
enough for a test), with interval tables that tile the bundled range and unique row names. An
*invalid* variant breaks exactly one thing: a limit, a table's tiling, a type, a key name, or a
cross-field rule (:func:`invalid_variants` returns ``(overlay, what)`` pairs).

Overlays are nested dicts for ``Rules.updated``; :func:`to_toml` writes them as a variant file.
With ``BALANCE_FUZZ=long`` (the long profile of tests/test_fuzz_rules.py) dice, clocks and round
counts are drawn up to 5x larger (still inside [limits]).
"""
from __future__ import annotations

import copy
import json
import math
import os
import tomllib
from collections.abc import Mapping
from importlib import resources

from hypothesis import assume
from hypothesis import strategies as st

from balance.rules import default_rules

DEFAULTS: dict = default_rules().to_dict()
LIMITS: dict = {}
for _doc in ("core", "gm_guide", "percentile"):
    _raw = tomllib.loads((resources.files("balance.rules") / "data" / f"{_doc}.toml")
                         .read_text(encoding="utf-8"))
    LIMITS.update(_raw.get("limits", {}))

#: the three rule sets and their top-level sections
RULE_SETS = {"core": ("d20", "injuries", "treatment", "time", "negotiation", "rest"),
             "guide": ("design", "creatures", "encounters", "guide", "fights", "economy",
                       "party", "bestiary"),
             "percentile": ("percentile",)}

#: test-size caps (and tighter ranges a cross-field rule implies) inside [limits]: bigger
#: values belong to the budget tests (tests/test_fuzz_cli.py runs them under rlimits)
BUDGET = {
    "d20.die": (2, 60), "injuries.die": (2, 300), "injuries.automatic_death_seconds": (1, 400),
    "injuries.hp_loss_per_second": (0, 10), "treatment.light.minutes": (0, 600),
    "treatment.full.minutes": (0, 600), "treatment.light.retry_minutes": (1, 5000),
    "treatment.full.retry_minutes": (1, 5000), "time.opportunity_attack_cooldown": (0, 60),
    "negotiation.partial_divisor": (1, 40), "negotiation.full_divisor": (1, 40),
    "rest.window_hours": (24, 200),
    "design.creature_stat_min": (-4, 6), "design.creature_stat_max": (-4, 6),  # stat_meanings
    "design.max_abilities": (1, 10), "creatures.level_min": (1, 30), "creatures.level_max": (1, 30),
    "creatures.summary_levels_max": (1, 30), "encounters.max_pcs": (4, 200),
    "guide.falls.metres_per_die": (1, 20), "guide.falls.centimetres_per_metre": (1, 200),
    "fights.crit_damage_dice": (1, 3), "fights.minimum_damage": (0, 10),
    "fights.max_rounds": (1, 30), "fights.seconds_per_round": (1, 60), "fights.pc_wounds": (0, 5),
    "economy.max_dice": (1, 6), "economy.max_dice_two_handed": (1, 6),
    "economy.cap_reduction_per_extra_die": (0, 3), "economy.max_special_effects": (0, 5),
    "party.level": (1, 30), "bestiary.default_level": (1, 30),
    "percentile.die": (2, 200), "percentile.contest.max_effects": (0, 5),
    "percentile.combat.round_seconds": (1, 60), "percentile.combat.ap_per_action": (1, 5),
    "percentile.duel.max_rounds": (1, 10), "percentile.duel.minimum_damage": (0, 5),
}
_COLUMN_CAP = 60  # interval widths and table values drawn up to this (tables stay small)


#: the long profile (BALANCE_FUZZ=long) draws sizes (dice, clocks, rounds) up to 5x larger
_SIZES = ("die", "seconds", "minutes", "rounds")
_SCALE = 5 if os.environ.get("BALANCE_FUZZ", "") == "long" else 1


def bounds(key: str) -> tuple:
    """[limits] of ``key`` intersected with :data:`BUDGET` (and kept within +-1000)."""
    lo, hi = LIMITS[key]
    blo, bhi = BUDGET.get(key, (-1000, 1000))
    if key in BUDGET and key.rsplit(".", 1)[-1].endswith(_SIZES):
        bhi *= _SCALE
    return max(lo, blo), min(hi, bhi)


def get(path: str):
    node = DEFAULTS
    for part in path.split("."):
        node = node[part]
    return node


def nest(path: str, value) -> dict:
    """``{"a": {"b": value}}`` from ``"a.b"``."""
    for part in reversed(path.split(".")):
        value = {part: value}
    return value


def merge(*overlays: dict) -> dict:
    out: dict = {}
    for overlay in overlays:
        for key, value in overlay.items():
            if isinstance(value, dict) and isinstance(out.get(key), dict):
                out[key] = merge(out[key], value)
            else:
                out[key] = copy.deepcopy(value)
    return out


def _number(key: str, lo=None, hi=None):
    blo, bhi = bounds(key)
    lo, hi = max(blo, lo if lo is not None else blo), min(bhi, hi if hi is not None else bhi)
    if _is_scalar(key) and isinstance(get(key), float):
        return st.floats(lo, hi, allow_nan=False)
    return st.integers(math.ceil(lo), math.floor(hi))


def _is_scalar(key: str) -> bool:
    try:
        return not isinstance(get(key), (dict, list))
    except (KeyError, TypeError):
        return False


def interval_tables(data: dict = DEFAULTS, path: str = ""):
    """Dotted paths of every interval table (rows with ``low``) in the defaults."""
    for key, value in data.items():
        where = f"{path}.{key}" if path else key
        if isinstance(value, dict):
            yield from interval_tables(value, where)
        elif isinstance(value, list) and value and isinstance(value[0], dict) \
                and "low" in value[0]:
            yield where


SCALAR_LIMITS = sorted(k for k in LIMITS if _is_scalar(k))
COLUMN_LIMITS = sorted(k for k in LIMITS if not _is_scalar(k))
TABLES = list(interval_tables())


@st.composite
def tiling(draw, path: str, rows: list | None = None) -> list:
    """Random boundaries for the table at ``path`` (its rows and columns kept, numeric columns
    with limits redrawn): starts where the bundled table starts and, when the bundled last row
    is closed, ends where it ends; an open-ended last row stays open."""
    rows = copy.deepcopy(rows if rows is not None else get(path))
    n, start = len(rows), rows[0]["low"]
    if "high" in rows[-1]:
        span = rows[-1]["high"] - start + 1
        cuts = sorted(draw(st.sets(st.integers(1, span - 1), min_size=n - 1, max_size=n - 1))) \
            if n > 1 else []
        lows = [start] + [start + c for c in cuts]
        highs = [lo - 1 for lo in lows[1:]] + [rows[-1]["high"]]
    else:
        widths = draw(st.lists(st.integers(1, _COLUMN_CAP), min_size=n - 1, max_size=n - 1))
        lows = [start]
        for w in widths:
            lows.append(lows[-1] + w)
        highs = [lo - 1 for lo in lows[1:]] + [None]
    for row, lo, hi in zip(rows, lows, highs):
        row["low"] = lo
        if hi is None:
            row.pop("high", None)
        else:
            row["high"] = hi
        for column in row:
            key = f"{path}.{column}"
            if key in LIMITS and column != "low":
                lo_, hi_ = bounds(key)
                row[column] = draw(st.floats(lo_, hi_, allow_nan=False)
                                   if isinstance(row[column], float)
                                   else st.integers(max(lo_, -_COLUMN_CAP), min(hi_, _COLUMN_CAP)))
    return rows


# --- the knobs of each rule set: strategies of small overlays --------------------------------
def _pair(lo_key: str, hi_key: str, lo=None, hi=None):
    """Two limited keys drawn in order (lo_key <= hi_key)."""
    a, b = bounds(lo_key), bounds(hi_key)
    lo = max(a[0], b[0]) if lo is None else lo
    hi = min(a[1], b[1]) if hi is None else hi
    return st.lists(st.integers(lo, hi), min_size=2, max_size=2).map(
        lambda v: merge(nest(lo_key, min(v)), nest(hi_key, max(v))))


def _pairs() -> dict:
    """``x_min``/``x_max`` (and ``minimum``/``maximum``) siblings found in the limits."""
    found = {}
    for key in SCALAR_LIMITS:
        for a, b in (("_min", "_max"), ("minimum", "maximum")):
            if key.endswith(a) and key[:-len(a)] + b in LIMITS:
                found[key] = key[:-len(a)] + b
    return found


PAIRS = _pairs()


@st.composite
def injuries_knob(draw) -> dict:
    """A whole [injuries] section: table of 1-40 named rows tiling from 1, death threshold
    past the last row's low (the open-ended last row runs up to it), die, clock."""
    n = draw(st.integers(1, 40))
    widths = draw(st.lists(st.integers(1, 20), min_size=n, max_size=n))
    mods = draw(st.lists(_number("injuries.table.modifier"), min_size=n, max_size=n))
    rows, low = [], 1
    for i, (w, m) in enumerate(zip(widths, mods)):
        rows.append({"low": low, "high": low + w - 1, "modifier": m,
                     "en": f"Injury {i + 1}", "fr": f"Blessure {i + 1}"})
        low += w
    threshold = rows[-1]["high"] + 1
    if draw(st.booleans()):
        del rows[-1]["high"]  # open-ended: up to death_threshold - 1
        threshold = draw(st.integers(rows[-1]["low"] + 1, rows[-1]["low"] + 40))
    return {"injuries": {"table": rows, "death_threshold": threshold,
                         "die": draw(_number("injuries.die")),
                         "automatic_death_seconds": draw(
                             _number("injuries.automatic_death_seconds")),
                         "hp_loss_per_second": draw(_number("injuries.hp_loss_per_second"))}}


@st.composite
def ordered_knob(draw, *keys: str) -> dict:
    """Keys that must not decrease in the order given (thirst none <= enough...)."""
    lo = max(bounds(k)[0] for k in keys)
    hi = min(bounds(k)[1] for k in keys)
    values = sorted(draw(st.lists(st.integers(lo, hi), min_size=len(keys), max_size=len(keys))))
    return merge(*(nest(k, v) for k, v in zip(keys, values)))


@st.composite
def treatment_knob(draw, level: str) -> dict:
    minutes = draw(_number(f"treatment.{level}.minutes"))
    retry = draw(_number(f"treatment.{level}.retry_minutes", lo=max(1, minutes)))
    return {"treatment": {level: {"minutes": minutes, "retry_minutes": retry,
                                  "bonus": draw(_number(f"treatment.{level}.bonus")),
                                  "removes_injury": draw(st.booleans())}}}


@st.composite
def checks_knob(draw) -> dict:
    die = draw(_number("guide.checks.die"))
    fail = draw(st.integers(1, die - 1))
    return {"guide": {"checks": {"die": die, "critical_failure": fail,
                                 "critical_success": draw(st.integers(fail + 1, die))}}}


@st.composite
def rows_column_knob(draw, path: str, columns: tuple) -> dict:
    """A row table (party members, bestiary) with its limited columns redrawn."""
    rows = copy.deepcopy(get(path))
    for row in rows:
        for column in columns:
            lo, hi = bounds(f"{path}.{column}")
            row[column] = draw(st.integers(lo, min(hi, _COLUMN_CAP)))
    return nest(path, rows)


def _dice(max_count=3, max_faces=8, max_plus=6):
    return st.builds(lambda n, f, k: f"{n}d{f}" + (f"+{k}" if k else ""),
                     st.integers(1, max_count), st.integers(2, max_faces), st.integers(0, max_plus))


@st.composite
def percentile_roll_knob(draw) -> dict:
    die = draw(_number("percentile.die"))
    auto = draw(st.integers(0, die - 1))
    fail = draw(st.integers(auto + 1, die + 1))
    fumble = draw(st.integers(fail, die + 1))
    return {"percentile": {"die": die, "roll": {
        "automatic_success_max": auto, "automatic_failure_min": fail, "fumble_min": fumble,
        "high_skill": draw(st.integers(0, 2 * die)),
        "high_skill_fumble_min": draw(st.integers(fumble, die + 1)),
        "critical_divisor": draw(st.integers(1, 20))},
        "contest": {"skill_cap": draw(st.integers(max(1, die // 2), 2 * die))}}}


@st.composite
def grades_knob(draw) -> dict:
    """Difficulty grades as fractions, easiest first (the rolled ones), Hopeless kept."""
    rows = copy.deepcopy(get("percentile.grades.table"))
    rolled = [r for r in rows if r["roll"]]
    fracs = sorted(draw(st.lists(st.tuples(st.integers(1, 5), st.integers(1, 10)),
                                 min_size=len(rolled), max_size=len(rolled))),
                   key=lambda f: -f[0] / f[1])
    for row, (num, den) in zip(rolled, fracs):
        row["numerator"], row["denominator"] = num, den
    return {"percentile": {"grades": {"table": rows}}}


@st.composite
def humans_knob(draw) -> dict:
    names = get("percentile.characteristics.names")
    return {"percentile": {"humans": {k: draw(_dice()) for k in names},
                           "characteristics": {"minimum": 1,  # location_hp starts at 2
                                               "maximum": draw(st.integers(40, 999))}}}


@st.composite
def hit_locations_knob(draw) -> dict:
    """A 1dK location roll, its table tiling 1..K, and a mounted roll over its top faces."""
    rows = get("percentile.hit_locations.table")
    faces = draw(st.integers(len(rows), 40))
    table = draw(tiling("percentile.hit_locations.table",
                        [dict(r, high=faces) if i == len(rows) - 1 else dict(r)
                         for i, r in enumerate(rows)]))
    low = draw(st.integers(1, faces))
    mounted = f"1d{faces - low + 1}" + (f"+{low - 1}" if low > 1 else "")
    return {"percentile": {"hit_locations": {"roll": f"1d{faces}", "mounted_roll": mounted,
                                             "table": table}}}


@st.composite
def derived_knob(draw) -> dict:
    """Linear attributes: sum of inputs x numerator / denominator (RULES.md 3.2)."""
    return {"percentile": {"derived": {
        name: {"numerator": draw(st.integers(1, 3)), "denominator": draw(st.integers(1, 3))}
        for name in get("percentile.derived")}}}


@st.composite
def tier_values_knob(draw) -> dict:
    """Tier worths for the differential roll, increasing with the tier's quality."""
    rows = copy.deepcopy(get("percentile.tiers.table"))
    values = sorted(draw(st.sets(st.integers(0, 6), min_size=len(rows), max_size=len(rows))))
    for row, value in zip(rows, values):
        row["value"] = value
    return {"percentile": {"tiers": {"table": rows}}}


def _fractions(n: int, decreasing: bool = False):
    return st.lists(st.floats(0, 1, allow_nan=False), min_size=n, max_size=n).map(
        lambda v: sorted(v, reverse=decreasing))


@st.composite
def levels_knob(draw) -> dict:
    """creatures.level_min <= the default party, bestiary and summary levels <= level_max."""
    keys = ("creatures.summary_levels_max", "party.level", "bestiary.default_level")
    lo, hi = sorted(draw(st.lists(_number("creatures.level_min"), min_size=2, max_size=2)))
    return merge(nest("creatures.level_min", lo), nest("creatures.level_max", hi),
                 *(nest(k, draw(st.integers(lo, hi))) for k in keys))


def _clip(value: int, lo: int, hi: int) -> int:
    return max(lo, min(hi, value))


@st.composite
def creatures_knob(draw) -> dict:
    """Creature stat range, base-HP tiling and the bestiary inside both (its stats clipped,
    each base HP drawn in its size and kind's new range)."""
    lo, hi = sorted(draw(st.lists(_number("design.creature_stat_min"), min_size=2, max_size=2)))
    table = draw(tiling("creatures.base_hp"))
    column = {k["en"]: k["hp_column"] for k in get("creatures.kinds")}
    ranges = {(r["kind"], r["size"]): (r["low"], r["high"]) for r in table}
    rows = copy.deepcopy(get("bestiary.creatures"))
    for row in rows:
        row["stats"] = {k: _clip(v, lo, hi) for k, v in row["stats"].items()}
        row["base_hp"] = draw(st.integers(*ranges[column[row["kind"]], row["size"]]))
        # Max HP = base_hp x level + CON must stay >= 1 at level 1
        row["stats"]["CON"] = _clip(max(row["stats"]["CON"], 1 - row["base_hp"]), lo, hi)
        assume(row["base_hp"] + row["stats"]["CON"] >= 1)
        row["targets"] = draw(_number("bestiary.creatures.targets", hi=5))
    return {"design": {"creature_stat_min": lo, "creature_stat_max": hi},
            "creatures": {"base_hp": table}, "bestiary": {"creatures": rows}}


@st.composite
def economy_knob(draw) -> dict:
    """Bonus caps that survive the extra dice, and negotiation prices in their order
    (critical <= success <= list price when buying; selling earns at least the resale)."""
    most = draw(st.integers(1, 6))
    dice, cut = draw(st.integers(1, most)), draw(_number("economy.cap_reduction_per_extra_die"))
    out = {"max_dice": dice, "max_dice_two_handed": most, "cap_reduction_per_extra_die": cut}
    for what in ("roll_bonus", "damage_bonus", "equipment_bonus"):  # ranges hold 0
        out[f"{what}_min"] = draw(st.integers(-10, 0))
        floor = cut * (most - 1) if what != "equipment_bonus" else 0  # >= 0 with every die
        out[f"{what}_max"] = draw(st.integers(floor, floor + 10))
    resale = draw(st.integers(0, 100))
    buy = sorted(draw(st.lists(st.integers(0, 100), min_size=2, max_size=2)))
    sell = draw(st.integers(100, 300))
    out["resale_percent"] = resale
    out["negotiation"] = {"buy_critical_percent": buy[0], "buy_success_percent": buy[1],
                          "sell_success_percent": sell,
                          "sell_critical_percent": draw(st.integers(-(-sell * resale // 100),
                                                                    1000))}
    return {"economy": out}


@st.composite
def falls_knob(draw) -> dict:
    """Fall bands in cm (RULES.md 2.5): nothing, then dice from at least one die's height
    (metres_per_die x centimetres_per_metre), unconscious, dead; at most 1,000 dice."""
    metres, cm = draw(_number("guide.falls.metres_per_die")), \
        draw(_number("guide.falls.centimetres_per_metre"))
    per_die = metres * cm
    dice = draw(st.integers(per_die, per_die + 500))
    unconscious = dice + draw(st.integers(1, min(2000, 999 * per_die)))
    dead = unconscious + draw(st.integers(1, 500))
    rows = copy.deepcopy(get("guide.falls.bands"))
    for row, low, high in zip(rows, (0, dice, unconscious, dead),
                              (dice - 1, unconscious - 1, dead - 1, None)):
        row["low"] = low
        if high is None:
            row.pop("high", None)
        else:
            row["high"] = high
    return {"guide": {"falls": {"metres_per_die": metres, "centimetres_per_metre": cm,
                                "bands": rows}}}


#: knobs handled by a hand-written strategy above (a cross-field rule ties them)
_COUPLED_PREFIXES = ("injuries.", "treatment.", "guide.checks.", "percentile.die",
                     "percentile.roll.", "percentile.contest.skill_cap",
                     "percentile.characteristics.", "rest.thirst.", "rest.hunger.",
                     "rest.max_hours_per_day", "rest.window_hours", "negotiation.",
                     "rest.armour_comfort", "rest.comfort_max", "creatures.level_",
                     "creatures.summary_levels_max", "party.level", "bestiary.",
                     "design.creature_stat_", "creatures.base_hp", "economy.max_dice",
                     "economy.cap_reduction", "economy.roll_bonus", "economy.damage_bonus",
                     "economy.resale", "economy.negotiation.", "percentile.hit_locations.",
                     "economy.equipment_bonus", "guide.falls.")


def _generic_knobs(sections: tuple) -> list:
    knobs = []
    paired = set(PAIRS) | set(PAIRS.values())
    for key in SCALAR_LIMITS:
        if key.split(".")[0] not in sections or key.startswith(_COUPLED_PREFIXES):
            continue
        if key in PAIRS and not PAIRS[key].startswith(_COUPLED_PREFIXES):
            knobs.append(_pair(key, PAIRS[key]))
        elif key not in paired:
            knobs.append(_number(key).map(lambda v, k=key: nest(k, v)))
    for path in TABLES:
        if path.split(".")[0] in sections and not path.startswith(_COUPLED_PREFIXES):
            knobs.append(tiling(path).map(lambda rows, p=path: nest(p, rows)))
    return knobs


def _knobs(rule_set: str) -> list:
    knobs = _generic_knobs(RULE_SETS[rule_set])
    if rule_set == "core":
        knobs += [injuries_knob(), treatment_knob("light"), treatment_knob("full"),
                  ordered_knob("rest.thirst.none", "rest.thirst.enough"),
                  ordered_knob("rest.hunger.none", "rest.hunger.satiated", "rest.hunger.fresh"),
                  ordered_knob("rest.max_hours_per_day", "rest.window_hours"),
                  ordered_knob("negotiation.full_divisor", "negotiation.partial_divisor"),
                  ordered_knob("rest.armour_comfort", "rest.comfort_max")]
    elif rule_set == "guide":
        knobs += [checks_knob(), rows_column_knob("party.members", ("base_hp",)),
                  levels_knob(), creatures_knob(), economy_knob(), falls_knob()]
    else:
        knobs += [percentile_roll_knob(), grades_knob(), humans_knob(), hit_locations_knob(),
                  derived_knob(), tier_values_knob(),
                  _dice(2, 10, 3).map(lambda d: nest("percentile.combat.stun_roll", d)),
                  _dice(2, 10, 3).map(lambda d: nest("percentile.combat.initiative_roll", d)),
                  _fractions(len(get("percentile.combat.sizes.parry_block")), True).map(
                      lambda v: nest("percentile.combat.sizes.parry_block", v)),
                  _fractions(len(get("percentile.magic.location_fractions"))).map(
                      lambda v: nest("percentile.magic.location_fractions", v))]
    return knobs


@st.composite
def valid_variants(draw, rule_set: str | None = None, max_knobs: int = 4) -> dict:
    """A variant overlay changing 1..max_knobs knobs of one rule set (random if None)."""
    rule_set = rule_set or draw(st.sampled_from(sorted(RULE_SETS)))
    knobs = _KNOBS[rule_set]
    chosen = draw(st.lists(st.integers(0, len(knobs) - 1), min_size=1, max_size=max_knobs,
                           unique=True))
    return merge(*(draw(knobs[i]) for i in sorted(chosen)))


_KNOBS = {name: _knobs(name) for name in RULE_SETS}


# --- invalid variants: exactly one thing broken ----------------------------------------------
@st.composite
def _out_of_limits(draw):
    key = draw(st.sampled_from(SCALAR_LIMITS))
    lo, hi = LIMITS[key]
    step = draw(st.sampled_from([1, 7, 10 ** 6]))
    value = draw(st.sampled_from([lo - step, hi + step]))
    if isinstance(get(key), float) or isinstance(lo, float) or isinstance(hi, float):
        value = draw(st.sampled_from([lo - 0.5, hi + 0.5, math.nan, math.inf, -math.inf]))
    return nest(key, value), f"{key} = {value!r} out of [limits] {lo}..{hi}"


@st.composite
def _column_out_of_limits(draw):
    key = draw(st.sampled_from(COLUMN_LIMITS))
    path, _, column = key.rpartition(".")
    rows = copy.deepcopy(get(path))
    lo, hi = LIMITS[key]
    i = draw(st.integers(0, len(rows) - 1))
    if column == "low" and i == 0:  # the first low is fixed by the tiling: break the limit
        value = lo - 1
    elif column == "low":
        return _tiling_break(rows, path, draw)
    else:
        value = draw(st.sampled_from([lo - 1, hi + 1]))
    rows[i][column] = value
    return nest(path, rows), f"table {path} row {i + 1}: {column} = {value} out of {lo}..{hi}"


def _tiling_break(rows: list, path: str, draw):
    kind = draw(st.sampled_from(["gap", "overlap", "reversed", "start", "open_inside"]))
    i = draw(st.integers(1, len(rows) - 1)) if len(rows) > 1 else 0
    if kind == "start" or len(rows) == 1:
        rows[0]["low"] += 1
        kind = "start"
    elif kind == "gap":
        rows[i]["low"] += 1
    elif kind == "overlap":
        rows[i]["low"] -= 1
    elif kind == "reversed":
        j = i - 1
        rows[j]["high"] = rows[j]["low"] - 1
        rows[i]["low"] = rows[j]["high"] + 1
    else:
        j = i - 1
        rows[j].pop("high", None)
    return nest(path, rows), f"table {path}: {kind} at row {i + 1}"


@st.composite
def _bad_tiling(draw):
    path = draw(st.sampled_from(TABLES))
    return _tiling_break(copy.deepcopy(get(path)), path, draw)


def _leaves(data=DEFAULTS, path=""):
    for key, value in data.items():
        where = f"{path}.{key}" if path else key
        if isinstance(value, dict):
            yield from _leaves(value, where)
        else:
            yield where, value


LEAVES = sorted(_leaves())


def _wrong_values(value) -> list:
    if isinstance(value, bool):
        return [1, "true", [True]]
    if isinstance(value, int):
        return ["abc", 1.5, True, [value], {"x": value}]
    if isinstance(value, float):
        return ["0.5", True, [value]]
    if isinstance(value, str):
        return [7, True, [value], {"en": value}]
    if isinstance(value, list):
        return ["x", 3, {"a": 1}]
    return ["x"]


@st.composite
def _wrong_type(draw):
    key, value = draw(st.sampled_from(LEAVES))
    bad = draw(st.sampled_from(_wrong_values(value)))
    return nest(key, bad), f"{key} = {bad!r} (wrong type)"


@st.composite
def _unknown_key(draw):
    kind = draw(st.sampled_from(["section", "key", "column"]))
    if kind == "section":
        return {"injurys": {"die": 100}}, "unknown section [injurys]"
    if kind == "key":
        key, value = draw(st.sampled_from(LEAVES))
        parent, _, name = key.rpartition(".")
        bad = f"{parent}.{name}_typo" if parent else f"{name}_typo"
        return nest(bad, value), f"unknown key {bad}"
    path = draw(st.sampled_from(TABLES))
    rows = copy.deepcopy(get(path))
    rows[0]["colour"] = 1
    return nest(path, rows), f"unknown column 'colour' in {path}"


FREE_TEXT = ("en", "fr", "currency")  # display strings: any text goes
INFORMATIVE = ("fights.damage_types",)  # sheets accept any damage type (gm_guide.toml [assumed])


def _row_tables(data=DEFAULTS, path=""):
    for key, value in data.items():
        where = f"{path}.{key}" if path else key
        if isinstance(value, dict):
            yield from _row_tables(value, where)
        elif isinstance(value, list) and value and all(isinstance(r, dict) for r in value):
            yield where, value


ROW_TABLES = sorted(_row_tables(), key=lambda t: t[0])
#: string leaves that name something (a choice, a row, dice): anything unknown must be refused
REFERENCES = [k for k, v in LEAVES if isinstance(v, str) and k.split(".")[-1] not in FREE_TEXT
              and not k.startswith("rest.quick_scores_fr")]
REFERENCE_COLUMNS = sorted({(path, column) for path, rows in ROW_TABLES for row in rows
                            for column, v in row.items() if isinstance(v, str)
                            and column not in FREE_TEXT + ("key", "damage_type")})
WORD_LISTS = [k for k, v in LEAVES if isinstance(v, list) and v and
              all(isinstance(x, str) for x in v) and k not in INFORMATIVE]


@st.composite
def _bad_reference(draw):
    """An unknown word where the rules expect a choice, a row's name or dice."""
    kind = draw(st.sampled_from(["leaf", "column", "list", "empty_list", "empty_table",
                                 "duplicate_name"]))
    bad = draw(st.sampled_from(["zzz-unknown", "", "1d0", "é☃"]))
    if kind == "leaf":
        key = draw(st.sampled_from(REFERENCES))
        return nest(key, bad), f"{key} = {bad!r} (names nothing)"
    if kind == "column":
        path, column = draw(st.sampled_from(REFERENCE_COLUMNS))
        rows = copy.deepcopy(get(path))
        i = draw(st.integers(0, len(rows) - 1))
        rows[i][column] = bad
        return nest(path, rows), f"table {path} row {i + 1}: {column} = {bad!r} (names nothing)"
    if kind in ("list", "empty_list"):
        key = draw(st.sampled_from(WORD_LISTS))
        words = list(get(key))
        if kind == "empty_list":
            return nest(key, []), f"{key} = [] (empty)"
        words[draw(st.integers(0, len(words) - 1))] = bad
        return nest(key, words), f"{key} holds {bad!r} (names nothing)"
    path, rows = draw(st.sampled_from(ROW_TABLES))
    if kind == "empty_table":
        return nest(path, []), f"table {path} = [] (no rows)"
    named = [p for p, r in ROW_TABLES if len(r) > 1 and "en" in r[0]]
    path = draw(st.sampled_from(named))
    rows = copy.deepcopy(get(path))
    rows[1]["en"] = rows[0]["en"]
    return nest(path, rows), f"table {path}: two rows named {rows[0]['en']!r}"


@st.composite
def _non_finite(draw):
    """NaN or infinity wherever the rules hold a number (TOML writes nan and inf)."""
    value = draw(st.sampled_from([math.nan, math.inf, -math.inf]))
    numbers = [k for k, v in LEAVES if isinstance(v, (int, float)) and not isinstance(v, bool)]
    floats_in_lists = [k for k, v in LEAVES if isinstance(v, list) and v
                       and all(isinstance(x, float) for x in v)]
    key = draw(st.sampled_from(numbers + floats_in_lists))
    if key in floats_in_lists:
        return nest(key, [value] + list(get(key))[1:]), f"{key}[0] = {value}"
    return nest(key, value), f"{key} = {value}"


def _cross_field() -> list:
    """Variants that pass every per-field check but break a rule tying two fields."""
    rows = get("injuries.table")
    cases = [
        ({"injuries": {"death_threshold": 100}}, "death threshold 100 inside the injury table"),
        ({"injuries": {"death_threshold": rows[-1]["low"]}},
         "death threshold at the last injury row's low"),
        ({"injuries": {"table": [dict(r) for r in rows[:-1]] + [dict(rows[-1], high=200)]}},
         "injury table ends past the death threshold"),
        ({"encounters": {"ladder": []}}, "empty adversity ladder"),
        ({"encounters": {"ladder": ["1/1", "1/2"]}}, "ladder not increasing, base ratios off it"),
        ({"percentile": {"roll": {"automatic_success_max": 97}}},
         "automatic success band over the automatic failure band"),
        ({"percentile": {"hit_locations": {"roll": "1d30"}}}, "hit-location roll past the table"),
        ({"percentile": {"weapons": {"table": [dict(get("percentile.weapons.table")[0],
                                                    size="Gigantic")]}}},
         "weapon of an unknown size"),
        ({"percentile": {"characteristics": {"minimum": 50, "maximum": 40}}},
         "characteristics minimum > maximum"),
        ({"percentile": {"humans": {"STR": "abc"}}}, "humans.STR not dice"),
        (nest("percentile.combat.sizes.parry_block", [math.nan]), "NaN in parry_block"),
        (nest("percentile.combat.sizes.parry_block", [2.0, 0.5]), "parry_block above 1"),
        ({"guide": {"checks": {"critical_success": 30}}}, "critical success above the die"),
        ({"percentile": {"damage_modifier": {"inputs": []}}}, "damage modifier of no input"),
    ]
    for lo_key, hi_key in PAIRS.items():
        lo, hi = bounds(lo_key)
        cases.append((merge(nest(lo_key, hi), nest(hi_key, lo)) if lo < hi else
                      merge(nest(lo_key, lo + 1), nest(hi_key, lo)),
                      f"{lo_key} > {hi_key}"))
    return cases


CROSS_FIELD = _cross_field()


def invalid_variants():
    """``(overlay, what)``: a variant breaking exactly one thing (see the module docstring)."""
    return st.one_of(_out_of_limits(), _column_out_of_limits(), _bad_tiling(), _wrong_type(),
                     _unknown_key(), _bad_reference(), _non_finite(),
                     st.sampled_from(CROSS_FIELD))


# --- TOML writer ----------------------------------------------------------------------------
def toml_value(value) -> str:
    """``value`` (numbers, text, lists or tuples, dicts or frozen rules mappings) as a TOML
    inline value."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{ " + ", ".join(f"{json.dumps(k)} = {toml_value(v)}"
                                for k, v in value.items()) + " }"
    raise TypeError(value)


def to_toml(overlay: dict) -> str:
    """A variant file holding ``overlay`` (one ``[section]`` per top-level key)."""
    lines = []
    for section, body in overlay.items():
        if not isinstance(body, dict):
            lines.append(f"{json.dumps(section)} = {toml_value(body)}")
            continue
        lines.append(f"[{json.dumps(section)}]")
        lines += [f"{json.dumps(k)} = {toml_value(v)}" for k, v in body.items()]
    text = "\n".join(lines) + "\n"
    assert tomllib.loads(text) == overlay or _has_nan(overlay), text
    return text


def _has_nan(value) -> bool:
    if isinstance(value, float):
        return math.isnan(value)
    if isinstance(value, dict):
        return any(_has_nan(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_nan(v) for v in value)
    return False
