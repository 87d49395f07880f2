"""Run the ``balance`` command line in-process, the way the tests read it."""
from __future__ import annotations

import contextlib
import io

from balance import cli


def in_process(*argv) -> tuple[int, str, str]:
    """``balance ARGV...`` in this process: (exit code, stdout, stderr); argparse's own
    errors (a SystemExit) give their exit code too."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main([str(a) for a in argv])
        except SystemExit as exc:
            code = exc.code
    return code, out.getvalue(), err.getvalue()
