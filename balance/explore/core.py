"""Explorers of the core rules: dying and critical injuries, negotiation
and treatment of injuries. Everything drawn is exact: each change recomputes the curves with the
closed-form functions (``bl.injuries``, ``bl.negotiation``, ``bl.treatment``).

>>> import balance as bl
>>> explorer = bl.explore.injuries()
>>> explorer.death_threshold.value = 180
>>> explorer.rules["injuries"]["death_threshold"], explorer.error
(180, None)
>>> explorer.death_threshold.value = 150      # inside the table: refused, one line
>>> explorer.rules["injuries"]["death_threshold"], explorer.error[:59]
(180, '<explorer>: injuries.death_threshold = 150 falls inside the')
"""
from __future__ import annotations

import html
import os
import ipywidgets as widgets
import numpy as np
from matplotlib.text import Text

from ..core import injuries as injury_rules
from ..core import negotiation as negotiation_rules
from ..core import treatment as treatment_rules
from ..plots.core import (death_curve_data, death_curves, injury_band_data, injury_bands,
                          negotiation_curves, treatment_curves)
from ..plots.explore import state_marker
from ..report import data
from ..rules import Rules
from .base import Explorer

__all__ = ["InjuryExplorer", "NegotiationExplorer", "TreatmentExplorer", "injuries",
           "negotiation", "treatment"]

_STYLE = {"description_width": "11em"}
#: past the starting rules' automatic death, the injury explorer's seconds axis grows to the
#: next multiple of this many seconds (a drag of the wall redraws the frame only there)
FRAME_STEP = 25
_WIDE = widgets.Layout(width="30em")


def slider(description: str, value: int, low: int, high: int, **options) -> widgets.IntSlider:
    """An integer slider that reports while it is dragged (``continuous_update``)."""
    return widgets.IntSlider(value=value, min=min(low, value), max=max(high, value),
                             description=description, continuous_update=True, style=_STYLE,
                             layout=_WIDE, **options)


def _percent(p: float) -> str:
    return f"{100 * p:.1f} %"


