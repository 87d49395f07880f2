"""Loading and overlaying rules files into frozen :class:`Rules` objects."""
from __future__ import annotations

import copy
import hashlib
import json
import os
import tomllib
from collections.abc import Mapping
from functools import lru_cache
from importlib import resources
from pathlib import Path
from types import MappingProxyType
from typing import Any

from ..budgets import check_depth, check_nesting, check_size
from ..errors import RulesError, did_you_mean
from .validate import check_effective, check_list_items, check_overlay, normalise_integers

__all__ = ["Rules", "load_rules", "default_rules", "resolve", "bundled_variants", "plain"]

#: bundled documents, in the order they are merged
DOCUMENTS = ("core", "gm_guide", "percentile")


def _freeze(value: Any) -> Any:
    if isinstance(value, dict):
        return MappingProxyType({k: _freeze(v) for k, v in value.items()})
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    return value


def _read_toml(text: str, source: str, *, bundled: bool = False) -> dict:
    if not bundled:  # our own files are flat (checked by tests/test_startup.py): a fast start
        check_depth(text, source)  # before parsing: a deep nest makes tomllib recurse
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RulesError(f"{source}: not valid TOML: {exc}") from None
    except RecursionError:  # pragma: no cover - check_depth refuses these first
        raise RulesError(f"{source}: nested too deep") from None
    check_nesting(raw, source)
    return raw


def _read_text(path, source: str) -> str:
    """The text of a rules file (a Path or a package resource): at most
    ``budgets.MAX_RULES_BYTES`` bytes of UTF-8, else a RulesError naming the file."""
    if isinstance(path, Path):
        check_size(source, path.stat().st_size)
    data = path.read_bytes()
    check_size(source, len(data))
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RulesError(f"{source}: not UTF-8 text (byte 0x{data[exc.start]:02x} at position "
                         f"{exc.start}); save it as UTF-8") from None


