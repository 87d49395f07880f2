"""How a simulated fight of the GM guide runs (``bl.fights`` is the public surface): a party of PCs against creatures (GM guide, checks and attacks;
core rules, dying and critical injuries).

>>> import balance as bl
>>> sim = bl.fights.simulate(["Wolf", "Wolf", "Wolf", "Wolf"], trials=20_000, seed=1)
>>> row = sim.table.set_index("metric").loc["party_win_rate"]     # seed 1: exact counts
>>> float(row["estimate"]), int(row["trials"]), int(row["seed"])
(0.96625, 20000, 1)

Rules of the simulation (data in ``rules["fights"]`` and ``rules["guide"]["checks"]``):

- turn order by Init (10 + DEX), highest first, ties drawn at random per fight (assumed);
- an attack hits when ``d20 + attack modifier (+3 weakness, -3 resistance) >= defence``;
  natural 20 always hits and rolls the damage dice twice (assumed), natural 1 always misses;
- each attack chooses its targets among conscious enemies: ``"weakest"`` (lowest current HP,
  first listed on ties) or ``"random"``; an attack with ``targets = k`` hits up to k of them,
  each with its own roll;
- HP <= 0: knocked out; HP < 0: dying (core rules): the clock gains ``seconds_per_round``
  (6 s, assumed) for every round a PC ends below 0, the round it drops included; 175 s: dead;
- a fight ends when one side is down, or as a draw after ``max_rounds``.

At the end, each dying PC is supposed stabilised at once: the core rules' critical-injury roll
gives its death probability (:func:`balance.injuries.death_probability`).
"""
from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any

import numpy as np
import pandas as pd

from . import creatures as _creatures
from .. import dice, montecarlo
from .fight_kernel import RANDOM, WEAKEST, FightSpec, fight_sampler
from .creatures import CreatureSheet
from .weakness import attack_adjustment
from ..errors import check_choice, check_integer
from ..montecarlo.intervals import mean_se, normal_interval
from ..montecarlo.results import Simulation
from ..rng import RNGLike
from ..rules import Rules, resolve

__all__ = ["FightSpec", "fight_sampler", "fight_spec", "simulate", "summarise", "lineup"]

_POLICIES = {"weakest": WEAKEST, "random": RANDOM}
_MAX_COMBATANTS = 255  # the kernel packs a combatant's position into 8 bits of its sort key
_MAX_HP = 1_000_000    # negative HP stays within what death_probability reads


def lineup(items: Any, level: int | None = None, *, rules: Rules | None = None,
           what: str = "creatures") -> list[CreatureSheet]:
    """Creature sheets from names (the bestiary, or the party, at ``level``) and/or sheets (GM guide, creature sheet).

    Parameters
    ----------
    items : str, CreatureSheet or sequence of them
        English or French names, or sheets.
    level : int, optional
        Level of the creatures given by name (default: the rules' default level).
    rules : Rules, optional
        Rules to read ``[fights]``, ``[creatures]`` and the bestiary from (default: the bundled rules).
    what : str, default "creatures"
        ``"party"`` reads names from the default party instead of the bestiary; also names the
        argument in errors.

    Returns
    -------
    list of CreatureSheet
        One sheet per item, in order.

    Raises
    ------
    ValueError
        An empty list, an item that is neither a name nor a sheet, an unknown name (with a
        did-you-mean), a level out of range.

    Examples
    --------
    >>> from balance.guide.simulation import lineup
    >>> [s.name for s in lineup(["Goblin", "Loup"])]
    ['Goblin', 'Wolf']
    """
    rules = resolve(rules)
    if isinstance(items, (str, CreatureSheet)):
        items = [items]
    if not isinstance(items, Sequence) or not items:
        raise ValueError(f"{what} must be a non-empty list of names or creature sheets, "
                         f"got {items!r}")
    out = []
    for item in items:
        if isinstance(item, CreatureSheet):
            out.append(item)
        elif isinstance(item, str):
            if what == "party":
                out.append(_creatures.pc(item, level, rules=rules))
            else:
                out.append(_creatures.creature(item, level, rules=rules))
        else:
            raise ValueError(f"{what}: {item!r} is neither a name nor a creature sheet")
    return out


