"""balance: what tabletop-RPG rules really do, with numbers and pictures.

The notebook surface::

    import balance as bl
    bl.injuries.death_probability(seconds=40, negative_hp=6, wounds=1)
    rules = bl.load_rules("variant.toml")

Topic modules load on first use (``bl.injuries``, ``bl.percentile``, ``bl.plots``...).
"""
from __future__ import annotations

import importlib

from .errors import RulesError
from .rules import Rules, load_rules

__version__ = "0.1.0"

_MODULES = (
    "dice", "rng", "d20", "injuries", "negotiation", "treatment", "rest", "timeline",
    "montecarlo", "rescue", "campaign", "creatures", "design", "encounters", "fights",
    "economy", "guide", "percentile", "plots", "report", "regression", "bench", "cli", "rules",
)

__all__ = ["Rules", "RulesError", "load_rules", "__version__", *_MODULES]


def __getattr__(name: str):
    if name in _MODULES:
        module = importlib.import_module(f".{name}", __name__)
        globals()[name] = module
        return module
    raise AttributeError(f"module 'balance' has no attribute '{name}'")


def __dir__():
    return sorted(set(globals()) | set(_MODULES))
