"""Snapshots: every metric of a rule set, frozen in a JSON file to compare against later.

A snapshot records, per metric, its definition (unit, kind, shape, tolerance) and measurement
(value, interval, trials, seed, counts), plus the rules fingerprint, the package version, the
catalogue id and a schema version. Files are written atomically (a temporary file in the same
directory, then ``os.replace``) and never overwrite an existing file unless asked.
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
from .metrics import KINDS, SHAPES, Measurement, Metric, number

__all__ = ["Snapshot", "SnapshotError", "take", "read", "write", "SCHEMA", "SCHEMA_VERSION"]

SCHEMA = "balance.regression.snapshot"
SCHEMA_VERSION = 1
#: the death-probability curves stored for diff reports: P(death) against seconds at -5 HP
CURVE_HP = 5
CURVE_WOUNDS = (0, 1, 2, 3)


class SnapshotError(ValueError):
    """A snapshot file is missing, corrupted, of another schema, or of another catalogue."""


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
        from .. import __version__
        return {
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


def take(rules: Rules | str | None = None, *, trials: int = 100_000, seed: int = 0,
         tolerances=None, only=None) -> Snapshot:
    """Measure every catalogue metric (or those matching ``only``) for ``rules``, Monte Carlo
    ones with ``trials`` trials from master ``seed``."""
    from .. import __version__, injuries
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
    return Snapshot(metrics=metrics,
                    measurements=measure(rules, metrics=metrics, trials=trials, seed=seed),
                    fingerprint=rules.fingerprint, sources=tuple(rules.sources), trials=trials,
                    seed=seed, version=__version__, curves=curves,
                    created=datetime.now(timezone.utc).isoformat(timespec="seconds"), only=only)


def write(snapshot: Snapshot, path: str | os.PathLike, *, force: bool = False) -> Path:
    """Write ``snapshot`` to ``path`` atomically; refuse to replace a file unless ``force``."""
    path = Path(path)
    if path.is_dir():
        raise SnapshotError(f"{path}: is a directory; give a file name such as baseline.json")
    if not path.parent.exists():
        raise SnapshotError(f"{path}: directory {path.parent} does not exist")
    try:
        check_output_file(None, path)  # a FIFO or device is never replaced, even with force
    except ValueError as exc:
        raise SnapshotError(str(exc)) from None
    if path.exists() and not force:
        raise SnapshotError(f"{path}: already exists; use --force (force=True) to overwrite it")
    text = json.dumps(snapshot.to_json(), indent=1, ensure_ascii=False, allow_nan=False)
    try:
        write_file(path, text + "\n", replace=force)
    except FileExistsError:
        raise SnapshotError(f"{path}: already exists; use --force to overwrite it") from None
    return path


def read(path: str | os.PathLike) -> Snapshot:
    """Read and validate a snapshot file; any problem is a one-line :class:`SnapshotError`."""
    path = Path(path)
    if not path.is_file():
        raise SnapshotError(f"{path}: no such snapshot file")
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise SnapshotError(f"{path}: not a snapshot (not UTF-8 text)") from None
    except json.JSONDecodeError as exc:
        raise SnapshotError(f"{path}: corrupted or truncated snapshot (invalid JSON at line "
                            f"{exc.lineno}, column {exc.colno}: {exc.msg})") from None
    return from_json(doc, str(path))


def from_json(doc: object, where: str = "snapshot") -> Snapshot:
    """Validate a parsed snapshot document (see :func:`read`)."""
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        raise SnapshotError(f"{where}: not a balance regression snapshot (no \"schema\": "
                            f"\"{SCHEMA}\")")
    version = doc.get("schema_version")
    if version != SCHEMA_VERSION:
        raise SnapshotError(f"{where}: snapshot schema version {version!r}, but this balance "
                            f"reads version {SCHEMA_VERSION}; re-create it with "
                            "`balance snapshot --force`")
    try:
        rules = doc["rules"]
        metrics, measurements = [], {}
        for name, entry in doc["metrics"].items():
            try:
                metric, value = _entry(name, entry)
            except SnapshotError as exc:
                raise SnapshotError(f"{where}: {exc}") from None
            metrics.append(metric)
            measurements[name] = value
        snap = Snapshot(metrics=tuple(metrics), measurements=measurements,
                        fingerprint=str(rules["fingerprint"]),
                        sources=tuple(map(str, rules["sources"])),
                        trials=int(doc["trials"]), seed=int(doc["seed"]),
                        version=str(doc["balance_version"]), curves=dict(doc.get("curves", {})),
                        created=str(doc.get("created", "")), path=where,
                        only=None if doc.get("only") is None else tuple(map(str, doc["only"])))
    except SnapshotError:
        raise
    except KeyError as exc:
        raise SnapshotError(f"{where}: malformed snapshot (missing field {exc})") from None
    except (TypeError, ValueError, AttributeError) as exc:
        raise SnapshotError(f"{where}: malformed snapshot ({type(exc).__name__}: {exc})") \
            from None
    if doc.get("catalogue_id") != snap.catalogue_id:
        raise SnapshotError(f"{where}: malformed snapshot (catalogue_id does not match its "
                            "metrics: the file was edited or damaged)")
    return snap


def _entry(name: str, e: dict) -> tuple[Metric, Measurement]:
    kind, shape = e["kind"], e["shape"]
    if kind not in KINDS or shape not in SHAPES:
        raise SnapshotError(f"metric {name}: unknown kind/shape {kind!r}/{shape!r}")
    metric = Metric(name, str(e["description"]), str(e["unit"]), kind, shape, compute=None,
                    tolerance=float(e["tolerance"]), section=str(e.get("section", "")))
    value = e["value"]
    labels = e.get("labels")
    try:
        if shape == "distribution":
            if not isinstance(value, list) or not isinstance(labels, list) \
                    or len(value) != len(labels):
                raise SnapshotError(f"metric {name}: a distribution needs equal-length value "
                                    "and labels lists")
            value = tuple(number(v) for v in value)
        else:
            value = number(value)
    except ValueError as exc:
        raise SnapshotError(f"metric {name}: value: {exc}") from None
    counts = e.get("counts")
    trials = e.get("trials")
    if kind == "mc":
        if not isinstance(trials, int) or trials < 1:
            raise SnapshotError(f"metric {name}: a Monte Carlo metric needs trials >= 1")
        need = len(value) if shape == "distribution" else 1
        if shape != "mean" and (not isinstance(counts, list) or len(counts) != need
                                or not all(isinstance(c, int) and c >= 0 for c in counts)):
            raise SnapshotError(f"metric {name}: counts must be {need} whole number(s) >= 0")
        if shape == "proportion" and counts[0] > trials:
            raise SnapshotError(f"metric {name}: {counts[0]} successes out of {trials} trials")
        if shape == "mean" and not (isinstance(e.get("sums"), list) and len(e["sums"]) == 2):
            raise SnapshotError(f"metric {name}: a Monte Carlo mean needs sums [sum, sum of "
                                "squares]")
    interval = e.get("interval")
    return metric, Measurement(
        value=value, labels=tuple(map(str, labels)) if labels is not None else None,
        interval=tuple(map(number, interval)) if interval is not None else None,
        trials=trials, seed=e.get("seed"),
        counts=tuple(counts) if counts is not None else None,
        sums=tuple(map(number, e["sums"])) if e.get("sums") is not None else None)