def _policy(targeting: Any, rules: Rules) -> tuple[int, int]:
    if targeting is None:
        targeting = rules["fights"]["targeting"]
    pair = (targeting, targeting) if isinstance(targeting, str) else \
        tuple(targeting) if isinstance(targeting, Sequence) else ()
    if len(pair) != 2:
        raise ValueError(f"targeting must be 'weakest', 'random' or a pair (party, creatures), "
                         f"got {targeting!r}")
    party, creatures = (_POLICIES[check_choice("targeting", t, list(_POLICIES))] for t in pair)
    return party, creatures


def fight_spec(creatures: Any, party: Any = None, *, level: int | None = None,
               targeting: Any = None, max_rounds: int | None = None,
               rules: Rules | None = None) -> FightSpec:
    """Arrays describing one encounter, for :func:`fight_sampler` (GM guide, checks and attacks; core rules, dying and critical injuries).

    Parameters
    ----------
    creatures : str, CreatureSheet or sequence of them
        The creatures: bestiary names (at ``level``) or sheets.
    party : str, CreatureSheet or sequence of them, optional
        Default: the rules' default party (*assumed*) at ``level``.
    level : int, optional
        Party level, and level of creatures given by name; default ``party.level``.
    targeting : "weakest", "random" or (party, creatures), optional
        Who each side attacks; default ``fights.targeting``.
    max_rounds : int, optional
        A fight still going after this many rounds is a draw; default ``fights.max_rounds``.
    rules : Rules, optional
        Rules to read ``[fights]``, ``[creatures]`` and the bestiary from (default: the bundled rules).

    Returns
    -------
    FightSpec
        Names, sides, HP, defences, attacks, damage dice, initiative and the rules' numbers.

    Raises
    ------
    ValueError
        As :func:`lineup`; an unknown targeting; more than 255 combatants; a side that can never
        damage the other (the fight could not end).

    Examples
    --------
    >>> import balance as bl
    >>> spec = bl.fights.fight_spec(["Goblin", "Goblin"])
    >>> spec.names, spec.pcs
    (('Warrior', 'Ranger', 'Mage', 'Cleric', 'Goblin', 'Goblin'), 4)
    """
    rules = resolve(rules)
    f, chk = rules["fights"], rules["guide"]["checks"]
    if level is None:
        level = rules["party"]["level"]
    level = check_integer("level", level, min=rules["creatures"]["level_min"],
                          max=rules["creatures"]["level_max"])
    pcs = _creatures.party(level, rules=rules) if party is None else \
        lineup(party, level, rules=rules, what="party")
    foes = lineup(creatures, level, rules=rules)
    everyone = pcs + foes
    if len(everyone) > _MAX_COMBATANTS:
        raise ValueError(f"creatures: at most {_MAX_COMBATANTS} combatants in one fight "
                         f"(party + creatures), got {len(everyone)}")
    for s in everyone:
        if not 1 <= s.max_hp <= _MAX_HP:
            raise ValueError(f"max_hp of {s.name} must be between 1 and {_MAX_HP}, got {s.max_hp}")
        if not 1 <= s.targets <= _MAX_COMBATANTS:
            raise ValueError(f"targets of {s.name} must be between 1 and {_MAX_COMBATANTS} (foes "
                             f"an attack hits), got {s.targets}")
    max_rounds = f["max_rounds"] if max_rounds is None else \
        check_integer("max_rounds", max_rounds, min=1, max=100_000)
    defence_names = [r["en"] for r in rules["creatures"]["defences"]]
    parsed = []
    for s in everyone:
        expr = dice.parse(s.damage)
        if any(sign < 0 for sign, _, _ in expr.terms):
            raise ValueError(f"damage of {s.name}: {s.damage!r} must not subtract dice")
        parsed.append(([fc for _, n, fc in expr.terms for _ in range(n)],
                       expr.constant + s.damage_bonus))
    k = max(1, max(len(fc) for fc, _ in parsed))
    faces = np.zeros((len(everyone), k), dtype=np.int32)
    for i, (fc, _) in enumerate(parsed):
        faces[i, :len(fc)] = fc
    adjust = np.zeros((len(everyone), len(everyone)), dtype=np.int32)
    for i, a in enumerate(everyone):
        for j, b in enumerate(everyone):
            adjust[i, j] = attack_adjustment(a.damage_type, b.weaknesses, b.resistances, rules)
    spec = FightSpec(
        names=tuple(s.name for s in everyone), pcs=len(pcs),
        side=np.array([0] * len(pcs) + [1] * len(foes), dtype=np.intp),
        hp=np.array([s.max_hp for s in everyone], dtype=np.int32),
        defences=np.array([[getattr(s, d) for d in defence_names] for s in everyone],
                          dtype=np.int32),
        attack_defence=np.array([defence_names.index(s.target_defence) for s in everyone],
                                dtype=np.intp),
        attack=np.array([s.attack_modifier for s in everyone], dtype=np.int32),
        adjust=adjust, faces=faces,
        damage_bonus=np.array([b for _, b in parsed], dtype=np.int32),
        targets=np.array([s.targets for s in everyone], dtype=np.intp),
        init=np.array([s.init for s in everyone], dtype=np.int32),
        policy=_policy(targeting, rules), max_rounds=max_rounds,
        seconds_per_round=f["seconds_per_round"],
        automatic_death=rules["injuries"]["automatic_death_seconds"],
        die=chk["die"], critical_success=chk["critical_success"],
        critical_failure=chk["critical_failure"], crit_dice=f["crit_damage_dice"],
        minimum_damage=f["minimum_damage"],
        random_ties=check_choice("fights.initiative_ties", f["initiative_ties"],
                                 ["random", "position"]) == "random",
        wounds=f["pc_wounds"], rules=rules)
    _check_can_end(spec)
    return spec


