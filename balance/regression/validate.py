"""Reading a snapshot file as strictly as a rules file (issue 11: "baselines are validated").

Before parsing: at most :data:`MAX_BYTES` bytes, UTF-8, brackets nested at most
:data:`MAX_DEPTH` deep; while parsing: no duplicate keys, no integer literal longer than
:data:`MAX_DIGITS` digits. Then every field's type and range (:func:`check_document`):

* file: ``schema``, ``schema_version`` (an integer), ``trials`` (a JSON integer in
  1..10**10), ``seed`` (a JSON integer in 0..2**128), strings, ``only``, ``catalogue_id``,
  and an optional ``sha256`` of the rest of the content (:func:`digest`), which catches edits;
* each metric: a name of this balance's catalogue, with its kind, shape and unit; a finite
  tolerance >= 0; finite values (``"inf"`` only for an exact non-probability scalar, such as
  the days to cure an injury that can never be cured); probabilities in [0, 1];
  distributions with unique string labels summing to 1; Monte Carlo metrics with the trials
  the catalogue runs for the file's trials, counts that are integers >= 0 (a proportion's at
  most its trials, a distribution's summing to its trials), values equal to the counts'
  shares (or the mean ``sum / trials``), sums of a mean with a variance >= 0, an interval
  holding the value;
* ``curves``: the death-probability curves the diff report draws (probabilities, one per
  second, whole seconds increasing).

Any violation is a one-line :class:`SnapshotError` naming the file, the metric and the field.
"""
from __future__ import annotations

import fnmatch
import hashlib
import json
import math
import os
import re
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from ..errors import shown
from .metrics import Metric

__all__ = ["SnapshotError", "MAX_BYTES", "MAX_DEPTH", "MAX_DIGITS", "load", "digest",
           "check_document"]

#: What a snapshot file says it is, and the version of its format this balance reads.
#: Version 2: a metric naming a table row measures the row of that name (version 1 measured
#: the row at its bundled position). A version-1 file of the bundled rules holds the same
#: numbers and is read as version 2; one of other rules may hold another row's numbers and
#: is refused (:func:`check_document`).
SCHEMA = "balance.regression.snapshot"
SCHEMA_VERSION = 2
MAX_BYTES = 32 * 2**20
MAX_DEPTH = 32
MAX_DIGITS = 40
MAX_TRIALS = 10**10
MAX_SEED = 2**128
MAX_TEXT = 1000
_EPS = 1e-9
_FILE_KEYS = {"schema", "schema_version", "balance_version", "created", "rules", "trials",
              "seed", "catalogue_id", "only", "metrics", "curves", "sha256"}
_ENTRY_KEYS = {"description", "unit", "kind", "shape", "tolerance", "section", "value",
               "labels", "interval", "trials", "seed", "counts", "sums"}
#: fields each (kind, shape) has besides description, unit, kind, shape, tolerance, value
_NEEDS = {("exact", "scalar"): set(), ("exact", "proportion"): set(),
          ("exact", "distribution"): {"labels"},
          ("mc", "proportion"): {"trials", "seed", "counts", "interval"},
          ("mc", "distribution"): {"labels", "trials", "seed", "counts"},
          ("mc", "mean"): {"trials", "seed", "sums", "interval"}}
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


class SnapshotError(ValueError):
    """A snapshot file is missing, corrupted, of another schema, or of another catalogue."""


class _Huge:
    """An integer literal too long to convert: kept as a marker so the field check names it."""

    def __init__(self, digits: int) -> None:
        self.digits = digits

    def __repr__(self) -> str:
        return f"a {self.digits}-digit number"


