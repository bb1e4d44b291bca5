"""Student tables at course size: the course dashboard, the assignment dashboards and the roster show one page of 50
students at a time, found by name or username, with counted scores (late penalty applied) from the progress rows."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import timedelta

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy.orm import Session

from grader.models import Assignment, Role, User, utcnow
from tests.factories import (
    EXERCISE,
    make_assignment,
    make_course_teacher,
    make_graded,
    shared_password_hash,
    unique,
)
from tests.support import sql_sent

Login = Callable[[str], tuple[FlaskClient, str]]
STUDENTS = 120


@pytest.fixture
def big_course(session: Session) -> tuple[User, Assignment, list[User]]:
    """A course of 120 students named "Student 000".."Student 119" (one, Student 007, graded late), and its teacher."""
    tag = unique("big")
    students = [
        User(
            username=f"{tag}-{index:03d}",
            display_name=f"Student {index:03d}",
            role=Role.STUDENT,
            password_hash=shared_password_hash(),
        )
        for index in range(STUDENTS)
    ]
    session.add_all(students)
    session.commit()
    now = utcnow()
    assignment = make_assignment(
        session,
        students,
        due_at=now - timedelta(hours=2),
        late_until=now + timedelta(days=2),
        late_penalty_per_day=25.0,
    )
    teacher = make_course_teacher(session, assignment.course_id)
    make_graded(session, assignment.id, students[7].id, EXERCISE, 1.0)  # submitted now: a day late, 25 % off
    return teacher, assignment, students


def shown(page: str) -> list[str]:
    """The usernames of the student rows on a page, in order."""
    return re.findall(r'<tr data-username="([^"]+)">', page)


def table_page(assignment: Assignment, where: str) -> str:
    """The URL of the page with a student table: the course dashboard, the assignment dashboard or the roster."""
    return {
        "course": f"/teach/courses/{assignment.course_id}",
        "assignment": f"/teach/assignments/{assignment.id}",
        "roster": f"/teach/courses/{assignment.course_id}/roster",
    }[where]


def pages_of(client: FlaskClient, url: str, **query: str) -> str:
    response = client.get(url, query_string=query)
    assert response.status_code == 200, (url, query)
    return response.get_data(as_text=True)


@pytest.mark.parametrize("where", ["course", "assignment", "roster"])
def test_fifty_students_a_page_and_the_pager_walks_them_all(
    login: Login, big_course: tuple[User, Assignment, list[User]], where: str
) -> None:
    teacher, assignment, students = big_course
    client, _ = login(teacher.username)
    url = table_page(assignment, where)
    names = [s.username for s in students]
    first = pages_of(client, url)
    assert shown(first) == names[:50]
    assert "Students 1–50 of 120" in first and 'rel="next"' in first and 'rel="prev"' not in first
    assert shown(pages_of(client, url, page="2")) == names[50:100]
    last = pages_of(client, url, page="3")
    assert shown(last) == names[100:] and 'rel="next"' not in last and "Students 101–120 of 120" in last
    assert shown(pages_of(client, url, page="99")) == names[100:]  # past the end: the last page
    assert shown(pages_of(client, url, page="x")) == names[:50]  # not a number: the first
    assert shown(pages_of(client, url, page="-4")) == names[:50]


@pytest.mark.parametrize("where", ["course", "assignment", "roster"])
def test_search_by_name_or_username_in_any_case(
    login: Login, big_course: tuple[User, Assignment, list[User]], where: str
) -> None:
    teacher, assignment, students = big_course
    client, _ = login(teacher.username)
    url = table_page(assignment, where)
    assert shown(pages_of(client, url, q="student 11")) == [s.username for s in students[110:120]]
    assert shown(pages_of(client, url, q=students[42].username.upper())) == [students[42].username]
    found = pages_of(client, url, q="STUDENT 00")
    assert shown(found) == [s.username for s in students[:10]]
    assert 'value="STUDENT 00"' in found  # the box keeps the search
    nothing = pages_of(client, url, q="%")  # a LIKE wildcard is a literal character
    assert shown(nothing) == [] and "Students 0–0 of 0" in nothing


def test_the_tables_show_counted_scores_and_say_so(
    login: Login, big_course: tuple[User, Assignment, list[User]]
) -> None:
    teacher, assignment, students = big_course
    client, _ = login(teacher.username)
    page = pages_of(client, f"/teach/assignments/{assignment.id}", q=students[7].username)
    assert "Scores here are counted scores" in page
    row = re.search(r'<tr data-username="[^"]+">.*?</tr>', page, re.S)
    assert row is not None and 'value="75"' in row.group(0)  # 1.0 handed in a day late, 25 % off: 75, not 100
    client.set_cookie("lang", "zh")
    assert "计入成绩的分数" in pages_of(client, f"/teach/courses/{assignment.course_id}")


def test_a_page_stays_small_however_many_students(
    login: Login, big_course: tuple[User, Assignment, list[User]]
) -> None:
    teacher, assignment, _ = big_course
    client, _ = login(teacher.username)
    for url in (f"/teach/courses/{assignment.course_id}", f"/teach/assignments/{assignment.id}"):
        assert len(shown(pages_of(client, url))) == 50
        assert len(pages_of(client, url).encode()) < 300_000, url


@pytest.mark.parametrize("where", ["course", "assignment", "roster"])
def test_a_search_runs_once_for_its_page_and_its_count(
    app: Flask, login: Login, big_course: tuple[User, Assignment, list[User]], where: str
) -> None:
    """The page's rows carry the count of every match (the pager's "of N"), so a search over a MOOC's students runs
    once, not once to count and again for the page."""
    teacher, assignment, _ = big_course
    client, _ = login(teacher.username)
    url = table_page(assignment, where)
    pages_of(client, url, q="student 1")
    with sql_sent(app) as sent:
        page = pages_of(client, url, q="student 1")
    assert "Students 1–20 of 20" in page  # Student 100 to Student 119
    searches = [statement for statement, _ in sent if "LIKE" in statement.upper()]
    assert len(searches) == 1, searches
