"""Encounters of the GM guide (``bl.encounters``): adversity ratios and calibration, and their
recalibration against the fight simulation.

A facade, as :mod:`balance.guide.fights` is: the ratios and the calibration live in
:mod:`balance.guide.adversity` (below the creature sheets), the recalibration in
:mod:`balance.guide.recalibration` (above the simulation), so neither imports the other.

>>> import balance as bl
>>> bl.encounters.calibration(ratios=["3/1", "1/2", "1/2"], pcs=4)
Calibration(value=Fraction(0, 1), challenge='Demanding')
"""
from __future__ import annotations

from .adversity import (Calibration, EncounterAdvice, adjusted_ratio, advice, base_ratio,
                        calibration, challenge, ladder, named_row, parse_ratio)
from .recalibration import HELD_OUT_FAMILIES, TRAINING_FAMILIES, Recalibration, recalibrate

__all__ = ["Calibration", "EncounterAdvice", "parse_ratio", "ladder", "base_ratio",
           "adjusted_ratio", "calibration", "challenge", "advice", "named_row", "recalibrate",
           "Recalibration", "TRAINING_FAMILIES", "HELD_OUT_FAMILIES"]
