"""Resource budgets: every amount of work a user can size is bounded, and refused up front.

A budget is a software limit, not a game rule: it keeps one command, one notebook cell or one
variant file from hanging the machine or exhausting its memory. Anything over a budget raises
a one-line :class:`ValueError` (:class:`~balance.errors.RulesError` for rules data) naming
the argument, file or table and the budget, *before* any work starts.
The table of docs/reference/budgets.md lists them with where they are enforced.

========================  =====================  ===========================================
budget                    value                  what it bounds
========================  =====================  ===========================================
:data:`MAX_TRIALS`        10**10                 trials of one Monte Carlo run (any --trials)
:data:`MAX_BLOCKS`        10**6                  seeded blocks of one run (trials/block_size)
:func:`max_workers`       the usable cores       local worker processes (Dask: unbounded)
:data:`MAX_DICE`          1,000 dice             dice of one term of a dice expression
:data:`MAX_FACES`         10,000 faces           faces of one die
:data:`MAX_CONSTANT`      10**9                  size of a constant of a dice expression
:data:`MAX_SUPPORT`       10**6 values           support of an exact dice distribution
:data:`MAX_SAMPLE`        10**8 values           values of one dice.sample call
:data:`MAX_ROLLS`         10**10 dice            dice rolled by one dice.sample call
:data:`MAX_EXPLOSIONS`    20 extra rolls         explosions of one exploding die (``1d6!``)
:data:`MAX_TABLE_ROWS`    1,000 rows             rows of any table of a rules file
:data:`MAX_GRID_CELLS`    2 x 10**7 cells        exact lookup surfaces built from rules
:data:`MAX_PRINTED_ROWS`  10**6 rows             rows of one table a command prints
:data:`MAX_RULES_DEPTH`   32 levels              nesting of a rules file (TOML tables/arrays)
:data:`MAX_RULES_BYTES`   4 MiB                  size of a rules file
:data:`MAX_SKILL`         10,000 %               Combat Style % of ``balance duel``/``weapons``
:data:`MAX_ARMOUR`        10,000 points          armour points of ``balance duel``/``weapons``
========================  =====================  ===========================================

>>> from balance import budgets
>>> budgets.check_trials(20_000)
20000
>>> budgets.check_trials(10**18)
Traceback (most recent call last):
...
ValueError: trials must be an integer between 1 and 10000000000 (the trials budget), got 1000000000000000000
"""
from __future__ import annotations

import itertools
import math
import os
from collections.abc import Iterable, Mapping, Sequence

from .errors import RulesError, check_integer

__all__ = ["MAX_TRIALS", "MAX_BLOCKS", "MAX_DICE", "MAX_FACES", "MAX_CONSTANT", "MAX_SAMPLE",
           "MAX_ROLLS",
           "MAX_SUPPORT", "MAX_TABLE_ROWS", "MAX_GRID_CELLS", "MAX_RESULT_CELLS", "MAX_PRINTED_ROWS",
           "MAX_RULES_DEPTH",
           "MAX_RULES_BYTES", "MAX_EXPLOSIONS", "MAX_SKILL", "MAX_ARMOUR", "max_workers", "check_trials", "check_blocks", "check_workers",
           "check_support", "check_sample", "check_rows", "check_grid", "check_printed",
           "check_length",
           "check_depth", "check_nesting", "check_size"]