class _Literal:
    """``NaN``, ``Infinity`` or ``-Infinity`` in the file: not JSON (the writer spells
    non-finite numbers as the strings ``"inf"`` and ``"-inf"``), kept so the field check
    names it."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


# ---------------------------------------------------------------------------- reading


def load(path: str | os.PathLike) -> dict:
    """The parsed JSON of a snapshot file, within the size and depth limits."""
    path = Path(path)
    if not path.is_file():
        what = "a folder, not a snapshot file (balance snapshot --out FILE.json writes one)" \
            if path.is_dir() else "no such snapshot file"
        raise SnapshotError(f"{path}: {what}")
    size = path.stat().st_size
    if size > MAX_BYTES:
        raise SnapshotError(f"{path}: larger than the {MAX_BYTES // 2**20} MiB a snapshot may "
                            f"have ({size:,} bytes)")
    with open(path, "rb") as handle:
        data = handle.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise SnapshotError(f"{path}: larger than the {MAX_BYTES // 2**20} MiB a snapshot may "
                            "have")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise SnapshotError(f"{path}: not a snapshot (not UTF-8 text)") from None
    if _depth(text) > MAX_DEPTH:
        raise SnapshotError(f"{path}: not a snapshot (brackets nested deeper than {MAX_DEPTH} "
                            "levels)")
    try:
        return json.loads(text, object_pairs_hook=_unique_keys, parse_int=_integer,
                          parse_constant=_Literal)
    except json.JSONDecodeError as exc:
        raise SnapshotError(f"{path}: corrupted or truncated snapshot (invalid JSON at line "
                            f"{exc.lineno}, column {exc.colno}: {exc.msg})") from None
    except SnapshotError as exc:
        raise SnapshotError(f"{path}: {exc}") from None


def _depth(text: str) -> int:
    """The deepest nesting of brackets outside strings (a truncated file counts its prefix)."""
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text)).encode("ascii")
    codes = np.frombuffer(brackets, dtype=np.uint8)
    deepest, level, step = 0, 0, 1 << 20
    for start in range(0, codes.size, step):
        chunk = codes[start:start + step]
        path = level + np.cumsum(np.where((chunk == 91) | (chunk == 123), 1, -1),
                                 dtype=np.int64)
        deepest, level = max(deepest, int(path.max())), int(path[-1])
    return deepest


def _unique_keys(pairs: list[tuple[str, object]]) -> dict:
    out: dict = {}
    for key, value in pairs:
        if key in out:
            raise SnapshotError(f"malformed snapshot (key {shown(key)} appears twice in one "
                                "table)")
        out[key] = value
    return out


def _integer(text: str) -> int | _Huge:
    digits = len(text.lstrip("-"))
    return _Huge(digits) if digits > MAX_DIGITS else int(text)


def digest(doc: Mapping) -> str:
    """SHA-256 of a snapshot's content without its ``sha256`` field (canonical JSON)."""
    body = {k: v for k, v in doc.items() if k != "sha256"}
    text = json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":"),
                      allow_nan=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# ---------------------------------------------------------------------------- fields


def _fail(where: str, field: str, text: str) -> SnapshotError:
    return SnapshotError(f"{where}: {field} {text}")


def _int(where: str, field: str, value: object, low: int, high: int) -> int:
    if type(value) is not int or not low <= value <= high:
        raise _fail(where, field, f"must be a whole number between {low} and {high} (a JSON "
                                  f"integer), got {shown(value)}")
    return value


def _str(where: str, field: str, value: object, longest: int = MAX_TEXT) -> str:
    """Printable text of at most ``longest`` characters (it reaches terminals and reports)."""
    if not isinstance(value, str) or len(value) > longest or not value.isprintable():
        raise _fail(where, field, f"must be printable text of at most {longest} characters, "
                                  f"got {shown(value)}")
    return value


def _finite(where: str, field: str, value: object, *, probability: bool = False,
            infinite: bool = False) -> float:
    """A JSON number (``"inf"``/``"-inf"`` too when ``infinite``), finite unless
    ``infinite``, in [0, 1] when a ``probability``."""
    if infinite and value in ("inf", "-inf"):
        value = float(str(value))
    if type(value) in (int, float) and isinstance(value, (int, float)) and (
            math.isfinite(value) or (infinite and math.isinf(value))) and (
            not probability or 0 <= value <= 1):
        return float(value)
    noun = "a probability in [0, 1]" if probability else (
        "a number (or \"inf\")" if infinite else "a finite number")
    raise _fail(where, field, f"must be {noun}, got {shown(value)}")


def _list(where: str, field: str, value: object, length: int | None = None) -> list:
    if not isinstance(value, list) or (length is not None and len(value) != length) \
            or not value:
        need = f"a list of {length}" if length is not None else "a non-empty list"
        raise _fail(where, field, f"must be {need}, got {shown(value)}")
    return value


def _seed(where: str, value: object) -> None:
    """A Monte Carlo provenance seed: an integer or ``[entropy, [spawn key...]]``."""
    def whole(v: object) -> bool:
        return type(v) is int and 0 <= v <= MAX_SEED
    ok = whole(value) or (isinstance(value, list) and len(value) == 2 and whole(value[0])
                          and isinstance(value[1], list) and all(map(whole, value[1])))
    if not ok:
        raise _fail(where, "seed", f"must be a seed (an integer >= 0 or [entropy, [spawn "
                                   f"key]]), got {shown(value)}")


