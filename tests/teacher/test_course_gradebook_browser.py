"""In headless Chromium: the teacher opens the course gradebook from the dashboard on a phone (both languages),
sorts it by an assignment and searches it, its student column staying in view while the table scrolls; and sets an
assignment's grading policy, landing on the regrade preview under the new policy."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect
from sqlalchemy import select

from grader.demo import COURSE_CODE
from grader.extensions import get_db
from grader.models import Assignment, Course, User
from tests.browser_support import BROWSER_MARKS, LiveApp, served_demo, shot
from tests.factories import make_graded

pytestmark = BROWSER_MARKS
PHONE = {"width": 390, "height": 844}


@pytest.fixture
def demo(tmp_path: Path) -> Iterator[LiveApp]:
    """The demo course served over HTTP, student1 with a graded answer to its first assignment's first exercise."""
    with served_demo(tmp_path, "gradebook-server") as live:
        yield live


def _course_and_first_assignment(live: LiveApp) -> tuple[int, Assignment]:
    with live.app.app_context(), get_db(live.app).session() as session:
        course = session.scalars(select(Course).where(Course.code == COURSE_CODE)).one()
        assignment = session.scalars(
            select(Assignment).where(Assignment.course_id == course.id).order_by(Assignment.id)
        ).first()
        assert assignment is not None
        student = session.scalars(select(User).where(User.username == "student1")).one()
        make_graded(session, assignment.id, student.id, assignment.exercise_ids[0], 1.0)
        session.expunge(assignment)
        return course.id, assignment


def _teacher(browser: Browser, contexts: list[BrowserContext], live: LiveApp, lang: str, phone: bool) -> Page:
    viewport = PHONE if phone else {"width": 1100, "height": 900}
    context = browser.new_context(viewport=viewport, is_mobile=phone, has_touch=phone)  # type: ignore[arg-type]
    contexts.append(context)
    context.add_cookies([{"name": "lang", "value": lang, "url": live.url}])
    page = context.new_page()
    page.goto(f"{live.url}/login")
    page.fill("#username", "teacher")
    page.fill("#password", "demo-teacher")
    page.click("form.stack button[type=submit]")
    expect(page.locator("h1")).to_be_visible()
    return page


@pytest.mark.parametrize(
    ("lang", "link", "found", "sorted_down"),
    [("en", "Course gradebook", "students found.", "(descending)"), ("zh", "课程成绩册", "位学生", "（降序）")],
)
def test_the_gradebook_on_a_phone(
    browser: Browser,
    contexts: list[BrowserContext],
    demo: LiveApp,
    lang: str,
    link: str,
    found: str,
    sorted_down: str,
) -> None:
    course_id, assignment = _course_and_first_assignment(demo)
    page = _teacher(browser, contexts, demo, lang, phone=True)
    page.goto(f"{demo.url}/teach/courses/{course_id}")
    page.get_by_role("link", name=link).click()
    expect(page.locator("#gradebook")).to_be_visible()
    expect(page.locator("#gradebook-found")).to_contain_text(found)
    row = page.locator('tr[data-student="student1"]')
    unit = "pts" if lang == "en" else "分"  # one exercise of the assignment right, each worth 1 point
    expect(row.locator(f'td[data-assignment="{assignment.id}"]')).to_contain_text(
        f"1 / {len(assignment.exercise_ids)} {unit}"
    )
    # The wide table scrolls in its box on a phone, the student column staying in view.
    wrap = page.locator(".data-wrap")
    assert wrap.evaluate("box => box.scrollWidth > box.clientWidth")
    assert row.locator("th").evaluate("cell => getComputedStyle(cell).position") == "sticky"
    wrap.evaluate("box => { box.scrollLeft = box.scrollWidth; }")
    box = row.locator("th").bounding_box()
    assert box is not None and box["x"] < PHONE["width"] / 2  # still on screen after scrolling to the end
    shot(page, f"course-gradebook-phone-{lang}")
    # Sort by the assignment: twice is descending, student1 (full marks) first.
    sorter = page.locator(f'a.sort-link[data-sort="a{assignment.id}"]')
    sorter.click()
    page.locator(f'a.sort-link[data-sort="a{assignment.id}"]').click()
    expect(page.locator("th[scope=col] .sort-state")).to_have_text(sorted_down)
    expect(page.locator("tbody tr").first).to_have_attribute("data-student", "student1")
    page.fill("#gradebook-q", "student1")
    page.locator("form[role=search] button[type=submit]").click()
    expect(page.locator("tbody tr")).to_have_count(1)
    expect(page.locator("#gradebook-q")).to_have_value("student1")


def test_setting_a_grading_policy_leads_to_the_regrade_preview(
    browser: Browser, contexts: list[BrowserContext], demo: LiveApp
) -> None:
    _, assignment = _course_and_first_assignment(demo)
    page = _teacher(browser, contexts, demo, "en", phone=False)
    page.goto(f"{demo.url}/teach/assignments/{assignment.id}/edit")
    page.get_by_label("Off: such an answer earns marks only when all of it is right").check()
    page.select_option("#follow_through", "half")
    page.locator("form.assignment-form button[type=submit]").click()
    expect(page.locator("#preview-policy")).to_contain_text(
        "each part earns marks only when all of it is right; follow-through credit: half marks"
    )
    expect(page.locator("body")).to_contain_text("The grading policy changed.")
    shot(page, "grading-policy-regrade-preview-en")
    student = _teacher_as_student(browser, contexts, demo)
    student.goto(f"{demo.url}/assignments/{assignment.id}")
    expect(student.locator("#grading-policy")).to_have_text(
        "each part earns marks only when all of it is right; follow-through credit: half marks"
    )


def _teacher_as_student(browser: Browser, contexts: list[BrowserContext], live: LiveApp) -> Page:
    """student1 signed in on a device of their own, pages in English."""
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    contexts.append(context)
    context.add_cookies([{"name": "lang", "value": "en", "url": live.url}])
    page = context.new_page()
    page.goto(f"{live.url}/login")
    page.fill("#username", "student1")
    page.fill("#password", "demo-student1")
    page.click("form.stack button[type=submit]")
    expect(page.locator("h1")).to_be_visible()
    return page
