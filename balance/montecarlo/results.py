"""What a Monte Carlo twin or process simulation hands back: tidy tables plus provenance."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pandas is imported where a frame is built (a fast start)
    import pandas as pd

__all__ = ["Simulation"]


@dataclass(frozen=True)
class Simulation:
    """A simulated answer.

    Attributes
    ----------
    table : DataFrame
        The main tidy result, each estimate with ``ci_low``, ``ci_high`` (95 %) and ``se``.
    result : MCResult
        The engine's raw accumulators (``.totals``), trials, seed and rules fingerprint.
    extra : dict of DataFrame
        Further tables (e.g. a curve over rescue times), each tidy with its intervals.
    spec : object, optional
        What was simulated (e.g. the GM guide fight's FightSpec), kept here rather than in
        ``table.attrs``, which pandas deep-copies on every derived frame.
    """

    table: pd.DataFrame
    result: Any
    extra: dict[str, pd.DataFrame] = field(default_factory=dict)
    spec: Any = None

    @property
    def trials(self) -> int:
        return self.result.trials

    @property
    def seed(self):
        return self.result.seed

    @property
    def fingerprint(self) -> str:
        return self.result.fingerprint

    def __getitem__(self, name: str) -> pd.DataFrame:
        return self.table if name == "table" else self.extra[name]

    def _repr_html_(self) -> str:  # notebooks
        head = (f"<p><b>{self.trials:,}</b> trials, seed {self.seed!r}, rules "
                f"<code>{self.fingerprint}</code></p>")
        return head + self.table._repr_html_()  # type: ignore[operator]  # not in pandas-stubs
