"""``balance tune``, ``balance sensitivity`` and ``balance recalibrate``: from a target to rule
values (:mod:`balance.tune`) and adversity ratios (:func:`balance.encounters.recalibrate`).

Examples::

    balance tune --metric death.p@40s,6hp,1w --target 0.10 --vary injuries.death_threshold
    balance tune --metric death.p@40s,6hp,1w --target 0.10 --vary injuries.death_threshold \\
        --save tuned.toml
    balance sensitivity --metric death.p@40s,6hp,1w --vary injuries.death_threshold injuries.die
    balance recalibrate --levels 5 --trials 1000 --save ratios.toml
    balance recalibrate --levels 5 --families Wolf Goblin Ogre+Wolf --held-out Ogre+Goblin
"""
from __future__ import annotations

import argparse
import math

from .options import add_format, add_mc, add_rules, emit, load, path_arg

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
    return _whole(text, lambda v: v >= 1, "a party level (a whole number from 1)")


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


def _check_save(args) -> None:
    """Refuse an existing --save file before any work (unless --force)."""
    from pathlib import Path

    from .._atomic import check_output_file
    if args.save:
        path = check_output_file("--save", args.save)
        if path.exists() and not args.force:
            raise ValueError(f"--save {args.save}: already exists; pass --force to replace it")
        if not Path(path).parent.is_dir():
            raise ValueError(f"--save {args.save}: the folder {Path(path).parent} does not exist")


def _tune(args) -> int:
    import pandas as pd

    from ..tune import solve
    _check_save(args)
    rules = load(args.rules)
    res = solve(args.metric, target=args.target, vary=args.vary,
                bounds=tuple(args.bounds) if args.bounds else None, rules=rules,
                trials=args.trials, seed=args.seed, workers=args.workers)
    if args.curve:
        emit(res.curve, args.format, title=f"{res.metric} over {res.key} ({res.method})")
    else:
        row = {"key": res.key, "value": res.value, "metric": res.metric, "target": res.target,
               "achieved": res.achieved, "reachable": res.reachable, "method": res.method,
               "skipped": res.skipped}
        if res.interval is not None:
            row.update(interval_low=res.interval[0], interval_high=res.interval[1])
        emit(pd.DataFrame([row]), args.format, title=res.note or None)
    if args.save:
        res.save(args.save, overwrite=args.force)
        print(f"wrote {args.save}")
    return 0


def _sensitivity(args) -> int:
    from ..tune import sensitivity
    if args.plot:
        from .._atomic import check_output_file
        check_output_file("--plot", args.plot)
    res = sensitivity(args.metric, args.vary, method=args.method, step=args.step, n=args.n,
                      rules=load(args.rules), trials=args.trials, seed=args.seed,
                      workers=args.workers)
    emit(res.table, args.format, title=f"sensitivity of {res.metric} ({res.method})")
    if args.plot:
        from ..plots import save
        save(res.plot(), args.plot)
        print(f"wrote {args.plot}")
    return 0


def _recalibrate(args) -> int:
    from ..guide.recalibration import recalibrate
    _check_save(args)
    from ..guide.recalibration import HELD_OUT_FAMILIES, TRAINING_FAMILIES
    rules = load(args.rules)
    levels = args.levels or [rules["party"]["level"]]
    res = recalibrate(levels=levels, families=args.families or TRAINING_FAMILIES,
                      held_out=args.held_out or HELD_OUT_FAMILIES, trials=args.trials,
                      seed=args.seed, model=args.model, workers=args.workers,
                      rules=rules)
    ratios = res.ratios.assign(guide_ratio=res.ratios["guide_ratio"].astype(str),
                               proposed_ratio=res.ratios["proposed_ratio"].astype(str))
    emit(ratios.drop(columns="group"), args.format,
         title=f"adversity ratios ({res.model} model), fitted on the training families")
    emit(res.check, args.format, title="calibration check, before (guide) and after")
    if args.save:
        res.save(args.save, overwrite=args.force)
        print(f"wrote {args.save}")
    return 0


def register(sub) -> None:
    """Add ``tune``, ``sensitivity`` and ``recalibrate`` to the ``balance`` subparsers."""
    p = sub.add_parser("tune", help="the rule value whose metric hits a target",
                       description="Solve for one rule value (a numeric key or a transform) "
                                   "whose catalogue metric is closest to --target; invalid "
                                   "values are skipped. Exact metrics: scan, bisection or "
                                   "brentq; Monte Carlo ones: the values whose interval holds "
                                   "the target, all from one seed.")
    p.add_argument("--metric", required=True, help="catalogue metric ('balance metrics')")
    p.add_argument("--target", required=True, type=_number, help="the metric value wanted")
    p.add_argument("--vary", required=True, help="rules key (injuries.death_threshold) or "
                   "transform (injuries.shift_rows, economy.scale_prices, "
                   "negotiation.scale_thresholds)")
    p.add_argument("--bounds", nargs=2, type=_number, metavar=("LO", "HI"),
                   help="range searched (default: the key's [limits])")
    p.add_argument("--save", type=path_arg, metavar="FILE", help="write the variant file")
    p.add_argument("--force", action="store_true", help="replace an existing --save file")
    p.add_argument("--curve", action="store_true", help="print every value tried instead")
    add_rules(p)
    add_mc(p, 20_000)
    add_format(p)
    p.set_defaults(func=_tune)

    p = sub.add_parser("sensitivity", help="which rule values move a metric most",
                       description="One-at-a-time slopes and elasticities (--method oat) or "
                                   "Sobol indices with 95 %% intervals (--method sobol).")
    p.add_argument("--metric", required=True, help="catalogue metric")
    p.add_argument("--vary", required=True, nargs="+", metavar="KEY", help="rules keys")
    p.add_argument("--method", choices=("oat", "sobol"), default="oat")
    p.add_argument("--step", type=_number, default=0.05,
                   help="relative step of --method oat (default 0.05)")
    p.add_argument("--n", type=_power_of_two, default=256,
                   help="Sobol base sample, a power of two (default 256)")
    p.add_argument("--plot", type=path_arg, metavar="FILE", help="write the tornado chart")
    add_rules(p)
    add_mc(p, 20_000)
    add_format(p)
    p.set_defaults(func=_sensitivity)

    p = sub.add_parser("recalibrate", help="fit adversity ratios to the fight simulation",
                       description="Fit one adversity ratio per creature so that calibration "
                                   "predicts the simulated party win rate; check it on "
                                   "held-out families (bl.encounters.recalibrate).")
    p.add_argument("--levels", nargs="+", type=_level, default=None,
                   help="party levels (default: the rules' party level, 5; the Python "
                        "function's default is 3 5 8)")
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