def merged(base: Mapping, overlay: Mapping) -> dict:
    """``base`` with ``overlay`` merged in, recursively: a nested table is merged key by key,
    anything else (a value, a list, a table of rows) replaced whole; neither input is changed.

    The one merge of rules overlays (``--set`` values, a fit's knobs, an explorer's edits).

    Examples
    --------
    >>> merged({"injuries": {"die": 100, "death_threshold": 176}}, {"injuries": {"die": 90}})
    {'injuries': {'die': 90, 'death_threshold': 176}}
    """
    out = copy.deepcopy(dict(base))
    for key, value in overlay.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = merged(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def _merge(base: dict, overlay: dict, origin: dict, source: str, path: str = "") -> None:
    for key, value in overlay.items():
        where = f"{path}.{key}" if path else key
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            _merge(base[key], value, origin, source, where)
        else:
            base[key] = copy.deepcopy(value)
            origin[where] = source


@lru_cache(maxsize=1)
def _bundled() -> tuple[dict, dict, dict, dict]:
    """The bundled defaults: (data, limits, assumed notes, origin of each path)."""
    data: dict = {}
    limits: dict = {}
    assumed: dict = {}
    origin: dict = {}
    pkg = resources.files("balance.rules") / "data"
    for doc in DOCUMENTS:
        name = f"{doc}.toml"
        raw = _read_toml((pkg / name).read_text(encoding="utf-8"), name, bundled=True)
        limits.update(raw.pop("limits", {}))
        assumed.update(raw.pop("assumed", {}))
        for section in raw:
            if section in data:
                raise RulesError(f"{name}: section [{section}] is defined twice")
            origin[section] = name
        data.update(raw)
    return data, limits, assumed, origin


class Rules(Mapping):
    """A frozen, validated set of rules: the bundled defaults plus what variants named.

    Read it like a nested dict (``rules["injuries"]["death_threshold"]``) or with a
    dotted path (``rules.get("injuries.death_threshold")``).
    """

    __slots__ = ("_data", "_frozen", "_origin", "_assumed", "_sources", "_fingerprint", "_memo")

    def __init__(self, data: dict, origin: dict, assumed: dict, sources: tuple[str, ...]):
        self._data = data
        self._frozen = _freeze(data)
        self._origin = origin
        self._assumed = assumed
        self._sources = sources
        canon = json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        self._fingerprint = hashlib.sha256(canon.encode()).hexdigest()[:12]
        self._memo: dict = {}

    # -- Mapping interface -------------------------------------------------------------
    def __getitem__(self, section: str):
        try:
            return self._frozen[section]
        except KeyError:
            raise KeyError(f"no rules section '{section}'{did_you_mean(section, self._frozen)}") \
                from None

    def __iter__(self):
        return iter(self._frozen)

    def __len__(self) -> int:
        return len(self._frozen)

    def __repr__(self) -> str:
        return f"<Rules {self._fingerprint} from {' + '.join(self._sources)}>"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Rules) and other._fingerprint == self._fingerprint

    def __hash__(self) -> int:
        return hash(self._fingerprint)

    def __reduce__(self):  # pickled (for worker processes) as its content
        return (Rules, (self._data, self._origin, self._assumed, self._sources))

    # -- queries -------------------------------------------------------------------------
    def get(self, path: str, default: Any = KeyError):
        """The value at a dotted ``path``, e.g. ``"injuries.death_threshold"``."""
        node: Any = self._frozen
        for part in path.split("."):
            if not isinstance(node, Mapping) or part not in node:
                if default is KeyError:
                    choices = list(node) if isinstance(node, Mapping) else []
                    raise KeyError(f"no rule '{path}'{did_you_mean(part, choices)}")
                return default
            node = node[part]
        return node

    @property
    def fingerprint(self) -> str:
        """A short stable hash of the effective rules (key order does not matter)."""
        return self._fingerprint

    @property
    def sources(self) -> tuple[str, ...]:
        """The files (or ``"<updated>"``) these rules were built from, in order."""
        return self._sources

    def source_of(self, path: str) -> str:
        """The file that set the value at ``path`` (the closest enclosing path that was set)."""
        while path:
            if path in self._origin:
                return self._origin[path]
            path = path.rpartition(".")[0]
        return self._sources[0]

    @property
    def assumptions(self):
        """The values in effect that our reading of the rule documents marks **(assumed)**
        (docs: readings): DataFrame key, value, note."""
        import pandas as pd

        rows = [(key, plain(self.get(key, None)), note) for key, note in self._assumed.items()]
        return pd.DataFrame(rows, columns=["key", "value", "note"])

    def assumed_under(self, *prefixes: str) -> list[str]:
        """Dotted keys of assumed values within the given sections (for report footnotes)."""
        return [k for k in self._assumed
                if any(k == p or k.startswith(p + ".") for p in prefixes)]

    def to_dict(self) -> dict:
        """A plain, mutable deep copy of the effective rules."""
        return copy.deepcopy(self._data)

    def table(self, key: str):
        """The table (list of rows) at ``key`` as a DataFrame (:mod:`balance.rules.tables`).

        >>> import balance as bl
        >>> bl.load_rules().table("injuries.table").loc[0, "en"]
        'Dazed'
        """
        from .tables import table

        return table(self, key)

    def with_table(self, key: str, frame, *, source: str | None = None) -> "Rules":
        """A new, validated :class:`Rules` with the table at ``key`` replaced by ``frame``'s
        rows (RulesError naming the table and row otherwise; :mod:`balance.rules.tables`)."""
        from .tables import with_table

        return with_table(self, key, frame, source=source)

    def memo(self, key: str, factory):
        """Cache a value derived from these (immutable) rules, e.g. a lookup array."""
        try:
            return self._memo[key]
        except KeyError:
            value = self._memo[key] = factory(self)
            return value

    # -- variants ------------------------------------------------------------------------
    def updated(self, overrides: Mapping, *, source: str = "<updated>") -> "Rules":
        """A new :class:`Rules` with only what ``overrides`` (a nested dict) names changed.

        >>> import balance as bl
        >>> bl.load_rules().updated({"injuries": {"death_threshold": 180}})["injuries"]["death_threshold"]
        180
        """
        if not isinstance(overrides, Mapping):
            raise RulesError(f"{source}: overrides must be a nested dict, got {overrides!r}")
        check_nesting(overrides, source)  # before _thaw recurses into it
        return _apply(self, _thaw(overrides), source)

    def save(self, path: str | os.PathLike, *, overwrite: bool = False) -> Path:
        """Write a variant file holding only what these rules change against the bundled ones
        (atomically; an existing file only with ``overwrite=True``). ``load_rules(path)`` gives
        these rules back. See :mod:`balance.rules.variant_file`."""
        from .variant_file import save_variant, variant_text

        text = variant_text(self._data, _bundled()[0],
                            header=f"balance variant, rules {self._fingerprint} "
                                   f"from {' + '.join(self._sources)}")
        return save_variant(path, text, overwrite=overwrite)


