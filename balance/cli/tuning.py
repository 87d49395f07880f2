"""``balance tune``, ``balance sensitivity`` and ``balance recalibrate``: from a target to rule
values (:mod:`balance.tune`) and adversity ratios (:func:`balance.encounters.recalibrate`).

Examples::

    balance tune --metric death.p@40s,6hp,1w --target 0.10 --vary injuries.death_threshold
    balance tune --metric death.p@40s,6hp,1w --target 0.10 --vary injuries.death_threshold \\
        --save tuned.toml
    balance sensitivity --metric death.p@40s,6hp,1w --vary injuries.death_threshold injuries.die
    balance recalibrate --levels 5 --trials 1000 --save ratios.toml
    balance recalibrate --levels 5 --families Wolf Goblin Ogre+Wolf --held-out Ogre+Goblin
    balance metrics          # the catalogue metrics --metric takes

Bad arguments are refused before any computation, naming the option (``argument --bounds:
low must be below high``); the library's messages about ``vary``/``bounds``/``metric`` are
given as the options' (:func:`_as_option`).
"""
from __future__ import annotations

import argparse
import contextlib
import math
from collections.abc import Iterator

from .options import add_format, add_mc, add_rules, check_output, emit, load, path_arg, wrote

__all__ = ["register"]


def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a finite number, got {text!r}")
    return value


def _whole(text: str, accept, what: str) -> int:
    """``text`` as a whole number that ``accept`` takes, else argparse's one-line error."""
    try:
        value = int(text)
    except ValueError:
        value = None
    if value is None or not accept(value):
        raise argparse.ArgumentTypeError(f"must be {what}, got {text!r}")
    return value


def _level(text: str) -> int:
    return _whole(text, lambda v: v >= 1, "a party level (a whole number from 1; the rules' "
                  "creatures.level_min to level_max, 1 to 20 in the bundled rules)")


def _step(text: str) -> float:
    """argparse ``type=`` of ``--step``: a relative step within the library's STEP_RANGE."""
    from ..tune.sensitivity import STEP_RANGE

    value = _number(text)
    if not STEP_RANGE[0] <= value <= STEP_RANGE[1]:
        raise argparse.ArgumentTypeError(f"must be a number from {STEP_RANGE[0]:g} to "
                                         f"{STEP_RANGE[1]:g}, got {text!r}")
    return value


class _Bounds(argparse.Action):
    """``--bounds LO HI``: two finite numbers, LO below HI (checked at parse time)."""

    def __call__(self, parser, namespace, values, option_string=None):
        lo, hi = values
        if not lo < hi:
            raise argparse.ArgumentError(self, f"low must be below high, got {lo:g} {hi:g}")
        setattr(namespace, self.dest, (lo, hi))


class _Distinct(argparse.Action):
    """``--vary KEY...``: each key once."""

    def __call__(self, parser, namespace, values, option_string=None):
        twice = sorted({v for v in values if values.count(v) > 1})
        if twice:
            raise argparse.ArgumentError(self, f"name each key once, got {', '.join(twice)} "
                                               "more than once")
        setattr(namespace, self.dest, list(values))


@contextlib.contextmanager
def _as_option(option: str, param: str) -> Iterator[None]:
    """A library ``ValueError`` about the parameter ``param`` (its message starts
    ``param:`` or ``param must``) re-raised as the option's (``argument --bounds: ...``);
    ``param=`` in any message becomes the option."""
    try:
        yield
    except ValueError as exc:
        text = str(exc).replace(f"{param}=(low, high)", f"{option} LO HI")
        text = text.replace(f"{param}=", option)
        for lead in (f"{param}: ", f"{param} "):
            if text.startswith(lead) and (lead.endswith(": ") or
                                          text[len(lead):].startswith(("must", "'"))):
                text = f"argument {option}: {text[len(lead):]}"
                break
        if option == "--metric":
            text = text.replace("; tune one of its probabilities with a function", "")
            text += "; 'balance metrics' lists the catalogue (the tunable ones: one number)"
        raise ValueError(text) from None


def _power_of_two(text: str) -> int:
    return _whole(text, lambda v: 8 <= v <= 65_536 and not v & (v - 1),
                  "a power of two from 8 to 65,536")


def _family(text: str) -> tuple[str, ...]:
    """``Wolf`` or ``Ogre+Wolf``: a lead creature and an optional filler."""
    names = tuple(n.strip() for n in text.split("+"))
    if not 1 <= len(names) <= 2 or not all(names):
        raise argparse.ArgumentTypeError(f"a family is a creature name or LEAD+FILLER "
                                         f"(e.g. Ogre+Wolf), got {text!r}")
    return names


def _mc_header(metric: str, trials: int, seed: int) -> dict:
    """``seed`` and ``trials`` (what each candidate's run used) for a Monte Carlo metric."""
    from ..regression.registry import metric as catalogue_metric

    m = catalogue_metric(metric)
    return {} if m.kind == "exact" else {"seed": seed, "trials": m.trials_for(trials)}


