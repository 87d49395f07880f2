"""The percentile rules (a Mythras digest): d100 tiers, contests, characters, duels.

>>> import balance as bl
>>> float(bl.percentile.tiers(65)["success"])
0.58
>>> int(bl.percentile.location_hp(25)["chest"])
7
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_names

# exchange is imported now: the function, not the submodule of the same name, is
# ``percentile.exchange`` (the submodule is pandas-free, like rolls and contests it imports)
from .exchange import exchange

if TYPE_CHECKING:
    from .characteristics import (acrobatics_base, action_points, athletics_base,
                                  combat_style_base, damage_modifier, damage_modifier_step,
                                  endurance, evade, experience_modifier, healing_rate,
                                  human_distribution, initiative_bonus, location_hp, luck_points,
                                  magic_points, sample_humans, willpower)
    from .combat import charge, harder_grade, initiative, knockback_metres, parry_blocked
    from .contests import contest_skills, differential, effects_won, opposed, opposed_outcome
    from .duel_tables import duel, duel_table, weapon_matchups
    from .duel_values import SITUATIONS, duel_situations
    from .duels import DuelSpec, duel_sampler, duel_spec
    from .fighters import Fighter, average_human, combatant, weapon_size
    from .locations import hit_locations, location_of
    from .casting import (casting_chance, casting_tiers, intensity, magic_skill_base, passion,
                          willpower_check)
    from .recovery import (best_source_distribution, periods_to_recover, recovery_hours,
                               sacrifice_source)
    from .stacking import applying_effects
    from .effects import ListPolicy, policy, situation, special_effects, spend_effects
    from .magic import (abilities_known, best_source, casting_conditions, location_source,
                        veneration_source)
    from .rolls import (graded_skill, sample_tiers, tier_codes, tier_lookup, tier_names,
                        tier_sampler, tier_table, tiers)

__all__ = [
    # 3.1 skill rolls and contests
    "tiers", "graded_skill", "tier_table", "tier_codes", "tier_lookup", "tier_names",
    "sample_tiers", "tier_sampler", "opposed", "differential", "contest_skills",
    "opposed_outcome", "effects_won",
    # 3.2 characteristics, attributes, hit locations
    "action_points", "experience_modifier", "healing_rate", "luck_points", "magic_points",
    "initiative_bonus", "endurance", "willpower", "evade", "combat_style_base",
    "acrobatics_base", "athletics_base",
    "damage_modifier", "damage_modifier_step", "location_hp", "human_distribution",
    "sample_humans", "hit_locations", "location_of",
    # 3.3 combat rules and duels
    "initiative", "parry_blocked", "knockback_metres", "harder_grade", "charge",
    "combatant", "Fighter", "weapon_size", "average_human", "exchange", "duel_spec", "DuelSpec",
    "duel_sampler",
    "duel", "duel_table", "weapon_matchups",
    # magic
    "abilities_known", "best_source", "location_source", "veneration_source",
    "casting_conditions",
    # percentile rules, magic: passions, magic skills, casting while hurt, stacking, magic points
    "passion", "magic_skill_base", "willpower_check", "casting_tiers", "casting_chance",
    "intensity", "applying_effects", "sacrifice_source", "best_source_distribution",
    "recovery_hours", "periods_to_recover",
    # percentile rules, special effects: the effects and the policies that spend them
    "special_effects", "situation", "spend_effects", "policy", "ListPolicy",
    "duel_situations", "SITUATIONS",
]


#: where each public name lives: a submodule is imported on first use, so ``balance tiers``
#: or ``percentile.tiers`` do not import the duel tables and pandas (a fast start)
_WHERE = {
    "acrobatics_base": "characteristics", "action_points": "characteristics",
    "athletics_base": "characteristics", "combat_style_base": "characteristics",
    "damage_modifier": "characteristics", "damage_modifier_step": "characteristics",
    "endurance": "characteristics", "evade": "characteristics",
    "experience_modifier": "characteristics", "healing_rate": "characteristics",
    "human_distribution": "characteristics", "initiative_bonus": "characteristics",
    "location_hp": "characteristics", "luck_points": "characteristics",
    "magic_points": "characteristics", "sample_humans": "characteristics",
    "willpower": "characteristics",
    "charge": "combat", "harder_grade": "combat", "initiative": "combat",
    "knockback_metres": "combat", "parry_blocked": "combat",
    "contest_skills": "contests", "differential": "contests", "effects_won": "contests",
    "opposed": "contests", "opposed_outcome": "contests",
    "duel": "duel_tables", "duel_table": "duel_tables", "weapon_matchups": "duel_tables",
    "SITUATIONS": "duel_values", "duel_situations": "duel_values",
    "DuelSpec": "duels", "duel_sampler": "duels", "duel_spec": "duels",
    "Fighter": "fighters", "average_human": "fighters", "combatant": "fighters",
    "weapon_size": "fighters",
    "hit_locations": "locations", "location_of": "locations",
    "casting_chance": "casting", "casting_tiers": "casting", "intensity": "casting",
    "magic_skill_base": "casting", "passion": "casting", "willpower_check": "casting",
    "best_source_distribution": "recovery", "periods_to_recover": "recovery",
    "recovery_hours": "recovery", "sacrifice_source": "recovery",
    "applying_effects": "stacking",
    "ListPolicy": "effects", "policy": "effects", "situation": "effects",
    "special_effects": "effects", "spend_effects": "effects",
    "abilities_known": "magic", "best_source": "magic", "casting_conditions": "magic",
    "location_source": "magic", "veneration_source": "magic",
    "graded_skill": "rolls", "sample_tiers": "rolls", "tier_codes": "rolls", "tier_lookup": "rolls",
    "tier_names": "rolls", "tier_sampler": "rolls", "tier_table": "rolls", "tiers": "rolls",
}


#: the submodules, imported on first use too (``percentile.duel_tables.duel``)
_SUBMODULES = frozenset({"_common", "_duel_kernel", "casting", "characteristics", "combat",
                         "contests", "duel_tables", "duel_values", "duels", "effects",
                         "fighters", "locations", "magic", "recovery", "rolls", "stacking"})

__getattr__, __dir__ = lazy_names(__name__, _WHERE, _SUBMODULES)
