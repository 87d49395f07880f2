"""Which of several active magical effects applies (percentile rules, magic:
stacking).

Effects from different disciplines never stack, and same-discipline effects with a similar
purpose do not either: per purpose, the higher Intensity prevails, the newer on a tie
(``[percentile.magic.stacking]``; reading "one effect per purpose whatever the discipline"
assumed).

>>> import balance as bl
>>> bl.percentile.applying_effects([
...     {"name": "Bladesharp", "discipline": "folk_magic", "purpose": "weapon", "intensity": 2},
...     {"name": "Enhance", "discipline": "sorcery", "purpose": "weapon", "intensity": 4},
... ])
['Enhance']
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..budgets import check_length
from ..errors import check_integer
from ..names import find_row
from ..rules import resolve
from ._common import RulesLike, section

__all__ = ["applying_effects"]


def applying_effects(effects: Sequence[Mapping], rules: RulesLike = None) -> list[str]:
    """Names of the effects that apply, in the order given (oldest first).

    Parameters
    ----------
    effects : sequence of mappings
        Active effects, oldest first, each with ``name``, ``discipline`` (a key or name of
        ``[percentile.magic.disciplines]``), ``purpose`` (what it changes: effects with the same
        purpose do not stack) and ``intensity`` (an integer >= 0).

    Returns
    -------
    list of str: per purpose, the effect of highest Intensity (the newest on a tie).

    Raises
    ------
    ValueError
        A malformed effect, an unknown discipline.

    Examples
    --------
    >>> import balance as bl
    >>> bl.percentile.applying_effects([
    ...     {"name": "old", "discipline": "theism", "purpose": "armour", "intensity": 3},
    ...     {"name": "new", "discipline": "theism", "purpose": "armour", "intensity": 3},
    ...     {"name": "light", "discipline": "theism", "purpose": "light", "intensity": 1}])
    ['new', 'light']
    """
    rules = resolve(rules)
    magic = section(rules)["magic"]
    newest = magic["stacking"]["tie"] == "newest"
    rows = magic["disciplines"]["table"]
    effects = check_length("effects", effects, 10_000)
    best: dict[str, tuple[int, int]] = {}
    for i, e in enumerate(effects):
        if not isinstance(e, Mapping) or not {"name", "discipline", "purpose",
                                              "intensity"} <= set(e):
            raise ValueError(f"effects[{i}] must be a mapping with name, discipline, purpose "
                             f"and intensity, got {e!r}")
        find_row(rows, e["discipline"], f"effects[{i}] discipline", keys=("key", "en", "fr"))
        level = check_integer(f"effects[{i}] intensity", e["intensity"], min=0)
        purpose = str(e["purpose"])
        if purpose not in best or level > best[purpose][0] or (
                newest and level == best[purpose][0]):
            best[purpose] = (level, i)
    keep = sorted(i for _, i in best.values())
    return [str(effects[i]["name"]) for i in keep]
