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

from ..errors import RulesError
from ..plots._style import printable
from ..rules import Rules, resolve
from ..rules.loader import merged as merge
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
        #: artists :meth:`move` redraws alone (set by :meth:`draw`); the last background
        self.moving: list[Any] = []
        self._background: Any = None

    def _layout(self, *controls: widgets.Widget) -> None:
        self.children = (*controls, self.message, self.image, self.readout)

    # -- rules ---------------------------------------------------------------------------
    def bind(self, widget: widgets.ValueWidget, path: str) -> widgets.ValueWidget:
        """Make ``widget`` edit the rule at the dotted ``path`` (e.g. ``"fights.pc_wounds"``)."""
        def edited(change: dict) -> None:
            if not self._syncing:
                tree: dict = {}
                node = tree
                *parents, leaf = path.split(".")
                for part in parents:
                    node = node.setdefault(part, {})
                node[leaf] = change["new"]
                self.set_rules(tree)
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

    def refresh(self, *_: Any) -> None:
        """Recompute and redraw; an error of the computation is shown as one line."""
        start = time.perf_counter()
        try:
            for ax in self.axes:
                ax.clear()
            self.moving, self._background = [], None
            self.draw()
        except (RulesError, ValueError) as exc:
            self._show_error(exc)
            return
        self.timings["draw"] = time.perf_counter() - start
        self._clear_error()
        self.render()

    def render(self) -> None:
        """Render the figure to the PNG of the ``Image`` widget.

        The artists of :attr:`moving` (markers of the state a slider moves) are drawn over a
        saved background, so :meth:`move` redraws only them."""
        start = time.perf_counter()
        if self._unprintable():  # names from a rules file may hold control characters
            printable(self.figure)
        canvas = self.figure.canvas
        for artist in self.moving:
            artist.set_visible(False)
        canvas.draw()
        self._background = canvas.copy_from_bbox(self.figure.bbox)  # type: ignore[attr-defined]
        for artist in self.moving:
            artist.set_visible(True)
        self._show(start)

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

        for artist in self.moving:
            artist.axes.draw_artist(artist)
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
                                        for t in _texts(rules.to_dict()))
        return self._needs_printable

    # -- saving --------------------------------------------------------------------------
    def save(self, path: str | os.PathLike, *, overwrite: bool = False) -> Path:
        """Write the variant being edited to ``path``: only what differs from the bundled
        rules (:meth:`balance.Rules.save`; ``load_rules(path) == self.rules``). An existing
        file is replaced only with ``overwrite=True``. Returns the path."""
        return self.rules.save(path, overwrite=overwrite)