def _tune(args) -> int:
    import pandas as pd

    from ..tune import knob, objective, solve
    from ..tune.solve import shown_values
    check_output("--save", args.save, args.force)
    rules = load(args.rules)
    with _as_option("--metric", "metric"):  # every argument checked before any computation
        objective(args.metric)
    with _as_option("--vary", "vary"), _as_option("--bounds", "bounds"):
        knob(args.vary, bounds=args.bounds, rules=rules)
    with _as_option("--vary", "vary"), _as_option("--bounds", "bounds"):
        res = solve(args.metric, target=args.target, vary=args.vary, bounds=args.bounds,
                    rules=rules, trials=args.trials, seed=args.seed, workers=args.workers)
    header = _mc_header(args.metric, args.trials, args.seed)
    if args.curve:
        curve = res.curve
        if args.format == "table":  # every value with the digits that tell it apart
            curve = curve.assign(value=shown_values(curve["value"]))
        title = f"{res.metric} over {res.key} ({res.method})"
        emit(curve, args.format, title=f"{title}\n{res.note}" if res.note else title,
             header=header or None)
    else:
        row = {"key": res.key, "value": res.value, "metric": res.metric, "target": res.target,
               "achieved": res.achieved, "reachable": res.reachable,
               "attained": res.attained, "method": res.method, "skipped": res.skipped}
        if res.interval is not None:
            row.update(interval_low=res.interval[0], interval_high=res.interval[1])
        if args.format != "table" and res.note:
            row["note"] = res.note
        emit(pd.DataFrame([row]), args.format, title=res.note or None, header=header or None)
    if args.save:
        res.save(args.save, overwrite=args.force)
        wrote(args.save, args.format)
    return 0


def _sensitivity(args) -> int:
    from ..tune import knob, objective, sensitivity
    check_output("--plot", args.plot, args.force, (".png", ".svg", ".pdf"))
    rules = load(args.rules)
    with _as_option("--metric", "metric"):  # every argument checked before any computation
        objective(args.metric)
    with _as_option("--vary", "vary"):
        for key in args.vary:
            knob(key, rules=rules)
    with _as_option("--vary", "vary"), _as_option("--step", "step"):
        res = sensitivity(args.metric, args.vary, method=args.method, step=args.step, n=args.n,
                          rules=rules, trials=args.trials, seed=args.seed,
                          workers=args.workers)
    emit(res.table, args.format, title=f"sensitivity of {res.metric} ({res.method})",
         header=_mc_header(args.metric, args.trials, args.seed) or None)
    if args.plot:
        from ..plots import save
        save(res.plot(), args.plot)
        wrote(args.plot, args.format)
    return 0


def _metrics(args) -> int:
    import pandas as pd

    from ..regression.registry import catalogue
    from ..text import plain_text
    frame = pd.DataFrame([{"name": m.name, "kind": m.kind, "unit": m.unit,
                           "tunable": m.shape != "distribution", "description": m.description}
                          for m in catalogue()])
    if args.format != "table":
        emit(frame, args.format)
        return 0
    print("catalogue metrics: --metric of 'balance tune' and 'balance sensitivity' takes a "
          "tunable one (one number); kind mc: Monte Carlo, run with --trials and --seed")
    rows = [list(frame.columns)] + [[plain_text(str(v)).lower() if isinstance(v, bool) else
                                     plain_text(str(v)) for v in row]
                                    for row in frame.itertuples(index=False)]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    for r in rows:  # left-aligned text columns, the description last
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)) + "  " + r[-1])
    return 0


def _recalibrate(args) -> int:
    from ..guide.recalibration import recalibrate
    check_output("--save", args.save, args.force)
    from ..guide.recalibration import HELD_OUT_FAMILIES, TRAINING_FAMILIES
    rules = load(args.rules)
    levels = args.levels or [rules["party"]["level"]]
    low, high = rules["creatures"]["level_min"], rules["creatures"]["level_max"]
    wrong = [lv for lv in levels if not low <= lv <= high]
    if wrong:  # before any computation; a variant may move the cap
        raise ValueError(f"argument --levels: a party level from {low} to {high} (the rules' "
                         f"creatures.level_min to level_max), got {wrong[0]}")
    res = recalibrate(levels=levels, families=args.families or TRAINING_FAMILIES,
                      held_out=args.held_out or HELD_OUT_FAMILIES, trials=args.trials,
                      seed=args.seed, model=args.model, workers=args.workers,
                      rules=rules)  # "families: ..." reads as --families (cli.as_options)
    ratios = res.ratios.assign(guide_ratio=res.ratios["guide_ratio"].astype(str),
                               proposed_ratio=res.ratios["proposed_ratio"].astype(str))
    header = {"seed": args.seed, "trials": args.trials}
    ratios = ratios.drop(columns="group")
    if args.format == "table":
        emit(ratios, args.format, header=header,
             title=f"adversity ratios ({res.model} model), fitted on the training families")
        emit(res.check, args.format, header=header,
             title="calibration check, before (guide) and after")
    else:  # one JSON document, one CSV table: the two tables' rows, told apart by "table"
        import pandas as pd

        frames = []
        for name, frame in (("ratios", ratios), ("check", res.check)):
            frame = frame.reset_index(drop=isinstance(frame.index, pd.RangeIndex))
            frames.append(frame.assign(table=name)[["table", *frame.columns]])
        emit(pd.concat(frames, ignore_index=True), args.format, header=header)
    if args.save:
        res.save(args.save, overwrite=args.force)
        wrote(args.save, args.format)
    return 0


