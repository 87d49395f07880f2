"""Metrics of the core rules: d20 Tests, dying, critical injuries, negotiation.

Exact ones come from the closed forms of :mod:`balance.injuries`, :mod:`balance.d20` and
:mod:`balance.negotiation`; two Monte Carlo ones run :func:`balance.injuries.injury_sampler`
through :func:`balance.montecarlo.run` (one at a fixed point, which has an exact twin to check
the machinery against, one over random rescue times and overshoot damage).
"""
from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from ..core import d20, injuries, negotiation
from .. import dice
from ..errors import check_choice
from ..labels import agreed
from ..rng import RNGLike
from ..rules import Rules
from .metrics import Measurement, Metric, distribution, mc_counts, mc_proportion

__all__ = ["metrics", "delayed_rescue_sampler", "negotiation_rule", "NEGOTIATION_RULES"]

#: (seconds, negative HP, wounds) of the death-probability points in the catalogue
DEATH_POINTS = ((30, 5, 0), (40, 6, 1), (90, 10, 0), (60, 10, 1), (30, 5, 2), (120, 20, 0))
#: the surface averaged by "death.mean_surface" (and every second before the automatic death)
SURFACE = {"negative_hp": np.arange(1, 21), "wounds": np.arange(0, 4)}
#: the Monte Carlo rescue scenario: rescued after 2d20 s, at -1d10 HP, with 2 wounds
RESCUE: dict[str, Any] = {"arrival": "2d20", "negative_hp": "1d10", "wounds": 2}
#: the reference negotiators: Psychology 12 (core rules), CHA +2 vs difficulty 14 (GM guide)
PSYCHOLOGY, CHARISMA, DIFFICULTY, PRICE = 12, 2, 14, 200
NEGOTIATION_RULES = ("psychology", "charisma")


def _tag(seconds: int, hp: int, wounds: int) -> str:
    return f"{seconds}s,{hp}hp,{wounds}w"


def negotiation_rule(rules: Rules) -> str:
    """Which rule a price negotiation uses: ``rules["negotiation"]["rule"]``
    ("psychology", core rules, negotiation; or "charisma", GM guide, Charisma negotiation)."""
    return check_choice("negotiation.rule", rules["negotiation"].get("rule", "psychology"),
                        NEGOTIATION_RULES)


def _expected_price(rules: Rules) -> float:
    if negotiation_rule(rules) == "charisma":
        from ..guide import economy
        return float(economy.charisma_negotiation(PRICE, CHARISMA, DIFFICULTY,
                                                  rules=rules)["expected_price"])
    ask = negotiation.best_ask(PSYCHOLOGY, rules=rules)
    change = negotiation.ask_outcomes(PSYCHOLOGY, ask, rules=rules)["expected_change"]
    return float(PRICE * (1 - change / 100))


def _seconds_to_coinflip(rules: Rules, hp: int = 5, wounds: int = 0) -> float:
    seconds = np.arange(0, rules["injuries"]["automatic_death_seconds"] + 1)
    p = injuries.death_probability(seconds, hp, wounds, rules=rules)
    return float(seconds[np.argmax(p >= 0.5)])


def _outcomes(rules: Rules, seconds: int, hp: int, wounds: int) -> Measurement:
    table = injuries.injury_distribution(seconds, hp, wounds, rules=rules)
    return distribution(table["probability"], table["injury"])


def delayed_rescue_sampler(n: int, rng: np.random.Generator, *, arrival: str, negative_hp: str,
                           wounds: int, rules: Rules) -> dict[str, np.ndarray]:
    """Monte Carlo kernel: critical-injury rolls after a random time at random negative HP.

    Draws the rescue time and the overshoot for all ``n`` trials, groups the trials that roll
    alike (same roll modifier ``k``, same side of the automatic-death time), and lets
    :func:`balance.injuries.injury_sampler` roll each group with one representative (seconds,
    negative HP) -- a loop over distinct modifiers, never over trials. Returns
    ``{"rows": counts}`` over the injury table rows plus death (automatic or on the roll) last.
    """
    seconds = dice.sample(arrival, n, rng).astype(np.int64)
    hp = dice.sample(negative_hp, n, rng).astype(np.int64)
    k = np.asarray(injuries.roll_modifier(seconds, hp, wounds, rules=rules), dtype=np.int64)
    auto = seconds >= rules["injuries"]["automatic_death_seconds"]
    _, first, sizes = np.unique(np.where(auto, -1, k), return_index=True, return_counts=True)
    rows = np.zeros(len(rules["injuries"]["table"]) + 1, dtype=np.int64)
    for i, size in zip(first.tolist(), sizes.tolist()):
        rows += injuries.injury_sampler(size, rng, seconds=int(seconds[i]),
                                        negative_hp=int(hp[i]), wounds=wounds,
                                        rules=rules)["rows"]
    return {"rows": rows}


def _mc_rows(rules: Rules, trials: int, seed: RNGLike, sampler,
             workers: Any = 1) -> tuple[np.ndarray, object]:
    from .. import montecarlo
    res = montecarlo.run(sampler, trials, seed=seed, rules=rules, progress=False,
                         label="regression", workers=workers)
    return np.asarray(res.totals["rows"]), res


def _mc_death_point(rules: Rules, trials: int, seed: RNGLike, *, point,
                    workers: Any = 1) -> Measurement:
    s, hp, w = point
    rows, res = _mc_rows(rules, trials, seed, partial(injuries.injury_sampler, seconds=s,
                                                      negative_hp=hp, wounds=w, rules=rules),
                         workers)
    return mc_proportion(int(rows[-1]), res)


