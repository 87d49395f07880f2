"""MkDocs hook: the pages that are generated from the code and data at build time.

Nothing here is committed as Markdown; each build writes, in memory:

- ``tutorials/*.ipynb``: the notebooks of ``notebooks/`` (made by ``notebooks/make_notebooks.py``),
  added as they are, without copying, and rendered by mkdocs-jupyter;
- ``reference/cli.md``: every command's ``--help``, from ``balance.cli.build_parser()``;
- ``reference/rules-schema.md``: every key of the bundled rules data
  (``balance/rules/data/*.toml``) with its type, default, ``[limits]`` range and ``[assumed]`` note;
- ``reference/api/*.md``: one mkdocstrings page per public module, and their place in the nav
  (the nav entry ``API: reference/api/index.md`` of ``mkdocs.yml`` grows into the whole list).
"""
from __future__ import annotations

import argparse
import html
import os
import pathlib
import re
import tomllib
from typing import Any

from mkdocs.plugins import CombinedEvent, event_priority
from mkdocs.structure.files import File, Files

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "balance"
NOTEBOOKS = ROOT / "notebooks"
API_INDEX = "reference/api/index.md"
#: what each bundled rules file holds
DATA_FILES = {
    "core.toml": "The core rules: d20 Tests, dying and critical injuries (English and French), "
                 "treatment, time, negotiation, rest.",
    "gm_guide.toml": "The GM guide (*Worlds Awakening*): design limits, creature formulas, base HP "
                     "and ratios, calibration, checks, fatigue, falls, economy, the default party "
                     "and the bestiary.",
    "percentile.toml": "The percentile rules: tiers, grades, bands, hit locations, combat, sample "
                       "weapons, magic.",
}
_MODULES: list[str] = []  # the public modules found by on_config, for on_files

#: what each folder of the package holds, for the API index and the nav
GROUPS = {
    "balance": "The notebook surface, words and errors, rng, budgets, dice",
    "balance.rules": "Rules data: loading, validation, invariants",
    "balance.montecarlo": "The Monte Carlo engine",
    "balance.core": "Core rules",
    "balance.guide": "GM guide (Worlds Awakening)",
    "balance.percentile": "Percentile rules",
    "balance.plots": "Plots",
    "balance.regression": "Regression checks",
    "balance.tune": "Tuning",
    "balance.report": "The balance report",
    "balance.explore": "Explorers",
    "balance.bench": "The benchmark",
    "balance.cli": "The command line",
}


# -- public modules ---------------------------------------------------------------------------

def public_modules() -> list[str]:
    """Dotted names of the package's public modules (no part starting with ``_``), sorted."""
    names = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if any(p.startswith("_") for p in parts):
            continue
        # a folder without __init__.py (work in progress) is no package yet
        if not all((ROOT.joinpath(*parts[:i]) / "__init__.py").is_file()
                   for i in range(1, len(parts) if path.name != "__init__.py" else len(parts) + 1)):
            continue
        names.append(".".join(parts))
    return sorted(names)


def group_of(module: str) -> str:
    parts = module.split(".")
    if len(parts) > 1 and f"balance.{parts[1]}" in GROUPS and (
            len(parts) > 2 or (PACKAGE / parts[1]).is_dir()):
        return f"balance.{parts[1]}"
    return "balance"


def api_page(module: str) -> str:
    return f"reference/api/{module}.md"


def api_markdown(module: str) -> str:
    return f"# `{module}`\n\n::: {module}\n"


def api_index(modules: list[str]) -> str:
    lines = ["# API reference", "",
             "One page per public module, generated from the docstrings (numpydoc) at build "
             "time. In a notebook, `import balance as bl` reaches the topic modules by short "
             "names: `bl.injuries` is `balance.core.injuries`, `bl.fights` is "
             "`balance.guide.fights`, `bl.percentile` is `balance.percentile`.", ""]
    for group, title in GROUPS.items():
        members = [m for m in modules if group_of(m) == group]
        if not members:
            continue
        lines += [f"## {title}", ""]
        lines += [f"- [`{m}`]({m}.md)" for m in members]
        lines.append("")
    return "\n".join(lines)


