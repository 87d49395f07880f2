"""Regression-checking rule changes: what moved, by how much, and is it real? (issue 7)

>>> import balance as bl
>>> diff = bl.regression.compare(None, "death_threshold_180", trials=2000)
>>> diff.loc[diff["moved"], "metric"].head(2).tolist()
['death.p@40s,6hp,1w', 'death.p@90s,10hp,0w']

``catalogue()`` lists the metrics; ``snapshot.take(rules)`` measures them all and
``snapshot.write(snap, path)`` freezes them; ``compare(a, b)`` tests every difference;
``check(baseline, rules)`` is what ``balance check`` runs; :mod:`.testing` holds pytest
helpers for designers' own balance assertions.
"""
from __future__ import annotations

from .registry import apply_tolerances, catalogue, catalogue_id, measure, metric
from .checking import check, format_table
from .diff import compare, compare_snapshots, independent_seed
from .metrics import Measurement, Metric
from .snapshot import Snapshot, SnapshotError, read, take, write
from .stats import holm

__all__ = ["Metric", "Measurement", "catalogue", "catalogue_id", "metric", "measure",
           "apply_tolerances", "Snapshot", "SnapshotError", "take", "read", "write", "compare",
           "compare_snapshots", "independent_seed", "check", "format_table", "holm"]
