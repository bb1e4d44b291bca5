"""On a phone, in Chromium: a student steps through an assignment's exercises with the previous/next links (labelled
in the page's language) and sees their submissions as attempts 1, 2 of each exercise, never as submission ids."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect
from sqlalchemy import select

from exercises import api as engine
from grader.extensions import get_db
from grader.i18n import t
from grader.models import Assignment, User
from grader.ui.exercise_catalogue import exercise_title
from tests.browser_support import BROWSER_MARKS, LiveApp, served_demo, shot
from tests.factories import make_graded

pytestmark = BROWSER_MARKS
PHONE = {"width": 390, "height": 844}


@pytest.fixture
def demo(tmp_path: Path) -> Iterator[LiveApp]:
    """The demo course served over HTTP (nothing here is graded: no worker)."""
    with served_demo(tmp_path, "student-side-server") as live:
        yield live


def _chapter_13(live: LiveApp) -> tuple[int, list[str]]:
    """The demo's chapter 13 assignment and its graded exercises, in its order."""
    with live.app.app_context(), get_db(live.app).session() as session:
        assignment = session.scalars(select(Assignment).where(Assignment.title_en.startswith("Chapter 13"))).one()
        graded = set(engine.exercise_ids())
        return assignment.id, [e for e in assignment.exercise_ids if e in graded]


def _two_attempts(live: LiveApp, assignment_id: int, exercise_id: str) -> None:
    """student1 has two graded attempts at ``exercise_id``."""
    with live.app.app_context(), get_db(live.app).session() as session:
        student = session.scalars(select(User).where(User.username == "student1")).one()
        for score in (0.5, 1.0):
            make_graded(session, assignment_id, student.id, exercise_id, score)


def _phone_page(browser: Browser, live: LiveApp) -> Page:
    """A phone-sized page signed in as student1."""
    page = browser.new_page(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
    page.goto(f"{live.url}/login")
    page.fill("#username", "student1")
    page.fill("#password", "demo-student1")
    page.click("form.stack button[type=submit]")
    expect(page.locator("h1")).to_be_visible()
    return page


def test_stepping_through_exercises_and_attempts_on_a_phone(browser: Browser, demo: LiveApp) -> None:
    assignment_id, exercises = _chapter_13(demo)
    assert len(exercises) >= 3
    _two_attempts(demo, assignment_id, exercises[0])
    page = _phone_page(browser, demo)
    base = f"{demo.url}/assignments/{assignment_id}/exercises/"

    page.goto(base + exercises[0])
    expect(page.locator("#previous-exercise")).to_have_count(0)  # the first has no previous one
    following = page.get_by_role("link", name=t("exercise.next_label", "zh", title=exercise_title(exercises[1], "zh")))
    following.tap()
    expect(page).to_have_url(base + exercises[1])
    shot(page, "student-side-01-phone-next")
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0  # the pager fits the phone's width

    page.click("button[name=lang][value=en]")
    back = page.get_by_role("link", name=t("exercise.previous_label", "en", title=exercise_title(exercises[0], "en")))
    expect(back).to_be_visible()
    back.tap()
    expect(page).to_have_url(base + exercises[0])
    expect(page.locator("#result-content")).to_contain_text("100%")  # the latest attempt's result
    expect(page.locator("#latest-attempt")).to_have_text("Attempt 2")

    page.goto(f"{demo.url}/submissions")
    attempts = page.locator(f'[id="ex-{exercises[0]}"] table.history tbody th')
    expect(attempts).to_have_text(["Attempt 2", "Attempt 1"])
    attempts.first.locator("a").tap()
    expect(page.locator("h1")).to_have_text(
        t("subs.attempt_title", "en", title=exercise_title(exercises[0], "en"), n=2)
    )
    shot(page, "student-side-02-phone-attempt")
    page.close()


def test_a_wide_data_table_scrolls_and_keeps_its_row_headers_in_view(browser: Browser, demo: LiveApp) -> None:
    assignment_id, _ = _chapter_13(demo)
    page = _phone_page(browser, demo)
    page.goto(f"{demo.url}/assignments/{assignment_id}/exercises/ch13.greedy-decode")
    # Whether this student's variant has a table wider than the phone depends on its words: make its cells wide, so
    # that what is tested is the page's rule for a wide table, not the draw of a variant.
    page.evaluate("document.querySelectorAll('.data-wrap td').forEach(cell => { cell.style.minWidth = '9rem'; })")
    index = page.evaluate(
        "[...document.querySelectorAll('.data-wrap')].findIndex(w => w.scrollWidth > w.clientWidth + 20)"
    )
    assert index >= 0, "no data table wider than the phone"
    box = page.locator(".data-wrap").nth(index)
    header = box.locator("tbody th[scope=row]").first
    box.evaluate("w => { w.scrollLeft = 0; }")
    before = header.bounding_box()
    box.evaluate("w => { w.scrollLeft = w.scrollWidth; }")
    assert box.evaluate("w => w.scrollLeft") > 0  # it scrolls
    after = header.bounding_box()
    assert before is not None and after is not None
    assert abs(after["x"] - before["x"]) < 1  # the row header stayed where it was
    shot(page, "student-side-03-phone-wide-table")
    page.close()
