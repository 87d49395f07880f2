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

#: The notebook surface: ``bl.<name>`` is the module on the right, imported on first use.
#: The package is laid out by rule document (``core``, ``guide``, ``percentile``) and by role.
_MODULES = {
    "rules": "rules", "dice": "dice", "rng": "rng", "montecarlo": "montecarlo",
    "d20": "core.d20", "injuries": "core.injuries", "treatment": "core.treatment",
    "negotiation": "core.negotiation", "rest": "core.rest", "timeline": "core.timeline",
    "rescue": "core.rescue", "campaign": "core.campaign",
    "design": "guide.design", "creatures": "guide.creatures", "encounters": "guide.encounters",
    "fights": "guide.fights", "economy": "guide.economy", "guide": "guide",
    "percentile": "percentile", "plots": "plots", "report": "report",
    "regression": "regression", "bench": "bench", "cli": "cli",
    "tune": "tune",
    "explore": "explore",
}

__all__ = ["Rules", "RulesError", "load_rules", "__version__", *_MODULES]


def __getattr__(name: str):
    if name in _MODULES:
        module = importlib.import_module(f".{_MODULES[name]}", __name__)
        globals()[name] = module
        return module
    raise AttributeError(f"module 'balance' has no attribute '{name}'")


def __dir__():
    return sorted(set(globals()) | set(_MODULES))
