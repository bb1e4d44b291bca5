"""In headless Chromium, both languages: the teacher adds a teaching assistant on the course's staff page; the TA
then sees the course's dashboard but not the assignment editor, and the staff page offers them no form."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect
from sqlalchemy import select

from grader.demo import COURSE_CODE
from grader.extensions import get_db
from grader.models import Assignment, Course, CourseStaff, Role, StaffRole
from tests.browser_support import BROWSER_MARKS, LiveApp, served_demo, shot
from tests.factories import TEST_PASSWORD, make_user

pytestmark = BROWSER_MARKS


@pytest.fixture
def demo(tmp_path: Path) -> Iterator[LiveApp]:
    """The demo course served over HTTP."""
    with served_demo(tmp_path, "staff-server") as live:
        yield live


def _signed_in(
    browser: Browser, contexts: list[BrowserContext], live: LiveApp, lang: str, who: str, password: str
) -> Page:
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    contexts.append(context)
    context.add_cookies([{"name": "lang", "value": lang, "url": live.url}])
    page = context.new_page()
    page.goto(f"{live.url}/login")
    page.fill("#username", who)
    page.fill("#password", password)
    page.click("form.stack button[type=submit]")
    expect(page.locator("h1")).to_be_visible()
    return page


@pytest.mark.parametrize(
    ("lang", "nav", "role", "added"),
    [("en", "Staff", "Teaching assistant", "was added"), ("zh", "教学团队", "助教", "已加入")],
)
def test_a_teacher_adds_a_ta_who_may_look_but_not_edit(
    browser: Browser, contexts: list[BrowserContext], demo: LiveApp, lang: str, nav: str, role: str, added: str
) -> None:
    with demo.app.app_context(), get_db(demo.app).session() as session:
        course = session.scalars(select(Course).where(Course.code == COURSE_CODE)).one()
        assignment = session.scalars(select(Assignment.id).where(Assignment.course_id == course.id)).first()
        assistant = make_user(session, Role.TEACHER, username=f"ta-{lang}")
        course_id, username = course.id, assistant.username
    teacher = _signed_in(browser, contexts, demo, lang, "teacher", "demo-teacher")
    teacher.goto(f"{demo.url}/teach/courses/{course_id}")
    teacher.get_by_role("link", name=nav, exact=True).click()
    teacher.fill("#staff-username", username)
    teacher.select_option("#staff-role", label=role)
    teacher.locator("#staff-role").locator("xpath=ancestor::form").locator("button[type=submit]").click()
    expect(teacher.locator(f'tr[data-username="{username}"]')).to_be_visible()
    expect(teacher.locator("body")).to_contain_text(added)
    shot(teacher, f"course-staff-{lang}")
    with demo.app.app_context(), get_db(demo.app).session() as session:
        member = session.scalars(select(CourseStaff).where(CourseStaff.course_id == course_id)).one()
        assert member.role == StaffRole.TA

    ta = _signed_in(browser, contexts, demo, lang, username, TEST_PASSWORD)
    assert ta.goto(f"{demo.url}/teach/courses/{course_id}").status == 200  # type: ignore[union-attr]
    assert ta.goto(f"{demo.url}/teach/assignments/{assignment}").status == 200  # type: ignore[union-attr]
    refused = ta.goto(f"{demo.url}/teach/assignments/{assignment}/edit")
    assert refused is not None and refused.status in (403, 404)
    ta.goto(f"{demo.url}/teach/courses/{course_id}/staff")
    expect(ta.locator(f'tr[data-username="{username}"]')).to_be_visible()
    expect(ta.locator("#staff-username")).to_have_count(0)  # a TA manages no staff
