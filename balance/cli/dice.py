"""``balance dice EXPR``: a dice expression's distribution, the way AnyDice shows it.

Exact by default (:func:`balance.dice.distribution`): each total's probability, the chance of
at least and at most that total, and a bar; the mean, the standard deviation and the
expression's range (its smallest and largest possible totals) in the header. ``--trials N``
samples instead (:func:`balance.dice.sample`, seeded; 1 to ``budgets.MAX_SAMPLE`` rolls) and
gives each total's frequency with its 95 % Wilson interval. ``--plot FILE`` draws the
distribution (``.png``, ``.svg`` or ``.pdf``; the file is checked before any work).
An expression may start with ``-`` (``balance dice -1d6+4``). Registered by :mod:`balance.cli`.
"""
from __future__ import annotations

import argparse
import os
import re
from pathlib import Path

from .options import DEFAULT_SEED, MinusParser, _whole, add_format, emit, path_arg, seed_arg

__all__ = ["register", "dice_table"]

#: widest bar of the terminal chart, in characters
BAR = 30
#: rows shown in table output before the middle is elided (JSON/CSV: every total)
ROWS = 60
#: suffixes --plot accepts (the figure format is read from it)
PLOT_SUFFIXES = (".png", ".svg", ".pdf")


class _DiceParser(MinusParser):
    """``balance dice``'s parser: an expression starting with '-' (``-1d6``, ``-d4+2``,
    ``-3+1d6``) is the EXPRESSION, not an unknown option."""

    minus = re.compile(r"-(?:\d|[dD]\d)")


def _trials(text: str) -> int:
    """argparse ``type=`` of ``balance dice --trials``: 1 to ``MAX_SAMPLE`` rolls (the rolls
    are drawn at once, not by the Monte Carlo engine)."""
    from ..budgets import MAX_SAMPLE

    try:
        return _whole(text, MAX_SAMPLE, "the sample budget")
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"must be a whole number from 1 to {MAX_SAMPLE:,} for "
                                         f"dice (the sample budget), got {text!r}") from None


def _number(value: float) -> float | int:
    """``value`` at full precision (JSON and CSV keep every digit), as an int when whole
    (10000000, not 1e+07)."""
    return int(value) if value == int(value) else value


def dice_table(expr: str, trials: int | None = None, seed: int = DEFAULT_SEED):
    """(table, header) of ``expr``: the table's columns (numpy arrays) value, probability,
    at_least, at_most (and ci_low, ci_high, count when sampled); the header holds the
    expression, mean, sd (and seed, trials). No pandas: the command answers fast."""
    import numpy as np

    from .. import dice

    parsed = dice.parse(expr)
    header: dict = {"dice": str(parsed)}
    if trials is None:
        exact = parsed.distribution()
        shown = exact.probabilities > 0  # totals that read 0 (below 1e-300, or FFT noise)
        dist = dice.Distribution(exact.totals[shown], exact.probabilities[shown], str(parsed))
        extra: dict = {}
    else:
        from ..budgets import check_sample
        from ..montecarlo.intervals import wilson

        check_sample(trials, parsed.dice_count, name="argument --trials")
        draws = parsed.sample(trials, seed)
        values, counts = np.unique(draws, return_counts=True)
        dist = dice.Distribution(values, counts / trials, str(parsed))  # the frequencies
        low, high = wilson(counts, trials)
        extra = {"ci_low": np.asarray(low, dtype=np.float64),
                 "ci_high": np.asarray(high, dtype=np.float64), "count": counts}
        header.update(seed=seed, trials=trials)
    table = {"value": dist.totals, "probability": dist.probabilities,
             "at_least": np.asarray(dist.at_least(dist.totals), dtype=np.float64),
             "at_most": np.asarray(dist.at_most(dist.totals), dtype=np.float64), **extra}
    header.update(mean=_number(dist.mean), sd=_number(dist.sd), min=parsed.min, max=parsed.max)
    if parsed.truncated_mass:
        header["truncated_mass"] = parsed.truncated_mass
    return table, header


def _bars(probability) -> list[str]:
    top = probability.max()
    return [("#" * max(1 if p > 0 else 0, round(BAR * p / top))).ljust(BAR)
            for p in probability.tolist()]


