"""What every explorer shares: the rules being edited, the one-line error, the figure, save.

An explorer is an ``ipywidgets.VBox``: controls, a line for the rules' error (empty when the
variant is valid), the figure (rendered to PNG in an ``Image`` widget, so it shows the same
in JupyterLab, in a saved notebook and headless) and a readout. Every control that edits a
rule builds the variant with ``rules.updated({...})``; a refused variant shows the
``RulesError`` as its one line and ``.rules`` stays the last valid variant.
"""
from __future__ import annotations

import html
import io
import os
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import ipywidgets as widgets
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.text import Text

from ..errors import RulesError
from ..plots._style import printable
from ..rules import Rules, resolve
from ..rules.loader import merged as merge
from ..rules.tables import nested
from ..text import plain_text

__all__ = ["Explorer", "merge", "one_line"]


def _texts(tree: Any) -> Iterator[str]:
    """Every string of a rules tree (keys and values)."""
    if isinstance(tree, Mapping):
        for key, value in tree.items():
            if isinstance(key, str):
                yield key
            yield from _texts(value)
    elif isinstance(tree, (list, tuple)):
        for value in tree:
            yield from _texts(value)
    elif isinstance(tree, str):
        yield tree


def _drawn(ax: Any) -> list[Any]:
    """What a draw put on ``ax``: lines, filled areas, texts, patches, images, its legend."""
    legend = ax.get_legend()
    return [*ax.lines, *ax.collections, *ax.texts, *ax.patches, *ax.images, *ax.artists,
            *([legend] if legend is not None else [])]


_TICK_LINES = ("gridline", "tick1line", "tick2line")  # the order a tick draws them in


def _tick_lines(ax: Any) -> list[tuple[Any, Any, Any]]:
    """The grid lines and tick marks of ``ax`` inside its view (what a draw of its axes
    shows besides the labels), each as ``(ax, its axis, line)``, in drawing order."""
    lines = []
    for axis, lo_hi in ((ax.xaxis, ax.get_xlim()), (ax.yaxis, ax.get_ylim())):
        lo, hi = sorted(lo_hi)
        slack = 1e-9 * max(1.0, hi - lo)
        for tick in axis.get_major_ticks():
            if lo - slack <= tick.get_loc() <= hi + slack:
                lines += [(ax, axis, line) for line in (getattr(tick, name) for name in
                                                        _TICK_LINES) if line.get_visible()]
    return lines


def _hide_tick_lines(ax: Any) -> list[tuple[Any, str, bool]]:
    """Hide the grid lines and tick marks of ``ax`` (filled areas drawn over the background
    would cover them); returns how to show them again (:func:`_show_tick_lines`)."""
    shown = [(axis, name, getattr(axis.get_major_ticks()[0], name).get_visible())
             for axis in (ax.xaxis, ax.yaxis) for name in _TICK_LINES]
    for axis, name, _ in shown:
        for tick in axis.get_major_ticks():
            getattr(tick, name).set_visible(False)
    return shown


def _show_tick_lines(shown: list[tuple[Any, str, bool]]) -> None:
    """Show them as before (ticks made during the draw copied the first tick's lines)."""
    for axis, name, visible in shown:
        for tick in axis.get_major_ticks():
            getattr(tick, name).set_visible(visible)


def _in_draw_order(items: list[tuple[Any, Any, Any]]) -> list[tuple[Any, Any]]:
    """``(axes, owner, artist)`` items as ``(axes, artist)`` in the order a figure draws
    them: axes by axes, then by the owner's z-order and, at equal z-order, in the order the
    axes holds its children (the owner of a grid line is its axis, else the artist)."""
    def key(item: tuple[Any, Any, Any]) -> tuple:
        ax, owner, _ = item
        rank = next(i for i, child in enumerate(ax.get_children()) if child is owner)
        return (ax.figure.axes.index(ax), owner.get_zorder(), rank)
    return [(ax, artist) for ax, _, artist in sorted(items, key=key)]


def one_line(error: BaseException) -> str:
    """An error as the one line a designer reads (its first line, no traceback)."""
    lines = str(error).strip().splitlines()
    return lines[0] if lines else type(error).__name__


