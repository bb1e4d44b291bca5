"""A course's sign-in length: its teachers cap how long members stay signed in from signing in (shared computers,
exams); the cap ends the sign-in server-side and in the cookie, the shortest of a member's courses applies."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy.orm import Session

from grader.auth_session import ENDS_AT_KEY, SIGNED_IN_AT_KEY
from grader.models import Course, Enrolment, EnrolmentRole, Role, User
from tests.factories import TEST_PASSWORD, make_user, unique
from tests.teacher.conftest import sign_in

Login = Callable[[str], tuple[FlaskClient, str]]
HOUR = 3600


def _course(session: Session, hours: int | None = None, *members: User) -> tuple[Course, User]:
    """A committed course with a teacher, ``members`` as students, and sign-in length ``hours``."""
    teacher = make_user(session, Role.TEACHER)
    course = Course(code=unique("len"), title="Lab", session_hours=hours)
    course.enrolments = [Enrolment(user=teacher, role=EnrolmentRole.TEACHER)] + [
        Enrolment(user=member, role=EnrolmentRole.STUDENT) for member in members
    ]
    session.add(course)
    session.commit()
    return course, teacher


def _signed_in_as(client: FlaskClient) -> str | None:
    """Who the cookie signs in, as the API sees it (None: nobody)."""
    answer = client.get("/api/v1/me")
    return str(answer.get_json()["username"]) if answer.status_code == 200 else None


def _signed_in_hours_ago(client: FlaskClient, hours: float) -> None:
    """Move this browser's sign-in ``hours`` into the past."""
    with client.session_transaction() as cookie:
        cookie[SIGNED_IN_AT_KEY] = int(time.time() - hours * HOUR)


def _stored_hours(session: Session, course: Course) -> int | None:
    session.expire_all()
    return session.get_one(Course, course.id).session_hours


def test_a_teacher_sets_changes_and_lifts_the_length(login: Login, session: Session) -> None:
    course, teacher = _course(session)
    client, token = login(teacher.username)
    page = client.get(f"/teach/courses/{course.id}/settings").get_data(as_text=True)
    assert 'id="session-hours"' in page and "no length set" in page and "after 168 hours unused" in page
    url = f"/teach/courses/{course.id}/session-length"
    assert client.post(url, data={"csrf_token": token, "session_hours": "2"}).status_code == 302
    assert _stored_hours(session, course) == 2
    page = client.get(f"/teach/courses/{course.id}/settings").get_data(as_text=True)
    assert "sign in again 2 hours after signing in" in page and 'value="2"' in page
    listed = client.get("/api/v1/courses").get_json()["courses"]
    assert [course_json["session_hours"] for course_json in listed if course_json["id"] == course.id] == [2]
    assert client.post(url, data={"csrf_token": token, "session_hours": " 720 "}).status_code == 302
    assert _stored_hours(session, course) == 720
    assert client.post(url, data={"csrf_token": token, "session_hours": "08"}).status_code == 302
    assert _stored_hours(session, course) == 8
    assert client.post(url, data={"csrf_token": token, "session_hours": ""}).status_code == 302
    assert _stored_hours(session, course) is None


@pytest.mark.parametrize(
    "typed", ["0", "-1", "1.5", "two", "721", "２", "99999999999999999999999", "1e2", "9" * 5000, "0721"]
)
def test_a_length_that_is_not_a_whole_number_of_hours_is_refused(login: Login, session: Session, typed: str) -> None:
    course, teacher = _course(session, 5)
    client, token = login(teacher.username)
    answer = client.post(
        f"/teach/courses/{course.id}/session-length", data={"csrf_token": token, "session_hours": typed}
    )
    page = answer.get_data(as_text=True)
    assert answer.status_code == 422
    assert "whole number of hours from 1 to 720" in page and 'aria-invalid="true"' in page
    assert "Unknown time zone" not in page  # the refusal is shown at its own field
    assert _stored_hours(session, course) == 5


