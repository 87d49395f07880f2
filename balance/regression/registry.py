"""The catalogue: every metric this version of ``balance`` knows, and measuring them.

Metrics come from providers, one per part of the rules; a provider whose module is not part
of this installation (``ModuleNotFoundError`` for a ``balance`` module) contributes nothing.
Snapshots record the catalogue, so a baseline made with a different catalogue is refused
rather than half-compared.
"""
from __future__ import annotations

import fnmatch
import hashlib
from collections.abc import Callable, Iterable, Mapping

from ..errors import check_integer, check_number, did_you_mean
from ..rules import Rules, resolve
from . import (core_metrics, fight_metrics, guide_metrics, percentile_metrics,
               process_metrics, recovery_metrics)
from .metrics import Measurement, Metric
from .rows import Unmeasurable

__all__ = ["catalogue", "metric", "measure", "catalogue_id", "apply_tolerances", "select",
           "PROVIDERS"]

#: (part of the rules, provider) in catalogue order
PROVIDERS: tuple[tuple[str, Callable[[], list[Metric]]], ...] = (
    ("core", core_metrics.metrics),
    ("recovery", recovery_metrics.metrics),
    ("guide", guide_metrics.metrics),
    ("percentile", percentile_metrics.metrics),
    ("process", process_metrics.metrics),
    ("fights", fight_metrics.metrics),
)


def catalogue(*, tolerances: Mapping[str, float] | None = None,
              only: Iterable[str] | None = None) -> list[Metric]:
    """All metrics, in catalogue order, with ``tolerances`` applied (see :func:`apply_tolerances`),
    or only those matching the names or patterns ``only`` (see :func:`select`)."""
    out: list[Metric] = []
    for _, provider in PROVIDERS:
        try:
            out += provider()
        except ModuleNotFoundError as exc:  # a part of balance not in this installation
            if not (exc.name or "").startswith("balance."):
                raise
    names = [m.name for m in out]
    if len(set(names)) != len(names):
        dup = sorted({n for n in names if names.count(n) > 1})
        raise RuntimeError(f"metric names must be unique; duplicated: {', '.join(dup)}")
    if only is not None:
        out = select(out, only)
    return apply_tolerances(out, tolerances) if tolerances else out


def select(metrics: Iterable[Metric], only: Iterable[str]) -> list[Metric]:
    """The metrics matching any of the names or shell-style patterns ``only``, in catalogue
    order; a pattern matching nothing is an error."""
    metrics = list(metrics)
    names = [m.name for m in metrics]
    only = [only] if isinstance(only, str) else list(only)
    if not only:
        raise ValueError("only must name at least one metric or pattern")
    for pattern in only:
        if not any(fnmatch.fnmatchcase(n, pattern) for n in names):
            raise ValueError(f"only: no metric matches {pattern!r}{did_you_mean(pattern, names)}")
    return [m for m in metrics if any(fnmatch.fnmatchcase(m.name, p) for p in only)]


def apply_tolerances(metrics: Iterable[Metric], tolerances: Mapping[str, float]) -> list[Metric]:
    """Set tolerances by metric name or shell-style pattern (``"death.*"``); later entries win.

    A pattern that matches no metric is an error (a typo would silently ignore the setting).
    """
    metrics = list(metrics)
    names = [m.name for m in metrics]
    chosen: dict[str, float] = {}
    for pattern, value in tolerances.items():
        value = check_number(f"tolerance of {pattern!r}", value, min=0)
        hits = [n for n in names if fnmatch.fnmatchcase(n, pattern)]
        if not hits:
            raise ValueError(f"tolerance: no metric matches {pattern!r}"
                             f"{did_you_mean(pattern, names)}")
        chosen.update(dict.fromkeys(hits, float(value)))
    return [m.with_tolerance(chosen[m.name]) if m.name in chosen else m for m in metrics]


def metric(name: str) -> Metric:
    """The catalogue metric called ``name``."""
    for m in catalogue():
        if m.name == name:
            return m
    raise ValueError(f"metric must be a catalogue name, got {name!r}"
                     f"{did_you_mean(name, [m.name for m in catalogue()])}")


def catalogue_id(metrics: Iterable[Metric]) -> str:
    """A short hash of the metrics' names, kinds and shapes (what snapshots must agree on)."""
    text = "\n".join(f"{m.name}|{m.kind}|{m.shape}|{m.unit}" for m in metrics)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def measure(rules: Rules | str | None = None, *, metrics: Iterable[Metric] | None = None,
            trials: int = 100_000, seed: int = 0,
            removed: dict[str, Unmeasurable] | None = None) -> dict[str, Measurement]:
    """Compute every metric for ``rules``: ``{name: Measurement}`` in catalogue order.

    Monte Carlo metrics run ``trials`` trials (times their ``trials_scale``), each from its
    own stream of master ``seed`` (:func:`~balance.regression.metrics.metric_seed`). A metric
    these ``rules`` cannot measure (a table row they do not have, values that rule it out)
    raises :class:`~.rows.Unmeasurable`; given a dict ``removed``, it is left out instead and
    its error recorded there by name.
    """
    rules = resolve(rules)
    trials = check_integer("trials", trials, min=1, max=10**10)
    seed = check_integer("seed", seed, min=0)
    metrics = catalogue() if metrics is None else list(metrics)
    out = {}
    for m in metrics:
        try:
            out[m.name] = m.measure(rules, trials=trials, seed=seed)
        except Unmeasurable as exc:
            if removed is None:
                raise
            removed[m.name] = exc
    return out
