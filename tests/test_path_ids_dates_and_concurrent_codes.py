"""HTTP audit (session 10): non-ASCII digits in path ids, assignment dates the database cannot read back in every
time zone, and a course code or enrolment taken by a concurrent request. Each runs on SQLite and PostgreSQL."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import Insert, func, insert, select
from sqlalchemy.orm import Session

from grader import create_app
from grader.extensions import get_db
from grader.i18n import LANG_COOKIE
from grader.models import Course, Enrolment, EnrolmentRole, Role, User, utcnow
from grader.security import issue_token
from tests.factories import BOOK_ANSWER, EXERCISE, TEST_PASSWORD, make_assignment, make_user
from tests.support import Backend

CSRF_META = re.compile(r'<meta name="csrf-token" content="([^"]+)">')
# Long enough that the request reaches its INSERT while the other transaction still holds the row uncommitted (were
# the request slower, it would see the committed row and pass by the ordinary check: the fixed code passes either way).
COMMIT_DELAY_SECONDS = 1.5


def _sign_in(app: Flask, username: str) -> tuple[FlaskClient, str]:
    """A client signed in through the login form, and its session's CSRF token."""
    client = app.test_client()
    client.set_cookie(LANG_COOKIE, "en")
    token = CSRF_META.search(client.get("/login").get_data(as_text=True)).group(1)  # type: ignore[union-attr]
    response = client.post("/login", data={"username": username, "password": TEST_PASSWORD, "csrf_token": token})
    assert response.status_code == 302
    page = client.get("/courses").get_data(as_text=True)
    return client, CSRF_META.search(page).group(1)  # type: ignore[union-attr]


def _course_taught_by(session: Session, teacher: User) -> Course:
    """A committed course with ``teacher`` as its teacher."""
    course = Course(code=f"c{teacher.id}", title="Course")
    course.enrolments.append(Enrolment(user=teacher, role=EnrolmentRole.TEACHER))
    session.add(course)
    session.commit()
    return course


@contextmanager
def _committed_meanwhile(app: Flask, statement: Insert) -> Iterator[None]:
    """Run ``statement`` in another transaction that commits COMMIT_DELAY_SECONDS later (while the block's request
    is under way), as a second browser tab or a double click would."""
    connection = get_db(app).engine.connect()
    transaction = connection.begin()
    connection.execute(statement)
    timer = threading.Timer(COMMIT_DELAY_SECONDS, transaction.commit)
    timer.start()
    try:
        yield
    finally:
        timer.join()
        connection.close()


# --- path ids -----------------------------------------------------------------------------------------------------


def _spelled_in(zero: str, number: int) -> str:
    """``number`` written with the digits of the script whose zero is ``zero``."""
    return "".join(chr(ord(zero) + int(digit)) for digit in str(number))


@pytest.mark.parametrize("zero", ["\uff10", "\u0660", "\u0966"])  # fullwidth, Arabic-Indic, Devanagari
def test_path_ids_are_ascii_digits_only(app: Flask, session: Session, zero: str) -> None:
    """An id spelled in non-ASCII digits names no resource: one row has one URL (caches, logs, proxies' rules)."""
    student = make_user(session)
    token = issue_token(session, student, name="t")
    session.commit()
    client = app.test_client()
    headers = {"Authorization": f"Bearer {token}"}
    body = {"exercise_id": EXERCISE, "assignment_id": make_assignment(session, [student]).id, "answer": BOOK_ANSWER}
    created = client.post("/api/v1/submissions", json=body, headers=headers)
    assert created.status_code == 202
    submission_id = created.get_json()["id"]
    assert client.get(f"/api/v1/submissions/{submission_id}", headers=headers).status_code == 200
    response = client.get(f"/api/v1/submissions/{_spelled_in(zero, submission_id)}", headers=headers)
    assert response.status_code == 404
    assert response.get_json()["error"]["code"] == "not_found"


# --- assignment dates ---------------------------------------------------------------------------------------------


def _in_time_zone(backend: Backend, zone: str) -> str:
    """The backend's database URL with PostgreSQL sessions in ``zone`` (a server's TimeZone setting); SQLite as is."""
    if backend.name != "postgresql":
        return backend.database_url
    return f"{backend.database_url}?options=-c%20timezone%3D{zone.replace('/', '%2F')}"


@pytest.mark.parametrize(
    ("field", "value", "zone"),
    [
        ("due_at", "9999-12-31T23:59", "Asia/Shanghai"),  # read back in UTC+8 it is in the year 10000
        ("opens_at", "0001-01-01T00:00", "America/New_York"),  # read back in UTC-5 it is before year 1
    ],
)
def test_assignment_dates_outside_readable_years_are_a_form_error(
    app: Flask,
    backend: Backend,
    session: Session,
    field: str,
    value: str,
    zone: str,
) -> None:
    """A date the database stores but cannot hand back in its time zone would make every page of the course a 500;
    the form refuses it instead."""
    zoned = create_app(backend.config(DATABASE_URL=_in_time_zone(backend, zone)))
    try:
        teacher = make_user(session, Role.TEACHER)
        course = _course_taught_by(session, teacher)
        client, csrf = _sign_in(zoned, teacher.username)
        form: dict[str, Any] = {
            "csrf_token": csrf,
            "title_zh": "作业",
            "title_en": "Homework",
            "exercise_ids": EXERCISE,
            "opens_at": "",
            "due_at": "",
            "attempts": "",
            "score_policy": "best",
            "answer_key_policy": "after_due",
            field: value,
        }
        response = client.post(f"/teach/courses/{course.id}/assignments/new", data=form)
        assert response.status_code == 422
        assert client.get(f"/teach/courses/{course.id}").status_code == 200
    finally:
        get_db(zoned).dispose()


# --- concurrent requests ------------------------------------------------------------------------------------------


def test_course_code_taken_by_a_concurrent_request_is_a_form_error(app: Flask, session: Session) -> None:
    """Two requests creating the same course code (a double click): the second gets 'code taken', not a 500."""
    teacher = make_user(session, Role.TEACHER)
    client, csrf = _sign_in(app, teacher.username)
    taken = insert(Course).values(code="race-code", title="Other", created_at=utcnow())
    with _committed_meanwhile(app, taken):
        response = client.post("/teach/courses", data={"csrf_token": csrf, "code": "race-code", "title": "Mine"})
    assert response.status_code == 422
    assert "This course code is already taken." in response.get_data(as_text=True)
    assert session.scalar(select(func.count()).select_from(Course).where(Course.code == "race-code")) == 1


def test_student_enrolled_by_a_concurrent_request_is_reported_not_a_500(app: Flask, session: Session) -> None:
    """Enrolling a student whom another request enrols meanwhile: the roster says so; one enrolment remains."""
    teacher, student = make_user(session, Role.TEACHER), make_user(session)
    course = _course_taught_by(session, teacher)
    client, csrf = _sign_in(app, teacher.username)
    meanwhile = insert(Enrolment).values(
        course_id=course.id, user_id=student.id, role=EnrolmentRole.STUDENT, created_at=utcnow()
    )
    with _committed_meanwhile(app, meanwhile):
        response = client.post(
            f"/teach/courses/{course.id}/roster/add", data={"csrf_token": csrf, "username": student.username}
        )
    assert response.status_code == 422
    enrolments = (
        select(func.count())
        .select_from(Enrolment)
        .where(Enrolment.course_id == course.id, Enrolment.user_id == student.id)
    )
    assert session.scalar(enrolments) == 1
