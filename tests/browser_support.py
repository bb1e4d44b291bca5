"""What the browser tests share: Debian's Chromium under Playwright, the marks, and step screenshots."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from flask import Flask
from playwright.sync_api import Browser, BrowserContext, Page, expect, sync_playwright
from werkzeug.serving import make_server

from grader import create_app
from grader.serve import prepare

CHROMIUM = Path("/usr/bin/chromium")
# The flags keep Chromium off the network this machine does not have (background fetches, updates, sync).
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SCREENSHOTS = Path(__file__).resolve().parents[1] / "test-output" / "screenshots"

BROWSER_MARKS = [
    pytest.mark.browser,
    # In CI a missing browser is a failure, not a skip: scripts/setup-browser installs it.
    pytest.mark.skipif(
        not CHROMIUM.exists() and not os.environ.get("CI"),
        reason="Debian chromium is not installed at /usr/bin/chromium",
    ),
]


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Headless Debian Chromium driven by Playwright (never a downloaded browser)."""
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@dataclass(frozen=True)
class LiveApp:
    """The demo app served over HTTP (no worker: nothing a test using it grades)."""

    url: str
    app: Flask


@contextmanager
def served_demo(data_dir: Path, name: str) -> Iterator[LiveApp]:
    """The demo course on SQLite in ``data_dir``, served on a free port of 127.0.0.1 by a thread called ``name``."""
    app = create_app({"GRADER_ENV": "testing", "GRADER_DATA_DIR": str(data_dir)})
    prepare(app)
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, name=name, daemon=True)
    thread.start()
    try:
        yield LiveApp(f"http://127.0.0.1:{server.server_port}", app)
    finally:
        server.shutdown()
        thread.join(10)


def shot(page: Page, name: str) -> None:
    """Save a full-page screenshot of the current step under test-output/screenshots/."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


@pytest.fixture()
def contexts(browser: Browser) -> Iterator[list[BrowserContext]]:
    """Browser contexts (separate cookie jars, like two devices) opened by a test, closed after it."""
    opened: list[BrowserContext] = []
    yield opened
    for context in opened:
        context.close()


def signed_in_page(contexts: list[BrowserContext], browser: Browser, base_url: str, username: str) -> Page:
    """A page of a new browser context (a device of its own) signed in as the demo user ``username``."""
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    contexts.append(context)
    page = context.new_page()
    page.goto(f"{base_url}/login")
    page.fill("#username", username)
    page.fill("#password", f"demo-{username}")
    page.click("form.stack button[type=submit]")
    expect(page.locator("h1")).to_be_visible()
    return page
