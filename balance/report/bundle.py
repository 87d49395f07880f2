"""Computing a report: run every available topic's ``compute`` and keep the results (tidy
frames and :class:`~balance.results.Simulation` objects) in a :class:`Bundle`. Nothing here
draws or formats; :mod:`.sections` renders a bundle."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import check_integer
from ..rng import DEFAULT_SEED
from ..rules import Rules, resolve
from .topics import available_topics

__all__ = ["Settings", "Bundle", "compute_bundle", "empty_bundle", "resolve_baseline", "DEFAULT_TRIALS",
           "DEFAULT_SEED"]

#: trials of each Monte Carlo figure of the default report
DEFAULT_TRIALS = 1_000_000


@dataclass(frozen=True)
class Settings:
    """How the Monte Carlo parts run: trials per simulated quantity, seed, worker processes;
    and what a variant is compared with (``baseline``: Rules, a regression Snapshot, or None
    for the bundled rules)."""

    trials: int = DEFAULT_TRIALS
    seed: int = DEFAULT_SEED
    workers: int = 1
    baseline: Any = None

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
                   on_step: Callable[[str], None] | None = None, baseline: Any = None
                   ) -> Bundle:
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
    baseline : Rules, path, Snapshot or None
        What the rules are compared with: rules (a file, a bundled variant's name), a
        regression snapshot (a ``.json`` file or :class:`~balance.regression.Snapshot`);
        None: the bundled rules. Rules equal to the baseline are not compared.
    """
    import time

    bundle, modules = empty_bundle(rules, trials=trials, seed=seed, workers=workers,
                                   topics=topics, baseline=baseline)
    for module in modules:
        start = time.perf_counter()
        bundle.results[module.KEY] = module.compute(bundle.rules, bundle.settings)
        bundle.seconds[module.KEY] = time.perf_counter() - start
        if on_step is not None:
            on_step(module.KEY)
    return bundle


def empty_bundle(rules: Rules | str | Path | None = None, *, trials: int = DEFAULT_TRIALS,
                 seed: int = DEFAULT_SEED, workers: int = 1, topics=None, baseline: Any = None
                 ) -> tuple[Bundle, list]:
    """A bundle with its rules and settings checked and no result yet, and the topic modules
    to compute (in report order)."""
    rules = resolve(rules)
    settings = Settings(trials=trials, seed=seed, workers=workers,
                        baseline=resolve_baseline(baseline))
    modules, missing = available_topics(topics)
    return Bundle(rules=rules, settings=settings, missing=missing), modules


def resolve_baseline(baseline: Any) -> Any:
    """``baseline`` as Rules or a regression Snapshot: a ``.json`` path is read as a snapshot,
    any other path or name loaded as rules; None is the bundled rules."""
    from pathlib import Path

    if baseline is None:
        from ..rules import default_rules
        return default_rules()
    if isinstance(baseline, Rules) or hasattr(baseline, "measurements"):
        return baseline
    if isinstance(baseline, (str, Path)) and str(baseline).lower().endswith(".json"):
        from ..regression.snapshot import read
        return read(baseline)
    return resolve(baseline)
