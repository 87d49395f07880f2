"""Tuning: from a target to the rule values that give it (``bl.tune``).

- :func:`solve`: one rule value for one target (:mod:`balance.tune.solve`);
- :func:`fit`: several values for several targets, least squares (:mod:`balance.tune.fit`);
- :func:`sensitivity`: which values move a metric most, one at a time or Sobol indices
  (:mod:`balance.tune.sensitivity`);
- what can be varied: numeric rules keys and a few named table transforms
  (:mod:`balance.tune.space`).

>>> import balance as bl
>>> bl.tune.solve("death.p@40s,6hp,1w", target=0.10, vary="injuries.death_threshold").value
183
"""
from __future__ import annotations

from .fit import Fitted, fit
from .objective import objective
from .sensitivity import Sensitivity, sensitivity, sobol_indices
from .solve import Tuned, solve
from .space import TRANSFORMS, Knob, knob, numeric_keys

__all__ = ["solve", "Tuned", "fit", "Fitted", "sensitivity", "Sensitivity", "sobol_indices",
           "knob", "Knob", "TRANSFORMS", "numeric_keys", "objective"]
