"""Snapshots: every metric of a rule set, frozen in a JSON file to compare against later.

A snapshot records, per metric, its definition (unit, kind, shape, tolerance) and measurement
(value, interval, trials, seed, counts), plus the rules fingerprint, the package version, the
catalogue id, a schema version and the SHA-256 of the rest of the content. Files are written
atomically (a temporary file in the same directory, then ``os.replace``) and never overwrite an
existing file unless asked; :func:`read` checks every field (:mod:`.validate`).
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from .._atomic import check_output_file, write_file
from ..errors import check_integer
from ..rules import Rules, resolve
from .registry import catalogue, catalogue_id, measure
from .metrics import Measurement, Metric, number
from .validate import (MAX_BYTES, MAX_DEPTH, SCHEMA, SCHEMA_VERSION, SnapshotError,
                       check_document, digest, load)

__all__ = ["Snapshot", "SnapshotError", "take", "read", "write", "SCHEMA", "SCHEMA_VERSION",
           "MAX_BYTES", "MAX_DEPTH"]

#: the death-probability curves stored for diff reports: P(death) against seconds at -5 HP
CURVE_HP = 5
CURVE_WOUNDS = (0, 1, 2, 3)


@dataclass(frozen=True)
class Snapshot:
    """Measured metrics of one rule set (taken now, or read from a file)."""

    metrics: tuple[Metric, ...]
    measurements: dict[str, Measurement]
    fingerprint: str
    sources: tuple[str, ...]
    trials: int
    seed: int
    version: str
    curves: dict = field(default_factory=dict)
    created: str = ""
    path: str | None = None
    only: tuple[str, ...] | None = None

    @property
    def catalogue_id(self) -> str:
        return catalogue_id(self.metrics)

    @property
    def label(self) -> str:
        """A short name for tables: the file, or the rules' last source."""
        if self.path:
            return Path(self.path).name
        return Path(self.sources[-1]).name if self.sources else self.fingerprint

    def to_json(self) -> dict:
        """The file's content, with the ``sha256`` of the rest (which catches edits)."""
        from .. import __version__
        doc = {
            "schema": SCHEMA, "schema_version": SCHEMA_VERSION,
            "balance_version": self.version or __version__,
            "created": self.created,
            "rules": {"fingerprint": self.fingerprint, "sources": list(self.sources)},
            "trials": self.trials, "seed": self.seed,
            "catalogue_id": self.catalogue_id,
            "only": list(self.only) if self.only is not None else None,
            "metrics": {m.name: {"description": m.description, "unit": m.unit, "kind": m.kind,
                                 "shape": m.shape, "tolerance": m.tolerance,
                                 "section": m.section, **self.measurements[m.name].to_json()}
                        for m in self.metrics},
            "curves": self.curves,
        }
        doc["sha256"] = digest(json.loads(json.dumps(doc, allow_nan=False)))
        return doc


def take(rules: Rules | str | None = None, *, trials: int = 100_000, seed: int = 0,
         tolerances=None, only=None, removed: dict | None = None) -> Snapshot:
    """Measure every catalogue metric (or those matching ``only``) for ``rules``, Monte Carlo
    ones with ``trials`` trials from master ``seed``. A metric ``rules`` cannot measure (a
    table row they lack, values that rule it out) raises
    :class:`~balance.regression.rows.Unmeasurable`, or, given a dict ``removed``, is left out
    of the snapshot and its error recorded there (:func:`.registry.measure`)."""
    from .. import __version__
    from ..core import injuries
    rules = resolve(rules)
    trials = check_integer("trials", trials, min=1, max=10**10)
    seed = check_integer("seed", seed, min=0)
    only = None if only is None else tuple([only] if isinstance(only, str) else only)
    metrics = tuple(catalogue(tolerances=tolerances, only=only))
    seconds = np.arange(0, rules["injuries"]["automatic_death_seconds"] + 1)
    curves = {"death_probability": {
        "negative_hp": CURVE_HP, "seconds": seconds.tolist(),
        "wounds": {str(w): injuries.death_probability(seconds, CURVE_HP, w, rules=rules).tolist()
                   for w in CURVE_WOUNDS}}}
    measurements = measure(rules, metrics=metrics, trials=trials, seed=seed, removed=removed)
    metrics = tuple(m for m in metrics if m.name in measurements)
    return Snapshot(metrics=metrics, measurements=measurements,
                    fingerprint=rules.fingerprint, sources=tuple(rules.sources), trials=trials,
                    seed=seed, version=__version__, curves=curves,
                    created=datetime.now(timezone.utc).isoformat(timespec="seconds"), only=only)