class InjuryExplorer(Explorer):
    """Death curves and severity bands of the critical-injury roll (core rules, critical injuries), live.

    Sliders: the state (seconds at negative HP, negative HP, wounds) and two rules
    (``injuries.death_threshold``, ``injuries.automatic_death_seconds``); the injury table as
    a grid of its rows' bounds and test modifiers. Left: death against seconds for 0-3 wounds
    (and the chosen count) at the chosen negative HP; right: the outcome by severity band for
    the chosen state; a dotted line at the chosen seconds, read out below.
    """

    over_background = True

    def __init__(self, rules: Rules | str | os.PathLike | None = None) -> None:
        super().__init__(rules, ncols=2, figsize=(11.0, 3.8),
                         margins={"left": 0.06, "right": 0.86, "wspace": 0.75})
        inj = self.rules["injuries"]
        auto, threshold = inj["automatic_death_seconds"], inj["death_threshold"]
        self.seconds = slider("seconds at -HP", min(40, auto), 0, auto)
        self.negative_hp = slider("negative HP", 6, 1, 50)
        self.wounds = slider("wounds", 1, 0, 6)
        self.death_threshold = slider("death threshold", threshold, 2, 2 * threshold)
        self.automatic_death_seconds = slider("automatic death (s)", auto, 1, 2 * auto)
        self.seconds.observe(self._seconds_moved, names="value")
        for w in (self.negative_hp, self.wounds):
            w.observe(self.refresh, names="value")
        self._drawn: tuple | None = None  # (negative HP, wounds, rules) of the curves drawn
        self._computed: tuple | None = None  # ((negative HP, wounds, rules), _state())
        self.bind(self.death_threshold, "injuries.death_threshold")
        self.bind(self.automatic_death_seconds, "injuries.automatic_death_seconds")
        self.grid, self.cells = self._table_grid()
        state = widgets.VBox([self.seconds, self.negative_hp, self.wounds])
        rule = widgets.VBox([self.death_threshold, self.automatic_death_seconds])
        table = widgets.Accordion(children=[self.grid], titles=("injury table (low, high, "
                                                                "test modifier)",))
        self._layout(widgets.HBox([state, rule]), table)
        self.refresh()

    def _table_grid(self) -> tuple[widgets.GridBox, list[dict[str, widgets.IntText]]]:
        inj = self.rules["injuries"]
        items: list[widgets.Widget] = [widgets.HTML(f"<b>{h}</b>") for h in
                                       ("injury", "low", "high", "modifier")]
        cells = []
        for row in inj["table"]:
            high = row.get("high", inj["death_threshold"] - 1)
            cell = {k: widgets.IntText(value=v, layout=widgets.Layout(width="6em"))
                    for k, v in (("low", row["low"]), ("high", high),
                                 ("modifier", row["modifier"]))}
            for w in cell.values():
                w.observe(self._table_edited, names="value")
            items += [widgets.Label(row["en"]), cell["low"], cell["high"], cell["modifier"]]
            cells.append(cell)
        grid = widgets.GridBox(items, layout=widgets.Layout(
            grid_template_columns="14em 7em 7em 7em", max_height="18em", overflow="auto"))
        return grid, cells

    def sync(self) -> None:
        super().sync()
        self._syncing = True
        try:
            inj = self.rules["injuries"]
            for row, cell in zip(inj["table"], self.cells):
                for key, w in cell.items():
                    value = row.get(key, inj["death_threshold"] - 1)
                    if w.value != value:
                        w.value = value
        finally:
            self._syncing = False

    def _table_edited(self, _change=None) -> None:
        if self._syncing:
            return
        rows = [dict(row, **{k: int(w.value) for k, w in cell.items()})
                for row, cell in zip(self.rules["injuries"]["table"], self.cells)]
        self.set_rules({"injuries": {"table": rows}})

    def _state(self) -> tuple:
        """What the figure shows for the controls and rules now: the outcome surface, the
        curves (0-3 wounds and the chosen count), the bands and the wall (computed once for
        an :meth:`update` and the full :meth:`draw` that may follow it)."""
        rules = self.rules
        hp, n = self.negative_hp.value, self.wounds.value
        key = (hp, n, rules)
        if self._computed is None or self._computed[0] != key:
            self.curve_wounds = sorted({0, 1, 2, 3, n})
            # the seconds axis keeps the starting rules' extent while the wall moves inside it
            # (death is certain past the wall), and past it grows by FRAME_STEP seconds at a
            # time: the frame and its ticks stay, so a drag of the wall redraws only the curves
            wall = rules["injuries"]["automatic_death_seconds"]
            until = self.base["injuries"]["automatic_death_seconds"]
            if wall > until:
                until = -(-wall // FRAME_STEP) * FRAME_STEP
            surface = data.death_surface(negative_hp=[hp], wounds=self.curve_wounds,
                                         rules=rules, until=until)
            self._computed = (key, (surface, death_curve_data(surface),
                                    injury_band_data(surface, negative_hp=hp, wounds=n),
                                    rules["injuries"]["automatic_death_seconds"]))
        return self._computed[1]

    def draw(self) -> None:
        rules = self.rules
        auto = rules["injuries"]["automatic_death_seconds"]
        if self.seconds.max != auto:  # the state follows the wall (no redraw meanwhile)
            self.seconds.unobserve(self._seconds_moved, names="value")
            try:
                self.seconds.max = auto
            finally:
                self.seconds.observe(self._seconds_moved, names="value")
        s, hp, n = self.seconds.value, self.negative_hp.value, self.wounds.value
        surface, curves, bands, wall = self._state()
        left, right = self.axes
        death_curves(surface, ax=left, rules=rules)
        injury_bands(surface, negative_hp=hp, wounds=n, ax=right)
        state_marker(left, s)
        state_marker(right, s, colour="white")
        self._shown = (curves, bands, wall)
        self._lines = [line for line in left.get_lines() if line.get_gid() not in ("wall", "state")]
        self._states = [ax.get_lines()[-1] for ax in self.axes]
        self._title = next(t for t in right.get_children()
                           if isinstance(t, Text) and t.get_text() == bands.title)
        # drawn over the saved background with all that was drawn (see Explorer.refresh):
        # the title that names the state, and the grid above the bands, as in the report
        self.moving, self.ticks_over = [self._title], [right]
        self._drawn = (hp, n, rules)
        self._read_out()

    def update(self) -> bool:
        """Negative HP, wounds, the death threshold or a table cell: when the curves keep
        their seconds and styles, the bands their entries and the wall its place, the lines,
        bands, legend labels and title change in place (no new axes, ticks or legend)."""
        if self._unprintable():
            return False
        _, curves, bands, wall = self._state()
        shown_curves, shown_bands, shown_wall = self._shown
        if (wall != shown_wall or len(curves) != len(shown_curves)
                or bands.labels != shown_bands.labels or bands.colours != shown_bands.colours
                or not np.array_equal(bands.seconds, shown_bands.seconds)
                or any(c.colour != d.colour or c.linestyle != d.linestyle
                       or not np.array_equal(c.x, d.x) for c, d in zip(curves, shown_curves))):
            return False
        legend = self.axes[0].get_legend().get_texts()
        for line, label, curve in zip(self._lines, legend, curves):
            line.set_ydata(curve.y)
            line.set_label(curve.label)
            label.set_text(curve.label)
        # the bands' edges as stackplot stacks them
        edges = np.vstack([np.zeros(bands.seconds.size), np.cumsum(bands.heights, axis=0)])
        for poly, lower, upper in zip(self.axes[1].collections, edges[:-1], edges[1:]):
            poly.set_data(bands.seconds, lower, upper)
        self._title.set_text(bands.title)
        for line in self._states:
            line.set_xdata([self.seconds.value] * 2)
        self._shown = (curves, bands, wall)
        self._drawn = (self.negative_hp.value, self.wounds.value, self.rules)
        self._read_out()
        return True

    def _seconds_moved(self, _change=None) -> None:
        """The seconds slider: the curves and bands stay, the state lines move (blitted)."""
        if self._drawn != (self.negative_hp.value, self.wounds.value, self.rules) \
                or self.error is not None:
            self.refresh()
            return
        s = self.seconds.value
        for line in self._states:
            line.set_xdata([s, s])
        self._read_out()
        if not self.move():
            self.refresh()

    def _read_out(self) -> None:
        rules = self.rules
        s, hp, n = self.seconds.value, self.negative_hp.value, self.wounds.value
        probs = injury_rules.injury_probabilities(s, hp, n, rules=rules)
        mods = np.array([r["modifier"] for r in rules["injuries"]["table"]])
        bands = ", ".join(f"{m}: {_percent(probs[:-1][mods == m].sum())}"
                          for m in sorted(set(mods.tolist()), reverse=True))
        self.readout.value = (
            f"<b>{s} s at -{hp} HP, {n} wound{'s' if n != 1 else ''}</b>: death "
            f"<b>{_percent(probs[-1])}</b> (exact); injuries by test modifier: {bands}")


class NegotiationExplorer(Explorer):
    """Expected price change against the ask X (core rules, negotiation), live: Psychology and the
    rule's
    two divisors (``negotiation.partial_divisor``, ``negotiation.full_divisor``); the bundled
    rule's curve is drawn for comparison."""

    over_background = True

    def __init__(self, rules: Rules | str | os.PathLike | None = None) -> None:
        super().__init__(rules, figsize=(9.0, 3.8), margins={"right": 0.96})
        neg = self.rules["negotiation"]
        self.psychology = slider("Psychology", 12, 1, self.rules["d20"]["die"])
        self.partial_divisor = slider("partial divisor", neg["partial_divisor"], 1, 10)
        self.full_divisor = slider("full divisor", neg["full_divisor"], 1, 10)
        self.psychology.observe(self.refresh, names="value")
        for key in ("partial_divisor", "full_divisor"):
            self.bind(getattr(self, key), f"negotiation.{key}")
        self._layout(widgets.HBox([self.psychology,
                                   widgets.VBox([self.partial_divisor, self.full_divisor])]))
        self.refresh()

    def draw(self) -> None:
        psy = self.psychology.value
        table = data.negotiation_table([psy], rules=self.rules)
        ax = self.axes[0]
        negotiation_curves(table, ax=ax)
        if self.rules != self.base:
            base = data.negotiation_table([psy], rules=self.base)
            ax.plot(base["ask"], base["expected_change"], color="#999999", linestyle="--",
                    label="before the edit", gid="base")
            ax.legend(fontsize=8, frameon=False)
        best = negotiation_rules.best_ask(psy, rules=self.rules)
        out = negotiation_rules.ask_outcomes(psy, best, rules=self.rules)
        self.readout.value = (
            f"Psychology {psy}: best ask <b>X = {best} %</b>, expected change "
            f"<b>{out['expected_change']:.2f} %</b> (unchanged {_percent(out['unchanged'])}, "
            f"partial {_percent(out['partial'])}, full {_percent(out['full'])}; exact)")


class TreatmentExplorer(Explorer):
    """Cure chance and expected time against Cunning by injury band (core rules, treating injuries), live:
    each
    level's Cunning bonus and retry interval (``treatment.<level>.bonus``,
    ``treatment.<level>.retry_minutes``)."""

    over_background = True

    def __init__(self, rules: Rules | str | os.PathLike | None = None) -> None:
        super().__init__(rules, ncols=2, figsize=(11.0, 3.8),
                         margins={"left": 0.06, "right": 0.98, "wspace": 0.2})
        self.levels = [k for k, v in self.rules["treatment"].items()
                       if hasattr(v, "keys") and "bonus" in v]
        self.cunning = slider("Cunning", 12, 1, self.rules["d20"]["die"])
        self.cunning.observe(self.refresh, names="value")
        self.bonus, self.retry = {}, {}
        columns = []
        for key in self.levels[:2]:
            level = self.rules["treatment"][key]
            self.bonus[key] = slider(f"{level['en']}: bonus", level["bonus"], -20, 20)
            self.retry[key] = widgets.BoundedIntText(
                value=level["retry_minutes"], min=0, max=10**7, description=
                f"{level['en']}: retry (min)", style=_STYLE, layout=_WIDE)
            self.bind(self.bonus[key], f"treatment.{key}.bonus")
            self.bind(self.retry[key], f"treatment.{key}.retry_minutes")
            columns.append(widgets.VBox([self.bonus[key], self.retry[key]]))
        self._layout(self.cunning, widgets.HBox(columns))
        self.refresh()

    def draw(self) -> None:
        table = treatment_rules.cure_table(levels=tuple(self.levels[:2]), rules=self.rules)
        names = list(dict.fromkeys(table["level"]))
        for ax, name in zip(self.axes, names):
            treatment_curves(table, level=name, ax=ax, rules=self.rules)
            state_marker(ax, self.cunning.value)
        c = self.cunning.value
        rows = table[table["cunning"] == c]
        cells = "".join(
            f"<tr><td>{html.escape(str(r.level))}</td><td>{r.modifier}</td>"
            f"<td>{_percent(r.chance)}</td><td>{r.expected_hours:.1f} h</td></tr>"
            for r in rows.itertuples())
        self.readout.value = (f"<b>Cunning {c}</b> (exact)<table><tr><th>level</th>"
                              f"<th>band</th><th>chance</th><th>expected time</th></tr>"
                              f"{cells}</table>")


def injuries(rules: Rules | str | os.PathLike | None = None) -> InjuryExplorer:
    """A live explorer of dying and critical injuries (core rules, critical injuries).

    Parameters
    ----------
    rules : Rules, path or None
        The rules to start from (default: bundled).

    Returns
    -------
    InjuryExplorer
        The widget (display it in a notebook); ``.rules`` is the variant being edited,
        ``.save("variant.toml")`` writes it, ``.error`` is the one-line error shown, if any.
        Sliders ``seconds``, ``negative_hp``, ``wounds``, ``death_threshold``,
        ``automatic_death_seconds``; ``cells[row]["low" | "high" | "modifier"]`` the grid.

    Raises
    ------
    RulesError
        When ``rules`` names a file that does not load.

    Examples
    --------
    >>> import balance as bl
    >>> e = bl.explore.injuries()
    >>> e.wounds.value = 2          # 40 s at -6 HP: 1d100 + 3 x 46 >= 176 on 38..100
    >>> [round(float(p), 2) for p in e.axes[0].get_lines()[2].get_ydata()[[0, 40]]]
    [0.0, 0.63]
    """
    return InjuryExplorer(rules)


def negotiation(rules: Rules | str | os.PathLike | None = None) -> NegotiationExplorer:
    """A live explorer of the Psychology negotiation (core rules, negotiation).

    Parameters
    ----------
    rules : Rules, path or None
        The rules to start from (default: bundled).

    Returns
    -------
    NegotiationExplorer
        The widget: sliders ``psychology``, ``partial_divisor``, ``full_divisor``; ``.rules``,
        ``.save(path)``, ``.error``, ``.figure`` and ``.readout`` as every explorer.

    Raises
    ------
    RulesError
        When ``rules`` names a file that does not load.

    Examples
    --------
    >>> import balance as bl
    >>> e = bl.explore.negotiation()
    >>> e.full_divisor.value = 3
    >>> e.rules["negotiation"]["full_divisor"]
    3
    """
    return NegotiationExplorer(rules)


def treatment(rules: Rules | str | os.PathLike | None = None) -> TreatmentExplorer:
    """A live explorer of treating injuries (core rules, treating injuries).

    Parameters
    ----------
    rules : Rules, path or None
        The rules to start from (default: bundled).

    Returns
    -------
    TreatmentExplorer
        The widget: slider ``cunning``, ``bonus[level]`` and ``retry[level]`` for the first two
        treatment levels; ``.rules``, ``.save(path)``, ``.error`` as every explorer.

    Raises
    ------
    RulesError
        When ``rules`` names a file that does not load.

    Examples
    --------
    >>> import balance as bl
    >>> e = bl.explore.treatment()
    >>> e.bonus["light"].value = 4
    >>> e.rules["treatment"]["light"]["bonus"]
    4
    """
    return TreatmentExplorer(rules)