def register(sub) -> None:
    """Add ``tune``, ``sensitivity``, ``metrics`` and ``recalibrate`` to the ``balance``
    subparsers."""
    p = sub.add_parser("tune", help="the rule value whose metric hits a target",
                       description="Solve for one rule value (a numeric key or a transform) "
                                   "whose catalogue metric is closest to --target; invalid "
                                   "values are skipped. Exact metrics: scan, bisection or "
                                   "brentq; Monte Carlo ones: the values whose interval holds "
                                   "the target, all from one seed.")
    p.add_argument("--metric", required=True,
                   help="catalogue metric of one number ('balance metrics' lists them)")
    p.add_argument("--target", required=True, type=_number, help="the metric value wanted")
    p.add_argument("--vary", required=True, help="rules key (injuries.death_threshold) or "
                   "transform (injuries.shift_rows, economy.scale_prices, "
                   "negotiation.scale_thresholds)")
    p.add_argument("--bounds", nargs=2, type=_number, metavar=("LO", "HI"), action=_Bounds,
                   help="range searched, LO below HI (default: the key's [limits]; within "
                        "them)")
    p.add_argument("--save", type=path_arg, metavar="FILE", help="write the variant file")
    p.add_argument("--force", action="store_true", help="replace an existing --save file")
    p.add_argument("--curve", action="store_true",
                   help="print every value tried instead (each with the digits that tell it "
                        "from its neighbours)")
    add_rules(p)
    add_mc(p, 20_000)
    add_format(p)
    p.set_defaults(func=_tune)

    p = sub.add_parser("sensitivity", help="which rule values move a metric most",
                       description="One-at-a-time slopes and elasticities (--method oat) or "
                                   "Sobol indices with 95 % intervals (--method sobol).")
    p.add_argument("--metric", required=True,
                   help="catalogue metric of one number ('balance metrics' lists them)")
    p.add_argument("--vary", required=True, nargs="+", metavar="KEY", action=_Distinct,
                   help="rules keys or transforms, each once")
    p.add_argument("--method", choices=("oat", "sobol"), default="oat")
    p.add_argument("--step", type=_step, default=0.05,
                   help="relative step of --method oat, from 1e-09 to 10 (default 0.05)")
    p.add_argument("--n", type=_power_of_two, default=256,
                   help="Sobol base sample, a power of two (default 256)")
    p.add_argument("--plot", type=path_arg, metavar="FILE",
                   help="write the tornado chart (.png, .svg or .pdf)")
    p.add_argument("--force", action="store_true", help="replace an existing --plot file")
    add_rules(p)
    add_mc(p, 20_000)
    add_format(p)
    p.set_defaults(func=_sensitivity)

    p = sub.add_parser("metrics", help="the catalogue metrics --metric takes",
                       description="Every catalogue metric: its name (what --metric of "
                                   "'balance tune' and 'balance sensitivity' takes), exact or "
                                   "Monte Carlo, its unit, whether it is one number (tunable) "
                                   "and what it measures.")
    add_format(p)
    p.set_defaults(func=_metrics)

    p = sub.add_parser("recalibrate", help="fit adversity ratios to the fight simulation",
                       description="Fit one adversity ratio per creature so that calibration "
                                   "predicts the simulated party win rate; check it on "
                                   "held-out families (bl.encounters.recalibrate).")
    p.add_argument("--levels", nargs="+", type=_level, default=None,
                   help="party levels, each from the rules' creatures.level_min to "
                        "level_max (1 to 20 in the bundled rules; default: the rules' party "
                        "level, 5; the Python function's default is 3 5 8)")
    p.add_argument("--model", choices=("creature", "ladder"), default="creature")
    p.add_argument("--families", nargs="+", type=_family, metavar="FAMILY",
                   help="training families, e.g. Wolf Goblin Ogre+Wolf (a lead creature, "
                        "+ a filler; default: every bestiary creature alone and three mixes)")
    p.add_argument("--held-out", nargs="+", type=_family, metavar="FAMILY",
                   help="families kept out of the fit, e.g. Ogre+Goblin (default: eight mixes)")
    p.add_argument("--save", type=path_arg, metavar="FILE", help="write the variant file")
    p.add_argument("--force", action="store_true", help="replace an existing --save file")
    add_rules(p)
    add_mc(p, 2_000)
    add_format(p)
    p.set_defaults(func=_recalibrate)