def check_document(doc: object, where: str, known: Mapping[str, Metric]) -> None:
    """Check every field of a parsed snapshot (``known``: this balance's catalogue by name)."""
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        raise SnapshotError(f"{where}: not a balance regression snapshot (no \"schema\": "
                            f"\"{SCHEMA}\")")
    version = doc.get("schema_version")
    if version == 1 and type(version) is int:
        _version_one(doc, where)
    elif type(version) is not int or version != SCHEMA_VERSION:
        raise SnapshotError(f"{where}: snapshot schema version {shown(version)}, but this "
                            f"balance reads version {SCHEMA_VERSION}; re-create it with "
                            "`balance snapshot --force`")
    for key in doc:
        if key not in _FILE_KEYS:
            raise _fail(where, f"field {shown(key)}", "is not a snapshot field")
    for key in ("rules", "trials", "seed", "metrics", "balance_version"):
        if key not in doc:
            raise SnapshotError(f"{where}: malformed snapshot (missing field {key!r})")
    trials = _int(where, "trials", doc["trials"], 1, MAX_TRIALS)
    _int(where, "seed", doc["seed"], 0, MAX_SEED)
    for key in ("balance_version", "created", "catalogue_id"):
        if key in doc:
            _str(where, key, doc[key])
    rules = doc["rules"]
    if not isinstance(rules, dict) or set(rules) != {"fingerprint", "sources"}:
        raise _fail(where, "rules", f"must be a table of fingerprint and sources, got "
                                    f"{shown(rules)}")
    _str(where, "rules.fingerprint", rules["fingerprint"])
    if not isinstance(rules["sources"], list):
        raise _fail(where, "rules.sources", f"must be a list of text, got "
                                            f"{shown(rules['sources'])}")
    for source in rules["sources"]:
        _str(where, "rules.sources", source)
    metrics = doc["metrics"]
    if not isinstance(metrics, dict) or not metrics:
        raise _fail(where, "metrics", f"must be a non-empty table, got {shown(metrics)}")
    only = doc.get("only")
    if only is not None:
        if not isinstance(only, list) or not only:
            raise _fail(where, "only", f"must be null or a list of metric patterns, got "
                                       f"{shown(only)}")
        for pattern in only:
            _str(where, "only", pattern)
            if not any(fnmatch.fnmatchcase(n, pattern) for n in metrics):
                raise _fail(where, "only", f"pattern {shown(pattern)} matches none of the "
                                           "file's metrics")
    for name, entry in metrics.items():
        _entry(f"{where}: metric {shown(name)}", name, entry, known, trials)
    _curves(where, doc.get("curves", {}))
    if "sha256" in doc and doc["sha256"] != digest(doc):
        raise SnapshotError(f"{where}: content does not match its sha256 (the file was edited "
                            "or damaged); re-create it with `balance snapshot --force`")


def _version_one(doc: dict, where: str) -> None:
    """Accept a version-1 snapshot only of the bundled rules (its rows' positions are their
    names' there, so it holds what version 2 measures); refuse any other in one line."""
    from ..rules import default_rules

    rules = doc.get("rules")
    fingerprint = rules.get("fingerprint") if isinstance(rules, dict) else None
    if fingerprint != default_rules().fingerprint:
        raise SnapshotError(f"{where}: snapshot schema version 1 measured table rows by "
                            f"position, and its rules ({shown(fingerprint)}) are not the "
                            "bundled rules, so a metric may hold another row's number; "
                            "re-create it with `balance snapshot --force`")


def _entry(where: str, name: str, e: object, known: Mapping[str, Metric], trials: int) -> None:
    if not isinstance(e, dict):
        raise SnapshotError(f"{where}: must be a table of fields, got {shown(e)}")
    m = known.get(name)
    if m is None:
        raise SnapshotError(f"{where}: not a metric of this balance's catalogue (a baseline "
                            "of another version?); re-create it with `balance snapshot --force`")
    for key in ("kind", "shape", "unit"):
        if key not in e:
            raise _fail(where, key, "is missing")
        if e[key] != getattr(m, key):
            raise _fail(where, key, f"must be {getattr(m, key)!r} as in the catalogue, got "
                                    f"{shown(e[key])}")
    kind, shape = m.kind, m.shape
    needs = _NEEDS[(kind, shape)]
    for key in e:
        if key not in _ENTRY_KEYS:
            raise _fail(where, f"field {shown(key)}", "is not a metric field")
        if key in ("labels", "interval", "trials", "seed", "counts", "sums") \
                and key not in needs:
            raise _fail(where, key, f"is not a field of a{'n' if kind == 'exact' else ''} "
                                    f"{kind} {shape} metric")
    for key in needs | {"value", "description", "tolerance"}:
        if key not in e:
            raise _fail(where, key, "is missing")
    _str(where, "description", e["description"])
    if "section" in e:
        _str(where, "section", e["section"])
    _finite(where, "tolerance", e["tolerance"])
    if e["tolerance"] < 0:
        raise _fail(where, "tolerance", f"must be >= 0, got {shown(e['tolerance'])}")
    probability = m.unit == "probability" or shape in ("proportion", "distribution")
    if shape == "distribution":
        labels = _list(where, "labels", e["labels"])
        for label in labels:
            _str(where, "labels", label, 200)
        if len(set(labels)) != len(labels):
            raise _fail(where, "labels", f"must be distinct, got {shown(labels)}")
        values = [_finite(where, "value", v, probability=True)
                  for v in _list(where, "value", e["value"], len(labels))]
        if abs(math.fsum(values) - 1) > 1e-6:
            raise _fail(where, "value", f"must sum to 1 (a distribution), got "
                                        f"{math.fsum(values):.6g}")
    else:
        values = [_finite(where, "value", e["value"], probability=probability,
                          infinite=kind == "exact" and not probability)]
    if kind == "mc":
        _mc(where, m, e, values, trials)


