"""Explorers of simulated fights: an encounter of the GM guide (checks and attacks; adversity
ratio and calibration) and a duel of the percentile rules (combat). Monte Carlo, with 95 %
intervals: while a control moves each change runs a small number of trials (``quick_trials``); once nothing has moved for ``debounce``
seconds the same seed runs ``trials`` (the "release"). Every run goes through the public
simulators (``bl.fights.simulate``, ``bl.percentile.duel``) with the explorer's ``seed``.

>>> import balance as bl
>>> e = bl.explore.duel(trials=2_000, quick_trials=200, debounce=None)
>>> e.result.trials, e.result.seed
(2000, 1)
"""
from __future__ import annotations

import os
import threading

import ipywidgets as widgets

from ..errors import check_integer
from ..guide import creatures as creature_rules
from ..guide import encounters as encounter_rules
from ..guide.fights import simulate as simulate_fight
from ..montecarlo.results import Simulation
from ..percentile import combatant
from ..percentile import duel as simulate_duel
from ..plots.explore import interval_bars
from ..rng import RNGLike
from ..rules import Rules
from .base import Explorer
from .core import _STYLE, _WIDE, _percent, slider

__all__ = ["EncounterExplorer", "DuelExplorer", "encounter", "duel"]


class MonteCarloExplorer(Explorer):
    """An explorer whose figure is a Monte Carlo run: quick while dragging, full on release.

    ``debounce=None`` runs only the full count at each change (no timer: scripts,
    doctests); otherwise a ``threading.Timer`` runs it ``debounce`` seconds after the last
    change. :meth:`settle` runs a pending full run now.
    """

    def __init__(self, rules, *, trials: int, quick_trials: int, seed: RNGLike,
                 debounce: float | None, **figure) -> None:
        super().__init__(rules, **figure)
        self.trials = check_integer("trials", trials, min=1)
        self.quick_trials = check_integer("quick_trials", quick_trials, min=1)
        self.seed = seed
        self.debounce = debounce
        self.result: Simulation | None = None
        self._timer: threading.Timer | None = None
        self._lock = threading.RLock()
        self._size = self.trials

    def simulate(self, trials: int) -> Simulation:  # pragma: no cover - per explorer
        raise NotImplementedError

    def show(self, result: Simulation) -> None:  # pragma: no cover - per explorer
        raise NotImplementedError

    def draw(self) -> None:
        self.result = self.simulate(self._size)
        self.show(self.result)

    def refresh(self, *_: object) -> None:
        """A control moved: a quick run now, the full one after the debounce."""
        self._cancel()
        if self.debounce is None:
            self._run(self.trials)
            return
        self._run(self.quick_trials)
        self._timer = threading.Timer(self.debounce, self.settle)
        self._timer.daemon = True
        self._timer.start()

    def _run(self, trials: int) -> None:
        with self._lock:
            self._size = trials
            Explorer.refresh(self)

    def _cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def settle(self) -> None:
        """Run the full count now (what the timer does once the controls stop moving)."""
        self._cancel()
        self._run(self.trials)

    def _trials_text(self) -> str:
        return (f"{self._size:,} trials, seed {self.seed}"
                + (" (quick run; the full one follows)" if self._size != self.trials else ""))