def api_nav(modules: list[str]) -> list[Any]:
    nav: list[Any] = [API_INDEX]
    for group, title in GROUPS.items():
        members = [m for m in modules if group_of(m) == group]
        if members:
            nav.append({title: [{m: api_page(m)} for m in members]})
    return nav


# -- the command line -------------------------------------------------------------------------

def _subcommands(parser: argparse.ArgumentParser):
    for action in parser._actions:  # argparse keeps subparsers only here
        if isinstance(action, argparse._SubParsersAction):
            yield from action.choices.items()


def cli_markdown() -> str:
    from balance.cli import build_parser

    # argparse wraps help at the terminal's width: 80 columns fit the page, whatever the terminal
    columns = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "80"
    try:
        return _cli_markdown(build_parser())
    finally:
        if columns is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = columns


def _cli_markdown(parser: argparse.ArgumentParser) -> str:
    lines = ["# Command line", "",
             "Generated at build time from `balance.cli.build_parser()`: the text of each "
             "command's `--help`. Bad input exits with code 2 and one line on stderr "
             "(`balance: error: ...`); `--debug` adds the traceback. `python -m balance ...` is "
             "the same command as `balance ...`.", "",
             "## balance", "", "```text", parser.format_help().rstrip(), "```", ""]

    def walk(p: argparse.ArgumentParser, prefix: str, level: int) -> None:
        for name, sub in _subcommands(p):
            title = f"{prefix} {name}"
            lines.extend([f"{'#' * level} {title}", ""])
            if title == "balance bench":
                from balance.cli import bench

                lines.extend([bench.__doc__.strip().splitlines()[0] if bench.__doc__ else "",
                              "", "```text", "usage: balance bench [--quick] [--only NAME] "
                              "[--format {table,json}]", "                     [--json FILE] [--force]", "```",
                              "", "Run `balance bench --help` for the kernels' names.", ""])
                continue
            lines.extend(["```text", sub.format_help().rstrip(), "```", ""])
            walk(sub, title, min(level + 1, 4))

    walk(parser, "balance", 2)
    return "\n".join(lines)


# -- the rules-file schema --------------------------------------------------------------------

def _type(value: Any) -> str:
    """The type in the words of the validator's messages (``an integer``, ``text``...)."""
    from balance.rules.validate import _type_name

    if isinstance(value, list):
        if value and all(isinstance(v, dict) for v in value):
            return "a table of rows"
        inner = sorted({_type(v) for v in value}) or ["anything"]
        return f"a list of {' / '.join(inner)}"
    return _type_name(value)


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, list):
        text = "[" + ", ".join(_show(v) for v in value) + "]"
        return text if len(text) <= 60 else text[:57] + "...]"
    return repr(value)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


_HEADER = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(r'^\s*("?[A-Za-z0-9_.\-]+"?)\s*=\s*(.*)$')


def _comments(path: pathlib.Path) -> dict[str, str]:
    """``section.key`` -> the comment at the end of that key's line, when there is one."""
    notes: dict[str, str] = {}
    section = ""
    for line in path.read_text(encoding="utf-8").splitlines():
        header = _HEADER.match(line)
        if header and not _KEY.match(line):
            section = header.group(1)
            continue
        key = _KEY.match(line)
        if not key or "#" not in key.group(2):
            continue
        value, _, comment = key.group(2).partition("#")
        if value.count('"') % 2:  # a '#' inside a string: no comment
            continue
        notes[f"{section}.{key.group(1).strip(chr(34))}".lstrip(".")] = comment.strip()
    return notes


