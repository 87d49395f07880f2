"""The documentation site builds with ``mkdocs build --strict``: a warning (a broken link, a
page left out of the nav, a docstring numpydoc cannot read) fails the test, so the docs never rot.

The build renders the notebooks without running them (the notebook tests run them) and writes
into a temporary folder, never into ``site/``.
"""
from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]

pytest.importorskip("mkdocs")
pytest.importorskip("mkdocstrings_handlers.python")
pytest.importorskip("mkdocs_jupyter")
pytest.importorskip("material")


@pytest.fixture(scope="module")
def build(tmp_path_factory):
    site = tmp_path_factory.mktemp("site")
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", BALANCE_DOCS_EXECUTE="false")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir",
                           str(site), "--config-file", str(ROOT / "mkdocs.yml")],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    return done, site


def test_mkdocs_build_strict_has_no_warning(build):
    done, _ = build
    problems = [line for line in done.stderr.splitlines() if line.startswith(("WARNING", "ERROR"))]
    assert done.returncode == 0 and not problems, "\n".join(problems) or done.stderr[-3000:]


def test_every_page_in_docs_is_in_the_nav(build):
    done, _ = build
    # MkDocs lists them (at INFO level) after this line; strict mode does not fail on it
    assert "not included in the \"nav\"" not in done.stderr, done.stderr


def test_generated_reference_pages_hold_the_code_and_data(build):
    """The CLI page has every command of the parser; the schema page every bundled section;
    an API page the rendered docstring of a function."""
    _, site = build
    from balance.cli import build_parser
    import tomllib

    cli = (site / "reference" / "cli.html").read_text(encoding="utf-8")
    sub = next(a for a in build_parser()._actions if hasattr(a, "choices") and a.choices
               and "report" in a.choices)
    for name in sub.choices:
        assert f"balance {name}" in cli, name
    schema = (site / "reference" / "rules-schema.html").read_text(encoding="utf-8")
    for path in (ROOT / "balance" / "rules" / "data").glob("*.toml"):
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        for section in set(data) - {"limits", "assumed"}:
            assert f"[{section}]" in schema, (path.name, section)
    assert "2 to 100000" in schema  # the [limits] range of injuries.death_threshold
    api = (site / "reference" / "api" / "balance.core.injuries.html").read_text(encoding="utf-8")
    assert "death_probability" in api and "Parameters" in api
    for notebook in (ROOT / "notebooks").glob("*.ipynb"):
        assert (site / "tutorials" / notebook.with_suffix(".html").name).is_file(), notebook


def test_the_layers_diagram_shows_every_layer_of_the_layout_test(build):
    """The architecture page's diagram is drawn from tests/test_layout.py's LAYERS: every
    folder of every layer is on it, numbered as the test numbers it."""
    _, site = build
    from test_layout import LAYERS

    page = (site / "explanation" / "architecture.html").read_text(encoding="utf-8")
    start = page.index('<div class="layers">')
    svg = page[start:page.index("</svg>", start)]
    for level, names in enumerate(LAYERS):
        label = " · ".join(n or "balance/__init__" for n in names)
        assert f">{level}  {label}<" in svg, (level, label)