def _mc_rescue(rules: Rules, trials: int, seed: RNGLike, *, what: str,
               workers: Any = 1) -> Measurement:
    rows, res = _mc_rows(rules, trials, seed, partial(delayed_rescue_sampler, rules=rules,
                                                      **RESCUE), workers)
    if what == "death":
        return mc_proportion(int(rows[-1]), res)
    bands, counts = _severity_bands(rows, rules)
    return mc_counts(counts, bands, res)


def _severity_bands(rows: np.ndarray, rules: Rules) -> tuple[tuple[str, ...], list[int]]:
    """Counts by severity band (the rows' test modifier), death last."""
    mods = injuries.injury_table(rules=rules)["modifier"].to_numpy()
    levels = sorted(set(mods.tolist()), reverse=True)
    counts = [int(rows[:-1][mods == m].sum()) for m in levels] + [int(rows[-1])]
    return tuple(f"injury {m:+d}" for m in levels) + ("death",), counts


def metrics() -> list[Metric]:
    """The core rules' metrics, in catalogue order."""
    out = []
    for s, hp, w in DEATH_POINTS:
        out.append(Metric(
            f"death.p@{_tag(s, hp, w)}",
            agreed(f"P(death) when stabilised after {s} s at -{hp} HP with {w} wound(s)", "en"),
            "probability", "exact", "proportion",
            lambda r, s=s, hp=hp, w=w: Measurement(
                float(injuries.death_probability(s, hp, w, rules=r))),
            section="injuries"))
    out.append(Metric(
        "death.mean_surface", "mean P(death) over 0-174 s x -1..-20 HP x 0-3 wounds",
        "probability", "exact", "proportion",
        lambda r: Measurement(float(injuries.injury_surface(
            np.arange(r["injuries"]["automatic_death_seconds"]), SURFACE["negative_hp"],
            SURFACE["wounds"], rules=r,
            tidy=False)[..., -1].mean())), section="injuries"))
    out.append(Metric(
        "death.coinflip_seconds@5hp,0w", "seconds at -5 HP (no wound) until death is a coin flip",
        "s", "exact", "scalar", lambda r: Measurement(_seconds_to_coinflip(r)),
        section="injuries"))
    for s, hp, w in ((60, 5, 0), (30, 10, 2)):
        out.append(Metric(
            f"injuries.outcomes@{_tag(s, hp, w)}",
            agreed(f"critical-injury outcome distribution after {s} s at -{hp} HP, {w} wound(s)",
                   "en"),
            "probability", "exact", "distribution",
            lambda r, s=s, hp=hp, w=w: _outcomes(r, s, hp, w), section="injuries"))
    for c in (8, 12):
        out.append(Metric(
            f"d20.success@C{c}", f"P(success) of a d20 Test with C' = {c}", "probability",
            "exact", "proportion", lambda r, c=c: Measurement(d20.success_chance(c, rules=r)),
            section="d20"))
    out += [
        Metric(f"negotiation.best_ask@psy{PSYCHOLOGY}",
               f"ask (%) maximising the expected change with Psychology {PSYCHOLOGY}", "%",
               "exact", "scalar",
               lambda r: Measurement(float(negotiation.best_ask(PSYCHOLOGY, rules=r))),
               section="negotiation"),
        Metric(f"negotiation.outcomes@psy{PSYCHOLOGY},ask20",
               f"unchanged/partial/full with Psychology {PSYCHOLOGY}, asking 20 %",
               "probability", "exact", "distribution",
               lambda r: distribution(
                   negotiation.ask_outcomes(PSYCHOLOGY, 20, rules=r)[
                       ["unchanged", "partial", "full"]], ["unchanged", "partial", "full"]),
               section="negotiation"),
        Metric(f"negotiation.price@{PRICE}NX",
               f"expected price paid for a {PRICE} NX item under the rules' negotiation "
               f"(negotiation.rule: Psychology {PSYCHOLOGY} at its best ask, or "
               f"CHA {CHARISMA:+d} vs {DIFFICULTY})", "NX", "exact", "scalar",
               lambda r: Measurement(_expected_price(r)), section="negotiation, economy"),
    ]
    p = (60, 10, 1)
    out.append(Metric(
        f"mc.death@{_tag(*p)}",
        agreed(f"share dying on the roll at {p[0]} s, -{p[1]} HP, {p[2]} wound(s) (Monte Carlo "
               f"twin of death.p@{_tag(*p)})", "en"), "probability", "mc", "proportion",
        partial(_mc_death_point, point=p), section="injuries"))
    tag = f"{RESCUE['arrival']}s,{RESCUE['negative_hp']}hp,{RESCUE['wounds']}w"
    out.append(Metric(
        f"mc.rescue_death@{tag}",
        agreed(f"share of knocked-out PCs dying when rescued after {RESCUE['arrival']} s at "
               f"-{RESCUE['negative_hp']} HP with {RESCUE['wounds']} wound(s)", "en"),
        "probability", "mc", "proportion", partial(_mc_rescue, what="death"),
        section="injuries"))
    out.append(Metric(
        f"mc.rescue_severity@{tag}",
        "severity (test modifier) of the outcome in the same rescue scenario",
        "probability", "mc", "distribution", partial(_mc_rescue, what="bands"),
        section="injuries"))
    return out
