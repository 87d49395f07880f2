"""``balance bench``: the benchmark's command line (the measuring lives in :mod:`balance.bench`)."""
from __future__ import annotations

import json

from ..bench import KERNELS, __doc__ as BENCH_DOC, format_table, load_kernels, run_bench
from ..errors import did_you_mean
from .options import Parser

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    """Command line: ``balance bench [--quick] [--only NAME] [--format table|json]``."""
    parser = Parser(prog="balance bench", description=BENCH_DOC.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes (seconds, not minutes)")
    parser.add_argument("--only", metavar="NAME",
                        help="one kernel (critical-injury, d20-test, ...)")
    parser.add_argument("--format", choices=["table", "json"], default="table")
    args = parser.parse_args(argv)
    load_kernels()
    if args.only is not None and args.only not in KERNELS:
        parser.error(f"--only must be one of {', '.join(KERNELS)}, got {args.only!r}"
                     f"{did_you_mean(args.only, KERNELS)}")
    res = run_bench(quick=args.quick, only=args.only)
    print(json.dumps(res, indent=2) if args.format == "json" else format_table(res))
    return 0
