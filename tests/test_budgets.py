"""Every budget of balance.budgets: refused before any work with one line naming it.

The hostile command lines run in subprocesses under an address-space and CPU limit, so a
regression fails the test instead of eating the machine.
"""
import resource
import subprocess
import sys
import tomllib

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import balance as bl
from balance import budgets, dice, montecarlo
from balance.dice import sampling
from balance.errors import RulesError

LIMIT_AS = 2 << 30   # bytes of address space of a hostile CLI case
LIMIT_CPU = 20       # seconds of CPU


def _limits() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT_AS, LIMIT_AS))
    resource.setrlimit(resource.RLIMIT_CPU, (LIMIT_CPU, LIMIT_CPU))


def run_cli(*argv: str, cwd=None) -> subprocess.CompletedProcess:
    """``python -m balance ARGV`` under the resource limits."""
    return subprocess.run([sys.executable, "-m", "balance", *argv], capture_output=True,
                          text=True, preexec_fn=_limits, timeout=120, cwd=cwd)


def one_line_error(result: subprocess.CompletedProcess, *words: str) -> str:
    assert result.returncode == 2, result.stderr[-2000:]
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("balance: error: "), result.stderr[-2000:]
    for word in words:
        assert word in lines[0]
    return lines[0]


def never_called(n, rng):  # a sampler that must not run
    raise AssertionError("the sampler ran although the run is over budget")


# --- trials ------------------------------------------------------------------------------
def test_run_refuses_trials_over_budget_before_any_work():
    with pytest.raises(ValueError, match=r"^trials must be an integer between 1 and "
                                         r"10000000000 \(the trials budget\), got") as info:
        montecarlo.run(never_called, budgets.MAX_TRIALS + 1, seed=1)
    assert "\n" not in str(info.value)


def test_trials_budget_is_inclusive():
    assert budgets.check_trials(budgets.MAX_TRIALS) == 10**10
    assert budgets.check_trials(1e10) == 10**10
    with pytest.raises(ValueError, match="trials budget"):
        budgets.check_trials(10**10 + 1)


@pytest.mark.parametrize("argv", [
    ("rescue", "--trials", str(10**18)),
    ("injuries", "--seconds", "5", "--negative-hp", "3", "--trials", str(10**18)),
    ("fight", "Goblin", "--trials", str(10**18)),
])
def test_cli_trials_over_budget_is_one_line(argv):
    one_line_error(run_cli(*argv), "trials", "budget")


def test_simulators_refuse_trials_over_budget():
    with pytest.raises(ValueError, match="trials budget"):
        bl.injuries.simulate(5, 3, 0, trials=10**18, seed=1)
    with pytest.raises(ValueError, match="trials budget"):
        bl.rescue.simulate(trials=10**18, seed=1)


# --- workers -----------------------------------------------------------------------------
def test_workers_over_the_cores_refused():
    most = budgets.max_workers()
    with pytest.raises(ValueError, match=rf"^workers must be an integer between 1 and {most} "
                                         r"\(the cores of this machine\)"):
        montecarlo.run(never_called, 10, seed=1, workers=most + 1)
    with pytest.raises(ValueError, match="workers"):
        montecarlo.run(never_called, 10, seed=1, workers=10**9)


def test_max_workers_is_the_usable_cores():
    import os

    assert budgets.max_workers() == len(os.sched_getaffinity(0))


# --- dice ---------------------------------------------------------------------------------
def test_exact_dice_over_the_support_budget_refused():
    # 1000d10000 has 1000 * 9999 + 1 totals
    with pytest.raises(ValueError, match=r"'1000d10000' has 9,999,001 possible totals; exact "
                                         r"distributions are limited to 1,000,000"):
        dice.distribution("1000d10000")


def test_support_budget_is_inclusive():
    # 2 terms: 1d500001 would be over MAX_FACES, so reach exactly 10**6 totals with dice
    # 100d10000 + 1d1 has 100 * 9999 + 1 = 999,901 totals: within budget
    dist = dice.distribution("100d10000")
    assert len(dist) == 999_901
    assert dist.probabilities.sum() == pytest.approx(1.0, abs=1e-12)


def _convolution_powers(count: int, faces: int) -> np.ndarray:
    """count-fold convolution of a fair die, one die at a time in exact integers."""
    counts = [1]
    for _ in range(count):
        new = [0] * (len(counts) + faces - 1)
        for i, c in enumerate(counts):
            for f in range(faces):
                new[i + f] += c
        counts = new
    total = sum(counts)
    return np.array([c / total for c in counts])


def test_large_dice_use_the_stated_fallback_and_agree_with_integer_convolution():
    # 40d30 forced through the FFT fallback (used beyond dice._DIRECT_WORK) against exact ints
    expected = _convolution_powers(40, 30)
    got = dice.parse("40d30")._fft_distribution()
    assert got.totals[0] == 40 and got.totals[-1] == 1200
    np.testing.assert_allclose(got.probabilities, expected, rtol=0, atol=1e-15)


