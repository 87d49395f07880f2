"""Output paths never lose a user's file (issue 11, items 1, 5 and 9).

``balance report --out`` writes only into a folder that is absent, empty or an earlier report
(recognised by its marker file); ``--force`` replaces only the report's own files. Every output
path refuses what is not a regular file or absent (FIFOs, devices, folders), root or not. A run
killed while the new report moves in leaves the old one recoverable, and the next run recovers it.
"""
from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from balance import cli

FAST = ["--sections", "assumptions", "--trials", "200", "--quiet"]
MARKER = ".balance-report.json"


def run(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def tree(root: Path) -> dict[str, bytes | None]:
    """Every entry under ``root``: relative path -> content (None for folders)."""
    found = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        found[rel] = None if path.is_dir() else path.read_bytes()
    return found


@pytest.fixture
def no_work(monkeypatch):
    """Fail the test if a report, diff or snapshot starts computing."""
    def computed(*args, **kwargs):
        raise AssertionError("work started before the output path was checked")
    import balance.regression.diff
    import balance.regression.snapshot
    import balance.report.build
    monkeypatch.setattr(balance.report.build, "compute_bundle", computed)
    monkeypatch.setattr(balance.regression.diff, "as_snapshot", computed)
    monkeypatch.setattr(balance.regression.snapshot, "take", computed)


@pytest.fixture
def devices_untouched(monkeypatch):
    """Refuse (in this process) any rename, replace, link or unlink touching a device file,
    so that a regression can never damage /dev/null while the test runs as root."""
    def guard(func):
        def wrapped(*paths, **kwargs):
            for p in paths[:2]:
                try:
                    mode = os.stat(p).st_mode
                except (OSError, TypeError, ValueError):
                    continue
                if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
                    raise AssertionError(f"{func.__name__} on the device {p}")
            return func(*paths, **kwargs)
        wrapped.__name__ = func.__name__
        return wrapped
    for name in ("rename", "replace", "link", "unlink"):
        monkeypatch.setattr(os, name, guard(getattr(os, name)))
    yield
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


# --- report --out: what folder it accepts -------------------------------------------------


def test_a_folder_holding_a_users_file_is_refused_before_any_work(capsys, tmp_path, no_work):
    d = tmp_path / "d"
    d.mkdir()
    (d / "thesis.txt").write_text("four years of work")
    code, out, err = run(capsys, "report", "--out", d, *FAST)
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1
    assert err.startswith(f"balance: error: --out {d}: ") and "thesis.txt" in err
    assert "--force" in err
    assert tree(d) == {"thesis.txt": b"four years of work"}
    assert sorted(os.listdir(tmp_path)) == ["d"]


def test_the_default_folder_holding_a_users_file_names_the_cli_flag(capsys, tmp_path,
                                                                   monkeypatch, no_work):
    # no --out: reports/default is the folder, and the way out is the command's --force
    monkeypatch.chdir(tmp_path)
    (tmp_path / "reports" / "default").mkdir(parents=True)
    (tmp_path / "reports" / "default" / "thesis.txt").write_text("mine")
    code, out, err = run(capsys, "report", *FAST)
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    assert err.startswith(f"balance: error: --out {Path('reports') / 'default'}: ")
    assert "pass --force" in err and "force=True" not in err
    assert tree(tmp_path / "reports" / "default") == {"thesis.txt": b"mine"}


def test_out_dot_in_a_project_is_refused(capsys, tmp_path, monkeypatch, no_work):
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    (project / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (project / "src").mkdir()
    (project / "src" / "game.py").write_text("print('hi')\n")
    (project / "pyproject.toml").write_text("[project]\nname = 'game'\n")
    before = tree(project)
    monkeypatch.chdir(project)
    code, out, err = run(capsys, "report", "--out", ".", *FAST)
    assert code == 2 and len(err.splitlines()) == 1
    assert ".git" in err and "not a balance report" in err
    assert tree(project) == before
    assert sorted(os.listdir(tmp_path)) == ["project"]


@pytest.mark.parametrize("force", [[], ["--force"]])
def test_out_in_a_missing_folder_is_refused_not_created(capsys, tmp_path, force, no_work):
    """A typo in --out's parent is refused in one line naming --out; no folder is made."""
    out = tmp_path / "typo" / "deeper" / "r"
    code, stdout, err = run(capsys, "report", "--out", out, *FAST, *force)
    assert code == 2 and stdout == "" and len(err.splitlines()) == 1
    assert err.startswith(f"balance: error: --out {out}: ")
    assert f"the folder {out.parent} does not exist" in err
    assert os.listdir(tmp_path) == []
    import balance as bl
    with pytest.raises(ValueError, match="does not exist"):
        bl.report.build_report(out=tmp_path / "typo" / "r", topics=["assumptions"],
                               progress=False)
    assert os.listdir(tmp_path) == []


def test_the_default_reports_folder_is_still_made(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "report", *FAST)
    assert code == 0, err
    assert (tmp_path / "reports" / "default" / "index.html").is_file()


@pytest.mark.parametrize("force", [[], ["--force"]])
def test_out_naming_a_file_is_refused_even_with_force(capsys, tmp_path, monkeypatch, force,
                                                      no_work):
    monkeypatch.chdir(tmp_path)
    Path("notes.txt").write_text("my notes")
    code, out, err = run(capsys, "report", "--out", "notes.txt", *FAST, *force)
    assert code == 2 and len(err.splitlines()) == 1 and "--out notes.txt" in err
    assert Path("notes.txt").is_file() and Path("notes.txt").read_text() == "my notes"
    assert sorted(os.listdir(tmp_path)) == ["notes.txt"]


@pytest.mark.parametrize("rules_file", ["..toml", "...toml"])
def test_default_folder_of_a_dotted_rules_file_stays_inside_reports(capsys, tmp_path,
                                                                     monkeypatch, rules_file):
    monkeypatch.chdir(tmp_path)
    Path(rules_file).write_text("")                 # a valid (empty) variant
    Path("mine.txt").write_text("mine")
    Path("reports").mkdir()
    Path("reports/keep.txt").write_text("keep")
    code, out, err = run(capsys, "report", "--rules", rules_file, *FAST)
    assert code == 0, err
    assert Path("mine.txt").read_text() == "mine" and Path(rules_file).is_file()
    assert Path("reports/keep.txt").read_text() == "keep"
    (made,) = [p for p in Path("reports").iterdir() if p.name != "keep.txt"]
    assert made.is_dir() and not made.name.startswith(".")
    assert (made / "index.html").is_file() and (made / MARKER).is_file()
    assert sorted(os.listdir(tmp_path)) == sorted(["mine.txt", "reports", rules_file])


@settings(derandomize=True, max_examples=300, deadline=None)
@given(st.text(max_size=12))
def test_report_names_are_plain_folder_names(stem):
    from balance.report.build import report_name
    for rules_file in (f"{stem}.toml", stem, f"dir/{stem}.toml"):
        if not rules_file:
            continue
        name = report_name(rules_file)
        assert name and name not in (".", "..") and not name.startswith(".")
        assert "/" not in name and "\\" not in name and "\x00" not in name
        assert name == name.strip() and name.isprintable()


def test_report_names_keep_ordinary_stems():
    from balance.report.build import report_name
    assert report_name("variants/my_variant.toml") == "my_variant"
    assert report_name("boss-v2.toml") == "boss-v2"
    assert report_name(None) == "default"


def test_force_replaces_only_the_reports_own_files(capsys, tmp_path):
    d = tmp_path / "d"
    (d / "figures").mkdir(parents=True)
    (d / "thesis.txt").write_text("thesis")
    (d / "figures" / "my_drawing.png").write_bytes(b"mine")
    code, out, err = run(capsys, "report", "--out", d, "--force", "--sections", "death",
                         "--trials", "200", "--quiet")
    assert code == 0, err
    assert (d / "thesis.txt").read_text() == "thesis"
    assert (d / "figures" / "my_drawing.png").read_bytes() == b"mine"
    marker = json.loads((d / MARKER).read_text())
    assert "index.html" in marker["files"] and "report.md" in marker["files"]
    death_figures = [f for f in marker["files"] if f.startswith("figures/")]
    assert death_figures and all((d / f).is_file() for f in marker["files"])
    assert "thesis.txt" not in marker["files"]
    # without --force the folder is still refused (it holds the user's files)
    code, out, err = run(capsys, "report", "--out", d, *FAST)
    assert code == 2 and "thesis.txt" in err
    # a second forced run replaces the report's own files, and drops its stale figures
    code, out, err = run(capsys, "report", "--out", d, "--force", *FAST)
    assert code == 0, err
    assert not any((d / f).exists() for f in death_figures)
    assert (d / "thesis.txt").read_text() == "thesis"
    assert (d / "figures" / "my_drawing.png").read_bytes() == b"mine"
    assert sorted(json.loads((d / MARKER).read_text())["files"]) == ["index.html", "report.md"]
    # stale figures go with the folder they leave empty
    (d / "figures" / "my_drawing.png").unlink()
    (d / "figures").rmdir()
    for argv in (["--sections", "death", "--trials", "200", "--quiet"], FAST):
        code, out, err = run(capsys, "report", "--out", d, "--force", *argv)
        assert code == 0, err
    assert sorted(tree(d)) == [MARKER, "index.html", "report.md", "thesis.txt"]


def test_an_earlier_report_is_recognised_by_its_marker_and_replaced(capsys, tmp_path):
    d = tmp_path / "rep"
    code, _, err = run(capsys, "report", "--out", d, "--sections", "death", "--trials", "200",
                       "--quiet")
    assert code == 0, err
    from balance import __version__
    marker = json.loads((d / MARKER).read_text())
    assert marker["balance"] == __version__
    assert sorted(marker["files"]) == sorted(k for k, v in tree(d).items()
                                             if v is not None and k != MARKER)
    old_figures = [f for f in marker["files"] if f.startswith("figures/")]
    assert old_figures
    code, _, err = run(capsys, "report", "--out", d, *FAST)      # no --force needed
    assert code == 0, err
    assert not any((d / f).exists() for f in old_figures)
    assert sorted(json.loads((d / MARKER).read_text())["files"]) == ["index.html", "report.md"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rep"]   # nothing left beside it
    # a file the user added into the report folder makes it foreign again
    (d / "comments.txt").write_text("my comments")
    code, _, err = run(capsys, "report", "--out", d, *FAST)
    assert code == 2 and "comments.txt" in err
    assert (d / "comments.txt").read_text() == "my comments"


def test_a_damaged_marker_does_not_make_a_folder_a_report(capsys, tmp_path, no_work):
    d = tmp_path / "d"
    d.mkdir()
    (d / MARKER).write_text(json.dumps({"balance": "0", "files": ["../../etc/passwd"]}))
    (d / "index.html").write_text("my page")
    code, _, err = run(capsys, "report", "--out", d, *FAST)
    assert code == 2 and len(err.splitlines()) == 1 and "would overwrite index.html" in err
    assert (d / "index.html").read_text() == "my page"


def test_a_file_appearing_while_the_report_computes_is_kept(tmp_path, monkeypatch):
    from balance.report import build
    real = build.render_markdown
    def user_saves_a_file(*args, **kwargs):
        (tmp_path / "rep" / "late.txt").write_text("saved meanwhile")
        return real(*args, **kwargs)
    (tmp_path / "rep").mkdir()
    monkeypatch.setattr(build, "render_markdown", user_saves_a_file)
    with pytest.raises(ValueError, match="late.txt"):
        build.build_report(out=tmp_path / "rep", topics=["assumptions"], trials=200,
                           progress=False)
    assert tree(tmp_path) == {"rep": None, "rep/late.txt": b"saved meanwhile"}


def test_the_api_refuses_too(tmp_path, no_work):
    import balance as bl
    (tmp_path / "thesis.txt").write_text("x")
    with pytest.raises(ValueError, match="thesis.txt"):
        bl.report.build_report(out=tmp_path, topics=["assumptions"], progress=False)
    assert tree(tmp_path) == {"thesis.txt": b"x"}


# --- every output path: regular file or absent -------------------------------------------


def _fifo(tmp_path: Path) -> Path:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    return fifo


OUTPUTS = [
    ("--csv", ["diff", "bundled", "bundled", "--only", "death.*", "--trials", "200", "--csv"]),
    ("--html", ["diff", "bundled", "bundled", "--only", "death.*", "--trials", "200", "--html"]),
    ("--out", ["snapshot", "--only", "death.*", "--trials", "200", "--out"]),
    ("--out", ["snapshot", "--only", "death.*", "--trials", "200", "--force", "--out"]),
    ("--out", ["report", *FAST, "--out"]),
    ("--out", ["report", *FAST, "--force", "--out"]),
]


IDS = [" ".join(argv[:1] + argv[-2:]) for _, argv in OUTPUTS]


@pytest.mark.parametrize("option, argv", OUTPUTS, ids=IDS)
def test_a_fifo_is_never_replaced(capsys, tmp_path, option, argv, no_work):
    fifo = _fifo(tmp_path)
    code, out, err = run(capsys, *argv, fifo)
    assert code == 2 and len(err.splitlines()) == 1
    assert f"{option} {fifo}" in err and "FIFO" in err
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert sorted(os.listdir(tmp_path)) == ["pipe"]


@pytest.mark.parametrize("option, argv", OUTPUTS, ids=IDS)
def test_a_device_is_never_replaced(capsys, option, argv, no_work, devices_untouched):
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    entries = sorted(os.listdir("/dev"))
    code, out, err = run(capsys, *argv, "/dev/null")
    assert code == 2 and len(err.splitlines()) == 1
    assert f"{option} /dev/null" in err and "device" in err
    assert sorted(os.listdir("/dev")) == entries


@pytest.mark.parametrize("option", ["--csv", "--html"])
def test_a_folder_where_a_file_is_expected_is_refused(capsys, tmp_path, option, no_work):
    (tmp_path / "keep.txt").write_text("keep")
    code, out, err = run(capsys, "diff", "bundled", "bundled", "--only", "death.*",
                         "--trials", "200", option, tmp_path)
    assert code == 2 and len(err.splitlines()) == 1 and f"{option} {tmp_path}" in err
    assert tree(tmp_path) == {"keep.txt": b"keep"}


def test_the_writers_refuse_devices_and_fifos_themselves(tmp_path, devices_untouched):
    from balance._atomic import write_file
    fifo = _fifo(tmp_path)
    for target in (fifo, Path("/dev/null"), tmp_path):
        with pytest.raises(ValueError, match="not a regular file"):
            write_file(target, "x")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert sorted(os.listdir(tmp_path)) == ["pipe"]


def test_a_regular_file_and_a_new_name_are_still_written(capsys, tmp_path):
    (tmp_path / "old.csv").write_text("old")
    for name in ("old.csv", "new.csv"):
        force = ["--force"] if name == "old.csv" else []  # an existing file only if forced
        code, _, err = run(capsys, "diff", "bundled", "bundled", "--only", "death.*",
                           "--trials", "200", "--csv", tmp_path / name, *force)
        assert code == 0, err
        lines = (tmp_path / name).read_text().splitlines()
        assert lines[0].startswith("metric,") and len(lines) > 1   # the table, not "old"
    assert sorted(os.listdir(tmp_path)) == ["new.csv", "old.csv"]


def test_plots_save_refuses_a_fifo_and_writes_atomically(tmp_path, devices_untouched):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import balance as bl
    fig, ax = plt.subplots(figsize=(1, 1))
    fifo = _fifo(tmp_path)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # a write could not block the test
    try:
        for target in (fifo, Path("/dev/null"), tmp_path):
            with pytest.raises(ValueError, match="not a regular file"):
                bl.plots.save(ax, target, dpi=10)
    finally:
        os.close(reader)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    bl.plots.save(ax, tmp_path / "a.png", dpi=10)
    bl.plots.save(ax, tmp_path / "a.svg")
    plt.close(fig)
    assert (tmp_path / "a.png").read_bytes()[:4] == b"\x89PNG"
    assert b"<svg" in (tmp_path / "a.svg").read_bytes()
    assert sorted(os.listdir(tmp_path)) == ["a.png", "a.svg", "pipe"]


# --- a run killed while the new report moves in ------------------------------------------

KILL = textwrap.dedent("""
    import os, sys
    from pathlib import Path
    from balance import _atomic
    from balance.report import build
    out = Path(sys.argv[1]).resolve()
    mode = sys.argv[2]
    if mode == "fallback":          # no atomic exchange: killed just before the new one moves in
        _atomic.exchange = lambda a, b: False
        for name in ("rename", "replace"):
            real = getattr(os, name)
            def killer(src, dst, *a, _real=real, **k):
                if Path(dst).resolve() == out:
                    os._exit(9)
                return _real(src, dst, *a, **k)
            setattr(os, name, killer)
    elif mode == "exchanged":       # killed just after the exchange, before the cleanup
        real_exchange = _atomic.exchange
        def killer(a, b):
            done = real_exchange(a, b)
            if done:
                os._exit(9)
            return done
        _atomic.exchange = killer
    elif mode == "writing":         # killed while the new report is being written
        real_write = Path.write_text
        def killer(self, *a, **k):
            real_write(self, *a, **k)
            os._exit(9)
        Path.write_text = killer
    build.write_report(out, {"index.html": "new", "report.md": "new"})
    os._exit(0)
""")


@pytest.mark.parametrize("mode", ["fallback", "exchanged", "writing"])
def test_a_killed_run_never_loses_the_report_and_the_next_run_recovers(capsys, tmp_path,
                                                                       mode, monkeypatch):
    from balance.report import build
    if mode == "exchanged":
        from balance._atomic import exchange
        (tmp_path / "a").mkdir()
        (tmp_path / "b").mkdir()
        works = exchange(tmp_path / "a", tmp_path / "b")
        (tmp_path / "a").rmdir()
        (tmp_path / "b").rmdir()
        if not works:  # Linux has renameat2(RENAME_EXCHANGE): there, a missing one is a bug
            if sys.platform.startswith("linux"):
                pytest.fail("the atomic exchange of folders did not work on Linux")
            pytest.skip("no atomic exchange of folders on this system")
    out = tmp_path / "rep"
    build.write_report(out, {"index.html": "old", "report.md": "old"})
    killed = subprocess.run([sys.executable, "-c", KILL, str(out), mode], capture_output=True,
                            text=True, timeout=120)
    assert killed.returncode == 9, killed.stderr
    assert any(p.name.startswith(".rep.") for p in tmp_path.iterdir())   # debris of the kill
    # the next run recovers before any work: here its computation fails, and the last good
    # report is in place, with no debris beside it
    def failing(*args, **kwargs):
        raise ValueError("computation failed")
    monkeypatch.setattr(build, "compute_bundle", failing)
    code, _, err = run(capsys, "report", "--out", out, *FAST)
    assert code == 2 and "computation failed" in err
    expected = "new" if mode == "exchanged" else "old"
    assert (out / "index.html").read_text() == expected
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rep"]


def test_snapshot_refuses_an_existing_baseline_before_measuring(capsys, tmp_path, no_work):
    base = tmp_path / "base.json"
    base.write_text("precious")
    code, _, err = run(capsys, "snapshot", "--only", "death.*", "--trials", "200", "--out", base)
    assert code == 2 and len(err.splitlines()) == 1 and "--force" in err
    assert base.read_text() == "precious"


def test_the_two_rename_fallback_replaces_and_restores(tmp_path, monkeypatch):
    from balance import _atomic
    from balance.report import build
    monkeypatch.setattr(_atomic, "exchange", lambda a, b: False)
    out = tmp_path / "rep"
    build.write_report(out, {"index.html": "old"})
    build.write_report(out, {"index.html": "new"})
    assert (out / "index.html").read_text() == "new"
    real = os.rename
    def second_fails(src, dst):
        if Path(dst) == out and ".rep.tmp-" in str(src):   # the new report moving in
            raise OSError(28, "No space left on device")
        return real(src, dst)
    monkeypatch.setattr(os, "rename", second_fails)
    with pytest.raises(OSError, match="No space"):
        build.write_report(out, {"index.html": "newer"})
    assert (out / "index.html").read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rep"]


def test_when_the_restore_fails_too_the_old_report_waits_for_the_next_run(tmp_path,
                                                                        monkeypatch):
    from balance import _atomic
    from balance.report import build
    monkeypatch.setattr(_atomic, "exchange", lambda a, b: False)
    out = tmp_path / "rep"
    build.write_report(out, {"index.html": "old"})
    real = os.rename
    def nothing_moves_in(src, dst):
        if Path(dst) == out:
            raise OSError(5, "Input/output error")
        return real(src, dst)
    monkeypatch.setattr(os, "rename", nothing_moves_in)
    with pytest.raises(OSError):
        build.write_report(out, {"index.html": "new"})
    monkeypatch.setattr(os, "rename", real)
    assert not out.exists()
    _atomic.recover_folder(out)
    assert (out / "index.html").read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rep"]


def test_two_outputs_naming_one_file_are_refused_before_any_work(tmp_path, capsys):
    # diff --csv and --html to one path wrote the HTML over the CSV and said "wrote" once
    same = tmp_path / "e.csv"
    code, out, err = run(capsys, "diff", "bundled", "death_threshold_180", "--only", "death.*",
                         "--csv", same, "--html", tmp_path / "." / "e.csv")
    assert code == 2 and not same.exists()
    assert err.strip().splitlines() == [f"balance: error: --html {tmp_path / '.' / 'e.csv'}: "
                                        f"the same file as --csv; give each output its own file"]
    # --bundled only adds to --html: alone it is refused, not ignored
    code, out, err = run(capsys, "diff", "bundled", "death_threshold_180", "--only", "death.*",
                         "--bundled")
    assert code == 2 and "--bundled adds sections to the --html report" in err