def _max_damage(spec: FightSpec, i: int, crit: bool) -> int:
    dice_max = int(spec.faces[i].sum()) * (spec.crit_dice if crit else 1)
    return max(dice_max + int(spec.damage_bonus[i]), spec.minimum_damage)


def _can_damage(spec: FightSpec, attackers, targets) -> bool:
    crit_face = 1 <= spec.critical_success <= spec.die and \
        spec.critical_success != spec.critical_failure
    best_face = max(f for f in range(1, spec.die + 1) if f != spec.critical_failure) \
        if spec.die > 1 else spec.die
    for i in attackers:
        for j in targets:
            if crit_face and _max_damage(spec, i, True) > 0:
                return True
            need = spec.defences[j, spec.attack_defence[i]]
            if best_face + spec.attack[i] + spec.adjust[i, j] >= need \
                    and _max_damage(spec, i, False) > 0:
                return True
    return False


def _check_can_end(spec: FightSpec) -> None:
    party = range(spec.pcs)
    foes = range(spec.pcs, spec.hp.size)
    for who, a, b, other in (("the party", party, foes, "the creatures"),
                             ("the creatures", foes, party, "the party")):
        if not _can_damage(spec, a, b):
            raise ValueError(f"infinite fight: {who} can never damage {other} (no attack can "
                             "hit and deal more than 0 damage); change damage, bonuses or defences")


def simulate(creatures: Any, party: Any = None, *, level: int | None = None,
             trials: int = 100_000, seed: RNGLike = None, targeting: Any = None,
             max_rounds: int | None = None, workers: Any = 1,
             rules: Rules | None = None) -> Simulation:
    """Simulate ``trials`` fights of an encounter (GM guide, checks and attacks; core rules, dying and critical injuries).

    Parameters
    ----------
    creatures : list of str or CreatureSheet
        Bestiary names (English or French, at ``level``) or sheets (``balance.creatures.sheet``).
    party : list of str or CreatureSheet, optional
        Default: the rules' default party (assumed) at ``level``.
    level : int, optional
        Party level (and level of creatures given by name); default ``party.level``.
    trials, seed, workers
        Monte Carlo run (``balance.montecarlo.run``).
    targeting : "weakest", "random" or (party, creatures)
        Who each side attacks; default ``fights.targeting``.
    max_rounds : int, optional
        A fight still going after this many rounds is a draw.
    rules : Rules, optional
        Rules to read ``[fights]``, ``[creatures]`` and the bestiary from (default: the bundled rules).

    Returns
    -------
    Simulation
        ``.table``: metric, interval, estimate, ci_low, ci_high, se, trials, seed, fingerprint;
        ``.extra["pcs"]``: per-PC knock-out, dying and death rates; ``.extra["rounds"]``.

    Raises
    ------
    ValueError
        As :func:`fight_spec`, and ``trials`` outside the trials budget.

    Examples
    --------
    >>> import balance as bl
    >>> sim = bl.fights.simulate(["Goblin", "Goblin"], trials=5_000, seed=1)
    >>> sim.table.metric.tolist()[:3]
    ['party_win_rate', 'creature_win_rate', 'draw_rate']
    """
    rules = resolve(rules)
    spec = fight_spec(creatures, party, level=level, targeting=targeting,
                      max_rounds=max_rounds, rules=rules)
    res = montecarlo.run(partial(fight_sampler, spec=spec), trials, seed=seed, workers=workers,
                         rules=rules, label="fight", progress=False)
    return summarise(res, spec)