class EncounterExplorer(MonteCarloExplorer):
    """An encounter of the bestiary against the default party (GM guide, fights), live.

    Controls: how many of each bestiary creature, the party level, and two rules of the
    fights (``fights.crit_damage_dice``, ``fights.pc_wounds``). Shown: the party's win rate,
    the creatures' and draws, the chance that some PC is knocked out, dying or dead, each with
    its Wilson 95 % interval; the mean rounds with its interval and the encounter's
    calibration (GM guide, adversity ratio and calibration) below.
    """

    METRICS = ("party_win_rate", "creature_win_rate", "draw_rate", "any_pc_knocked_out",
               "any_pc_dying", "any_pc_dead_in_fight")

    def __init__(self, creatures=("Wolf", "Wolf", "Wolf", "Wolf"), level: int | None = None,
                 rules: Rules | str | os.PathLike | None = None, *, trials: int = 5_000,
                 quick_trials: int = 300, seed: RNGLike = 1, debounce: float | None = 0.4
                 ) -> None:
        super().__init__(rules, trials=trials, quick_trials=quick_trials, seed=seed,
                         debounce=debounce, figsize=(9.0, 3.4),
                         margins={"left": 0.24, "right": 0.96})
        names = list(creature_rules.bestiary(rules=self.rules)["name"])
        wanted = list(creatures)
        unknown = [c for c in wanted if c not in names]
        if unknown:
            raise ValueError(f"creatures: unknown {unknown}; accepted: {', '.join(names)}")
        level = self.rules["party"]["level"] if level is None else level
        self.level = slider("party level", level, self.rules["creatures"]["level_min"],
                            self.rules["creatures"]["level_max"])
        self.level.observe(self.refresh, names="value")
        self.counts = {name: widgets.BoundedIntText(
            value=wanted.count(name), min=0, max=8, description=name,
            style={"description_width": "7em"}, layout=widgets.Layout(width="12em"))
            for name in names}
        for w in self.counts.values():
            w.observe(self.refresh, names="value")
        fights = self.rules["fights"]
        self.crit_damage_dice = slider("critical damage dice", fights["crit_damage_dice"], 1, 4)
        self.pc_wounds = slider("PC wounds at the start", fights["pc_wounds"], 0, 4)
        for key in ("crit_damage_dice", "pc_wounds"):
            self.bind(getattr(self, key), f"fights.{key}")
        grid = widgets.GridBox(list(self.counts.values()),
                               layout=widgets.Layout(grid_template_columns="repeat(4, 13em)"))
        self._layout(grid, widgets.HBox([self.level, widgets.VBox(
            [self.crit_damage_dice, self.pc_wounds])]))
        self.settle()

    def creatures(self) -> list[str]:
        """The creatures picked, in bestiary order."""
        return [name for name, w in self.counts.items() for _ in range(int(w.value))]

    def simulate(self, trials: int) -> Simulation:
        creatures = self.creatures()
        if not creatures:
            raise ValueError("creatures: pick at least one creature")
        return simulate_fight(creatures, level=self.level.value, trials=trials,
                              seed=self.seed, rules=self.rules)

    def show(self, result: Simulation) -> None:
        interval_bars(result.table, self.METRICS, ax=self.axes[0],
                      title=f"{', '.join(self.creatures())} against the party, level "
                            f"{self.level.value}")
        table = result.table.set_index("metric")
        rounds = table.loc["rounds"]
        sheets = [creature_rules.creature(c, self.level.value, rules=self.rules)
                  for c in self.creatures()]
        pcs = len(creature_rules.party(self.level.value, rules=self.rules))
        calib = encounter_rules.calibration([s.adversity_ratio for s in sheets], pcs=pcs,
                                            rules=self.rules)
        party = table.loc["party_win_rate"].to_dict()  # plain floats, for the type checker
        self.readout.value = (
            f"party wins <b>{_percent(party['estimate'])}</b> "
            f"[{_percent(party['ci_low'])}, {_percent(party['ci_high'])}]; rounds "
            f"<b>{rounds['estimate']:.2f}</b> [{rounds['ci_low']:.2f}, {rounds['ci_high']:.2f}]"
            f"; calibration {calib.value} ({calib.challenge}); "
            f"{self._trials_text()}")


