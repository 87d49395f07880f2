"""Simulated fights of the GM guide: a party of PCs against creatures, and whether the guide's
calibration predicts how hard they are.

``bl.fights`` gathers the two: the simulation (:mod:`balance.guide.simulation`, on the
compiled kernel of :mod:`balance.guide.fight_kernel`) and the calibration check
(:mod:`balance.guide.calibration`), which runs on the simulation.
"""
from __future__ import annotations

from .calibration import CalibrationCheck, calibration_check
from .simulation import FightSpec, fight_sampler, fight_spec, lineup, simulate, summarise

__all__ = ["FightSpec", "fight_sampler", "fight_spec", "simulate", "summarise", "lineup",
           "calibration_check", "CalibrationCheck"]
