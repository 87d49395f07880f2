"""The package cites the rule documents by name and section ("core rules, critical injuries",
"percentile rules, opposed rolls"), never our reading notes' file (RULES.md) or its section
numbers: its docstrings become the API reference, its help the CLI, its data the reports, and
a reader has the rule documents, not our notes. (docs/ may say that the notes exist.)"""
from __future__ import annotations

import ast
import pathlib
import re

PACKAGE = pathlib.Path(__file__).resolve().parents[1] / "balance"
NOTES = "RULES" + ".md"  # spelled in two pieces so that this file does not match itself
#: "(core rules 1.2)", "(percentile 3.3)", "(§3.1)", "(1.2-1.4)": the notes' section numbers
NUMBERED = re.compile(r"\((?:(?:core rules|core|GM guide|guide|percentile rules|percentile)\s+"
                      r"|§\s*)?[123]\.[1-6](?:\s*[-–,/]\s*§?[123]\.[1-6])*\)")


def allowed(path: pathlib.Path) -> set[int]:
    """Lines that may name the notes: :func:`balance.labels.cite`'s docstring, whose examples
    show it rewriting such a reference (older variant files' notes hold them) as a document
    and section."""
    if path.name != "labels.py" or path.parent != PACKAGE:
        return set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    cite = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "cite")
    doc = cite.body[0]
    return set(range(doc.lineno, doc.end_lineno + 1))


def texts(path: pathlib.Path):
    """(line number, line) of every line of a package file: Python (docstrings, comments, help,
    messages and code alike), TOML data, labels, CSS."""
    return enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)


def package_files():
    return sorted(p for p in PACKAGE.rglob("*") if p.is_file() and "__pycache__" not in p.parts
                  and p.suffix in {".py", ".toml", ".md", ".css", ".html", ".txt", ".csv"})


def test_no_docstring_comment_help_or_data_names_the_reading_notes():
    found = [f"{p.relative_to(PACKAGE.parent)}:{n}: {line.strip()}"
             for p in package_files() for n, line in texts(p)
             if NOTES in line and n not in allowed(p)]
    assert not found, "\n".join(found)


def test_no_citation_by_the_notes_section_numbers():
    found = [f"{p.relative_to(PACKAGE.parent)}:{n}: {line.strip()}"
             for p in package_files() if p.suffix == ".py" for n, line in texts(p)
             if NUMBERED.search(line) and n not in allowed(p)]
    assert not found, "\n".join(found)


def test_the_checks_can_fail():
    """Both patterns catch what the package used to say."""
    assert NOTES in "Plots of the core rules (RULES.md 1.1-1.5)"
    for old in ("death chance when stabilised or healed (core rules 1.2)", "opposed rolls (3.1)",
                "one curve per difficulty grade (§3.1)", "campaign (core 1.2-1.3)",
                "duel (percentile 3.3)", "encounter calibration (GM guide 2.4)"):
        assert NUMBERED.search(old), old
    for fine in ("(core rules, critical injuries)", "ax = axes(ax, figsize=(4.5, 3.2))",
                 "ax.set_xlim(-0.02, 1.3)"):
        assert not NUMBERED.search(fine), fine
    assert allowed(PACKAGE / "labels.py")  # the one exemption exists
