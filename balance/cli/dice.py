"""``balance dice EXPR``: a dice expression's distribution, the way AnyDice shows it.

Exact by default (:func:`balance.dice.distribution`): each total's probability, the chance of
at least and at most that total, and a bar; the mean and standard deviation in the header.
``--trials N`` samples instead (:func:`balance.dice.sample`, seeded) and gives each total's
frequency with its 95 % Wilson interval. ``--plot FILE`` draws the distribution (PNG or SVG).
Registered by :mod:`balance.cli`.
"""
from __future__ import annotations

import math

from .options import DEFAULT_SEED, add_format, emit, path_arg, seed_arg, trials_arg

__all__ = ["register", "dice_table"]

#: widest bar of the terminal chart, in characters
BAR = 30
#: rows shown in table output before the middle is elided (JSON/CSV: every total)
ROWS = 60


def dice_table(expr: str, trials: int | None = None, seed: int = DEFAULT_SEED):
    """(table, header) of ``expr``: value, probability, at_least, at_most (and ci_low, ci_high
    when sampled); the header holds the expression, mean, sd (and seed, trials)."""
    import numpy as np
    import pandas as pd

    from .. import dice

    parsed = dice.parse(expr)
    header: dict = {"dice": str(parsed)}
    if trials is None:
        dist = parsed.distribution()
        values, probs = dist.index.to_numpy(), dist.to_numpy()
        frame = pd.DataFrame({"value": values, "probability": probs})
    else:
        from ..budgets import check_sample
        from ..montecarlo.intervals import wilson

        check_sample(trials)
        draws = parsed.sample(trials, seed)
        values, counts = np.unique(draws, return_counts=True)
        probs = counts / trials
        low, high = wilson(counts, trials)
        frame = pd.DataFrame({"value": values, "probability": probs, "ci_low": low,
                              "ci_high": high, "count": counts})
        header.update(seed=seed, trials=trials)
    frame.insert(2, "at_least", np.cumsum(probs[::-1])[::-1].clip(0.0, 1.0))
    frame.insert(3, "at_most", np.cumsum(probs).clip(0.0, 1.0))
    mean = float(np.dot(values, probs))
    sd = math.sqrt(max(0.0, float(np.dot(values.astype(float) ** 2, probs)) - mean ** 2))
    header.update(mean=round(mean, 6), sd=round(sd, 6), min=int(values.min()),
                  max=int(values.max()))
    if parsed.truncated_mass:
        header["truncated_mass"] = parsed.truncated_mass
    return frame, header


def _bars(frame):
    top = frame["probability"].max()
    return frame["probability"].map(
        lambda p: ("#" * max(1 if p > 0 else 0, round(BAR * p / top))).ljust(BAR))


def _plot(frame, header: dict, path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ..plots import save

    fig, ax = plt.subplots(figsize=(7, 3.5))
    ax.bar(frame["value"], frame["probability"], width=0.9, color="#3b6ea8")
    if "ci_low" in frame:
        ax.errorbar(frame["value"], frame["probability"],
                    yerr=[frame["probability"] - frame["ci_low"],
                          frame["ci_high"] - frame["probability"]],
                    fmt="none", ecolor="#222222", linewidth=0.8)
    ax.set_xlabel(header["dice"])
    ax.set_ylabel("probability")
    ax.set_title(f"{header['dice']}: mean {header['mean']:.4f}, sd {header['sd']:.4f}")
    try:
        save(ax, path)
    finally:
        plt.close(fig)


def _dice(args) -> int:
    if args.plot is not None:
        from .._atomic import check_output_file

        if check_output_file("--plot", args.plot).exists() and not args.force:  # before work
            raise ValueError(f"--plot {args.plot}: already exists; pass --force to replace it")
    frame, header = dice_table(args.expression, args.trials, args.seed)
    if args.plot is not None:
        _plot(frame, header, args.plot)
    shown = frame
    if args.format == "table":
        shown = frame.drop(columns=["count"], errors="ignore").assign(bar=_bars(frame))
        if len(shown) > ROWS:  # a long distribution: its ROWS likeliest totals, tails elided
            keep = shown["probability"] >= shown["probability"].nlargest(ROWS).min()
            shown = shown[keep]
    emit(shown, args.format, header=header)
    return 0


def register(sub) -> None:
    """Add ``balance dice``."""
    p = sub.add_parser(
        "dice", help="distribution of a dice expression (AnyDice-like)",
        description="Exact distribution of EXPRESSION: each total with its probability, the "
                    "chance of at least / at most that total and a bar; mean and sd on top. "
                    "Dice: NdM terms and integers (3d6+2, 1d8-1d4) with modifiers: 4d6kh3 "
                    "keep highest, 2d20kl1 keep lowest, 4d6dl1 drop lowest, 1d6! explode "
                    "(at most 20 extra rolls), 1d20r1 reroll once, 2d6rr2 reroll until above "
                    "2. --trials samples instead (seeded, with 95 %% intervals).")
    p.add_argument("expression", metavar="EXPRESSION", help="e.g. 4d6kh3, 2d20kh1+5, 1d6!")
    p.add_argument("--trials", type=trials_arg, default=None,
                   help="sample this many rolls instead of the exact answer")
    p.add_argument("--seed", type=seed_arg, default=DEFAULT_SEED,
                   help=f"seed of --trials (default {DEFAULT_SEED})")
    p.add_argument("--plot", metavar="FILE", type=path_arg, default=None,
                   help="also draw the distribution into FILE (.png or .svg)")
    p.add_argument("--force", action="store_true", help="overwrite an existing --plot file")
    add_format(p)
    p.set_defaults(func=_dice)