def _mc(where: str, m: Metric, e: dict, values: list[float], trials: int) -> None:
    n = m.trials_for(trials)
    if type(e["trials"]) is not int or e["trials"] != n:
        raise _fail(where, "trials", f"must be {n} (this metric's share of the file's {trials} "
                                     f"trials), got {shown(e['trials'])}")
    _seed(where, e["seed"])
    if m.shape == "mean":
        s, q = (_finite(where, "sums", v) for v in _list(where, "sums", e["sums"], 2))
        if q < 0 or q - s * s / n < -_EPS * max(q, 1.0):
            raise _fail(where, "sums", f"[sum, sum of squares] = [{s:g}, {q:g}] over {n} trials "
                                       "imply a negative variance")
        shares = [s / n]
    else:
        counts = _list(where, "counts", e["counts"], len(values))
        if not all(type(c) is int and 0 <= c <= n for c in counts):
            raise _fail(where, "counts", f"must be whole numbers between 0 and the {n} trials, "
                                         f"got {shown(counts)}")
        if m.shape == "distribution" and sum(counts) != n:
            raise _fail(where, "counts", f"must add up to the {n} trials (each trial falls in "
                                         f"one category), got {sum(counts)}")
        shares = [c / n for c in counts]
    for value, share in zip(values, shares):
        if not math.isclose(value, share, rel_tol=_EPS, abs_tol=1e-12):
            raise _fail(where, "value", f"must be {share!r} (what its counts or sums give), "
                                        f"got {value!r}")
    if "interval" in e:
        low, high = (_finite(where, "interval", v, probability=m.shape == "proportion")
                     for v in _list(where, "interval", e["interval"], 2))
        slack = _EPS * max(1.0, abs(values[0]))
        if not low - slack <= values[0] <= high + slack:
            raise _fail(where, "interval", f"[{low:g}, {high:g}] must hold the value "
                                           f"{values[0]:g}")


def _curves(where: str, curves: object) -> None:
    """``{}`` or ``{"death_probability": {negative_hp, seconds, wounds}}``."""
    at = f"{where}: curves"
    if not isinstance(curves, dict) or not set(curves) <= {"death_probability"}:
        raise SnapshotError(f"{at}: must be a table holding death_probability, got "
                            f"{shown(curves)}")
    if not curves:
        return
    c = curves["death_probability"]
    if not isinstance(c, dict) or set(c) != {"negative_hp", "seconds", "wounds"}:
        raise SnapshotError(f"{at}: death_probability must be a table of negative_hp, seconds "
                            f"and wounds, got {shown(c)}")
    _int(at, "death_probability.negative_hp", c["negative_hp"], 1, MAX_TRIALS)
    seconds = _list(at, "death_probability.seconds", c["seconds"])
    if not all(type(s) is int and s >= 0 for s in seconds) \
            or any(b <= a for a, b in zip(seconds, seconds[1:])):
        raise SnapshotError(f"{at}: death_probability.seconds must be increasing whole "
                            f"numbers >= 0, got {shown(seconds)}")
    wounds = c["wounds"]
    if not isinstance(wounds, dict) or not wounds:
        raise SnapshotError(f"{at}: death_probability.wounds must be a non-empty table, got "
                            f"{shown(wounds)}")
    for w, p in wounds.items():
        field = f"death_probability.wounds[{shown(w)}]"
        if not (w.isdigit() and w.isascii() and len(w) <= 3):
            raise SnapshotError(f"{at}: {field}: the key must be a number of wounds")
        for v in _list(at, field, p, len(seconds)):
            _finite(at, field, v, probability=True)
