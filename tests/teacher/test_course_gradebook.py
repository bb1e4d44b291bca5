"""The course gradebook page: every student × assignment in points and percent with late, override and extension
marks, the same numbers as the one grade table the exports write; searchable, sortable, paged; the teacher's only."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import timedelta

import pytest
from flask.testing import FlaskClient
from sqlalchemy.orm import Session

from grader.i18n import LANG_COOKIE
from grader.models import Enrolment, EnrolmentRole, Extension, Role, User
from grader.teacher.course_gradebook import PAGE_SIZE
from grader.teacher.grade_table import grade_table
from tests.factories import (
    make_assignment,
    make_course_teacher,
    rebuild_progress,
    shared_password_hash,
    unique,
)
from tests.teacher.course_data import FixtureCourse
from tests.teacher.marked_course import build_marked

Login = Callable[[str], tuple[FlaskClient, str]]


@pytest.fixture
def marked(session: Session) -> FixtureCourse:
    """The marked fixture course (points, late work, overrides) and an extension for Carol on "Best" (a day more:
    her answer after the assignment's due date is on time for her)."""
    fixture = build_marked(session)
    assert fixture.best.due_at is not None
    extended = fixture.best.due_at + timedelta(days=1)
    session.add(Extension(assignment_id=fixture.best.id, user_id=fixture.carol.id, due_at=extended, reason="ill"))
    rebuild_progress(session)  # commits; stored directly, not through the form that would rebuild them
    return fixture


def _page(login: Login, fixture: FixtureCourse, lang: str = "en", **args: str) -> str:
    client, _ = login(fixture.teacher.username)
    client.set_cookie(LANG_COOKIE, lang)
    reply = client.get(f"/teach/courses/{fixture.course.id}/gradebook", query_string=args)
    assert reply.status_code == 200
    return reply.get_data(as_text=True)


def _rows(page: str) -> dict[str, list[str]]:
    """Each row's cells as text (tags dropped, spaces collapsed), by the student's display name."""
    rows = {}
    for row in re.findall(r"<tr data-student=.*?</tr>", page, re.S):
        cells = [
            re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", c)).strip() for c in re.findall(r"<t[hd].*?</t[hd]>", row, re.S)
        ]
        rows[cells[0].split(" ")[0]] = cells[1:]
    return rows


def _order(page: str) -> list[str]:
    return [row.split(" ")[0] for row in _rows(page)]


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        (
            "en",
            {
                # Best: LOSS worth 2 and COST 3; Last: GREEDY worth 1. The course total is out of 6.
                "Alice": ["2 / 5 pts · 40% late", "0.5 / 1 pts · 50%", "2.5 / 6 pts · 42%"],
                "Bob": ["4 / 5 pts · 80% overridden", "0 / 1 pts · 0%", "4 / 6 pts · 67%"],
                "Carol": ["2.5 / 5 pts · 50% extension", "not attempted", "2.5 / 6 pts · 42%"],
                "Dave": ["3 / 5 pts · 60% overridden", "not attempted", "3 / 6 pts · 50%"],
            },
        ),
        (
            "zh",
            {
                "Alice": ["2 / 5 分 · 40% 迟交", "0.5 / 1 分 · 50%", "2.5 / 6 分 · 42%"],
                "Bob": ["4 / 5 分 · 80% 教师改分", "0 / 1 分 · 0%", "4 / 6 分 · 67%"],
                "Carol": ["2.5 / 5 分 · 50% 延期", "未作答", "2.5 / 6 分 · 42%"],
                "Dave": ["3 / 5 分 · 60% 教师改分", "未作答", "3 / 6 分 · 50%"],
            },
        ),
    ],
)
def test_every_student_and_assignment_in_points_and_percent_with_marks(
    login: Login, marked: FixtureCourse, lang: str, expected: dict[str, list[str]]
) -> None:
    page = _page(login, marked, lang)
    assert _rows(page) == expected
    headers = ("Best (max 5 points)", "Last (max 1 points)", "Course total (max 6 points)")
    if lang == "zh":
        headers = ("最高分（满分 5 分）", "最后一次（满分 1 分）", "课程总分（满分 6 分）")
    assert all(header in page for header in headers)


def test_the_page_agrees_with_the_grade_table_the_exports_write(
    login: Login, session: Session, marked: FixtureCourse
) -> None:
    rows = _rows(_page(login, marked))
    for row in grade_table(session, marked.best):
        cell = rows[row.display_name][0]
        assert cell.startswith(f"{row.total.points:g} / {row.total.max_points:g} pts"), (row.display_name, cell)