class Explorer(widgets.VBox):
    """Base of the explorers: ``.rules``, ``.error``, ``.figure``, ``.save(path)``.

    Subclasses build their controls, call :meth:`_layout`, and implement :meth:`draw`
    (compute with the exact functions or a Monte Carlo run, then plot on ``self.figure``).
    """

    def __init__(self, rules: Rules | str | os.PathLike | None, *, figsize=(10.0, 3.8),
                 ncols: int = 1, dpi: int = 80, margins: dict | None = None) -> None:
        super().__init__()
        self.base: Rules = resolve(rules)
        self.rules: Rules = self.base
        #: the one-line error shown, or None
        self.error: str | None = None
        self._rules_error: str | None = None
        self._bindings: list[tuple[widgets.ValueWidget, str]] = []
        self._syncing = False
        self._overrides: dict = {}
        self.dpi = dpi
        # fixed margins, room for the legends on the right: a constrained layout would cost
        # more than the whole redraw at every render
        self.figure = Figure(figsize=figsize, dpi=dpi)  # drawn at its own dpi (blitting)
        FigureCanvasAgg(self.figure)
        self.axes = list(self.figure.subplots(1, ncols, squeeze=False)[0])
        self.figure.subplots_adjust(**{"left": 0.07, "right": 0.78, "bottom": 0.15,
                                       "top": 0.9, "wspace": 0.8, **(margins or {})})
        self.message = widgets.HTML(value="", layout=widgets.Layout(min_height="1.5em"))
        self.image = widgets.Image(format="png")
        self.readout = widgets.HTML(value="")
        #: seconds of the last :meth:`draw` (compute + plot) and of the last PNG render
        self.timings: dict[str, float] = {}
        self._printable_key: tuple[str, str] | None = None
        self._needs_printable = False
        #: artists :meth:`move` redraws alone (set by :meth:`draw`), axes whose grid lines and
        #: tick marks are drawn over them, what is drawn over the background (in order) and
        #: the last background
        self.moving: list[Any] = []
        self.ticks_over: list[Any] = []
        self._over: list[Any] = []
        self._background: Any = None
        self._background_key: tuple | None = None

    def _layout(self, *controls: widgets.Widget) -> None:
        self.children = (*controls, self.message, self.image, self.readout)

    # -- rules ---------------------------------------------------------------------------
    def bind(self, widget: widgets.ValueWidget, path: str) -> widgets.ValueWidget:
        """Make ``widget`` edit the rule at the dotted ``path`` (e.g. ``"fights.pc_wounds"``)."""
        def edited(change: dict) -> None:
            if not self._syncing:
                self.set_rules(nested(path, change["new"]))
        widget.observe(edited, names="value")
        self._bindings.append((widget, path))
        return widget

    def sync(self) -> None:
        """Set every bound control to the value of ``.rules`` (after a refusal elsewhere, a
        control may still show a value that was not kept)."""
        self._syncing = True
        try:
            for widget, path in self._bindings:
                value = self.rules.get(path)
                if widget.value != value:
                    widget.value = value
        finally:
            self._syncing = False

    def set_rules(self, overrides: Mapping) -> bool:
        """Try the variant ``base + what was changed before + overrides``.

        Valid: ``.rules`` becomes it and the figure is redrawn; refused: the ``RulesError``
        (or ``ValueError``) is shown as one line and ``.rules`` is kept. Returns whether the
        variant was accepted.
        """
        candidate = merge(self._overrides, overrides)
        try:
            rules = self.base.updated(candidate, source="<explorer>")
        except (RulesError, ValueError) as exc:
            self._rules_error = one_line(exc)
            self._show_error(exc)
            return False
        self._overrides, self.rules, self._rules_error = candidate, rules, None
        self.sync()
        self.refresh()
        return True

    def _show_error(self, exc: BaseException) -> None:
        self.error = one_line(exc)
        self.message.value = (f'<span style="color:#B00020">&#9888; {html.escape(self.error)}'
                              "</span>")

    def _clear_error(self) -> None:
        if self._rules_error:  # a control still holds a refused value: keep saying so
            self._show_error(RulesError(self._rules_error))
            return
        self.error = None
        self.message.value = ""

    # -- drawing -------------------------------------------------------------------------
    def draw(self) -> None:  # pragma: no cover - each explorer draws its own figure
        raise NotImplementedError

    #: whether every change is drawn over a saved background (then :meth:`draw` must set
    #: the same kinds of axes each time, and :attr:`moving` also gets everything drawn)
    over_background = False

    def clear_axes(self) -> None:
        """Empty the axes before :meth:`draw`: ``Axes.clear``, or, over a background, only
        remove what was drawn (keeping the ticks: re-creating them costs about 40 ms)."""
        for ax in self.axes:
            if not self.over_background:
                ax.clear()
                continue
            for artist in _drawn(ax):
                artist.remove()
            ax.relim()  # the data limits of what is drawn next, not of what was removed
            ax.set_autoscale_on(True)

    def update(self) -> bool:
        """Change the data of the drawn artists in place when the figure keeps its layout
        (same axes limits, ticks, legends' entries); True if done, False for a full redraw.
        The artists changed must be in :attr:`moving`. Explorers that can, override it."""
        return False

    def refresh(self, *_: Any) -> None:
        """Recompute and redraw (in place when :meth:`update` can, else from scratch); an
        error of the computation is shown as one line."""
        start = time.perf_counter()
        try:
            in_place = self._background is not None and self.update()
            if not in_place:
                self.clear_axes()
                self.moving, self.ticks_over = [], []
                self.draw()
                if self.over_background:
                    extra = [artist for ax in self.axes for artist in
                             [*_drawn(ax), *(s for s in ax.spines.values() if s.get_visible())]]
                    self.moving = list({id(a): a for a in [*self.moving, *extra]}.values())
        except (RulesError, ValueError) as exc:
            self._background = None  # artists may be half updated: the next refresh redraws
            self._show_error(exc)
            return
        self.timings["draw"] = time.perf_counter() - start
        self._clear_error()
        if not (in_place and self.move()):
            self.render()

    def render(self) -> None:
        """Render the figure to the PNG of the ``Image`` widget.

        The artists of :attr:`moving` (those a control changes without changing the layout)
        are left out of a saved background, then drawn over it in the order the axes draw
        them, with the grid lines and tick marks of the axes in :attr:`ticks_over` (drawn
        above filled areas, as in the report's figures); so :meth:`move` redraws only them."""
        start = time.perf_counter()
        if self._unprintable():  # names from a rules file may hold control characters
            printable(self.figure)
        canvas = self.figure.canvas
        key = self._static_key()
        if (self._background is not None and key is not None
                and key == self._background_key):  # the saved background still holds
            canvas.restore_region(self._background)  # type: ignore[attr-defined]
        else:
            self._draw_background()
            self._background_key = key
        self._over = _in_draw_order([(a.axes, a, a) for a in self.moving]
                                    + [item for ax in self.ticks_over for item in _tick_lines(ax)])
        self._show(start)

    def _static_key(self) -> tuple | None:
        """What the background shows (figure size, each axes' place, limits, ticks, scales,
        labels, titles and frame), or None when an artist of an axes that is not in
        :attr:`moving` would be in it: a background is reused only while this is equal."""
        if self._unprintable():
            return None
        moving = {id(artist) for artist in self.moving}
        key: list = [tuple(self.figure.get_size_inches()), self.figure.dpi,
                     tuple(t.get_text() for t in self.figure.texts),
                     tuple(i for i, ax in enumerate(self.axes) if ax in self.ticks_over)]
        for ax in self.axes:
            if any(id(artist) not in moving for artist in _drawn(ax)):
                return None
            key.append((ax.get_position().bounds, ax.get_xlim(), ax.get_ylim(),
                        ax.get_xscale(), ax.get_yscale(), ax.get_xlabel(), ax.get_ylabel(),
                        tuple(ax.get_xticks()), tuple(ax.get_yticks()),
                        tuple(c.get_text() for c in ax.get_children()
                              if isinstance(c, Text) and id(c) not in moving),
                        tuple(name for name, spine in ax.spines.items()
                              if spine.get_visible() and id(spine) not in moving)))
        return tuple(key)

    def _draw_background(self) -> None:
        """Draw the figure without :attr:`moving` and save it as the background."""
        canvas = self.figure.canvas
        # texts are blanked, not hidden: matplotlib places a hidden title far above its axes
        texts = [(artist, artist.get_text()) for artist in self.moving if isinstance(artist, Text)]
        others = [artist for artist in self.moving if not isinstance(artist, Text)]
        for artist in others:
            artist.set_visible(False)
        for artist, _ in texts:
            artist.set_text("")
        ticks = [_hide_tick_lines(ax) for ax in self.ticks_over]
        canvas.draw()
        self._background = canvas.copy_from_bbox(self.figure.bbox)  # type: ignore[attr-defined]
        for artist in others:
            artist.set_visible(True)
        for artist, value in texts:
            artist.set_text(value)
        for shown in ticks:
            _show_tick_lines(shown)

    def move(self) -> bool:
        """Redraw only the :attr:`moving` artists (after their data changed) over the
        background of the last :meth:`render`; False (nothing done) without one."""
        if self._background is None or not self.moving:
            return False
        start = time.perf_counter()
        self.figure.canvas.restore_region(self._background)  # type: ignore[attr-defined]
        self._show(start)
        return True

    def _show(self, start: float) -> None:
        from PIL import Image

        for ax, artist in self._over:
            ax.draw_artist(artist)
        pixels = np.asarray(self.figure.canvas.buffer_rgba())  # type: ignore[attr-defined]
        buffer = io.BytesIO()
        # zlib level 1: half the encoding time of the default 6 for a PNG ~7 % larger
        Image.fromarray(pixels).save(buffer, format="png", compress_level=1)
        self.image.value = buffer.getvalue()
        self.timings["render"] = time.perf_counter() - start

    def _unprintable(self) -> bool:
        """Whether a text of the rules (base or edited) holds a control character: only then
        is every text of the figure cleaned (walking them costs a third of a render)."""
        key = (self.base.fingerprint, self.rules.fingerprint)
        if self._printable_key != key:
            self._printable_key = key
            self._needs_printable = any(plain_text(t) != t for rules in (self.base, self.rules)
                                        for t in _texts(rules))
        return self._needs_printable

    # -- saving --------------------------------------------------------------------------
    def save(self, path: str | os.PathLike, *, overwrite: bool = False) -> Path:
        """Write the variant being edited to ``path``: only what differs from the bundled
        rules (:meth:`balance.Rules.save`; ``load_rules(path) == self.rules``). An existing
        file is replaced only with ``overwrite=True``. Returns the path."""
        return self.rules.save(path, overwrite=overwrite)
