"""The GM guide (*Worlds Awakening*): design limits, creature sheets, adversity ratios and
encounter calibration, simulated fights, the NX economy, and the hazards (falls, fatigue,
stacking effects, reward paths).

The notebook surface reaches the modules as ``bl.design``, ``bl.creatures``,
``bl.encounters``, ``bl.fights`` and ``bl.economy``; ``bl.guide`` itself answers the hazards
(``bl.guide.fall``, ``bl.guide.fatigue_penalty``...), which live in :mod:`balance.guide.hazards`.
"""
from __future__ import annotations

from .hazards import Fall, fall, fall_table, fatigue_penalty, reward_paths, stack_effects
from .weakness import attack_adjustment

__all__ = ["Fall", "fall", "fall_table", "fatigue_penalty", "stack_effects", "reward_paths",
           "attack_adjustment"]
