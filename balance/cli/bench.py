"""``balance bench``: the benchmark's command line (the measuring lives in :mod:`balance.bench`)."""
from __future__ import annotations

import json

from .._atomic import write_file
from ..bench import KERNELS, format_table, load_kernels, run_bench
from ..errors import did_you_mean
from .options import Parser, check_output, one_line, path_arg

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    """Command line: ``balance bench [--quick] [--only NAME] [--format table|json] [--json FILE
    [--force]]``."""
    parser = Parser(
        prog="balance bench",
        description="How fast are the Monte Carlo kernels on this machine? Trials per second "
                    "against the floor (numpy drawing the same dice) and plain Python, the "
                    "exact-dice rows, peak memory, 2 workers against 1 and the first answers "
                    "of a fresh process (docs: explanation/performance).")
    parser.add_argument("--quick", action="store_true", help="small sizes (seconds, not minutes)")
    parser.add_argument("--only", metavar="NAME",
                        help="one kernel (critical-injury, d20-test, ...)")
    parser.add_argument("--format", choices=["table", "json"], default="table")
    parser.add_argument("--json", metavar="FILE", type=path_arg,
                        help="also write the figures (machine, load, every kernel) as JSON to "
                             "FILE, to track them over time")
    parser.add_argument("--force", action="store_true", help="replace an existing --json FILE")
    args = parser.parse_args(argv)
    load_kernels()
    if args.only is not None and args.only not in KERNELS:
        parser.error(f"--only must be one of {', '.join(KERNELS)}, got {args.only!r}"
                     f"{did_you_mean(args.only, KERNELS)}")
    try:  # before minutes of work
        check_output("--json", args.json, args.force)
    except ValueError as exc:
        parser.error(one_line(exc))
    res = run_bench(quick=args.quick, only=args.only)
    text = json.dumps(res, indent=2)
    if args.json is not None:
        try:
            write_file(args.json, text + "\n", replace=args.force, what="--json")
        except (ValueError, OSError) as exc:
            parser.error(one_line(exc))
    print(text if args.format == "json" else format_table(res))
    return 0