#: Trials of one Monte Carlo run (with the default block size, at most 38,147 blocks).
MAX_TRIALS = 10**10
#: Seeded blocks of one run (``trials / block_size``; the default block size gives 38,147
#: blocks for MAX_TRIALS).
MAX_BLOCKS = 10**6
#: Dice of one term of a dice expression (``1000d6``).
MAX_DICE = 1000
#: Faces of one die (``d10000``).
MAX_FACES = 10_000
#: Largest magnitude of a constant in a dice expression (totals stay far inside int64).
MAX_CONSTANT = 10**9
#: Distinct totals of an exact dice distribution (one float64 each: 8 MB).
MAX_SUPPORT = 10**6
#: Values drawn by one ``dice.sample`` call (int64: 800 MB); Monte Carlo runs draw per block.
MAX_SAMPLE = 10**8
#: Dice rolled by one ``dice.sample`` call (values x dice of the expression: some 20 s of
#: drawing); 10**8 totals of ``1000d10000`` (10**11 dice, some 4 minutes) are refused.
MAX_ROLLS = 10**10
#: Extra rolls of one exploding die (``1d6!``): a die explodes at most this many times, the
#: last extra roll stands even when it shows its highest face (a d6 leaves out a mass of
#: (1/6)**21 = 4.6e-17, a d2 (1/2)**21 = 4.8e-7: :attr:`balance.dice.Dice.truncated_mass`).
MAX_EXPLOSIONS = 20
#: Rows of one table of a rules file (the largest bundled table has 29).
MAX_TABLE_ROWS = 1000
#: Cells of an exact lookup surface built from rules data (about 0.5 GB while it is built:
#: a d1000 percentile die fits, a d10000 does not).
MAX_GRID_CELLS = 2 * 10**7
#: Cells of the result of one exact function over a grid of its arguments (float64: 800 MB);
#: the formula itself runs a chunk at a time (:mod:`balance.grids`).
MAX_RESULT_CELLS = 10**8
#: Rows of one table a command prints (a table as text takes some 600 bytes a row while it is
#: formatted: about 0.6 GB); larger grids are for the Python API (:mod:`balance.grids`).
MAX_PRINTED_ROWS = 10**6
#: Nesting depth of a rules file (tables and arrays; the bundled files use 4).
MAX_RULES_DEPTH = 32
#: Bytes of one rules file (the bundled files are under 40 kB).
MAX_RULES_BYTES = 4 << 20
#: Largest Combat Style % and armour points the duel commands (``balance duel``,
#: ``balance weapons``) take. An input bound, not a rule number, so it is not rule data: the
#: percentile rules set no upper limit (a skill over 100 is reduced against its opponent,
#: percentile rules, opposed rolls) and a duel costs the same at any skill; far above any
#: character's, it refuses a slip of the keyboard (``--armour 40000``) at parse time, naming
#: the option, instead of simulating it.
MAX_SKILL = 10_000
MAX_ARMOUR = 10_000


