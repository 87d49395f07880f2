"""An explorer in a real front end: JupyterLab on a free localhost port (with a token), opened in
Debian's headless Chromium through Playwright; the notebook builds ``bl.explore.injuries()``,
the test checks that the sliders and the figure render, moves a slider with the keyboard and
checks that the readout and the figure change (issue 14, item 1).

Skips when Chromium, Playwright or JupyterLab is missing, unless BALANCE_REQUIRE_BROWSER=1
(.ci/run sets it where Chromium is installed). With BALANCE_EXPLORER_SCREENSHOT=path the page
is also saved as a PNG there (how docs/figures/explorer.png was taken).
"""
from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
CELL = "import balance as bl\nexplorer = bl.explore.injuries()\nexplorer"


def _missing() -> str | None:
    if not (shutil.which("chromium") or os.path.exists(CHROMIUM)):
        return "Debian's chromium is not installed (/usr/bin/chromium)"
    for module, what in (("playwright.sync_api", "playwright"), ("jupyterlab", "jupyterlab"),
                         ("ipywidgets", "ipywidgets")):
        try:
            __import__(module)
        except ImportError:
            return f"{what} is not installed (pip install -e '.[test]')"
    return None


@pytest.fixture
def browser_ready():
    reason = _missing()
    if reason:
        if os.environ.get("BALANCE_REQUIRE_BROWSER") == "1":
            pytest.fail(f"BALANCE_REQUIRE_BROWSER=1 but {reason}")
        pytest.skip(reason)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def lab(tmp_path, browser_ready):
    """A JupyterLab server on 127.0.0.1 serving ``tmp_path`` with one notebook; stopped after."""
    nb = {"cells": [{"cell_type": "code", "execution_count": None, "id": "explorer",
                     "metadata": {}, "outputs": [], "source": CELL}],
          "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                      "language": "python"}},
          "nbformat": 4, "nbformat_minor": 5}
    root = tmp_path / "root"
    root.mkdir()
    (root / "explorer.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    # no news pop-up (and no fetch of the news from the page)
    notification = tmp_path / "settings" / "@jupyterlab" / "apputils-extension"
    notification.mkdir(parents=True)
    (notification / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False}), encoding="utf-8")
    port, token = _free_port(), secrets.token_hex(16)
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(tmp_path / "config"),
           "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
           "JUPYTERLAB_SETTINGS_DIR": str(tmp_path / "settings"),
           "JUPYTERLAB_WORKSPACES_DIR": str(tmp_path / "workspaces"),
           "MPLBACKEND": "Agg"}
    log = open(tmp_path / "lab.log", "wb")
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1",
         f"--port={port}", "--port-retries=0", f"--IdentityProvider.token={token}",
         f"--ServerApp.root_dir={root}", "--LabApp.news_url=", "--LabApp.check_for_updates_class="
         "jupyterlab.NeverCheckForUpdate", "--LabApp.extension_manager=readonly",
         *(["--allow-root"] if os.geteuid() == 0 else [])],
        stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2):
                    break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    log.flush()
                    pytest.fail("JupyterLab did not start: "
                                + (tmp_path / "lab.log").read_text(errors="replace")[-2000:])
                time.sleep(0.3)
        yield f"{base}/lab/tree/explorer.ipynb?token={token}&reset"
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGTERM)  # the server's own group: it and its kernel
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)
                server.wait(timeout=10)
        log.close()


def test_injury_explorer_renders_and_reacts_in_jupyterlab(lab, tmp_path):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(tmp_path / "chromium-profile"), executable_path=CHROMIUM, headless=True,
            args=FLAGS, viewport={"width": 1280, "height": 1000})
        try:
            page = context.pages[0] if context.pages else context.new_page()
            page.goto(lab, timeout=30_000)
            page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=30_000)
            page.wait_for_selector(".jp-StatusBar-Item >> text=/Python 3.*Idle/",
                                   timeout=30_000)
            page.click(".jp-Cell .jp-InputArea-editor")
            page.keyboard.press("Shift+Enter")
            readout = page.locator(".jp-OutputArea-output .widget-html-content",
                                   has_text="at -6 HP")
            readout.wait_for(timeout=30_000)
            figure = page.locator(".jp-OutputArea-output img.widget-image")
            figure.wait_for(timeout=10_000)
            assert page.locator(".jp-OutputArea-output .widget-slider").count() >= 5
            assert "40 s at -6 HP" in readout.inner_text()
            before = figure.get_attribute("src")
            box = figure.bounding_box()
            assert box and box["width"] > 400 and box["height"] > 100

            handle = page.locator(".jp-OutputArea-output .noUi-handle").first
            handle.focus()
            for _ in range(5):
                page.keyboard.press("ArrowRight")  # seconds 40 -> 45
            page.locator(".jp-OutputArea-output .widget-html-content",
                         has_text="45 s at -6 HP").wait_for(timeout=15_000)
            page.wait_for_function(
                "([sel, old]) => document.querySelector(sel).getAttribute('src') !== old",
                arg=[".jp-OutputArea-output img.widget-image", before], timeout=15_000)
            # 45 s at -6 HP, 1 wound: k = 2 x 51 = 102; death on 74..100 = 27 %
            assert "death 27.0 %" in readout.inner_text()
            shot = os.environ.get("BALANCE_EXPLORER_SCREENSHOT")
            if shot:  # with the injury table open
                page.get_by_text("injury table (low, high, test modifier)").click()
                page.locator(".jp-OutputArea-output .widget-inline-hbox input").first.wait_for()
                page.locator(".jp-Cell").first.screenshot(path=shot)
        finally:
            context.close()
