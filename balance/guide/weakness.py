"""Weakness and resistance (GM guide, d20 checks and attacks).

Exploiting a weakness gives +3 to the attack, attacking a resistance -3 (``[fights]
weakness_bonus`` and ``resistance_penalty``); the same adjustment counts in any margin-based
damage bonus. The fight simulator uses this function for every attacker-target pair.

>>> import balance as bl
>>> bl.guide.attack_adjustment("fire", weaknesses=["fire"])
3
>>> bl.guide.attack_adjustment("fire", weaknesses=["fire"], resistances=["fire"])
0
"""
from __future__ import annotations

from collections.abc import Iterable

from ..rules import Rules, resolve

__all__ = ["attack_adjustment"]


def attack_adjustment(damage_type: str | None, weaknesses: Iterable[str] = (),
                      resistances: Iterable[str] = (), rules: Rules | str | None = None) -> int:
    """The attack modifier from the target's weaknesses and resistances (GM guide, d20 checks
    and attacks): + ``weakness_bonus`` when ``damage_type`` is a weakness, - ``resistance_penalty``
    when it is a resistance (both when it is both); 0 for no damage type.

    Parameters
    ----------
    damage_type : str or None
        The attack's damage type (``""`` or None: none).
    weaknesses, resistances : iterable of str
        The target's (a creature sheet's ``weaknesses`` / ``resistances``).

    Returns
    -------
    int: the adjustment to ``d20 + attack modifier``.

    Raises
    ------
    ValueError
        A damage type or a listed type that is not a string.

    Examples
    --------
    >>> import balance as bl
    >>> bl.guide.attack_adjustment("cold", resistances=("cold",))
    -3
    """
    f = resolve(rules)["fights"]
    if damage_type is not None and not isinstance(damage_type, str):
        raise ValueError(f"damage_type must be a string or None, got {damage_type!r}")
    weak, resist = list(weaknesses), list(resistances)
    for name, items in (("weaknesses", weak), ("resistances", resist)):
        bad = [x for x in items if not isinstance(x, str)]
        if bad:
            raise ValueError(f"{name} must be damage-type names (strings), got {bad[0]!r}")
    if not damage_type:
        return 0
    return (f["weakness_bonus"] if damage_type in weak else 0) - \
        (f["resistance_penalty"] if damage_type in resist else 0)
