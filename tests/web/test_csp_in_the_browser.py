"""The pages obey their Content-Security-Policy (default-src 'self'): Chromium reports no violation on them."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Browser, BrowserContext

from tests.browser_support import BROWSER_MARKS, signed_in_page

pytestmark = BROWSER_MARKS


def test_the_pages_break_no_rule_of_their_policy(
    browser: Browser, live_server: Any, contexts: list[BrowserContext]
) -> None:
    page = signed_in_page(contexts, browser, live_server.url, "student1")
    violations: list[str] = []
    page.on(
        "console",
        lambda message: violations.append(message.text) if "Content Security Policy" in message.text else None,
    )
    visited = []
    for path in ("/courses", "/lab", "/submissions"):
        page.goto(f"{live_server.url}{path}")
        page.wait_for_load_state("networkidle")
        visited.append(path)
    page.goto(f"{live_server.url}/courses")
    page.locator("a[href^='/assignments/']").first.click()
    page.locator("a[href*='/exercises/']").first.click()
    page.wait_for_load_state("networkidle")
    page.fill("textarea", "1")  # the live preview runs its script and fetches
    page.wait_for_timeout(1000)
    assert "/exercises/" in page.url and len(visited) == 3
    assert violations == []