def test_the_dashboard_links_to_the_gradebook(login: Login, marked: FixtureCourse) -> None:
    client, _ = login(marked.teacher.username)
    page = client.get(f"/teach/courses/{marked.course.id}").get_data(as_text=True)
    assert f'href="/teach/courses/{marked.course.id}/gradebook"' in page


def test_sorting_by_an_assignment_a_total_or_the_name_and_reversing(login: Login, marked: FixtureCourse) -> None:
    assert _order(_page(login, marked)) == ["Alice", "Bob", "Carol", "Dave"]
    assert _order(_page(login, marked, sort="name", desc="1")) == ["Dave", "Carol", "Bob", "Alice"]
    assert _order(_page(login, marked, sort=f"a{marked.best.id}")) == ["Alice", "Carol", "Dave", "Bob"]
    assert _order(_page(login, marked, sort=f"a{marked.best.id}", desc="1")) == ["Bob", "Dave", "Carol", "Alice"]
    assert _order(_page(login, marked, sort="total", desc="1"))[:2] == ["Bob", "Dave"]
    # A sort the page does not offer (another course's assignment, junk) is by name.
    for junk in (f"a{marked.other.id}", "drop table", "a"):
        assert _order(_page(login, marked, sort=junk)) == ["Alice", "Bob", "Carol", "Dave"]


def test_the_search_finds_by_name_or_username_and_matches_wildcards_as_typed(
    login: Login, marked: FixtureCourse
) -> None:
    assert list(_rows(_page(login, marked, q="caro"))) == ["Carol"]
    assert list(_rows(_page(login, marked, q=marked.bob.username))) == ["Bob"]
    for typed in ("%", "_", "nobody"):
        page = _page(login, marked, q=typed)
        assert _rows(page) == {} and "No student matches." in page
    assert list(_rows(_page(login, marked, q="zed"))) == []  # Zed submitted but is not enrolled


def _large_course(session: Session, marked: FixtureCourse, count: int) -> None:
    """``count`` more students (named s000…) enrolled in the marked course, with no work."""
    people = [
        User(
            username=unique(f"s{n:03d}"),
            display_name=f"s{n:03d}",
            role=Role.STUDENT,
            password_hash=shared_password_hash(),
        )
        for n in range(count)
    ]
    session.add_all(people)
    session.flush()
    session.add_all([Enrolment(course_id=marked.course.id, user_id=p.id, role=EnrolmentRole.STUDENT) for p in people])
    session.commit()


def test_a_large_course_is_paged_and_the_links_keep_search_and_sort(
    login: Login, session: Session, marked: FixtureCourse
) -> None:
    _large_course(session, marked, 2 * PAGE_SIZE + 6)  # with the four: 110 students, three pages
    first = _page(login, marked)
    assert len(_rows(first)) == PAGE_SIZE and "Page 1 of 3" in first and "110 students found." in first
    assert f'href="/teach/courses/{marked.course.id}/gradebook?sort=name&amp;page=2"' in first
    last = _page(login, marked, page="3")
    assert len(_rows(last)) == 10 and 'rel="next"' not in last
    # Past the last page: the last; not a number: the first.
    assert _rows(_page(login, marked, page="99")) == _rows(last)
    assert _rows(_page(login, marked, page="two")) == _rows(first)
    # Sorted by a score, the whole course is sorted before it is paged: the best are on page 1 when descending.
    top = _page(login, marked, sort=f"a{marked.best.id}", desc="1", q="")
    assert _order(top)[:4] == ["Bob", "Dave", "Carol", "Alice"]
    link = f"/teach/courses/{marked.course.id}/gradebook?sort=a{marked.best.id}&amp;page=2&amp;desc=1"
    assert link in top
    searched = _page(login, marked, q="s", page="2")  # the 106 added students
    assert "Page 2 of 3" in searched and "106 students found." in searched and "q=s&amp;" in searched


def test_another_teacher_and_a_student_cannot_see_it(login: Login, session: Session, marked: FixtureCourse) -> None:
    stranger, _ = login(marked.other_teacher.username)
    assert stranger.get(f"/teach/courses/{marked.course.id}/gradebook").status_code == 404
    student, _ = login(marked.alice.username)
    reply = student.get(f"/teach/courses/{marked.course.id}/gradebook")
    assert reply.status_code in (302, 403, 404) and "Bob" not in reply.get_data(as_text=True)


def test_a_course_without_students_says_so(login: Login, session: Session) -> None:
    assignment = make_assignment(session, [])
    teacher = make_course_teacher(session, assignment.course_id)
    client, _ = login(teacher.username)
    page = client.get(f"/teach/courses/{assignment.course_id}/gradebook").get_data(as_text=True)
    assert "This course has no students yet." in page and 'id="gradebook"' not in page