def _rows(section: str, data: dict[str, Any], limits: dict, assumed: dict,
          notes: dict[str, str]) -> tuple[list[str], list[tuple[str, dict[str, Any]]]]:
    """The table of a section's values and the list of its subsections and tables of rows."""
    lines: list[str] = []
    nested: list[tuple[str, Any]] = []
    for key, value in data.items():
        dotted = f"{section}.{key}"
        if isinstance(value, dict) and not ({"en", "fr"} >= set(value) and value):
            nested.append((dotted, value))
            continue
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            nested.append((dotted, value))
            continue
        kind = "names (en, fr)" if isinstance(value, dict) else _type(value)
        default = (", ".join(f"{k}: {_show(v)}" for k, v in value.items())
                   if isinstance(value, dict) else _show(value))
        limit = limits.get(dotted)
        rng = f"{limit[0]} to {limit[1]}" if limit else ""
        note = notes.get(dotted, "")
        flag = assumed.get(dotted, "")
        lines.append(f"| `{key}` | {kind} | `{_cell(default)}` | {rng} | "
                     f"{_cell(note)} | {_cell(flag)} |")
    if lines:
        lines = ["| key | type | default | `[limits]` | comment in the file | `[assumed]` |",
                 "|---|---|---|---|---|---|", *lines, ""]
    return lines, nested


def _table_rows(dotted: str, rows: list[dict[str, Any]], limits: dict, assumed: dict) -> list[str]:
    columns: dict[str, set[str]] = {}
    for row in rows:
        for k, v in row.items():
            columns.setdefault(k, set()).add(_type(v))
    out = [f"A table of {len(rows)} row(s), replaced whole by a variant that sets it.", ""]
    if dotted in assumed:
        out += [f"`[assumed]`: {assumed[dotted]}", ""]
    out += ["| column | type | in rows | first row | `[limits]` | `[assumed]` |",
            "|---|---|---|---|---|---|"]
    for col, kinds in columns.items():
        present = sum(col in row for row in rows)
        first = next((row[col] for row in rows if col in row), "")
        limit = limits.get(f"{dotted}.{col}")
        rng = f"{limit[0]} to {limit[1]}" if limit else ""
        out.append(f"| `{col}` | {' / '.join(sorted(kinds))} | {present} of {len(rows)} | "
                   f"`{_cell(_show(first))}` | {rng} | {_cell(assumed.get(f'{dotted}.{col}', ''))} |")
    return out + [""]


def schema_markdown() -> str:
    from balance.rules.validate import RESERVED

    lines = ["# Rules-file schema", "",
             "Generated at build time from the bundled rules data, `balance/rules/data/*.toml`: "
             "the bundled files **are** the schema. A variant file names sections and keys that "
             "exist here, with values of the same type, and overrides only those; a table "
             "(an array of rows) is replaced whole; interval tables (rows with `low`/`high`) "
             "must tile their range without gap or overlap, only the last row may leave `high` "
             "out. `[limits]` ranges are fixed by the bundled files (a variant cannot change "
             "them); `[assumed]` notes mark what the rule documents do not fix. A variant may "
             "add its own `[assumed]` lines (`\"section.key\" = \"why\"`). "
             "See [Rules as data](../how-to/rules-as-data.md) and "
             "[the cross-field invariants](rules-invariants.md).", ""]
    for path in sorted((PACKAGE / "rules" / "data").glob("*.toml")):
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        limits, assumed = (data.pop(name, {}) for name in RESERVED)
        notes = _comments(path)
        lines += [f"## `{path.name}`", ""]
        lines += [DATA_FILES.get(path.name, ""), ""]
        todo: list[tuple[str, Any]] = list(data.items())
        while todo:
            dotted, value = todo.pop(0)
            lines += [f"### `[{dotted}]`", ""]
            if isinstance(value, list):
                lines += _table_rows(dotted, value, limits, assumed)
                continue
            table, nested = _rows(dotted, value, limits, assumed, notes)
            lines += table
            todo[0:0] = nested
        known = {k for k in limits} | {k for k in assumed}
        lines += [f"`{path.name}` has {len(limits)} `[limits]` entries and {len(assumed)} "
                  f"`[assumed]` notes ({len(known)} keys in all).", ""]
    return "\n".join(lines)


# -- the diagram of the layers ----------------------------------------------------------------

_LAYER_LINE = re.compile(r'^\s*\(((?:"[^"]*",?\s*)+)\),\s*#\s*(.*)$')


