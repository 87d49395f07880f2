"""What every topic's ``render`` shares: the context and the provenance block."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...rules import Rules
from ..labels import count, text
from ..model import Figure, Section, Table

__all__ = ["Context", "make_section", "fmt_percent", "fmt_prob", "fmt_interval", "fmt_estimate",
           "short_value"]


@dataclass(frozen=True)
class Context:
    rules: Rules
    settings: Any
    lang: str

    def t(self, key: str, **fields: object) -> str:
        return text(key, self.lang, **fields)


def short_value(value: object, width: int = 48) -> str:
    """A rules value for a footnote: scalars as they are, tables named as such."""
    from collections.abc import Mapping

    if isinstance(value, Mapping):
        return "{…}"
    if isinstance(value, (tuple, list)):
        return f"[{len(value)} × {{…}}]" if any(isinstance(v, Mapping) for v in value) \
            else _cut(repr(list(value)), width)
    return _cut(repr(value), width)


def _cut(text_: str, width: int) -> str:
    return text_ if len(text_) <= width else text_[:width - 1] + "…"


def _assumed_lines(rules: Rules, sections: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(f"{k} = {short_value(rules.get(k, None))}"
                 for k in rules.assumed_under(*sections))


def make_section(ctx: Context, key: str, *, title: str, text_key: str | None = None,
                 rules_sections: tuple[str, ...] = (), figures: tuple[Figure, ...] = (),
                 tables: tuple[Table, ...] = (), simulated: list | None = None,
                 text_fields: dict | None = None, notes: tuple[str, ...] | None = None
                 ) -> Section:
    """A section with its provenance: rules fingerprint, assumed values of ``rules_sections``,
    and for Monte Carlo sections (``simulated``: the Simulation/MCResult objects shown) their
    trials and seed. ``notes`` replaces the default note (exact or Monte Carlo)."""
    provenance = [(ctx.t("fingerprint"), ctx.rules.fingerprint)]
    if simulated:
        trials = ", ".join(count(n, ctx.lang) for n in sorted({int(s.trials) for s in simulated}))
        seeds = ", ".join(sorted({str(s.seed) for s in simulated}))
        provenance += [(ctx.t("trials"), trials), (ctx.t("seed"), seeds)]
        default = (ctx.t("mc_note", trials=trials, seed=seeds),)
    else:
        default = (ctx.t("exact_note"),)
    return Section(key=key, title=ctx.t(title),
                   text=ctx.t(text_key, **(text_fields or {})) if text_key else "",
                   figures=tuple(figures), tables=tuple(tables), provenance=tuple(provenance),
                   assumed=_assumed_lines(ctx.rules, rules_sections),
                   notes=default if notes is None else tuple(notes))


def fmt_percent(x: float, digits: int = 2) -> str:
    """A value already in percent (``12.345`` -> ``"12.35 %"``)."""
    return f"{x:.{digits}f} %"


def fmt_prob(p: float, digits: int = 1) -> str:
    """A probability as a percentage (``0.1234`` -> ``"12.3 %"``)."""
    return fmt_percent(100 * p, digits)


def fmt_interval(low: float, high: float, digits: int = 2) -> str:
    """A 95 % interval as percentages (``"12.30 % – 12.41 %"``)."""
    return f"{fmt_prob(low, digits)} – {fmt_prob(high, digits)}"


def fmt_estimate(p: float, low: float, high: float, digits: int = 1) -> str:
    """An estimate with its 95 % interval (``"12.3 % (11.0 % – 13.6 %)"``)."""
    return f"{fmt_prob(p, digits)} ({fmt_interval(low, high, digits)})"