class DuelExplorer(MonteCarloExplorer):
    """A duel of the percentile rules (combat), live: each side's Combat Style, weapon,
    shield and armour, and the round cap (``percentile.duel.max_rounds``). Shown: each side's
    win probability and the timeouts with Wilson 95 % intervals, the mean rounds with its
    interval."""

    METRICS = ("first_wins", "second_wins", "timeout")

    def __init__(self, rules: Rules | str | os.PathLike | None = None, *, trials: int = 10_000,
                 quick_trials: int = 500, seed: RNGLike = 1, debounce: float | None = 0.4
                 ) -> None:
        super().__init__(rules, trials=trials, quick_trials=quick_trials, seed=seed,
                         debounce=debounce, figsize=(9.0, 2.8),
                         margins={"left": 0.22, "right": 0.96, "bottom": 0.18})
        pct = self.rules["percentile"]
        weapons = [(row["en"], row["key"]) for row in pct["weapons"]["table"]]
        shields = [("none", "")] + [(row["en"], row["key"]) for row in pct["shields"]["table"]]
        self.sides = []
        for name, skill, weapon in (("first", 70, "broadsword"), ("second", 50, "broadsword")):
            side = {
                "skill": slider("Combat Style %", skill, 1, 150),
                "weapon": widgets.Dropdown(options=weapons, value=weapon, description="weapon",
                                           style=_STYLE, layout=_WIDE),
                "shield": widgets.Dropdown(options=shields, value="", description="shield",
                                           style=_STYLE, layout=_WIDE),
                "armour": slider("armour points", 0, 0, 12),
            }
            for w in side.values():
                w.observe(self.refresh, names="value")
            self.sides.append(side)
        self.max_rounds = slider("round cap", pct["duel"]["max_rounds"], 1, 60)
        self.bind(self.max_rounds, "percentile.duel.max_rounds")
        self._layout(widgets.HBox([widgets.VBox([widgets.HTML(f"<b>{name} fighter</b>"),
                                                 *side.values()])
                                   for name, side in zip(("first", "second"), self.sides)]),
                     self.max_rounds)
        self.settle()

    def fighters(self):
        """The two combatants of the controls (``bl.percentile.combatant``)."""
        return [combatant(s["skill"].value, weapon=s["weapon"].value,
                          shield=s["shield"].value or None, armour=s["armour"].value,
                          rules=self.rules) for s in self.sides]

    def simulate(self, trials: int) -> Simulation:
        first, second = self.fighters()
        return simulate_duel(first, second, trials=trials, seed=self.seed, rules=self.rules,
                             progress=False)

    def show(self, result: Simulation) -> None:
        a, b = (s["skill"].value for s in self.sides)
        interval_bars(result.table, self.METRICS, ax=self.axes[0],
                      names={"first_wins": f"first ({a} %) wins",
                             "second_wins": f"second ({b} %) wins"},
                      title="duel outcome (95 % intervals)")
        rounds, win = result.table.loc["rounds"], result.table.loc["first_wins"].to_dict()
        self.readout.value = (
            f"first wins <b>{_percent(win['estimate'])}</b> [{_percent(win['ci_low'])}, "
            f"{_percent(win['ci_high'])}]; rounds <b>{rounds['estimate']:.2f}</b> "
            f"[{rounds['ci_low']:.2f}, {rounds['ci_high']:.2f}]; {self._trials_text()}")


def encounter(creatures=("Wolf", "Wolf", "Wolf", "Wolf"), level: int | None = None, *,
              rules: Rules | str | os.PathLike | None = None, trials: int = 5_000,
              quick_trials: int = 300, seed: RNGLike = 1, debounce: float | None = 0.4
              ) -> EncounterExplorer:
    """A live explorer of an encounter against the default party (GM guide, fights).

    Parameters
    ----------
    creatures : list of str
        Bestiary names (English) to start with; the counts are editable.
    level : int, optional
        Party level to start with (default: the rules' party level).
    trials, quick_trials : int
        Fights per run on release and while a control moves.
    seed : int, SeedSequence, Generator or None
        Seed of every run (the same seed at both sizes).
    debounce : float or None
        Seconds without a change before the full run; ``None``: full runs only.

    Returns
    -------
    EncounterExplorer
        The widget; ``.result`` is the last :class:`~balance.montecarlo.results.Simulation`,
        ``.rules``, ``.save(path)``, ``.error`` as every explorer; ``counts[name]``,
        ``level``, ``crit_damage_dice``, ``pc_wounds`` the controls; ``settle()`` runs the full
        count now.

    Raises
    ------
    ValueError
        A creature that is not in the bestiary, or a trial count below 1.

    Examples
    --------
    >>> import balance as bl
    >>> e = bl.explore.encounter(["Wolf", "Wolf"], level=3, trials=500, debounce=None)
    >>> e.result.trials, e.creatures()
    (500, ['Wolf', 'Wolf'])
    """
    return EncounterExplorer(creatures, level, rules, trials=trials, quick_trials=quick_trials,
                             seed=seed, debounce=debounce)


def duel(*, rules: Rules | str | os.PathLike | None = None, trials: int = 10_000,
         quick_trials: int = 500, seed: RNGLike = 1, debounce: float | None = 0.4
         ) -> DuelExplorer:
    """A live explorer of a percentile duel (percentile rules, combat).

    Parameters
    ----------
    rules : Rules, path or None
        The rules to start from (default: bundled).
    trials, quick_trials, seed, debounce
        As :func:`encounter`.

    Returns
    -------
    DuelExplorer
        The widget; ``.sides`` holds each side's controls (skill, weapon, shield, armour),
        ``max_rounds`` the round cap, ``.result`` the last run.

    Raises
    ------
    ValueError
        A trial count below 1.

    Examples
    --------
    >>> import balance as bl
    >>> e = bl.explore.duel(trials=1_000, debounce=None)
    >>> e.sides[1]["skill"].value = 70
    >>> int(e.result.table.loc["first_wins", "trials"])
    1000
    """
    return DuelExplorer(rules, trials=trials, quick_trials=quick_trials, seed=seed,
                        debounce=debounce)