def layers() -> list[tuple[list[str], str]]:
    """``LAYERS`` of tests/test_layout.py, lowest first, each with the comment of its line."""
    source = (ROOT / "tests" / "test_layout.py").read_text(encoding="utf-8")
    block = source.split("LAYERS = (", 1)[1].split("\n)", 1)[0]
    found = []
    for line in block.splitlines():
        match = _LAYER_LINE.match(line)
        if match:
            names = re.findall(r'"([^"]*)"', match.group(1))
            comment = match.group(2).split('; ""')[0].strip()
            found.append(([n or "balance/__init__" for n in names], html.escape(comment)))
    return found


def layers_svg() -> str:
    """An inline SVG of the layers, the lowest at the bottom, an arrow from each to the next."""
    rows = layers()
    width, height, gap = 720, 34, 16
    total = len(rows) * (height + gap) - gap + 4
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {total}" '
             f'width="100%" role="img" aria-label="The layers of balance, lowest at the bottom" '
             f'style="max-width:{width}px;font-family:sans-serif;font-size:13px">']
    for i, (names, comment) in enumerate(reversed(rows)):
        level = len(rows) - 1 - i
        y = 2 + i * (height + gap)
        parts.append(f'<rect x="2" y="{y}" width="{width - 4}" height="{height}" rx="6" '
                     f'fill="#e8eaf6" stroke="#3f51b5"/>')
        label = " · ".join(names)
        parts.append(f'<text x="14" y="{y + 22}"><tspan font-weight="bold">{level}  {label}'
                     f'</tspan><tspan fill="#555">  — {comment}</tspan></text>')
        if i:
            x = width // 2
            parts.append(f'<path d="M{x} {y - 2} L{x} {y - gap + 2}" stroke="#3f51b5" '
                         f'stroke-width="2"/><path d="M{x - 5} {y - gap + 8} L{x} {y - gap + 2} '
                         f'L{x + 5} {y - gap + 8}" fill="none" stroke="#3f51b5" stroke-width="2"/>')
    parts.append("</svg>")
    return "".join(parts)


# -- MkDocs events ----------------------------------------------------------------------------

def on_page_markdown(markdown: str, page, config, files) -> str:
    """``<!-- layers -->`` in a page becomes the diagram of the layers, read from the test."""
    if "<!-- layers -->" in markdown:
        # inside a <div> (block-level HTML) Markdown leaves the SVG's text alone
        markdown = markdown.replace("<!-- layers -->", f"<div class=\"layers\">{layers_svg()}</div>")
    return markdown


def on_config(config):
    """Expand the nav entry of the API index into one entry per public module."""
    modules = _MODULES[:] = public_modules()  # once per build: the nav and the pages agree

    def expand(items):
        out = []
        for item in items:
            if isinstance(item, dict):
                (title, value), = item.items()
                if value == API_INDEX:
                    out.append({title: api_nav(modules)})
                elif isinstance(value, list):
                    out.append({title: expand(value)})
                else:
                    out.append(item)
            else:
                out.append(item)
        return out

    if config.get("nav"):
        config["nav"] = expand(config["nav"])
    return config


@event_priority(100)  # before mkdocs-jupyter wraps the notebooks
def _add_files(files: Files, config) -> Files:
    for notebook in sorted(NOTEBOOKS.glob("*.ipynb")):
        files.append(File.generated(config, f"tutorials/{notebook.name}",
                                    abs_src_path=str(notebook)))
    files.append(File.generated(config, "reference/cli.md", content=cli_markdown()))
    files.append(File.generated(config, "reference/rules-schema.md", content=schema_markdown()))
    modules = _MODULES or public_modules()
    files.append(File.generated(config, API_INDEX, content=api_index(modules)))
    for module in modules:
        files.append(File.generated(config, api_page(module), content=api_markdown(module)))
    return files


@event_priority(-100)  # after mkdocs-jupyter: its wrapper of a file outside docs_dir forgets the path
def _fix_notebooks(files: Files, config) -> Files:
    for file in files:
        inner = getattr(file, "file", None)
        if isinstance(inner, File) and file.__dict__.get("abs_src_path") is None:
            file.__dict__["abs_src_path"] = inner.abs_src_path
    return files


on_files = CombinedEvent(_add_files, _fix_notebooks)
