"""One melee exchange (percentile rules, combat), vectorised over duels and fed explicit dice.

:func:`exchange` is pure: the simulator draws the dice, tests feed fixed ones. Policies the
document leaves open (stated in the docs, how-to/percentile.md, "Duels: what the simulator does"):

- skills over 100: the over-100 rule between attack and defence when the defender rolls (not
  between the attack and the Endurance roll, which is compared with the attack tier as rolled:
  our reading, stated in the report's appendix);
- special effects (count = differential roll): this function spends them as the policy
  ``"legacy"`` does (an attacker whose blow lands takes *choose location*, the location with
  the fewest hit points + armour left, vital ones first on a tie, and after a critical *bypass
  armour*); the duel simulator spends both sides' effects by their policies
  (:mod:`balance.percentile.effects`, percentile rules, special effects) with the same location rule;
- raw damage = weapon dice + damage modifier (never below ``duel.minimum_damage``); knockback
  when raw damage exceeds SIZ and the blow was not evaded; a successful parry blocks by size
  (rounded in the defender's favour), a successful evade avoids the blow; then armour;
- wounds (percentile rules, combat): classified by the location's hit points after every hit that does
  damage, whatever they were before: *serious* at or below 0, *major* at or below minus its
  maximum, each time with its Endurance roll, which must win an opposed roll against the attack
  roll. ``combat.wound_every_hit = false`` (a rules switch, the earlier reading): only the hit
  that first takes the location to 0 (serious) or to minus its maximum (major) counts;
- serious + failed Endurance: head/chest/abdomen -> unconscious; the weapon arm ->
  incapacitation (cannot fight); another limb is crippled (the simulator drops the shield or
  leaves the fighter prone). Major: incapacitated; failed Endurance -> dead (vital) or
  unconscious (limb).
"""
from __future__ import annotations

import numpy as np

from ..rules import resolve
from ._common import CRITICAL, FAILURE, SUCCESS, RulesLike, section
from .contests import effects_won, opposed_outcome
from .rolls import _skill_cap, tier_lookup

__all__ = ["exchange", "NONE", "DEATH", "UNCONSCIOUS", "INCAPACITATION", "OUTCOMES",
           "MINOR", "SERIOUS", "MAJOR"]

NONE, DEATH, UNCONSCIOUS, INCAPACITATION = 0, 1, 2, 3
OUTCOMES = ("fighting", "death", "unconsciousness", "incapacitation")
MINOR, SERIOUS, MAJOR = 1, 2, 3


def _tiers(skill, roll, rules):
    return tier_lookup(rules)[np.minimum(skill, _skill_cap(rules)), roll]


