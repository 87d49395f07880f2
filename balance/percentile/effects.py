"""Special effects as rules data and the policies that spend them (percentile rules, special
effects).

The digest names no effect (it says there are about 40); ``[percentile.special_effects]`` holds
Mythras core's common ones, simplified for the duel (assumed). Each row says who may choose it
(``attacker``, ``defender``, ``either``), what the exchange must show (``requires``), whether it
``stacks`` (may be taken more than once in one exchange) and its ``effect`` in the simulator:

- ``choose_location``: the blow goes to the location with the fewest hit points + armour left
  (vital ones first on a tie) instead of the rolled one;
- ``bypass_armour``: the location's armour does not count;
- ``maximise_damage``: the weapon's dice give their maximum (the damage modifier is rolled);
- ``impale``: the damage is rolled twice and the higher kept;
- ``stun``: when the blow does damage, the victim is stunned for one of its turns (no attack,
  no defence);
- ``prone``: the opponent falls prone; ``stand``: the chooser, prone, stands up at once;
- ``lose_turn``: the opponent's next turn is lost (it still defends);
- ``destroy_shield``: the opponent's shield (if any) is destroyed;
- ``none``: counted, no effect in a duel (bleeding needs fatigue, withdrawing and riposting
  need range and a second exchange: not modelled).

A mechanic acts once per exchange however many times a stacking effect is taken (the
count is kept in the duel's ``spent`` totals). A policy per side chooses: a list per role in order of preference (data, ``[percentile.
special_effects.policies]``) or a function ``policy(won, situation) -> effect keys``. Both sides
spend what they win.

>>> import balance as bl
>>> s = bl.percentile.situation("attacker", "critical", "failure")
>>> bl.percentile.spend_effects(2, s)
('choose_location', 'bypass_armour')
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import pandas as pd

from ..errors import check_choice, check_integer
from ..rules import resolve
from ._common import CRITICAL, SUCCESS, TIERS, RulesLike, section

__all__ = ["special_effects", "situation", "spend_effects", "policy", "ListPolicy",
           "MECHANICS", "ROLES", "REQUIREMENTS"]

ROLES = ("attacker", "defender")
#: what the simulator can do with an effect (the ``effect`` column; the code's vocabulary)
MECHANICS = ("choose_location", "bypass_armour", "maximise_damage", "impale", "stun", "prone",
             "stand", "lose_turn", "destroy_shield", "none")
#: mechanics that act through the blow (only an attacker can use them)
HIT_MECHANICS = ("choose_location", "bypass_armour", "maximise_damage", "impale", "stun")
REQUIREMENTS = ("any", "hit", "critical", "parried", "evaded", "defended", "attack_failed",
                "prone")


def special_effects(rules: RulesLike = None) -> pd.DataFrame:
    """The table of named special effects (percentile rules, special effects;
    ``[percentile.special_effects]``, assumed).

    Returns
    -------
    DataFrame indexed by key: en, fr, chooser, requires, stacks, effect.

    Examples
    --------
    >>> import balance as bl
    >>> bl.percentile.special_effects().loc["impale", "effect"]
    'impale'
    """
    rows = section(rules)["special_effects"]["table"]
    return pd.DataFrame([dict(r) for r in rows]).set_index("key")


def situation(role: str, own_tier: str, other_tier: str, *, hit: bool | None = None,
              parried: bool = False, evaded: bool = False, prone: bool = False,
              opponent_prone: bool = False, charging: bool = False) -> dict:
    """What a policy sees when it spends effects (``role`` attacker or defender; tiers by name).

    Parameters
    ----------
    role : {"attacker", "defender"}
        The side spending.
    own_tier, other_tier : str
        Tier names (fumble, failure, success, critical) of the side and its opponent.
    hit : bool, optional
        The blow lands (default: the attacker's tier is a success or critical and the blow
        was not evaded).
    parried, evaded, prone, opponent_prone, charging : bool
        The exchange's facts a requirement reads.

    Returns
    -------
    dict: those facts, plus ``attack_failed``.

    Raises
    ------
    ValueError
        An unknown role or tier name.

    Examples
    --------
    >>> import balance as bl
    >>> bl.percentile.situation("defender", "success", "failure")["attack_failed"]
    True
    """
    role = check_choice("role", role, ROLES)
    own = TIERS.index(check_choice("own_tier", own_tier, TIERS))
    other = TIERS.index(check_choice("other_tier", other_tier, TIERS))
    attack = own if role == "attacker" else other
    landed = attack >= SUCCESS and not evaded if hit is None else bool(hit)
    return {"role": role, "own_tier": TIERS[own], "other_tier": TIERS[other], "hit": landed,
            "parried": bool(parried), "evaded": bool(evaded), "prone": bool(prone),
            "opponent_prone": bool(opponent_prone), "charging": bool(charging),
            "attack_failed": attack < SUCCESS}


def _meets(row: Mapping, sit: Mapping) -> bool:
    """Whether effect ``row`` may be chosen in ``sit`` (chooser and requirement)."""
    if row["chooser"] not in ("either", sit["role"]):
        return False
    defender = sit["role"] == "defender"
    req = row["requires"]
    return {
        "any": True,
        "hit": sit["hit"],
        "critical": sit["own_tier"] == TIERS[CRITICAL] and (defender or sit["hit"]),
        "parried": defender and sit["parried"],
        "evaded": defender and sit["evaded"],
        "defended": defender and (sit["parried"] or sit["evaded"]),
        "attack_failed": defender and sit["attack_failed"],
        "prone": sit["prone"],
    }[req]


@dataclass(frozen=True)
class ListPolicy:
    """A policy as data: effect keys per role, in order of preference.

    The side spends each effect it wins on the first listed effect it may choose (chooser and
    requirement met; one that does not stack only once); what is left is lost.
    """

    attacker: tuple = ()
    defender: tuple = ()
    name: str = ""

    def __call__(self, won: int, sit: Mapping, rules: RulesLike = None) -> tuple:
        rows = {r["key"]: r for r in section(rules)["special_effects"]["table"]}
        prefs = self.attacker if sit["role"] == "attacker" else self.defender
        taken: list[str] = []
        while len(taken) < won:
            progress = False
            for key in prefs:
                if len(taken) >= won:
                    break
                row = rows[key]
                if (key in taken and not row["stacks"]) or not _meets(row, sit):
                    continue
                taken.append(key)
                progress = True
            if not progress:
                break
        return tuple(taken)


PolicyLike = str | Mapping | ListPolicy | Callable | None


def policy(spec: PolicyLike = None, rules: RulesLike = None) -> ListPolicy | Callable:
    """A side's policy: a name of ``[percentile.special_effects.policies]`` (None: ``default``),
    a mapping ``{"attacker": [...], "defender": [...]}``, a :class:`ListPolicy`, or a function
    ``policy(won, situation) -> effect keys`` (checked each time it is used).

    Raises
    ------
    ValueError
        An unknown policy name or effect key.

    Examples
    --------
    >>> import balance as bl
    >>> bl.percentile.policy("legacy").attacker
    ('choose_location', 'bypass_armour')
    """
    rules = resolve(rules)
    sec = section(rules)["special_effects"]
    keys = [r["key"] for r in sec["table"]]
    if spec is None:
        spec = "default"
    if isinstance(spec, str):
        name = check_choice("policy", spec, list(sec["policies"]))
        spec = dict(sec["policies"][name], name=name)
    if isinstance(spec, ListPolicy):
        spec = {"attacker": spec.attacker, "defender": spec.defender, "name": spec.name}
    if isinstance(spec, Mapping):
        unknown = set(spec) - {"attacker", "defender", "name"}
        if unknown:
            raise ValueError(f"policy: unknown role {sorted(unknown)[0]!r}; accepted: attacker, "
                             "defender")
        lists = {}
        for role in ROLES:
            items = spec.get(role, ())
            if isinstance(items, str) or not isinstance(items, Sequence):
                raise ValueError(f"policy[{role!r}] must be a list of effect keys, got {items!r}")
            lists[role] = tuple(check_choice(f"policy[{role!r}]", k, keys) for k in items)
        return ListPolicy(lists["attacker"], lists["defender"], str(spec.get("name", "")))
    if callable(spec):
        return spec
    raise ValueError(f"policy must be a policy name, a mapping of roles to effect keys or a "
                     f"function, got {spec!r}")


def spend_effects(won: int, sit: Mapping, chooser: PolicyLike = None,
                  rules: RulesLike = None) -> tuple:
    """The effects a side takes with ``won`` effects in situation ``sit`` (:func:`situation`),
    by its policy; a function policy's answer is checked (known keys, no more than won, chooser
    and requirement met, non-stacking effects once).

    Raises
    ------
    ValueError
        A function policy that returns an effect it may not choose.

    Examples
    --------
    >>> import balance as bl
    >>> bl.percentile.spend_effects(1, bl.percentile.situation("defender", "critical",
    ...                                                        "failure"))
    ('overextend',)
    """
    rules = resolve(rules)
    won = check_integer("won", won, min=0)
    p = policy(chooser, rules)
    if isinstance(p, ListPolicy):
        return p(won, sit, rules)
    rows = {r["key"]: r for r in section(rules)["special_effects"]["table"]}
    out = tuple(p(won, dict(sit)))
    if len(out) > won:
        raise ValueError(f"policy returned {len(out)} effects, more than the {won} won")
    for i, key in enumerate(out):
        key = check_choice("policy effect", key, list(rows))
        if not _meets(rows[key], sit):
            raise ValueError(f"policy chose {key!r}, which a {sit['role']} may not choose here "
                             f"(chooser {rows[key]['chooser']}, requires {rows[key]['requires']})")
        if not rows[key]["stacks"] and key in out[:i]:
            raise ValueError(f"policy chose {key!r} twice; it does not stack")
    return out
