"""Quick queries of the ``balance`` command line: one rule question, one answer.

Each subcommand calls the public API and prints a tidy table (``--format table|json|csv``).
Registered by :mod:`balance.cli`.
"""
from __future__ import annotations

import argparse
import re
import sys
import warnings
from collections.abc import Mapping

import numpy as np

from .options import _shown as shown
from .options import MinusParser, add_format, add_lang, add_mc, add_rules, emit, load

__all__ = ["register"]


def _ints(p, name: str, help: str, default=None, required: bool = False) -> None:
    p.add_argument(name, type=int, nargs="+", default=default, required=required,
                   metavar="N", help=help)


_mc = add_mc


def _seeded(args) -> dict:
    """The header of a Monte Carlo answer: its seed and trials."""
    return {"seed": args.seed, "trials": args.trials}


def _names(frame, lang: str, base: str):
    """Table output names things in ``lang``: the ``base`` column holds that language's name
    and the other language's column is left out (JSON/CSV keep both)."""
    other = f"{base}_fr"
    if other not in frame.columns:
        return frame
    frame = frame.copy()
    if lang == "fr":
        frame[base] = frame[other]
    return frame.drop(columns=[other])


# --- core rules -------------------------------------------------------------------------
def _death(args) -> int:
    from ..core import injuries

    from ..budgets import check_printed

    check_printed("balance death", {"--wounds": len(args.wounds),
                                    "--negative-hp": len(args.negative_hp),
                                    "--seconds": len(args.seconds)})
    rules = load(args.rules)
    # every combination, wounds first and seconds fastest
    n, hp, s = (a.ravel() for a in np.meshgrid(np.array(args.wounds), np.array(args.negative_hp),
                                               np.array(args.seconds), indexing="ij"))
    p = injuries.death_probability(seconds=s, negative_hp=hp, wounds=n, rules=rules)
    emit({"seconds": s, "negative_hp": hp, "wounds": n,  # columns: no pandas (a fast start)
          "death_probability": np.atleast_1d(p)}, args.format)
    return 0


def _injuries(args) -> int:
    from ..core import injuries

    rules = load(args.rules)
    header = {"seconds": args.seconds, "negative_hp": args.negative_hp, "wounds": args.wounds}
    if args.trials is None:
        frame = injuries.injury_distribution(args.seconds, args.negative_hp, args.wounds,
                                             rules=rules)
    else:
        frame = injuries.simulate(args.seconds, args.negative_hp, args.wounds,
                                  trials=args.trials, seed=args.seed, workers=args.workers,
                                  rules=rules).table
        header.update(_seeded(args))
    if not args.all:
        frame = frame[frame["probability"] > 0]
    if args.format == "table":
        frame = _names(frame, args.lang, "injury")
    emit(frame, args.format, header=header)
    return 0


def _test(args) -> int:
    from ..core import d20

    import pandas as pd

    rules = load(args.rules)
    if args.points:
        pts = d20.test_points(args.characteristic, args.modifier, rules=rules)
        frame = pd.DataFrame({"points": pts.index, "probability": pts.to_numpy()})
        frame.insert(1, "kind", np.where(frame["points"] >= 0, "S.P.", "F.P."))
    else:
        frame = pd.DataFrame([{
            "characteristic": args.characteristic, "modifier": args.modifier,
            "effective": d20.effective(args.characteristic, args.modifier),
            "success_chance": d20.success_chance(args.characteristic, args.modifier,
                                                 rules=rules)}])
    emit(frame, args.format)
    return 0


def _negotiate(args) -> int:
    from ..core import negotiation

    rules = load(args.rules)
    best = negotiation.best_ask(args.psychology, args.modifier, rules=rules)
    asks = args.ask if args.ask else None
    frame = negotiation.ask_table(args.psychology, asks, args.modifier, rules=rules)
    frame = frame.reset_index()
    frame["best"] = frame["ask"] == best
    emit(frame, args.format, title=f"best ask: X = {best} %",
         header={"psychology": args.psychology, "modifier": args.modifier, "best_ask": best})
    return 0