def _plot(table, header: dict, path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ..plots import save

    fig, ax = plt.subplots(figsize=(7, 3.5))
    ax.bar(table["value"], table["probability"], width=0.9, color="#3b6ea8")
    if "ci_low" in table:
        ax.errorbar(table["value"], table["probability"],
                    yerr=[table["probability"] - table["ci_low"],
                          table["ci_high"] - table["probability"]],
                    fmt="none", ecolor="#222222", linewidth=0.8)
    ax.set_xlabel(header["dice"])
    ax.set_ylabel("probability")
    ax.set_title(f"{header['dice']}: mean {header['mean']:.4f}, sd {header['sd']:.4f}")
    try:
        save(ax, path)
    finally:
        plt.close(fig)


def _check_plot(name: str, force: bool) -> None:
    """Refuse ``--plot name`` before any work: a suffix other than :data:`PLOT_SUFFIXES`
    (none at all too), a missing folder, a file there already (without ``--force``), or
    something that is not a regular file."""
    from .._atomic import check_output_file

    path = Path(name)
    formats = f"use {', '.join(PLOT_SUFFIXES[:-1])} or {PLOT_SUFFIXES[-1]}"
    if name.endswith(("/", os.sep)):  # Path() would drop the slash and write a file
        raise ValueError(f"--plot {name}: names a folder; give a file name ending in "
                         f"{', '.join(PLOT_SUFFIXES[:-1])} or {PLOT_SUFFIXES[-1]}")
    if not path.suffix:
        raise ValueError(f"--plot {name}: has no suffix; {formats}")
    if path.suffix.lower() not in PLOT_SUFFIXES:
        raise ValueError(f"--plot {name}: {path.suffix!r} is not a figure format; {formats}")
    exists = check_output_file("--plot", path).exists()
    if not path.parent.is_dir():
        raise ValueError(f"--plot {name}: the folder {path.parent} does not exist")
    if exists and not force:
        raise ValueError(f"--plot {name}: already exists; pass --force to replace it")


def _dice(args) -> int:
    import numpy as np

    if args.plot is not None:
        _check_plot(args.plot, args.force)
    table, header = dice_table(args.expression, args.trials, args.seed)
    if args.plot is not None:
        _plot(table, header, args.plot)
    shown = dict(table)
    note = None
    if args.format == "table":
        shown.pop("count", None)
        shown["bar"] = _bars(table["probability"])
        if len(table["value"]) > ROWS:  # a long distribution: its ROWS likeliest totals
            p = table["probability"]
            keep = p >= np.sort(p)[-ROWS]
            shown = {k: (v[keep] if isinstance(v, np.ndarray) else
                         [x for x, kept in zip(v, keep) if kept]) for k, v in shown.items()}
            note = (f"(the {int(keep.sum()):,} likeliest of {len(p):,} totals shown; every "
                    "total: --format csv or json)")
    shown = {k: v.tolist() if isinstance(v, np.ndarray) else v for k, v in shown.items()}
    emit(shown, args.format, header=header)
    if note:                                # after the table: its first lines stay the same
        print(note)
    return 0


def register(sub) -> None:
    """Add ``balance dice``."""
    p = sub.add_parser(
        "dice", help="distribution of a dice expression (AnyDice-like)",
        description="Exact distribution of EXPRESSION: each total with its probability, the "
                    "chance of at least / at most that total and a bar; the mean, the sd and "
                    "the expression's range (min, max: its smallest and largest possible "
                    "totals) on top. Dice: NdM terms and integers (3d6+2, 1d8-1d4) with "
                    "modifiers, in this order: rN rerolls faces 1 to N once (1d20r1: a 1 is "
                    "rolled again and the second roll stands; N is 1 to the faces - 1) and rrN "
                    "rerolls them until the die shows more than N (2d6rr2: each die 3 to 6); "
                    "! explodes (1d6!: a 6 rolls again and adds, at most 20 extra rolls); "
                    "khK / klK keep the K highest / lowest dice (4d6kh3, 2d20kh1 advantage, "
                    "2d20kl1 disadvantage) and dhK / dlK drop them (4d6dl1). K may be left "
                    "out, meaning 1, in the last term only (2d20kh = 2d20kh1; 4d6kh-1 is "
                    "refused). An expression may start with '-': balance dice -1d6+4 (or "
                    "balance dice -- -1d6+4). Totals rarer than 1e-15 in the largest "
                    "expressions (computed by FFT) read 0. --trials samples instead "
                    "(seeded, with 95 % intervals).")
    p.__class__ = _DiceParser  # an EXPRESSION may start with '-'
    p.add_argument("expression", metavar="EXPRESSION",
                   help="e.g. 4d6kh3, 2d20kh1+5, 1d6!, 2d6r2, -1d6+4")
    p.add_argument("--trials", type=_trials, default=None,
                   help="sample this many rolls (1 to 100,000,000 for dice) instead of the "
                        "exact answer")
    p.add_argument("--seed", type=seed_arg, default=DEFAULT_SEED,
                   help=f"seed of --trials (default {DEFAULT_SEED})")
    p.add_argument("--plot", metavar="FILE", type=path_arg, default=None,
                   help="also draw the distribution into FILE (.png, .svg or .pdf), checked "
                        "before any work")
    p.add_argument("--force", action="store_true", help="overwrite an existing --plot file")
    add_format(p)
    p.set_defaults(func=_dice)
