"""Small helpers shared by the invariants: which file to blame, rows, names, dice."""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from ...errors import RulesError, did_you_mean
from ...names import normalise

#: the bundled files: a message names the variant that set a value when there is one
BUNDLED = ("core.toml", "gm_guide.toml", "percentile.toml", "bundled")

Source = Callable[[str], str]


def get(data: Mapping, dotted: str) -> Any:
    """The value at a dotted path of the plain rules data."""
    node: Any = data
    for part in dotted.split("."):
        node = node[part]
    return node


def blame(source_of: Source, *paths: str) -> str:
    """The file to name: the first of ``paths`` set by a variant, else the first's file."""
    sources = [source_of(p) for p in paths]
    return next((s for s in sources if s not in BUNDLED), sources[0])


def fail(source_of: Source, paths: Sequence[str], text: str) -> RulesError:
    """The one-line error ``"<file>: <text>"`` (raise it)."""
    return RulesError(f"{blame(source_of, *paths)}: {text}")


def row_name(row: Mapping, index: int) -> str:
    """``'Paralyzed'`` (a named row) or ``row 3``."""
    for key in ("en", "key", "name"):
        if isinstance(row.get(key), str):
            return repr(row[key])
    return f"row {index + 1}"


def span(row: Mapping) -> str:
    """``101-110`` or ``171-`` (open-ended)."""
    return f"{row['low']}-{row['high']}" if "high" in row else f"{row['low']}-"


def top(rows: Sequence[Mapping]) -> float:
    """The highest value an interval table covers (inf when the last row is open-ended)."""
    return rows[-1].get("high", float("inf"))


def words(values: Iterable[str]) -> str:
    return ", ".join(repr(v) for v in values)


def known_word(source_of: Source, path: str | Sequence[str], value: Any,
               choices: Sequence[str], where: str, fix: str) -> None:
    """``value`` (set at ``path``, shown as ``where``) must be one of ``choices``.

    ``path`` may list the value's path and the path of the choices (the file to blame is
    the first of them a variant set).
    """
    if value not in choices:
        paths = [path] if isinstance(path, str) else list(path)
        raise fail(source_of, paths, f"{where} = {value!r} is not one of {words(choices)}"
                   f"{did_you_mean(str(value), choices)}; {fix}")


def named(rows: Sequence[Mapping], name: str, keys: Sequence[str] = ("en", "fr")) -> bool:
    """Whether ``name`` names a row (English or French, case/accent-insensitive)."""
    wanted = normalise(name)
    return any(normalise(row[k]) == wanted for row in rows for k in keys
               if isinstance(row.get(k), str))


def dice_range(text: str) -> tuple[int, int] | None:
    """(min, max) of a dice expression, None when it does not parse."""
    from ... import dice

    try:
        d = dice.parse(text)
    except ValueError:
        return None
    return d.min, d.max


def parsed_dice(source_of: Source, path: str, text: str, where: str):
    """The parsed dice of ``text``, or the one-line error naming ``where``."""
    from ... import dice

    try:
        return dice.parse(text)
    except ValueError as exc:
        raise fail(source_of, [path], f"{where} = {text!r} is not a dice expression ({exc}); "
                   "write it as NdM terms and integers, e.g. '2d6+6'") from None
