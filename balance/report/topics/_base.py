"""What every topic's ``render`` shares: the context and the provenance block."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import pandas as pd

from ...rules import Rules
from ...labels import count, decimal, decimal_mark, text
from ..model import Figure, Section, Table

__all__ = ["Context", "make_section", "fmt_percent", "fmt_prob", "fmt_interval", "fmt_estimate",
           "short_value", "localise_frame"]


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


def _assumed_lines(rules: Rules, sections: tuple[str, ...], lang: str = "en"
                   ) -> tuple[str, ...]:
    def shown(value: object) -> str:  # a boolean in the report's language
        return text("yes" if value else "no", lang) if isinstance(value, bool) \
            else short_value(value)

    return tuple(f"{k} = {shown(rules.get(k, None))}" for k in rules.assumed_under(*sections))


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
                   figures=tuple(figures),
                   tables=tuple(dataclasses.replace(t, frame=localise_frame(t.frame, ctx.lang))
                                for t in tables), provenance=tuple(provenance),
                   assumed=_assumed_lines(ctx.rules, rules_sections, ctx.lang),
                   notes=default if notes is None else tuple(notes))


def localise_frame(frame: pd.DataFrame, lang: str) -> pd.DataFrame:
    """``frame`` with its non-integer float cells, index and column labels written with the
    language's decimal mark (English frames are returned as they are)."""
    if lang == "en":
        return frame

    def one(v: object) -> object:
        if isinstance(v, float):
            return decimal_mark(str(v), lang)
        return v

    def labels(index: pd.Index) -> pd.Index:
        if isinstance(index, pd.MultiIndex):
            return index.set_levels([lv.map(one) for lv in index.levels])  # type: ignore[misc]  # pandas-stubs: levels may be Index
        return index if isinstance(index, pd.RangeIndex) else index.map(one)

    out = frame.copy()
    floats = [c for c in out.columns if pd.api.types.is_float_dtype(out[c])]
    for c in floats:
        out[c] = out[c].map(lambda v: v if pd.isna(v) else one(float(v))).astype(object)
    out.index = labels(out.index)
    out.columns = labels(out.columns)
    return out


def fmt_percent(x: float, digits: int = 2, lang: str = "en") -> str:
    """A value already in percent (``12.345`` -> ``"12.35 %"``, French ``"12,35 %"``)."""
    return f"{decimal(x, digits, lang)} %"


def fmt_prob(p: float, digits: int = 1, lang: str = "en") -> str:
    """A probability as a percentage (``0.1234`` -> ``"12.3 %"``, French ``"12,3 %"``)."""
    return fmt_percent(100 * p, digits, lang)


def fmt_interval(low: float, high: float, digits: int = 2, lang: str = "en") -> str:
    """A 95 % interval as percentages (``"12.30 % – 12.41 %"``)."""
    return f"{fmt_prob(low, digits, lang)} – {fmt_prob(high, digits, lang)}"


def fmt_estimate(p: float, low: float, high: float, digits: int = 1, lang: str = "en") -> str:
    """An estimate with its 95 % interval (``"12.3 % (11.0 % – 13.6 %)"``)."""
    return f"{fmt_prob(p, digits, lang)} ({fmt_interval(low, high, digits, lang)})"