def max_workers() -> int:
    """Worker processes :func:`balance.montecarlo.run` accepts: the cores this process may use
    (``os.sched_getaffinity``, else ``os.cpu_count``). A Dask cluster is bounded by its own
    configuration instead."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - macOS, Windows
        return max(1, os.cpu_count() or 1)


def check_trials(trials: object, name: str = "trials") -> int:
    """``trials`` as an int in ``1..MAX_TRIALS``, else a one-line ValueError."""
    try:
        return check_integer(name, trials, min=1, max=MAX_TRIALS)
    except ValueError:
        raise ValueError(f"{name} must be an integer between 1 and {MAX_TRIALS} (the trials "
                         f"budget), got {trials!r}") from None


def check_blocks(trials: int, block_size: int) -> None:
    """Refuse a run of more than :data:`MAX_BLOCKS` seeded blocks."""
    blocks = -(-trials // block_size)
    if blocks > MAX_BLOCKS:
        raise ValueError(f"block_size must be at least {-(-trials // MAX_BLOCKS):,} for "
                         f"{trials:,} trials: runs are limited to {MAX_BLOCKS:,} blocks (the "
                         f"blocks budget), got block_size={block_size:,}")


def check_workers(workers: object) -> int:
    """``workers`` as an int in ``1..max_workers()``, else a one-line ValueError."""
    most = max_workers()
    try:
        return check_integer("workers", workers, min=1, max=most)
    except ValueError:
        raise ValueError(f"workers must be an integer between 1 and {most} (the cores of this "
                         f"machine), 'dask' or a dask.distributed.Client, got {workers!r}") \
            from None


def check_support(expr: object, support: int) -> int:
    """Refuse an exact distribution of more than :data:`MAX_SUPPORT` distinct totals."""
    if support > MAX_SUPPORT:
        raise ValueError(f"dice expression {str(expr)!r} has {support:,} possible totals; exact "
                         f"distributions are limited to {MAX_SUPPORT:,} (the dice budget): use "
                         "fewer dice or faces, or sample it")
    return support


def check_sample(size: Sequence[int] | int, dice: int = 1, name: str = "size") -> None:
    """Refuse drawing more than :data:`MAX_SAMPLE` values at once, or rolling more than
    :data:`MAX_ROLLS` dice for them.

    Parameters
    ----------
    size : int or sequence of int
        The shape of the draw (its values: the product).
    dice : int, default 1
        Dice rolled for one value (:attr:`balance.dice.Dice.dice_count`).
    name : str, default "size"
        The argument the message names (``"argument --trials"`` on the command line).

    Raises
    ------
    ValueError
        Over either budget, in one line naming ``name``.

    Examples
    --------
    >>> check_sample(10**7, dice=1000)         # 10**10 dice: the budget is inclusive
    >>> check_sample(10**7, dice=1001)
    Traceback (most recent call last):
    ...
    ValueError: size: 10,000,000 values of 1,001 dice each roll 10,010,000,000 dice; one draw rolls at most 10,000,000,000 (the sample budget): draw fewer values
    """
    shape = tuple(size) if isinstance(size, (tuple, list)) else (size,)
    values = math.prod(int(n) for n in shape)
    if values > MAX_SAMPLE:
        raise ValueError(f"{name} must hold at most {MAX_SAMPLE:,} values (the sample budget; "
                         f"draw in chunks or use balance.montecarlo.run), got {values:,}")
    if values * dice > MAX_ROLLS:
        raise ValueError(f"{name}: {values:,} values of {dice:,} dice each roll {values * dice:,} "
                         f"dice; one draw rolls at most {MAX_ROLLS:,} (the sample budget): "
                         f"draw fewer values")


def check_rows(where: str, rows: Sequence, source: str) -> None:
    """Refuse a rules table of more than :data:`MAX_TABLE_ROWS` rows (RulesError)."""
    if len(rows) > MAX_TABLE_ROWS:
        raise RulesError(f"{source}: table {where} has {len(rows):,} rows; tables are limited "
                         f"to {MAX_TABLE_ROWS:,} rows (the table budget)")


def check_grid(what: str, shape: Sequence[int], because: str = "",
               most: int = MAX_GRID_CELLS) -> None:
    """Refuse an exact surface of more than ``most`` cells (default :data:`MAX_GRID_CELLS`),
    before allocating it. ``because`` names the rules values or arguments that size it."""
    cells = math.prod(int(n) for n in shape)
    if cells > most:
        size = " x ".join(f"{int(n):,}" for n in shape)
        raise ValueError(f"{what} would have {size} = {cells:,} cells"
                         f"{f' (from {because})' if because else ''}; exact surfaces are "
                         f"limited to {most:,} cells (the grid budget)")


def check_printed(what: str, sizes: Mapping[str, int]) -> int:
    """The rows of a printed table of every combination of some options, refused before any
    work above :data:`MAX_PRINTED_ROWS`.

    Parameters
    ----------
    what : str
        The command, named first in the message.
    sizes : mapping of str to int
        Each option and how many values it was given.

    Returns
    -------
    int
        The rows (the product of the sizes).

    Raises
    ------
    ValueError
        More rows than the budget, in one line naming each option's count.

    Examples
    --------
    >>> check_printed("balance death", {"--seconds": 100, "--wounds": 4})
    400
    """
    rows = math.prod(sizes.values())
    if rows > MAX_PRINTED_ROWS:
        counts = " x ".join(f"{n:,} {option}" for option, n in sizes.items())
        raise ValueError(f"{what}: {counts} = {rows:,} rows; a printed table is limited to "
                         f"{MAX_PRINTED_ROWS:,} rows (the printed-rows budget): pass fewer "
                         "values, or use the Python API (balance.grids) for a larger grid")
    return rows


def check_length(name: str, values: Iterable, most: int = MAX_GRID_CELLS) -> list:
    """``values`` as a list of at most ``most`` items (default: the grid budget), else a
    one-line ValueError naming ``name``; an endless or huge iterable is refused after
    ``most + 1`` items, never listed whole."""
    try:
        too_many = len(values) > most  # type: ignore[arg-type]
    except OverflowError:  # a range past sys.maxsize
        too_many = True
    except TypeError:  # an iterator: counted while it is listed
        too_many = False
    items = [] if too_many else list(itertools.islice(values, most + 1))
    if too_many or len(items) > most:
        raise ValueError(f"{name} holds more than {most:,} values (the grid budget); pass "
                         "fewer")
    return items


def check_size(source: str, size: int) -> None:
    """Refuse a rules file of more than :data:`MAX_RULES_BYTES` bytes (RulesError)."""
    if size > MAX_RULES_BYTES:
        raise RulesError(f"{source}: {size:,} bytes; rules files are limited to "
                         f"{MAX_RULES_BYTES:,} bytes")


def check_depth(text: str, source: str) -> None:
    """Refuse TOML text nested deeper than :data:`MAX_RULES_DEPTH`, before parsing it
    (a deep nest makes the parser recurse until Python's limit).

    Counts unquoted ``[``/``{`` opening arrays and inline tables inside a value (brackets
    of comments and strings are skipped); ``[a.b.c]`` headers count their dotted parts.
    """
    depth = most = 0
    i, n = 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if c in "\"'":
            quote = text[i:i + 3] if text[i:i + 3] in ('"""', "'''") else c
            i += len(quote)
            while i < n and not text.startswith(quote, i):
                i += 2 if (c == '"' and text[i] == "\\") else 1
            i += len(quote)
            line_start = False
            continue
        if c == "#":
            while i < n and text[i] != "\n":
                i += 1
            continue
        if c == "\n":
            line_start = True
        elif c in " \t\r":
            pass
        elif c == "[" and line_start and depth == 0:  # a [table] header: dotted parts
            end = text.find("\n", i)
            header = text[i:n if end < 0 else end]
            most = max(most, header.count(".") + 1)
            i = n if end < 0 else end
            continue
        elif c in "[{":
            depth += 1
            most = max(most, depth)
            line_start = False
        elif c in "]}":
            depth = max(0, depth - 1)
            line_start = False
        else:
            line_start = False
        if most > MAX_RULES_DEPTH:
            raise RulesError(f"{source}: nested more than {MAX_RULES_DEPTH} levels deep "
                             "(the rules depth budget)")
        i += 1


def check_nesting(value: object, source: str) -> None:
    """Refuse parsed rules (or an in-memory overlay) nested deeper than
    :data:`MAX_RULES_DEPTH` dicts and lists, walking iteratively (no recursion)."""
    stack = [(value, 0)]  # the file (top-level table) itself is level 0, as in check_depth
    while stack:
        node, depth = stack.pop()
        children: Iterable[object]
        if isinstance(node, Mapping):
            children = node.values()
        elif isinstance(node, (list, tuple)):
            children = node
        else:
            continue
        if depth > MAX_RULES_DEPTH:
            raise RulesError(f"{source}: nested more than {MAX_RULES_DEPTH} levels deep "
                             "(the rules depth budget)")
        stack.extend((child, depth + 1) for child in children)


#: characters of a dice expression; one with a die (``d`` then a digit) reads as dice
