"""Report topics. Each module holds one section: ``KEY``, ``TITLE`` (a label key), ``REQUIRES``
(modules it needs), ``RULES_SECTIONS`` (for the assumed values), ``compute(rules, settings)``
returning results, and ``render(results, ctx)`` returning a :class:`~balance.report.model.Section`.
A topic whose ``REQUIRES`` module is not there is left out and listed as missing."""
from __future__ import annotations

import importlib
from types import ModuleType

from ._base import Context

__all__ = ["TOPICS", "OPT_IN", "Context", "available_topics", "topic_module"]

#: report order
TOPICS = ("changes", "death", "injuries", "montecarlo_check", "rescue", "campaign", "d20", "treatment",
          "timeline", "negotiation", "negotiation_rules", "rest", "encounters", "percentile",
          "duels", "special_effects", "variants", "assumptions", "recalibration")
#: topics computed only when asked for (``topics=[...]``, ``--sections``): too slow for the
#: default report (the recalibration simulates ~94 encounters)
OPT_IN = ("recalibration",)


def topic_module(key: str) -> ModuleType:
    return importlib.import_module(f".{key}", __name__)


def _missing(module: ModuleType) -> list[str]:
    gone = []
    for name in module.REQUIRES:
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name and (exc.name == name or exc.name.startswith("balance.")):
                gone.append(name)
            else:
                raise
    return gone


def available_topics(keys=None) -> tuple[list[ModuleType], list[str]]:
    """Topic modules whose requirements import, and the keys of those left out."""
    if keys is not None:
        unknown = [k for k in keys if k not in TOPICS]
        if unknown:
            raise ValueError(f"topics must be among {', '.join(TOPICS)}; got {unknown}")
    ok: list[ModuleType] = []
    missing: list[str] = []
    for key in [k for k in TOPICS if k not in OPT_IN] if keys is None else \
            [k for k in TOPICS if k in keys]:
        module = topic_module(key)
        gone = _missing(module)
        if gone:
            missing.append(f"{key} ({', '.join(gone)})")
        else:
            ok.append(module)
    return ok, missing