def _treat(args) -> int:
    from ..core import treatment

    from ..names import find_row

    rules = load(args.rules)
    _, row = find_row(rules.get("injuries.table"), args.injury, "--injury")
    name = row.get(args.lang) or row["en"]
    levels = {key: value for key, value in rules.get("treatment").items()
              if isinstance(value, Mapping) and "bonus" in value}  # by section key
    rows = []
    for level in args.level:
        shown = levels.get(level) or find_row(list(levels.values()), level, "--level")[1]
        p = treatment.treatment_chance(args.cunning, args.injury, level, rules=rules)
        minutes = treatment.expected_cure_minutes(args.cunning, args.injury, level, rules=rules)
        rows.append({"cunning": args.cunning, "injury": name,
                     "level": shown.get(args.lang) or shown["en"],
                     "chance": p, "expected_minutes": minutes,
                     "expected_hours": minutes / 60})
    import pandas as pd

    emit(pd.DataFrame(rows), args.format)
    return 0


def _rescue(args) -> int:
    from ..core import rescue

    rules = load(args.rules)
    sim = rescue.simulate(arrival=args.arrival, negative_hp=args.negative_hp,
                          wounds=args.wounds, action=args.action, action_ap=args.action_ap,
                          heal=args.heal, trials=args.trials, seed=args.seed,
                          workers=args.workers, rules=rules)
    emit(sim.extra["death"], args.format,
         header={"arrival": args.arrival, "negative_hp": args.negative_hp, **_seeded(args)})
    return 0


class _RestParser(MinusParser):
    """``balance rest``'s parser: a segment with negative hours (``-1:15``) is a segment, so
    it is refused as one (hours must be 0 or more), not read as an unknown option."""

    minus = re.compile(r"-\d*:")


class _CalibrateParser(MinusParser):
    """``balance calibrate``'s parser: a negative ratio (``-1/2``) is a ratio, so it is
    refused as one (a ratio must be above 0), not read as an unknown option."""

    minus = re.compile(r"-\d*/")


def _segment(text: str) -> tuple[str, str]:
    hours, sep, score = text.partition(":")
    if not sep or not hours or not score:
        raise argparse.ArgumentTypeError(f"a rest segment is HOURS:SCORE (e.g. 8:15 or 8:good), "
                                         f"got {text!r}")
    return hours, score


def _rest(args) -> int:
    from ..core import rest

    def refused(i: int, message: str) -> ValueError:  # the segment as the user typed it
        return ValueError(f"argument HOURS:SCORE: {':'.join(args.segments[i])!r}: {message}")

    rules = load(args.rules)
    segments = []
    for i, (hours, score) in enumerate(args.segments):
        try:
            h = int(hours)
        except ValueError:
            raise refused(i, f"hours must be a whole number, got {hours!r}") from None
        try:
            s = int(score)
        except ValueError:
            try:
                s = rest.quick_score(score, rules=rules)
            except ValueError as exc:
                raise refused(i, str(exc)) from None
        segments.append((h, s))
    try:
        frame = rest.rest_log(segments, hp=args.hp, max_hp=args.max_hp, rules=rules)
    except ValueError as exc:  # the library counts segments from 0: segments[1] hours ...
        found = re.match(r"segments\[(\d+)\] (.*)", str(exc))
        if found is None:
            raise
        raise refused(int(found[1]), found[2]) from None
    total = int(frame["regeneration"].sum())
    title, header = f"regeneration: {total}", {"total": total}
    if "hp_after" in frame:  # what the maximum lets through (core rules, rest: capped)
        before, after = int(frame["hp_before"].iloc[0]), int(frame["hp_after"].iloc[-1])
        gained = after - before
        cap = "" if args.max_hp is None or gained == total else f", capped at {args.max_hp}"
        title += f"; HP {before} -> {after} ({gained:+d}{cap})"
        header["hp_regained"] = after - before
    emit(frame, args.format, title=title, header=header)
    return 0


