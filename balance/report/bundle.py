"""Computing a report: run every available topic's ``compute`` and keep the results (tidy
frames and :class:`~balance.results.Simulation` objects) in a :class:`Bundle`. Nothing here
draws or formats; :mod:`.sections` renders a bundle."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..errors import check_integer
from ..rules import Rules, resolve
from .topics import available_topics

__all__ = ["Settings", "Bundle", "compute_bundle", "DEFAULT_TRIALS", "DEFAULT_SEED"]

#: trials of each Monte Carlo figure of the default report
DEFAULT_TRIALS = 1_000_000
#: the default seed: the same report every time unless asked otherwise
DEFAULT_SEED = 20260101


@dataclass(frozen=True)
class Settings:
    """How the Monte Carlo parts run: trials per simulated quantity, seed, worker processes."""

    trials: int = DEFAULT_TRIALS
    seed: int = DEFAULT_SEED
    workers: int = 1

    def __post_init__(self) -> None:
        check_integer("trials", self.trials, min=100, max=10**10)
        check_integer("seed", self.seed, min=0, max=2**63 - 1)
        check_integer("workers", self.workers, min=1, max=1024)


@dataclass
class Bundle:
    """Everything a report shows, computed: ``results[topic] = {name: frame or Simulation}``."""

    rules: Rules
    settings: Settings
    results: dict[str, dict[str, Any]] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)


def compute_bundle(rules: Rules | str | None = None, *, trials: int = DEFAULT_TRIALS,
                   seed: int = DEFAULT_SEED, workers: int = 1, topics=None,
                   on_step: Callable[[str], None] | None = None) -> Bundle:
    """Compute every section's results for ``rules``.

    Parameters
    ----------
    rules : Rules, path or None
        Default: the bundled rules.
    trials, seed, workers : int
        For each Monte Carlo quantity (each is run with this seed: one call reproduces it).
    topics : list of str, optional
        Topic keys to compute (default: every available one).
    on_step : callable, optional
        Called with each topic key once it is computed (progress bars).
    """
    import time

    rules = resolve(rules)
    settings = Settings(trials=trials, seed=seed, workers=workers)
    modules, missing = available_topics(topics)
    bundle = Bundle(rules=rules, settings=settings, missing=missing)
    for module in modules:
        start = time.perf_counter()
        bundle.results[module.KEY] = module.compute(rules, settings)
        bundle.seconds[module.KEY] = time.perf_counter() - start
        if on_step is not None:
            on_step(module.KEY)
    return bundle
