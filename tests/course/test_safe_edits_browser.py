"""Safe edits in headless Chromium, in Chinese on a phone: the form of a shared (pre-fresh-variant) assignment says
so; removing an exercise with a student's grade asks first with the count, saves only when confirmed; the regrade
preview is one click from the assignment page."""

from __future__ import annotations

from playwright.sync_api import Browser, BrowserContext, expect
from sqlalchemy import select

from grader.extensions import get_db
from grader.models import Assignment, User
from tests.browser_support import BROWSER_MARKS, shot
from tests.course.test_extensions_browser import PHONE, Live, _chapter13, _signed_in, live
from tests.factories import make_graded

pytestmark = BROWSER_MARKS
__all__ = ["live"]  # the served demo app, shared with the extensions browser test


def _grade_one(live: Live) -> tuple[int, str]:
    """A graded attempt of student1 at Chapter 13's first exercise: (assignment id, that exercise id)."""
    with live.app.app_context(), get_db(live.app).session() as session:
        assignment = _chapter13(live)
        student = session.scalars(select(User).where(User.username == "student1")).one()
        first = assignment.exercise_ids[0]
        make_graded(session, assignment.id, student.id, first)
        return assignment.id, first


def _exercises(live: Live, assignment_id: int) -> list[str]:
    with live.app.app_context(), get_db(live.app).session() as session:
        found = session.get(Assignment, assignment_id)
        assert found is not None
        return list(found.exercise_ids)


def test_removing_a_graded_exercise_asks_first_in_chinese_on_a_phone(
    browser: Browser, contexts: list[BrowserContext], live: Live
) -> None:
    assignment_id, first = _grade_one(live)
    before = _exercises(live, assignment_id)
    teacher = _signed_in(browser, contexts, live, "teacher", "zh", PHONE).pages[0]
    teacher.goto(f"{live.url}/teach/assignments/{assignment_id}/edit")
    expect(teacher.locator("#variant-mode")).to_contain_text("共享题目")
    teacher.uncheck(f"input[name=exercise_ids][value='{first}']")
    teacher.click("button[type=submit].primary")
    expect(teacher.locator("#removal-confirm")).to_contain_text("1 个已有成绩将不再计入总分")
    shot(teacher, "removal-confirm-zh-phone")
    assert _exercises(live, assignment_id) == before
    teacher.click("button[type=submit].primary")
    expect(teacher.locator("h1")).not_to_contain_text("编辑")
    assert _exercises(live, assignment_id) == [e for e in before if e != first]
    teacher.goto(f"{live.url}/teach/assignments/{assignment_id}")
    teacher.click("#preview-regrade")
    expect(teacher.locator("#preview-counts")).to_contain_text("尚未写入任何内容")