def test_the_refusal_is_in_chinese_on_a_chinese_page(login: Login, session: Session) -> None:
    course, teacher = _course(session)
    client, token = login(teacher.username)
    client.set_cookie("lang", "zh")
    answer = client.post(f"/teach/courses/{course.id}/session-length", data={"csrf_token": token, "session_hours": "0"})
    assert answer.status_code == 422 and "登录时长须为 1 到 720 之间的整数小时" in answer.get_data(as_text=True)


def test_another_teacher_cannot_change_the_length(login: Login, session: Session) -> None:
    course, _ = _course(session, 5)
    stranger = make_user(session, Role.TEACHER)
    client, token = login(stranger.username)
    answer = client.post(f"/teach/courses/{course.id}/session-length", data={"csrf_token": token, "session_hours": "1"})
    assert answer.status_code == 404
    assert _stored_hours(session, course) == 5


def test_a_member_is_signed_out_once_the_length_has_passed(app: Flask, session: Session) -> None:
    student = make_user(session)
    _course(session, 2, student)
    client = app.test_client()
    sign_in(client, student.username)
    assert _signed_in_as(client) == student.username
    _signed_in_hours_ago(client, 1.9)
    assert _signed_in_as(client) == student.username
    _signed_in_hours_ago(client, 2.1)
    assert _signed_in_as(client) is None
    assert client.get("/courses").status_code in (302, 401)  # the pages treat the browser as signed out too


def test_a_length_set_after_signing_in_applies_from_the_next_request(app: Flask, session: Session) -> None:
    student = make_user(session)
    course, _ = _course(session, None, student)
    client = app.test_client()
    sign_in(client, student.username)
    _signed_in_hours_ago(client, 3)
    assert _signed_in_as(client) == student.username  # no cap: the site's idle rule only
    course.session_hours = 2
    session.commit()
    assert _signed_in_as(client) is None
    course.session_hours = None  # lifted: the same sign-in is good again
    session.commit()
    assert _signed_in_as(client) == student.username


def test_the_shortest_length_of_a_members_courses_applies(app: Flask, session: Session) -> None:
    student = make_user(session)
    _course(session, 5, student)
    _course(session, 2, student)
    _course(session, None, student)
    client = app.test_client()
    sign_in(client, student.username)
    _signed_in_hours_ago(client, 3)
    assert _signed_in_as(client) is None


def test_someone_outside_the_course_is_not_capped(app: Flask, session: Session) -> None:
    outsider = make_user(session)
    _course(session, 1)
    client = app.test_client()
    sign_in(client, outsider.username)
    _signed_in_hours_ago(client, 3)
    assert _signed_in_as(client) == outsider.username


def test_a_cookie_without_a_sign_in_time_is_past_any_cap(app: Flask, session: Session) -> None:
    """Cookies issued before lengths existed carry no sign-in time: under a cap they must sign in again."""
    capped, free = make_user(session), make_user(session)
    _course(session, 8, capped)
    for user, expected in ((capped, None), (free, free.username)):
        client = app.test_client()
        sign_in(client, user.username)
        with client.session_transaction() as cookie:
            del cookie[SIGNED_IN_AT_KEY]
        assert _signed_in_as(client) == expected


def test_the_cookie_expires_when_the_length_ends(app: Flask, session: Session) -> None:
    student, other = make_user(session), make_user(session)
    _course(session, 2, student)
    for user, lifetime in ((student, timedelta(hours=2)), (other, timedelta(hours=168))):
        client = app.test_client()
        csrf = client.get("/login").get_data(as_text=True).split('name="csrf-token" content="')[1].split('"')[0]
        signed_in = client.post(
            "/login", data={"username": user.username, "password": TEST_PASSWORD, "csrf_token": csrf}
        )
        cookie = next(value for value in signed_in.headers.getlist("Set-Cookie") if value.startswith("session="))
        expires = parsedate_to_datetime(cookie.split("Expires=")[1].split(";")[0])
        assert abs(expires - (datetime.now(UTC) + lifetime)) < timedelta(minutes=5)
        with client.session_transaction() as kept:
            assert (ENDS_AT_KEY in kept) == (user is student)