# --- GM guide ---------------------------------------------------------------------------
def _ratio_or_creature(text: str, rules):
    """``balance calibrate``'s argument: an adversity ratio as typed (the library reads it),
    or the sheet of the bestiary creature of that name (English or French, as ``fight``)."""
    from fractions import Fraction

    from ..errors import did_you_mean
    from ..guide import creatures

    try:
        Fraction(text)
        return text
    except (ValueError, ZeroDivisionError):
        if not any(c.isalpha() for c in text):
            return text  # not a name: the library says what is wrong with the ratio
    try:
        return creatures.creature(text, rules=rules)
    except ValueError:
        rows = rules.get("bestiary.creatures")
        names = [row[k] for row in rows for k in ("en", "fr") if k in row]
        raise ValueError(f"argument ratios: {text!r} is neither an adversity ratio (e.g. 3/1 "
                         f"or 1/2) nor a creature of the bestiary{did_you_mean(text, names)}; "
                         f"creatures: {', '.join(row['en'] for row in rows)}") from None


def _calibrate(args) -> int:
    from ..guide import encounters

    rules = load(args.rules)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", encounters.EncounterAdvice)
        cal = encounters.calibration([_ratio_or_creature(text, rules) for text in args.ratios],
                                     args.pcs, lang=args.lang, rules=rules)
    for w in caught:
        if issubclass(w.category, encounters.EncounterAdvice):
            print(f"balance: advice: {w.message}", file=sys.stderr)
    import pandas as pd

    emit(pd.DataFrame([{"ratios": " + ".join(args.ratios), "pcs": args.pcs,
                        "calibration": str(cal[0]), "value": float(cal[0]),
                        "challenge": cal[1]}]), args.format)
    return 0


def _fight(args) -> int:
    from ..guide import fights

    rules = load(args.rules)
    try:
        sim = fights.simulate(args.creatures, args.party or None, level=args.level,
                              trials=args.trials, seed=args.seed, workers=args.workers,
                              rules=rules)
    except ValueError as exc:  # a name of the bestiary or the party: the argument holding it
        for what, option in (("creature", "creatures"), ("party member", "--party")):
            if str(exc).startswith(f"unknown {what} "):
                raise ValueError(f"argument {option}: {exc}") from None
        raise
    table = sim.table.drop(columns=[c for c in ("seed", "fingerprint", "trials")
                                    if c in sim.table])
    emit(table, args.format, header={"creatures": " ".join(args.creatures), **_seeded(args)})
    return 0


def _charisma(args) -> int:
    from ..guide import economy

    rules = load(args.rules)
    out = economy.charisma_negotiation(args.price, args.charisma, args.difficulty,
                                       selling=args.selling, rules=rules)
    import pandas as pd

    frame = pd.DataFrame({"outcome": list(out.attrs["prices"]),
                          "probability": [out[k] for k in out.attrs["prices"]],
                          "price": list(out.attrs["prices"].values())})
    price = float(out["expected_price"])  # shown as the header shows it: one number format
    emit(frame, args.format, title=f"expected price: {shown(price)}",
         header={"price": args.price, "charisma": args.charisma,
                 "difficulty": args.difficulty, "expected_price": price})
    return 0


# --- percentile rules -------------------------------------------------------------------
def _tiers(args) -> int:
    from ..names import find_row, label
    from ..percentile import rolls

    rules = load(args.rules)
    p = rolls.tier_probabilities(args.skill, args.grade, rules=rules)  # no pandas: a fast start
    grades = rules.get("percentile.grades")  # the grade computed (checked by the line above)
    grade = find_row(grades["table"], args.grade or grades["default"], "--grade")[1]
    emit({"tier": [_tier_name(t, args.lang, rules) for t in rolls.TIERS], "probability": p},
         args.format, header={"skill": args.skill, "grade": label(grade, args.lang)})
    return 0


def _tier_name(key: str, lang: str, rules) -> str:
    """A tier's name in ``lang`` (English: its key, as the JSON has always said)."""
    if lang == "en":
        return key
    for row in rules.get("percentile.tiers.table", ()):
        if row.get("key") == key:
            return row.get(lang, key)
    return key


