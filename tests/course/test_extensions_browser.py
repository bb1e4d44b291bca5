"""A teacher gives a student an extension in headless Chromium (English), a refused entry first; the student sees
their own due date and extra attempts (Chinese, on a phone)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest
from playwright.sync_api import Browser, BrowserContext, expect
from sqlalchemy import func, select

from grader.extensions import get_db
from grader.models import Assignment, Extension, utcnow
from grader.teacher.zones import form_time
from tests.browser_support import BROWSER_MARKS, LiveApp, served_demo, shot

pytestmark = BROWSER_MARKS
PHONE = {"width": 390, "height": 844}


Live = LiveApp


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    """The demo course on SQLite, served on a free port of 127.0.0.1."""
    with served_demo(tmp_path_factory.mktemp("extensions-live"), "extensions-live") as served:
        yield served


def _signed_in(
    browser: Browser, opened: list[BrowserContext], live: Live, username: str, lang: str, viewport: dict[str, int]
) -> BrowserContext:
    context = browser.new_context(viewport=viewport)  # type: ignore[arg-type]
    opened.append(context)
    context.add_cookies([{"name": "lang", "value": lang, "url": live.url}])
    page = context.new_page()
    page.goto(f"{live.url}/login")
    page.fill("#username", username)
    page.fill("#password", f"demo-{username}")
    page.click("form.stack button[type=submit]")
    expect(page.locator("h1")).to_be_visible()
    return context


def _chapter13(live: Live) -> Assignment:
    with live.app.app_context(), get_db(live.app).session() as session:
        return session.scalars(select(Assignment).where(Assignment.title_en.startswith("Chapter 13"))).one()


def _extensions(live: Live) -> int:
    with live.app.app_context(), get_db(live.app).session() as session:
        return session.scalar(select(func.count(Extension.id))) or 0


def test_teacher_gives_an_extension_and_the_student_sees_it(
    browser: Browser, contexts: list[BrowserContext], live: Live
) -> None:
    assignment = _chapter13(live)
    assert assignment.due_at is not None
    teacher = _signed_in(browser, contexts, live, "teacher", "en", {"width": 1100, "height": 900}).pages[0]
    teacher.goto(f"{live.url}/teach/assignments/{assignment.id}")
    teacher.click("#extensions-link")
    expect(teacher.locator("h1")).to_contain_text("Extensions")
    teacher.select_option("#student", index=1)
    teacher.fill("#extra_attempts", "-2")
    teacher.click("#save-extension")
    expect(teacher.locator("#err-extra_attempts")).to_contain_text("whole number from 0 to 1000")
    assert _extensions(live) == 0
    shot(teacher, "extension-refused-en")
    later = assignment.due_at + timedelta(days=4)
    teacher.fill("#due_at", form_time(later, "UTC"))
    teacher.fill("#extra_attempts", "2")
    teacher.fill("#reason", "family emergency")
    teacher.click("#save-extension")
    expect(teacher.locator("table.extensions tbody tr")).to_have_count(1)
    expect(teacher.locator("table.extensions .ext-reason")).to_have_text("family emergency")
    shot(teacher, "extension-saved-en")
    student_name = teacher.locator("table.extensions tbody tr").get_attribute("data-student")
    assert student_name and _extensions(live) == 1

    student = _signed_in(browser, contexts, live, student_name, "zh", PHONE).pages[0]
    student.goto(f"{live.url}/assignments/{assignment.id}")
    expect(student.locator("#extended-due")).to_have_text("已为你延期")
    expect(student.locator("dl.facts")).to_contain_text(later.strftime("%Y-%m-%d %H:%M"))
    expect(student.locator("table.exercises")).to_contain_text("剩余 7/7 次")
    shot(student, "extension-student-zh-phone")


def test_teacher_sets_late_work_and_an_override_and_the_student_sees_both(
    browser: Browser, contexts: list[BrowserContext], live: Live
) -> None:
    with live.app.app_context(), get_db(live.app).session() as session:
        chapter9 = session.scalars(select(Assignment).where(Assignment.title_en.startswith("Chapter 9"))).one()
        assert chapter9.due_at is not None
        chapter9.due_at = utcnow() - timedelta(hours=2)  # just past due: the late window is what is tested
        session.commit()
        assignment_id, due = chapter9.id, chapter9.due_at
    teacher = _signed_in(browser, contexts, live, "teacher", "en", {"width": 1100, "height": 900}).pages[0]
    teacher.goto(f"{live.url}/teach/assignments/{assignment_id}/edit")
    teacher.fill("#late_until", form_time(due + timedelta(days=3), "UTC"))
    teacher.fill("#late_per_day", "150")
    teacher.click("form.assignment-form button[type=submit]")
    expect(teacher.locator("#err-late_per_day")).to_contain_text("from 0 to 100")
    teacher.fill("#late_per_day", "10")
    teacher.click("form.assignment-form button[type=submit]")
    expect(teacher.locator("#overrides-link")).to_be_visible()
    teacher.click("#overrides-link")
    teacher.select_option("#student", index=1)
    teacher.select_option("#exercise_id", index=0)  # the first exercise (the total is last)
    teacher.fill("#score", "85")
    teacher.fill("#reason", "graded by hand: the scan was unreadable")
    teacher.click("#save-override")
    expect(teacher.locator("table.overrides tbody tr")).to_have_count(1)
    shot(teacher, "override-saved-en")
    student_name = teacher.locator("table.overrides tbody tr").get_attribute("data-student")
    assert student_name

    student = _signed_in(browser, contexts, live, student_name, "zh", PHONE).pages[0]
    student.goto(f"{live.url}/assignments/{assignment_id}")
    expect(student.locator("#late-badge")).to_have_text("迟交期")
    expect(student.locator("#late-policy")).to_contain_text("扣 10%")
    expect(student.locator("table.exercises")).to_contain_text("教师已改分")
    expect(student.locator("table.exercises")).to_contain_text("graded by hand: the scan was unreadable")
    shot(student, "late-and-override-student-zh-phone")
