"""``balance snapshot``, ``balance diff`` and ``balance check``: the regression subcommands.

:func:`register` adds them to the subparsers of :mod:`balance.cli`; each handler returns an
exit code. ``python -m balance.regression_cli ...`` is ``balance ...``.

Exit codes: ``snapshot`` 0 written; ``diff`` 0 nothing moved, 1 something moved (like
``diff(1)``); ``check`` 0 nothing moved beyond tolerance, 1 something did. All: 2 with a
one-line message on unusable input (missing or corrupted files, wrong schema, other catalogue,
bad rules, bad option).
"""
from __future__ import annotations

import argparse
import sys
import tomllib
from collections.abc import Sequence
from pathlib import Path

from .._atomic import write_file
from .options import (DEFAULT_SEED, add_rules, check_distinct, check_output, load, path_arg,
                      rules_line, rules_used, seed_arg, trials_arg)

__all__ = ["register", "main"]

_DEFAULT_NAMES = ("bundled", "default", "defaults")
#: Monte Carlo trials per metric when neither --trials nor a baseline says
DEFAULT_TRIALS = 100_000


def _tolerance_pair(text: str) -> tuple[str, float]:
    name, sep, value = text.partition("=")
    try:
        if not sep or not name:
            raise ValueError
        return name.strip(), float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--tol takes NAME=VALUE (a metric name or pattern such as 'death.*'), got {text!r}") \
            from None


def _alpha(text: str) -> float:
    """``--alpha``: a number strictly between 0 and 1 (checked before any work)."""
    from ..regression.diff import check_alpha
    try:
        return check_alpha(float(text), "--alpha")
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--alpha must be a number strictly between 0 and 1 (a family-wise level such as "
            f"0.05), got {text!r}") from None


def _common(p: argparse.ArgumentParser, *, baseline: bool = False) -> None:
    """--trials, --seed, --tol, --tolerances, and --only unless measuring against a
    ``baseline`` (whose trials, seed and metrics are the defaults)."""
    trials, seed = (("the baseline's", "the baseline's, so unchanged rules reproduce it")
                    if baseline else (f"{DEFAULT_TRIALS:,}", f"{DEFAULT_SEED}, as every Monte "
                                                             "Carlo command"))
    p.add_argument("--trials", type=trials_arg, default=None,
                   help=f"Monte Carlo trials per metric (default {trials})")
    p.add_argument("--seed", type=seed_arg, default=None if baseline else DEFAULT_SEED,
                   help=f"master seed of the Monte Carlo metrics (default {seed})")
    p.add_argument("--tol", action="append", type=_tolerance_pair, default=[], metavar="NAME=VALUE",
                   help="ignore changes of a metric (or 'pattern.*') up to VALUE; repeatable")
    p.add_argument("--tolerances", metavar="FILE", type=path_arg,
                   help="TOML file of tolerances: \"metric or pattern\" = value")
    if not baseline:
        p.add_argument("--only", action="append", default=None, metavar="PATTERN",
                       help="only the metrics matching this name or pattern ('death.*'); "
                            "repeatable")


def register(subparsers) -> None:
    """Add ``snapshot``, ``diff`` and ``check`` to ``balance``'s argparse subparsers."""
    p = subparsers.add_parser("snapshot", help="measure every balance metric into a JSON baseline",
                              description="Measure every metric of the catalogue for a rule set "
                                          "and write them to a snapshot file (atomically).")
    add_rules(p)
    p.add_argument("--out", required=True, metavar="FILE", type=path_arg,
                   help="snapshot to write (.json)")
    p.add_argument("--force", action="store_true", help="overwrite an existing file")
    _common(p)
    p.set_defaults(func=snapshot_command)

    p = subparsers.add_parser("diff", help="what moved between two rule sets or snapshots",
                              description="Compare BASE and VARIANT metric by metric: exact "
                                          "metrics exactly, Monte Carlo ones with two-sample "
                                          "tests and Holm's correction. Exit 1 if anything moved.")
    p.add_argument("base", type=path_arg,
                   help="rules file, bundled variant name, snapshot .json, or 'bundled'")
    p.add_argument("variant", type=path_arg, help="same, for the other side")
    p.add_argument("--alpha", type=_alpha, default=0.05,
                   help="family-wise level, strictly between 0 and 1 (default 0.05)")
    p.add_argument("--crn", action="store_true",
                   help="common random numbers: both sides from the same seed (conservative "
                        "tests); default: independent seeds")
    p.add_argument("--all", action="store_true", help="list every metric, not only what moved")
    p.add_argument("--csv", metavar="FILE", type=path_arg,
                   help="also write the tidy table as CSV")
    p.add_argument("--html", metavar="FILE", type=path_arg,
                   help="also write a side-by-side HTML report")
    p.add_argument("--bundled", action="store_true",
                   help="with --html: add what each bundled example variant moves")
    p.add_argument("--force", action="store_true",
                   help="replace an existing --csv or --html file")
    _common(p)
    p.set_defaults(func=diff_command)

    p = subparsers.add_parser("check", help="fail (exit 1) when a metric moved from the baseline",
                              description="Measure the rules and compare them with a baseline "
                                          "snapshot. Exit 0: nothing moved beyond tolerance; 1: "
                                          "something did; 2: unusable input.")
    p.add_argument("--baseline", required=True, metavar="FILE", type=path_arg,
                   help="snapshot from `balance snapshot`")
    add_rules(p)
    p.add_argument("--alpha", type=_alpha, default=0.05,
                   help="family-wise level, strictly between 0 and 1 (default 0.05)")
    p.add_argument("--independent", action="store_true",
                   help="draw the Monte Carlo metrics from a seed independent of the baseline's "
                        "(default: the baseline's seed, so unchanged rules reproduce it exactly)")
    p.add_argument("--all", action="store_true", help="list every metric, not only what moved")
    _common(p, baseline=True)
    p.set_defaults(func=check_command)