def _hist_mean(res, key: str, denominator=None) -> pd.DataFrame:
    h = res[key].astype(np.float64)
    v = np.arange(h.size)
    n = float(res.trials if denominator is None else denominator)
    mean, se = mean_se((h * v).sum(), (h * v * v).sum(), n)  # NaN: no case (nobody dying)
    low, high = normal_interval(mean, se)
    return pd.DataFrame({"estimate": [mean], "ci_low": [float(low)], "ci_high": [float(high)],
                         "se": [se], "trials": [int(n)]})


def summarise(res: montecarlo.MCResult, spec: FightSpec) -> Simulation:
    """Tidy tables of a fight run: rates with Wilson intervals, means with normal intervals (GM guide, checks and attacks; core rules, dying and critical injuries).

    Parameters
    ----------
    res : MCResult
        The engine's result of :func:`fight_sampler` runs.
    spec : FightSpec
        The fight that was run.

    Returns
    -------
    Simulation
        As :func:`simulate`.

    Raises
    ------
    KeyError
        A result whose totals are not those of :func:`fight_sampler`.

    Examples
    --------
    >>> from functools import partial
    >>> import balance as bl
    >>> spec = bl.fights.fight_spec(["Goblin", "Goblin"])
    >>> res = bl.montecarlo.run(partial(bl.fights.fight_sampler, spec=spec), 2_000, seed=1,
    ...                         progress=False)
    >>> summarise(res, spec).table.metric.iloc[0]
    'party_win_rate'
    """
    p = spec.pcs
    rows = []

    def add(metric: str, frame: pd.DataFrame, kind: str) -> None:
        frame = frame.iloc[[0]][["estimate", "ci_low", "ci_high", "se", "trials"]].copy()
        frame.insert(0, "interval", kind)
        frame.insert(0, "metric", metric)
        rows.append(frame)

    t = res.trials
    for metric, count in (("party_win_rate", res["party_wins"]),
                          ("creature_win_rate", res["creature_wins"]),
                          ("draw_rate", res["draws"]),
                          ("any_pc_knocked_out", t - res["knocked_out"][0]),
                          ("any_pc_dying", t - res["dying"][0]),
                          ("any_pc_dead_in_fight", t - res["dead"][0])):
        add(metric, res.proportion(np.asarray(count)), "wilson")
    add("pcs_knocked_out", _hist_mean(res, "knocked_out"), "normal")
    ko = _hist_mean(res, "knocked_out")
    ko[["estimate", "ci_low", "ci_high", "se"]] /= p
    add("knockout_rate", ko, "normal")
    add("pcs_dying", _hist_mean(res, "dying"), "normal")
    add("pcs_dead_in_fight", _hist_mean(res, "dead"), "normal")
    n_dying = int(res["dying"].dot(np.arange(p + 1)))
    add("dying_seconds_mean", _hist_mean(res, "dying_seconds", denominator=n_dying), "normal")
    add("expected_deaths_if_stabilised",
        res.mean("expected_deaths_sum", "expected_deaths_sumsq"), "normal")
    add("rounds", _hist_mean(res, "rounds"), "normal")
    table = pd.concat(rows, ignore_index=True)
    seeds: list[Any] = [res.seed] * len(table)
    table["seed"] = seeds
    table["fingerprint"] = res.fingerprint
    per_pc = []
    for key, label in (("ko_by_pc", "knocked_out"), ("dying_by_pc", "dying"),
                       ("dead_by_pc", "dead_in_fight")):
        fr = res.proportion(key, index=pd.Index(spec.names[:p], name="pc"))
        fr.insert(0, "outcome", label)
        per_pc.append(fr.reset_index())
    extra = {"pcs": pd.concat(per_pc, ignore_index=True),
             "rounds": res.distribution("rounds", name="rounds").iloc[1:]}
    table.attrs.update(assumed=tuple(spec.rules.assumed_under("fights", "party", "bestiary")))
    return Simulation(table=table, result=res, extra=extra, spec=spec)