def test_sampling_many_dice_is_chunked_without_changing_the_draws():
    d = dice.parse("300d7")
    size = 3001   # odd rows x odd dice: the chunks must still cut the stream at even counts
    gen = np.random.default_rng(5)
    reference = gen.integers(1, 8, size=(size, 300)).sum(-1)
    old = sampling._SAMPLE_CHUNK
    try:
        sampling._SAMPLE_CHUNK = 1000   # force many chunks
        got = d.sample(size, 5)
    finally:
        sampling._SAMPLE_CHUNK = old
    np.testing.assert_array_equal(got, reference)


def test_dice_constant_over_budget_refused():
    with pytest.raises(ValueError, match=r"constant 99999999999999999999999999 .* between "
                                         r"-1000000000 and 1000000000"):
        dice.parse("99999999999999999999999999")


# --- rules: tables, dice strings, grids, files ----------------------------------------------
def test_table_over_the_row_budget_refused_at_load():
    rules = bl.load_rules()
    rows = [dict(r) for r in rules["injuries"]["table"]]
    last = rows[-1]
    span = [{**last, "low": last["low"] + i, "high": last["low"] + i} for i in range(1000)]
    with pytest.raises(RulesError, match=r"^<updated>: table injuries.table has 1,028 rows; "
                                         r"tables are limited to 1,000 rows"):
        rules.updated({"injuries": {"table": rows[:-1] + span}})


def test_dice_string_over_budget_refused_at_load():
    rules = bl.load_rules()
    weapons = [dict(r) for r in rules["percentile"]["weapons"]["table"]]
    weapons[0]["damage"] = "1000d10000"
    with pytest.raises(RulesError, match=r"^<updated>: table percentile.weapons.table, row 1 "
                                         r"\(Dagger\): damage = '1000d10000': .* limited to "
                                         r"1,000,000"):
        rules.updated({"percentile": {"weapons": {"table": weapons}}})


def test_percentile_die_over_the_grid_budget_refused_at_load():
    with pytest.raises(RulesError, match=r"^<updated>: percentile.die = 10000: the percentile "
                                         r"tier lookup would have 100,001 x 10,001 = "
                                         r"1,000,110,001 cells .* limited to 20,000,000 cells"):
        bl.load_rules().updated({"percentile": {"die": 10000}})


