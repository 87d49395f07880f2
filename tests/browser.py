"""Headless Chromium for the browser tests (the report's page, an explorer in JupyterLab).

The browser is the distribution's Chromium (``/usr/bin/chromium``, or ``$BALANCE_CHROMIUM``)
driven by Playwright for Python (the ``test`` extra; only the Python package, it downloads no
browser). A machine without one of them skips the browser tests, saying which is missing; with
``BALANCE_REQUIRE_BROWSER=1`` (``.ci/run`` sets it where Chromium is installed) they fail instead,
so CI cannot pass by skipping them.

Use::

    from browser import chromium_context      # tests/ is on the path

    @pytest.fixture(scope="module")
    def context(tmp_path_factory):
        with chromium_context(tmp_path_factory.mktemp("chromium")) as ctx:
            yield ctx

    def test_page(context):
        page = context.new_page()
        page.set_viewport_size({"width": 1280, "height": 900})
        page.emulate_media(color_scheme="dark")
        page.goto(path.as_uri())
"""
from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

#: set to 1 to make a missing browser a failure instead of a skip
REQUIRE = "BALANCE_REQUIRE_BROWSER"
#: the flags every browser test starts Chromium with (no network beyond the page, no first-run
#: screens, no background updates); the user-data-dir is a fresh folder per test module
CHROMIUM_ARGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync")


def required() -> bool:
    """Whether a missing browser fails the test (``BALANCE_REQUIRE_BROWSER=1``)."""
    return os.environ.get(REQUIRE, "") == "1"


def skip_or_fail(reason: str) -> None:
    """Skip with ``reason``, or fail with it when the browser is required."""
    if required():
        pytest.fail(f"{reason} ({REQUIRE}=1: the browser tests are required here)")
    pytest.skip(f"{reason}; set {REQUIRE}=1 to make this a failure")


def chromium_executable() -> str:
    """The Chromium to drive: ``$BALANCE_CHROMIUM``, else ``/usr/bin/chromium``, else
    ``chromium`` on PATH; skips (or fails) when there is none."""
    for candidate in (os.environ.get("BALANCE_CHROMIUM"), "/usr/bin/chromium",
                      shutil.which("chromium")):
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    skip_or_fail("no Chromium (/usr/bin/chromium; Debian: apt-get install chromium)")
    raise AssertionError("unreachable")


def sync_playwright():
    """Playwright's ``sync_playwright``; skips (or fails) when the package is missing."""
    try:
        from playwright.sync_api import sync_playwright as start
    except ModuleNotFoundError:
        skip_or_fail("Playwright for Python is not installed (pip install -e '.[test]')")
    return start


@contextlib.contextmanager
def chromium_context(user_data_dir: str | os.PathLike) -> Iterator:
    """A Playwright ``BrowserContext`` of headless Chromium with a fresh ``user_data_dir``
    (an empty folder), closed on exit."""
    executable = chromium_executable()
    start = sync_playwright()
    Path(user_data_dir).mkdir(parents=True, exist_ok=True)
    with start() as playwright:
        try:
            context = playwright.chromium.launch_persistent_context(
                str(user_data_dir), executable_path=executable, headless=True,
                args=list(CHROMIUM_ARGS))
        except Exception as exc:  # a browser that does not start is a missing browser
            skip_or_fail(f"Chromium at {executable} did not start: {str(exc).splitlines()[0]}")
        try:
            yield context
        finally:
            context.close()