def check_target(path: str | os.PathLike, *, force: bool = False,
                 what: str | None = None) -> Path:
    """Refuse, before any work, a snapshot ``path`` that cannot be written: a folder, a
    missing folder, a FIFO or device (even with ``force``), an existing file without
    ``force``. ``what`` names the argument in the message (the command line's ``--out``)."""
    path = Path(path)
    shown = f"{what} {path}" if what else str(path)
    if path.is_dir():
        raise SnapshotError(f"{shown}: is a directory; give a file name such as baseline.json")
    if not path.parent.exists():
        raise SnapshotError(f"{shown}: directory {path.parent} does not exist")
    try:
        check_output_file(what, path)  # a FIFO or device is never replaced, even with force
    except ValueError as exc:
        raise SnapshotError(str(exc)) from None
    if os.path.lexists(path) and not force:
        flag = "--force" if what else "--force (force=True)"
        raise SnapshotError(f"{shown}: already exists; use {flag} to overwrite it")
    return path


def write(snapshot: Snapshot, path: str | os.PathLike, *, force: bool = False) -> Path:
    """Write ``snapshot`` to ``path`` atomically; refuse to replace a file unless ``force``
    (:func:`check_target`)."""
    path = check_target(path, force=force)
    text = json.dumps(snapshot.to_json(), indent=1, ensure_ascii=False, allow_nan=False)
    try:
        write_file(path, text + "\n", replace=force)
    except FileExistsError:
        raise SnapshotError(f"{path}: already exists; use --force to overwrite it") from None
    return path


def read(path: str | os.PathLike) -> Snapshot:
    """Read and validate a snapshot file; any problem is a one-line :class:`SnapshotError`
    naming the file, the metric and the field (see :mod:`balance.regression.validate`)."""
    return from_json(load(path), str(path))


def from_json(doc: object, where: str = "snapshot") -> Snapshot:
    """Validate a parsed snapshot document (see :func:`read`) and build the snapshot."""
    check_document(doc, where, {m.name: m for m in catalogue()})
    assert isinstance(doc, dict)  # check_document refused anything else
    metrics, measurements = [], {}
    for name, entry in doc["metrics"].items():
        metric, value = _entry(name, entry)
        metrics.append(metric)
        measurements[name] = value
    rules = doc["rules"]
    snap = Snapshot(metrics=tuple(metrics), measurements=measurements,
                    fingerprint=rules["fingerprint"], sources=tuple(rules["sources"]),
                    trials=doc["trials"], seed=doc["seed"], version=doc["balance_version"],
                    curves=dict(doc.get("curves", {})), created=str(doc.get("created", "")),
                    path=where, only=None if doc.get("only") is None else tuple(doc["only"]))
    if doc.get("catalogue_id") != snap.catalogue_id:
        raise SnapshotError(f"{where}: malformed snapshot (catalogue_id does not match its "
                            "metrics: the file was edited or damaged)")
    return snap


def _read_back(*args: object, **kwargs: object) -> Measurement:
    """The ``compute`` of a metric read from a file: it has its value, not its code."""
    raise ValueError("a metric read from a snapshot has no computation; measure the catalogue's")


def _entry(name: str, e: dict) -> tuple[Metric, Measurement]:
    """A checked entry (:func:`~balance.regression.validate.check_document`) as objects."""
    metric = Metric(name, e["description"], e["unit"], e["kind"], e["shape"], compute=_read_back,
                    tolerance=float(e["tolerance"]), section=e.get("section", ""))
    value = e["value"]
    value = tuple(map(number, value)) if isinstance(value, list) else number(value)
    labels, counts, interval, sums = (e.get(k) for k in ("labels", "counts", "interval", "sums"))
    return metric, Measurement(
        value=value, labels=tuple(labels) if labels is not None else None,
        interval=_pair(interval), trials=e.get("trials"), seed=e.get("seed"),
        counts=tuple(counts) if counts is not None else None, sums=_pair(sums))


def _pair(values: list | None) -> tuple[float, float] | None:
    """A checked two-number list (an interval, a sum and sum of squares) as a tuple."""
    if values is None:
        return None
    low, high = map(number, values)
    return low, high