def plain(value: Any) -> Any:
    """A frozen rules value as plain Python: mappings to dicts, tuples to lists."""
    if isinstance(value, Mapping):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [plain(v) for v in value]
    return value


def _thaw(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _thaw(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_thaw(v) for v in value]
    if hasattr(value, "item") and callable(value.item):  # numpy scalars
        return value.item()
    return value


def _apply(base: Rules, overlay: dict, source: str) -> Rules:
    defaults, limits, _, _ = _bundled()
    check_overlay(overlay, defaults, source)
    check_list_items(overlay, defaults, source)
    overlay = normalise_integers(dict(overlay), defaults)
    extra_assumed = overlay.pop("assumed", {})
    data = copy.deepcopy(base._data)
    origin = dict(base._origin)
    _merge(data, overlay, origin, source)
    # a value a designer set is theirs, not one of our assumptions
    assumed = {k: v for k, v in base._assumed.items()
               if not any(o == k or k.startswith(o + ".") or o.startswith(k + ".")
                          for o in _paths(overlay))}
    assumed.update(extra_assumed)
    rules = Rules(data, origin, assumed, base._sources + (source,))
    check_effective(data, defaults, limits, rules.source_of)
    return rules


def _paths(tree: dict, path: str = ""):
    for key, value in tree.items():
        where = f"{path}.{key}" if path else key
        if isinstance(value, dict):
            yield from _paths(value, where)
        else:
            yield where


@lru_cache(maxsize=1)
def default_rules() -> Rules:
    """The bundled rules (cached).

    Not validated again at every start (the bundled data pass :func:`check_bundled`, run by
    the test suite; ~20 ms saved per process); every variant is validated on load."""
    data, limits, assumed, origin = _bundled()
    return Rules(copy.deepcopy(data), dict(origin), dict(assumed), ("bundled",))


def check_bundled() -> None:
    """Validate the bundled rules: types, ``[limits]`` and every invariant (a RulesError
    naming the file and key), and their nesting depth. The test suite runs it."""
    pkg = resources.files("balance.rules") / "data"
    for doc in DOCUMENTS:
        name = f"{doc}.toml"
        check_depth((pkg / name).read_text(encoding="utf-8"), name)
    data, limits, _, _ = _bundled()
    check_effective(data, data, limits, default_rules().source_of)


def load_rules(*files: str | Path, base: Rules | None = None) -> Rules:
    """The bundled rules (or ``base``), overlaid with each variant file in turn.

    ``load_rules()`` gives the defaults; ``load_rules("variant.toml")`` gives the defaults
    with only what the file names overridden. A bundled variant may be named without its
    path (``load_rules("death_threshold_180")``).
    """
    rules = default_rules() if base is None else base
    for file in files:
        path = _locate(file)
        text = _read_text(path, str(file))  # a Path or a package resource
        rules = _apply(rules, _read_toml(text, str(file)), str(file))
    return rules


def bundled_variants() -> list[str]:
    """Names of the example variant files shipped in the package."""
    pkg = resources.files("balance.rules") / "variants"
    return sorted(p.name[:-5] for p in pkg.iterdir() if p.name.endswith(".toml"))


def _locate(file: str | Path):
    path = Path(file)
    if path.is_file():
        return path
    name = str(file)
    if not name.endswith(".toml") and "/" not in name:
        candidate = resources.files("balance.rules") / "variants" / f"{name}.toml"
        if candidate.is_file():
            return candidate
    if path.exists():
        raise RulesError(f"{file}: not a file")
    raise RulesError(f"{file}: no such rules file (bundled variants: "
                     f"{', '.join(bundled_variants()) or 'none'})")


def resolve(rules: Rules | str | os.PathLike | None) -> Rules:
    """The ``rules=`` argument of every public function: None -> bundled defaults."""
    if rules is None:
        return default_rules()
    if isinstance(rules, Rules):
        return rules
    if isinstance(rules, (str, os.PathLike)):
        return load_rules(rules if isinstance(rules, str) else Path(rules))
    raise ValueError(f"rules must be a balance Rules object, a rules file path or None; "
                     f"got {rules!r}")
