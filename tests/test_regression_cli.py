"""``balance snapshot | diff | check``: exit codes 0/1/2, one-line errors, refusal to overwrite."""
import json
import subprocess
import sys

import pytest

from balance.cli import regression as regression_cli

FAST = ["--trials", "2000"]


def run(capsys, *argv):
    code = regression_cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def baseline(tmp_path_factory):
    path = tmp_path_factory.mktemp("cli") / "baseline.json"
    assert regression_cli.main(["snapshot", "--out", str(path), *FAST, "--seed", "3"]) == 0
    return path


def test_snapshot_writes_and_refuses_to_overwrite(capsys, baseline):
    before = baseline.read_text()
    code, out, err = run(capsys, "snapshot", "--out", str(baseline), *FAST)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "already exists; use --force" in err and baseline.read_text() == before
    code, out, _ = run(capsys, "snapshot", "--out", str(baseline), *FAST, "--seed", "3",
                       "--force")
    assert code == 0 and out.startswith(f"wrote {baseline}")
    assert json.loads(baseline.read_text())["seed"] == 3


def test_check_unchanged_rules_exits_0(capsys, baseline):
    code, out, _ = run(capsys, "check", "--baseline", str(baseline))
    assert code == 0 and "nothing moved" in out


def test_check_changed_table_exits_1_and_says_what_moved(capsys, baseline):
    code, out, _ = run(capsys, "check", "--baseline", str(baseline), "--rules",
                       "death_threshold_180")
    assert code == 1
    line = next(x for x in out.splitlines() if x.startswith("death.p@40s,6hp,1w"))
    assert line.split()[1:4] == ["0.1700", "0.1300", "-4.00"] and line.endswith("MOVED")


def test_check_tolerance_and_independent_seed(capsys, baseline, tmp_path):
    tol = tmp_path / "tol.toml"
    tol.write_text('[tolerances]\n"death.*" = 200\n"injuries.*" = 1\n"mc.*" = 1\n'
                   '"rescue.*" = 1\n"campaign.*" = 1\n')
    code, out, _ = run(capsys, "check", "--baseline", str(baseline), "--rules",
                       "death_threshold_180", "--tolerances", str(tol))
    assert code == 0, out
    code, out, _ = run(capsys, "check", "--baseline", str(baseline), "--independent",
                       "--alpha", "0.001")
    assert code == 0, out


@pytest.mark.parametrize("damage, message", [
    (lambda t: t[: len(t) // 3], "corrupted or truncated snapshot"),
    (lambda t: t.replace('"schema_version": 2', '"schema_version": 3'), "schema version 3"),
    (lambda t: "", "corrupted or truncated"),
])
def test_check_unusable_baseline_exits_2_with_one_line(capsys, baseline, tmp_path, damage,
                                                        message):
    bad = tmp_path / "bad.json"
    bad.write_text(damage(baseline.read_text()))
    code, out, err = run(capsys, "check", "--baseline", str(bad))
    assert code == 2 and out == "" and message in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_check_other_catalogue_and_missing_files_exit_2(capsys, tmp_path):
    small = tmp_path / "small.json"
    assert regression_cli.main(["snapshot", "--out", str(small), *FAST, "--only", "d20.*"]) == 0
    doc = json.loads(small.read_text())
    doc["only"] = None                               # pretend it was the whole catalogue
    doc.pop("sha256")                                # an edit that also drops the digest
    small.write_text(json.dumps(doc))
    capsys.readouterr()
    code, _, err = run(capsys, "check", "--baseline", str(small))
    assert code == 2 and "different metric catalogues" in err and err.count("\n") == 1
    code, _, err = run(capsys, "check", "--baseline", str(tmp_path / "absent.json"))
    assert code == 2 and "no such snapshot file" in err
    code, _, err = run(capsys, "check", "--baseline", str(small), "--rules", "nope.toml")
    assert code == 2 and "no such rules file" in err


def test_diff_rules_and_snapshots(capsys, baseline, tmp_path):
    code, out, _ = run(capsys, "diff", "bundled", "charisma_negotiation", *FAST)
    assert code == 1
    assert [x.split()[:4] for x in out.splitlines() if x.startswith("negotiation.price")] == \
        [["negotiation.price@200NX", "191.4", "175", "-16.4"]]
    code, out, _ = run(capsys, "diff", str(baseline), "bundled", *FAST, "--seed", "3")
    assert code == 0
    csv = tmp_path / "d.csv"
    code, out, _ = run(capsys, "diff", str(baseline), str(baseline), "--csv", str(csv), "--all")
    assert code == 0 and csv.read_text().startswith("metric,kind,unit,base,variant,change")
    with pytest.raises(SystemExit) as exc:             # argparse: usage line, exit 2
        regression_cli.main(["diff", "bundled", "bundled", "--tol", "oops"])
    assert exc.value.code == 2 and "NAME=VALUE" in capsys.readouterr().err


def test_real_process_exit_code_and_no_traceback(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema": "balance.regression.snapshot", "schema_')
    proc = subprocess.run([sys.executable, "-m", "balance.cli.regression", "check",
                           "--baseline", str(bad)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip().count("\n") == 0


def test_diff_html_report_overlays_both_rule_sets(capsys, tmp_path):
    out = tmp_path / "diff.html"
    code, text, _ = run(capsys, "diff", "bundled", "death_threshold_180", "--trials", "500",
                        "--only", "death.*", "--html", str(out))
    assert code == 1 and text.strip().endswith(f"wrote {out}")
    page = out.read_text()
    assert page.startswith("<!DOCTYPE html>") and "<svg" in page  # figures inlined as SVG
    assert "Death probability, both rule sets" in page and "death.p@40s,6hp,1w" in page
    # the report's renderer: the significant changes first, old and new value, Holm's test
    assert "metrics differ significantly" in page and "p (Holm)" in page
    assert sorted(p.name for p in tmp_path.iterdir()) == ["diff.html"]


def test_the_balance_command_routes_to_these_handlers(capsys, baseline):
    cli = pytest.importorskip("balance.cli")
    assert cli.main(["check", "--baseline", str(baseline)]) == 0
    assert cli.main(["check", "--baseline", str(baseline), "--rules", "death_threshold_180"]) == 1
    assert cli.main(["check", "--baseline", str(baseline) + ".missing"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no such snapshot file" in err