def _tolerances(args) -> dict[str, float]:
    out: dict[str, float] = {}
    if getattr(args, "tolerances", None):
        path = Path(args.tolerances)
        if not path.is_file():
            raise ValueError(f"{path}: no such tolerances file")
        try:
            doc = tomllib.loads(path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise ValueError(f"{path}: not valid TOML: {exc}") from None
        doc = doc.get("tolerances", doc)
        for key, value in doc.items():
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ValueError(f"{path}: tolerance of {key!r} must be a number, got {value!r}")
            out[key] = float(value)
    out.update(dict(args.tol))
    return out


def _side(text: str):
    from ..rules import load_rules
    if text.lower() in _DEFAULT_NAMES:
        return load_rules()
    if text.endswith(".json"):
        return text
    return load_rules(text)


def _trials(args) -> int:
    """``--trials``, or the default when not given (0 is passed on, to be refused)."""
    return DEFAULT_TRIALS if args.trials is None else args.trials


def snapshot_command(args) -> int:
    """``balance snapshot``: measure and write a baseline."""
    from ..regression import snapshot
    snapshot.check_target(args.out, force=args.force, what="--out")  # before any work
    rules = load(args.rules)
    snap = snapshot.take(rules, trials=_trials(args),
                         seed=args.seed,
                         tolerances=_tolerances(args) or None, only=args.only)
    path = snapshot.write(snap, args.out, force=args.force)
    mc = sum(m.kind == "mc" for m in snap.metrics)
    print(f"wrote {path}: {len(snap.metrics)} metrics ({len(snap.metrics) - mc} exact, {mc} "
          f"Monte Carlo x {snap.trials:,} trials, seed {snap.seed}), "
          f"{rules_line(rules) if rules_used() else f'rules {snap.fingerprint}'}")
    return 0


def diff_command(args) -> int:
    """``balance diff BASE VARIANT``: print (and optionally save) what moved."""
    from ..regression import compare_snapshots, format_table
    from ..regression.diff import as_snapshot, independent_seed
    seed = args.seed
    outputs = (("--csv", args.csv), ("--html", args.html))
    for option, path in outputs:  # before any work: a FIFO or device is never replaced,
        check_output(option, path, args.force)  # a file only if forced
    check_distinct(*outputs)
    if args.bundled and not args.html:
        raise ValueError("--bundled adds sections to the --html report: give --html FILE too")
    options = {"trials": _trials(args), "tolerances": _tolerances(args) or None,
               "only": args.only}
    gone: dict[str, dict] = {"base": {}, "variant": {}}   # metrics a side cannot measure
    base = as_snapshot(_side(args.base), seed=seed, removed=gone["base"], **options)
    variant = as_snapshot(_side(args.variant), seed=seed if args.crn else independent_seed(seed),
                          removed=gone["variant"], **options)
    frame = compare_snapshots(base, variant, alpha=args.alpha, tolerances=options["tolerances"],
                              gone=gone)
    print(_seeds(frame))
    print(format_table(frame, only_moved=not args.all))
    if args.csv:
        write_file(args.csv, frame.to_csv(index=False), what="--csv")
    if args.html:
        from ..report import diff as report
        extra = report.bundled_sections(report.bundled_comparisons(
            trials=options["trials"], seed=seed)) if args.bundled else None
        print(f"wrote {report.write_html(frame, args.html, base=base, variant=variant, extra_sections=extra)}")
    return 1 if frame["moved"].any() else 0


def _seeds(frame, base: str = "base") -> str:
    """The seeds and trials both sides of a comparison drew with (printed first, as every
    Monte Carlo command prints its seed); ``base``: what the base seed is (``check``: the
    baseline's, which it reruns by default)."""
    a = frame.attrs
    seeds = (f"seed {a['base_seed']} ({'' if base == 'base' else base + '; '}both sides: "
             "common random numbers)" if a["base_seed"] == a["variant_seed"] else
             f"seed {a['base_seed']} ({base}), {a['variant_seed']} (variant)")
    trials = (f"{a['base_trials']:,}" if a["base_trials"] == a["variant_trials"] else
              f"{a['base_trials']:,} (base) and {a['variant_trials']:,} (variant)")
    return f"{seeds}; {trials} trials per Monte Carlo metric"


def check_command(args) -> int:
    """``balance check``: 0 nothing moved, 1 something moved (unusable input raises: exit 2)."""
    from ..regression import check, format_table
    frame = check(args.baseline, load(args.rules), trials=args.trials, seed=args.seed,
                  independent=args.independent, alpha=args.alpha,
                  tolerances=_tolerances(args) or None)
    print(_seeds(frame, "the baseline's"))  # stored with it; --seed moves the variant only
    print(format_table(frame, only_moved=not args.all))
    return 1 if frame["moved"].any() else 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run a ``balance`` command line (e.g. ``["check", "--baseline", "b.json"]``): the same
    parser, messages and exit codes as the ``balance`` console script."""
    from . import main as cli_main

    return cli_main(argv)


if __name__ == "__main__":
    sys.exit(main())