def test_percentile_tier_lookup_within_budget_still_works():
    # d1000: tiers of skill 65 by counting faces (independent of the lookup table)
    rules = bl.load_rules().updated({"percentile": {"die": 1000, "roll": {
        "automatic_failure_min": 996, "fumble_min": 999, "high_skill_fumble_min": 1000}}})
    got = bl.percentile.tiers(65, rules=rules)
    crit = -(-65 // 10)
    faces = np.arange(1, 1001)
    success = (faces <= 65) | (faces <= 5)
    assert got["critical"] == pytest.approx(np.count_nonzero(faces <= crit) / 1000)
    assert got["success"] == pytest.approx(np.count_nonzero(success & (faces > crit)) / 1000)


def test_rules_file_over_the_size_budget_refused(tmp_path):
    big = tmp_path / "big.toml"
    big.write_text("# " + "x" * budgets.MAX_RULES_BYTES + "\n", encoding="utf-8")
    with pytest.raises(RulesError, match=r"big.toml: .* bytes; rules files are limited to"):
        bl.load_rules(big)


def test_grid_check_names_what_sizes_it():
    with pytest.raises(ValueError, match=r"^x would have 20,001 x 1,000 = 20,001,000 cells "
                                         r"\(from a, b\); exact surfaces are limited"):
        budgets.check_grid("x", (20_001, 1000), "a, b")
    budgets.check_grid("x", (20_000, 1000))


def test_injury_surface_over_the_grid_budget_refused_before_any_work():
    # 5 x 176 x 50 x 30 = 1,320,000 cells is the documented full grid; 100x the seconds is not
    full = bl.injuries.injury_surface(range(176), range(1, 51), range(5), tidy=False)
    assert full.shape == (5, 176, 50, 30)
    with pytest.raises(ValueError, match=r"^injury_surface would have 5 x 17,600 x 50 x 30 = "
                                         r"132,000,000 cells \(from wounds x seconds x "
                                         r"negative_hp x injury rows\)"):
        bl.injuries.injury_surface(np.arange(17_600) % 176, range(1, 51), range(5))


def test_sample_over_the_sample_budget_refused_before_allocating():
    with pytest.raises(ValueError, match=r"^size must hold at most 100,000,000 values \(the "
                                         r"sample budget.*got 1,000,000,000,000$"):
        dice.sample("3d6", 10**12, seed=1)
    with pytest.raises(ValueError, match=r"got 100,000,000,000,000"):
        dice.parse("1d6").sample((10**7, 10**7), seed=1)


def test_report_death_surface_of_a_late_automatic_death_stays_within_the_grid_budget():
    from balance.report.data import SURFACE_SECONDS, death_surface

    rules = bl.load_rules().updated({"injuries": {"automatic_death_seconds": 100_000}})
    surface = death_surface(rules=rules)
    seconds = np.unique(surface["seconds"])
    assert seconds.size == SURFACE_SECONDS and seconds[0] == 0 and seconds[-1] == 100_000
    # each point is the exact closed form at that second
    row = surface[(surface.seconds == seconds[7]) & (surface.wounds == 1)
                  & (surface.negative_hp == 5)]
    expected = bl.injuries.injury_probabilities(seconds[7], 5, 1, rules=rules)
    np.testing.assert_array_equal(row["probability"].to_numpy(), expected)


def test_rescue_curve_reaches_a_late_automatic_death():
    # times up to the automatic death are accepted (the [limits] allow 100,000 s); arrivals at
    # the wall always die, arrivals at 0 with 1 negative HP never do (k = 1 + 1 <= 75)
    rules = bl.load_rules().updated({"injuries": {"automatic_death_seconds": 100_000}})
    frame = bl.rescue.curve(times=[0, 100_000], wounds=(0,), trials=2000, seed=3, rules=rules)
    by = frame.set_index("arrival")
    assert by.loc[100_000, "deaths"] == by.loc[100_000, "trials"] > 0
    assert by.loc[0, "deaths"] == 0 and by.loc[0, "trials"] > 0


def test_cli_percentile_die_over_the_grid_budget_is_one_line(tmp_path):
    # was 7.45 GiB for `balance tiers 65`
    (tmp_path / "die.toml").write_text("[percentile]\ndie = 10000\n", encoding="utf-8")
    one_line_error(run_cli("tiers", "65", "--rules", "die.toml", cwd=tmp_path),
                   "die.toml: percentile.die = 10000", "grid budget")


def test_a_long_text_of_digits_is_refused_quickly():
    # a million digits: no quadratic scan (the dice check and the parser stay linear)
    digits = "9" * 1_000_000
    with pytest.raises(RulesError, match=r"^<updated>: percentile.humans.STR = '1d6\+9{32}\.\.\.: "
                                         r"constant 9{27}\.\.\. must be between"):
        bl.load_rules().updated({"percentile": {"humans": {"STR": "1d6+" + digits}}})


@settings(derandomize=True, max_examples=60, deadline=None)
@given(kinds=st.lists(st.sampled_from(["[", "{"]), min_size=1, max_size=40),
       decoy=st.sampled_from(["", ' "[[[[{{" ', " '{{[[' ", ' """ [[[ """ ']))
def test_rules_depth_is_measured_the_same_before_and_after_parsing(kinds, decoy):
    # nested arrays and inline tables, with brackets inside strings and a comment as decoys
    opening = "".join("[" if k == "[" else "{a = " for k in kinds)
    closing = "".join("]" if k == "[" else "}" for k in reversed(kinds))
    text = f'note = {decoy.strip() or "1"}  # [[[[ {{{{\nx = {opening}1{closing}\n'
    deep = len(kinds) > budgets.MAX_RULES_DEPTH
    try:
        budgets.check_depth(text, "t.toml")
        refused_text = False
    except RulesError:
        refused_text = True
    assert refused_text == deep
    if not deep:  # what parses is measured the same way once parsed
        budgets.check_nesting(tomllib.loads(text), "t.toml")


def test_nesting_budget_is_inclusive():
    value: object = 1
    for _ in range(budgets.MAX_RULES_DEPTH):
        value = [value]
    budgets.check_nesting({"x": value}, "t.toml")  # 32 levels below the file's own table
    with pytest.raises(RulesError, match=r"^t.toml: nested more than 32 levels deep"):
        budgets.check_nesting({"x": [value]}, "t.toml")


def test_a_printed_table_is_refused_above_the_printed_rows_budget(capsys):
    # 2,001 x 2,000 x 4 combinations (16 M rows) took minutes and some 10 GB to print
    from balance import cli
    argv = ["death", "--seconds", *map(str, range(2001)), "--negative-hp",
            *map(str, range(1, 2001)), "--wounds", "0", "1", "2", "3"]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["balance: error: balance death: 4 --wounds x 2,000 --negative-hp x 2,001 "
                   "--seconds = 16,008,000 rows; a printed table is limited to 1,000,000 rows "
                   "(the printed-rows budget): pass fewer values, or use the Python API "
                   "(balance.grids) for a larger grid"]
    assert budgets.check_printed("x", {"--a": 1000, "--b": 1000}) == budgets.MAX_PRINTED_ROWS


def test_a_sample_is_limited_by_the_dice_it_rolls(capsys):
    # 10^8 totals of 1000d10000 (10^11 dice) drew for minutes: refused before any draw
    from balance import cli
    assert cli.main(["dice", "1000d10000", "--trials", "100000000"]) == 2
    assert capsys.readouterr().err.strip() == (
        "balance: error: argument --trials: 100,000,000 values of 1,000 dice each roll "
        "100,000,000,000 dice; one draw rolls at most 10,000,000,000 (the sample budget): "
        "draw fewer values")
    with pytest.raises(ValueError, match=r"^size: 20,000,000 values of 1,000 dice each roll"):
        bl.dice.sample("1000d6", 2 * 10**7, seed=1)
    budgets.check_sample(10**7, 1000)                    # the budget is inclusive
    assert bl.dice.parse("4d6kh3+2d8-1d4+3").dice_count == 7
