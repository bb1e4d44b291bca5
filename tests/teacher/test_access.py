"""Only a course's teachers and admins see its pages (404 for everyone else); every post needs the CSRF token."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from flask.testing import FlaskClient
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from grader.models import RegradeJob, Role
from tests.factories import make_user
from tests.teacher.course_data import FixtureCourse, build

Login = Callable[[str], tuple[FlaskClient, str]]


@pytest.fixture
def fixture_course(session: Session) -> FixtureCourse:
    """The fixture course, plus a regrade job on its 'best' assignment."""
    course = build(session)
    session.add(RegradeJob(assignment_id=course.best.id, requested_by=f"user:{course.teacher.username}", status="done"))
    session.commit()
    return course


def get_pages(f: FixtureCourse, job_id: int) -> list[str]:
    """Every page of the fixture course."""
    c, a = f.course.id, f.best.id
    return [
        f"/teach/courses/{c}",
        f"/teach/courses/{c}/roster",
        f"/teach/courses/{c}/assignments/new",
        f"/teach/courses/{c}/students/{f.alice.id}",
        f"/teach/assignments/{a}",
        f"/teach/assignments/{a}/edit",
        f"/teach/regrades/{job_id}",
    ]


def post_actions(f: FixtureCourse) -> list[str]:
    """Every post of the fixture course."""
    c, a = f.course.id, f.best.id
    return [
        f"/teach/assignments/{a}/export/grades.csv",
        f"/teach/assignments/{a}/export/submissions.csv",
        f"/teach/assignments/{a}/export/misconceptions.csv",
        f"/teach/courses/{c}/gradebook.xlsx",
        f"/teach/assignments/{a}/regrade",
        f"/teach/courses/{c}/roster/add",
        f"/teach/courses/{c}/roster/{f.bob.id}/remove",
        f"/teach/courses/{c}/roster/confirm",
        f"/teach/assignments/{a}/edit",
    ]


def job_id_of(session: Session, f: FixtureCourse) -> int:
    """The id of the fixture's regrade job."""
    return session.scalar(select(RegradeJob.id).where(RegradeJob.assignment_id == f.best.id))


def test_course_teacher_sees_every_page(login: Login, session: Session, fixture_course: FixtureCourse) -> None:
    client, _ = login(fixture_course.teacher.username)
    for url in get_pages(fixture_course, job_id_of(session, fixture_course)):
        assert client.get(url).status_code == 200, url


def test_admin_sees_every_page(login: Login, session: Session, fixture_course: FixtureCourse) -> None:
    admin = make_user(session, Role.ADMIN)
    client, _ = login(admin.username)
    for url in get_pages(fixture_course, job_id_of(session, fixture_course)):
        assert client.get(url).status_code == 200, url


@pytest.mark.parametrize("who", ["student", "other_teacher"])
def test_others_get_404_everywhere(login: Login, session: Session, fixture_course: FixtureCourse, who: str) -> None:
    """A student of the course and a teacher of another course: 404 on every page and every (CSRF-valid) post."""
    user = fixture_course.alice if who == "student" else fixture_course.other_teacher
    client, token = login(user.username)
    for url in get_pages(fixture_course, job_id_of(session, fixture_course)):
        assert client.get(url).status_code == 404, url
    for url in post_actions(fixture_course):
        assert client.post(url, data={"csrf_token": token, "username": "x"}).status_code == 404, url
    assert session.scalar(select(func.count()).select_from(RegradeJob)) == 1  # no job was started


def test_student_sees_no_teacher_home(login: Login, fixture_course: FixtureCourse) -> None:
    client, token = login(fixture_course.alice.username)
    assert client.get("/teach/").status_code == 404
    assert client.post("/teach/courses", data={"csrf_token": token, "code": "mine", "title": "Mine"}).status_code == 404
    assert client.get("/teach/exercises/ch13.greedy-decode/preview").status_code == 404


def test_other_teacher_cannot_see_student_of_course(login: Login, fixture_course: FixtureCourse) -> None:
    """A teacher may open a student's page only through a course they teach."""
    client, _ = login(fixture_course.other_teacher.username)
    assert (
        client.get(f"/teach/courses/{fixture_course.other.course_id}/students/{fixture_course.alice.id}").status_code
        == 200
    )
    assert (
        client.get(f"/teach/courses/{fixture_course.other.course_id}/students/{fixture_course.bob.id}").status_code
        == 404
    )


def test_anonymous_visitors_are_sent_to_login(client: FlaskClient, fixture_course: FixtureCourse) -> None:
    response = client.get(f"/teach/courses/{fixture_course.course.id}")
    assert response.status_code == 302
    assert "/login" in response.headers["Location"]


def test_posts_without_csrf_token_are_refused(login: Login, session: Session, fixture_course: FixtureCourse) -> None:
    """Exports and regrades (and every other post) need the session's CSRF token, even for the course's teacher."""
    client, _ = login(fixture_course.teacher.username)
    for url in post_actions(fixture_course):
        response = client.post(url, data={"csrf_token": "forged", "username": "x"})
        assert response.status_code == 400, url
    assert session.scalar(select(func.count()).select_from(RegradeJob)) == 1