def _opposed(args) -> int:
    from .. import percentile

    rules = load(args.rules)
    s = percentile.opposed(args.first, args.second, first_grade=args.first_grade,
                           second_grade=args.second_grade, rules=rules)
    import pandas as pd

    emit(pd.DataFrame({"outcome": s.index, "probability": s.to_numpy()}), args.format,
         header={"first": args.first, "second": args.second})
    return 0


def _parser(sub, name: str, help: str, description: str, func) -> argparse.ArgumentParser:
    p = sub.add_parser(name, help=help, description=description)
    add_rules(p)
    add_format(p)
    p.set_defaults(func=func)
    return p


def register(sub) -> None:
    """Add the quick queries to ``balance``'s subparsers."""
    p = _parser(sub, "death",
                "death chance when stabilised or healed (core rules, critical injuries)",
                "P(death) of the critical-injury roll after SECONDS at -NEGATIVE_HP HP with "
                "WOUNDS unhealed injuries; 1 at the automatic-death time. Each option takes "
                "one or more values (every combination is answered).", _death)
    _ints(p, "--seconds", "seconds spent at negative HP", required=True)
    _ints(p, "--negative-hp", "negative HP as a positive number (>= 1)", required=True)
    _ints(p, "--wounds", "critical injuries not yet healed (default 0)", default=[0])

    p = _parser(sub, "injuries",
                "outcome distribution of one critical-injury roll (core rules, critical injuries)",
                "Every injury's probability (English and French names, test modifier) and "
                "death; exact, or simulated with 95 % intervals with --trials.", _injuries)
    p.add_argument("--seconds", type=int, required=True, help="seconds at negative HP")
    p.add_argument("--negative-hp", type=int, required=True, help="negative HP (>= 1)")
    p.add_argument("--wounds", type=int, default=0, help="unhealed injuries (default 0)")
    p.add_argument("--all", action="store_true", help="also list impossible outcomes")
    add_lang(p, "language of the injury names in table output")
    _mc(p, None)

    p = _parser(sub, "test", "chance of a d20 Test, roll under (core rules, Tests)",
                "Success chance of a Test on CHARACTERISTIC (+ modifier); --points lists the "
                "distribution of the points (S.P. >= 0, F.P. < 0).", _test)
    p.add_argument("characteristic", type=int, help="the characteristic's value")
    p.add_argument("--modifier", type=int, default=0, help="modifiers to the characteristic")
    p.add_argument("--points", action="store_true", help="list the points distribution")

    p = _parser(sub, "negotiate",
                "Psychology negotiation: what to ask for (core rules, negotiation)",
                "Outcome of asking X % with a Psychology Test: chances of unchanged / partial "
                "/ full and the expected price change; the best ask is marked.", _negotiate)
    p.add_argument("--psychology", type=int, required=True, help="Psychology value")
    p.add_argument("--ask", type=float, nargs="+", metavar="X",
                   help="asks to evaluate, in %% (default: every ask that can pay off)")
    p.add_argument("--modifier", type=int, default=0, help="modifiers to Psychology")

    p = _parser(sub, "treat",
                "treating an injury: chance and expected time (core rules, treating injuries)",
                "Chance of one treatment attempt and the expected time to succeed, retrying "
                "as the rules allow (light: hourly, full: daily).", _treat)
    p.add_argument("--cunning", type=int, required=True, help="the healer's Cunning")
    p.add_argument("--injury", required=True, help="injury name, English or French")
    p.add_argument("--level", nargs="+", default=["light", "full"],
                   help="light and/or full (default both)")
    add_lang(p, "language of the injury and level names")

    p = _parser(sub, "rescue",
                "simulate dying and rescue (core rules, critical injuries, treatment, time)",
                "Death split into death on the roll and automatic death, per wound count, "
                "with 95 % intervals and the exact value.", _rescue)
    p.add_argument("--arrival", default="0", help="rescuer's arrival in seconds: a number or "
                   "dice, e.g. 10+1d20 (default 0)")
    p.add_argument("--negative-hp", default="1",
                   help="negative HP: a number or dice, e.g. 1d6 (default 1)")
    _ints(p, "--wounds", "wound counts to simulate (default 0 1 2 3)", default=[0, 1, 2, 3])
    p.add_argument("--action", choices=("support", "heal"), default="support",
                   help="the rescuer's action: support (stabilises at 0 HP) or heal (restores "
                        "--heal HP); default support")
    p.add_argument("--ap", dest="action_ap", type=int, default=1,
                   help="A.P. of the action (default 1)")
    p.add_argument("--heal", type=int, default=None, help="HP healed (action heal)")
    _mc(p, 1_000_000)

    p = _parser(sub, "rest", "regeneration of a rest (core rules, rest)",
                "HP (and Flux) regenerated by consecutive rest segments, each HOURS:SCORE "
                "(a score, or a quick score: poor, adequate, good, excellent), with the "
                "12-hours-in-24 cap.", _rest)
    p.__class__ = _RestParser  # a segment may start with '-' (refused by its own check)
    p.add_argument("segments", nargs="+", type=_segment, metavar="HOURS:SCORE",
                   help="e.g. 8:15, or 3:13 5:12 for an interrupted rest")
    p.add_argument("--hp", type=int, default=None, help="current HP (default 0 with --max-hp)")
    p.add_argument("--max-hp", type=int, default=None, help="maximum HP (caps the gain)")

    p = _parser(sub, "calibrate",
                "encounter calibration and challenge (GM guide, adversity ratio and calibration)",
                "Calibration = sum of the creatures' adversity ratios - number of PCs, and "
                "its challenge level. Advice the encounter does not follow goes to stderr.",
                _calibrate)
    p.add_argument("ratios", nargs="+", help="adversity ratios or bestiary names (English "
                   "or French), e.g. 3/1 1/2 1/2 or Goblin Troll")
    p.add_argument("--pcs", type=int, default=4, help="number of PCs (default 4)")
    add_lang(p, "language of the challenge name")
    p.__class__ = _CalibrateParser  # a ratio may start with '-' (refused by its own check)

    p = _parser(sub, "fight",
                "simulate a fight of the default party (GM guide, checks and attacks)",
                "Win, draw and knockout rates of the party against CREATURES (bestiary "
                "names), with 95 % intervals.", _fight)
    p.add_argument("creatures", nargs="+", help="bestiary names, e.g. Goblin Goblin")
    p.add_argument("--party", nargs="+", help="PC names (default: the rules' party)")
    p.add_argument("--level", type=int, default=None, help="party and creature level")
    _mc(p, 20_000)

    p = _parser(sub, "charisma", "Charisma negotiation (GM guide, economy)",
                "Outcome distribution and prices of a Charisma negotiation.", _charisma)
    p.add_argument("--price", type=int, required=True, help="price in NX")
    p.add_argument("--charisma", type=int, required=True, help="CHA modifier")
    p.add_argument("--difficulty", type=int, default=14, help="difficulty (default 14)")
    p.add_argument("--selling", action="store_true", help="selling instead of buying")

    p = _parser(sub, "tiers", "d100 skill roll tiers (percentile rules, skill roll)",
                "Chances of fumble, failure, success and critical at SKILL %.", _tiers)
    p.add_argument("skill", type=int, help="skill in %%")
    p.add_argument("--grade", default=None,
                   help="difficulty grade (Very Easy, Easy, Standard, Hard, Formidable, "
                        "Herculean, Hopeless; English or French)")
    add_lang(p, "language of the tier names")

    p = _parser(sub, "opposed", "opposed d100 rolls (percentile rules, opposed rolls)",
                "Chances that the first side wins, the second wins, or a stalemate.", _opposed)
    p.add_argument("first", type=int, help="first side's skill in %%")
    p.add_argument("second", type=int, help="second side's skill in %%")
    p.add_argument("--first-grade", default=None, help="first side's difficulty grade")
    p.add_argument("--second-grade", default=None, help="second side's difficulty grade")