def exchange(attacker: dict, defender: dict, rolls: dict, rules: RulesLike = None) -> dict:
    """Resolve one exchange per duel (arrays shaped ``(m,)``; location arrays ``(m, L)``).

    Parameters
    ----------
    attacker : dict
        ``skill`` (Combat Style after grades), ``weapon_size``.
    defender : dict
        ``defends`` (bool: spends an A.P. on a defence), ``parry`` (bool: parry, else evade),
        ``skill`` (the defence skill after grades), ``parry_size``, ``armour``, ``hp`` (hit
        points left), ``hp_max``, ``siz``, ``endurance``, ``knockback_skill``.
    rolls : dict
        d100s ``attack``, ``defence``, ``endurance``, ``knockback``; ``location`` (the 1d20
        roll) and ``damage`` (weapon dice + damage modifier, rolled).

    Returns
    -------
    dict of arrays: attack_tier, defence_tier, effects (signed, + attacker), hit, location,
    raw_damage, damage (taken by the location), hp_after, wound (0 none, 1 minor, 2 serious,
    3 major), endurance_passed, crippled, knocked_back, knockback_metres, knocked_prone, outcome
    (0 fighting, 1 death, 2 unconsciousness, 3 incapacitation).
    """
    rules = resolve(rules)
    sec = section(rules)
    combat, duel = sec["combat"], sec["duel"]
    loc_rows = sec["hit_locations"]["table"]
    vital = np.array([row["vital"] for row in loc_rows])
    keys = [row["key"] for row in loc_rows]
    a_skill = np.asarray(attacker["skill"], dtype=np.int64)
    d_skill = np.asarray(defender["skill"], dtype=np.int64)
    defends = np.asarray(defender["defends"], dtype=bool)
    # over-100 rule when both roll
    excess = np.maximum(np.maximum(a_skill, d_skill) - sec["contest"]["skill_cap"], 0)
    excess = np.where(defends, excess, 0)
    a_skill = np.maximum(a_skill - excess, 0)
    d_skill = np.maximum(d_skill - excess, 0)
    a_tier = _tiers(a_skill, rolls["attack"], rules)
    d_tier = np.where(defends, _tiers(d_skill, rolls["defence"], rules), FAILURE)
    effects = effects_won(a_tier, d_tier, rules)
    landed = a_tier >= SUCCESS
    parried = defends & defender["parry"] & (d_tier >= SUCCESS)
    evaded = defends & ~np.asarray(defender["parry"], dtype=bool) & (d_tier >= SUCCESS)
    hit = landed & ~evaded

    # location: rolled, or chosen with the first special effect
    hp = np.asarray(defender["hp"])
    armour = np.asarray(defender["armour"])
    lows = np.array([row["low"] for row in loc_rows])
    rolled_loc = np.searchsorted(lows, rolls["location"], side="right") - 1
    score = 2 * (hp + armour) - vital
    chosen = hit & (effects >= 1)
    location = np.where(chosen, np.argmin(score, axis=1), rolled_loc)
    bypass = hit & (effects >= 2) & (a_tier == CRITICAL)

    raw = np.maximum(np.asarray(rolls["damage"]), duel["minimum_damage"])
    raw = np.where(hit, raw, 0)
    # parry: blocked fraction by how many sizes smaller the parrying item is
    blocks = np.asarray(combat["sizes"]["parry_block"], dtype=float)
    smaller = np.maximum(np.asarray(attacker["weapon_size"]) - defender["parry_size"], 0)
    fraction = np.where(smaller < blocks.size, blocks[np.minimum(smaller, blocks.size - 1)], 0.0)
    blocked = np.where(parried, np.ceil(raw * fraction - 1e-9).astype(np.int64), 0)
    rows = np.arange(location.size)
    loc_armour = np.where(bypass, 0, armour[rows, location])
    damage = np.maximum(raw - blocked - loc_armour, 0)
    before = hp[rows, location]
    after = before - damage
    top = np.asarray(defender["hp_max"])[rows, location]
    if combat["wound_every_hit"]:
        major = (after <= -top) & (damage > 0)
        serious = (after <= 0) & (damage > 0) & ~major
    else:
        major = (after <= -top) & (before > -top)
        serious = (after <= 0) & (before > 0) & ~major
    wound = np.where(major, MAJOR, np.where(serious, SERIOUS, np.where(damage > 0, MINOR, 0)))

    # Endurance: an opposed roll against the attack roll, which it must win
    e_tier = _tiers(np.asarray(defender["endurance"], dtype=np.int64), rolls["endurance"], rules)
    passed = opposed_outcome(e_tier, rolls["endurance"], a_tier, rolls["attack"]) == 1
    failed = (wound >= SERIOUS) & ~passed
    is_vital = vital[location]
    weapon_arm = location == keys.index(duel["weapon_arm"])
    outcome = np.full(location.shape, NONE)
    outcome = np.where(major, INCAPACITATION, outcome)
    outcome = np.where(serious & failed & weapon_arm, INCAPACITATION, outcome)
    outcome = np.where(serious & failed & is_vital, UNCONSCIOUS, outcome)
    outcome = np.where(major & failed & ~is_vital, UNCONSCIOUS, outcome)
    outcome = np.where(major & failed & is_vital, DEATH, outcome)
    crippled = serious & failed & ~is_vital

    # knockback: raw damage over SIZ, unless the blow was evaded
    over = raw - np.asarray(defender["siz"])
    k_tier = _tiers(np.asarray(defender["knockback_skill"], dtype=np.int64), rolls["knockback"],
                    rules)
    knocked = hit & (over > 0)
    prone = knocked & (k_tier < SUCCESS)
    metres = np.where(knocked, np.maximum(over, 0) // combat["knockback_metres_per"], 0)
    return {"attack_tier": a_tier, "defence_tier": d_tier, "effects": effects, "hit": hit,
            "location": location, "chosen": chosen, "bypass": bypass, "raw_damage": raw,
            "damage": damage, "hp_after": after, "wound": wound,
            "endurance_passed": passed & (wound >= SERIOUS), "crippled": crippled,
            "knocked_back": knocked, "knockback_metres": metres, "knocked_prone": prone,
            "outcome": outcome}
