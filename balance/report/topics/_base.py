"""What every topic's ``render`` shares: the context and the provenance block."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...rules import Rules
from ..labels import text
from ..model import Figure, Section, Table

__all__ = ["Context", "make_section", "fmt_prob"]


@dataclass(frozen=True)
class Context:
    rules: Rules
    settings: Any
    lang: str

    def t(self, key: str, **fields: object) -> str:
        return text(key, self.lang, **fields)


def _assumed_lines(rules: Rules, sections: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(f"{k} = {rules.get(k, None)!r}" for k in rules.assumed_under(*sections))


def make_section(ctx: Context, key: str, *, title: str, text_key: str | None = None,
                 rules_sections: tuple[str, ...] = (), figures: tuple[Figure, ...] = (),
                 tables: tuple[Table, ...] = (), simulated: list | None = None,
                 text_fields: dict | None = None) -> Section:
    """A section with its provenance: rules fingerprint, assumed values of ``rules_sections``,
    and for Monte Carlo sections (``simulated``: the Simulation/MCResult objects shown) their
    trials and seed."""
    provenance = [(ctx.t("fingerprint"), ctx.rules.fingerprint)]
    notes = []
    if simulated:
        trials = sorted({int(s.trials) for s in simulated})
        seeds = sorted({str(s.seed) for s in simulated})
        provenance += [("trials", ", ".join(f"{n:,}" for n in trials)),
                       ("seed", ", ".join(seeds))]
        notes.append(ctx.t("mc_note", trials=", ".join(f"{n:,}" for n in trials),
                           seed=", ".join(seeds)))
    else:
        notes.append(ctx.t("exact_note"))
    return Section(key=key, title=ctx.t(title),
                   text=ctx.t(text_key, **(text_fields or {})) if text_key else "",
                   figures=tuple(figures), tables=tuple(tables), provenance=tuple(provenance),
                   assumed=_assumed_lines(ctx.rules, rules_sections), notes=tuple(notes))


def fmt_prob(p: float) -> str:
    """A probability as a percentage with one decimal (``0.1234`` -> ``"12.3 %"``)."""
    return f"{100 * p:.1f} %"
