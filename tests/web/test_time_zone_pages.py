"""Students see opening and due times in their course's time zone, the zone named; an archived course says so."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from flask import Flask
from flask.testing import FlaskClient
from markupsafe import escape
from sqlalchemy import select

from grader.extensions import get_db
from grader.models import Assignment, Course, utcnow

Login = Callable[[FlaskClient, str], str]
ATTENTION = "ch09.scaled-dot-attention"
OPENS = datetime(2999, 3, 1, 0, 30, tzinfo=UTC)  # far ahead: the assignment is not open yet
DUE = datetime(2999, 12, 1, 15, 59, tzinfo=UTC)


def _set(app: Flask, zone: str, archived: bool = False) -> int:
    """Put the demo course in ``zone`` and give its chapter 9 assignment the fixed window; returns that id."""
    with app.app_context(), get_db(app).session() as session:
        assignment = session.scalars(select(Assignment).where(Assignment.title_en.startswith("Chapter 9"))).one()
        course = session.get_one(Course, assignment.course_id)
        course.time_zone, course.archived_at = zone, utcnow() if archived else None
        assignment.opens_at, assignment.due_at = OPENS, DUE
        session.commit()
        return assignment.id


def test_student_pages_show_times_in_the_course_zone(app: Flask, client: FlaskClient, login: Login) -> None:
    ch09 = _set(app, "Asia/Shanghai")
    login(client, "student1")
    due, opens = "2999-12-01 23:59 (Asia/Shanghai, UTC+8)", "2999-03-01 08:30 (Asia/Shanghai, UTC+8)"
    courses = client.get("/courses").get_data(as_text=True)
    assert due in courses and opens in courses
    assert f'<time datetime="{DUE.isoformat()}">{due}</time>' in courses  # the machine-readable instant stays UTC
    assignment = client.get(f"/assignments/{ch09}").get_data(as_text=True)
    assert due in assignment and f"本作业将于 {opens} 开放" in assignment
    exercise = client.get(f"/assignments/{ch09}/exercises/{ATTENTION}").get_data(as_text=True)
    assert due in exercise and f"本题所在的作业将于 {opens} 开放" in exercise
    assert " UTC 开放" not in exercise


def test_a_dst_zone_shows_the_offset_of_the_day(app: Flask, client: FlaskClient, login: Login) -> None:
    ch09 = _set(app, "Europe/Berlin")
    login(client, "student1")
    html = client.get(f"/assignments/{ch09}").get_data(as_text=True)
    assert "2999-12-01 16:59 (Europe/Berlin, UTC+1)" in html  # winter time
    with app.app_context(), get_db(app).session() as session:
        session.get_one(Assignment, ch09).opens_at = datetime(2999, 7, 1, 6, 0, tzinfo=UTC)
        session.commit()
    html = client.get(f"/assignments/{ch09}").get_data(as_text=True)
    assert "2999-07-01 08:00 (Europe/Berlin, UTC+2)" in html  # summer time


def test_english_pages_name_the_zone_too(app: Flask, client: FlaskClient, login: Login) -> None:
    ch09 = _set(app, "Asia/Shanghai")
    token = login(client, "student1")
    client.post("/lang", data={"csrf_token": token, "lang": "en", "next": "/courses"})
    html = client.get(f"/assignments/{ch09}/exercises/{ATTENTION}").get_data(as_text=True)
    assert str(escape("This exercise's assignment opens at 2999-03-01 08:30 (Asia/Shanghai, UTC+8)")) in html


def test_courses_kept_in_utc_read_as_before(app: Flask, client: FlaskClient, login: Login) -> None:
    ch09 = _set(app, "UTC")
    login(client, "student1")
    assert "2999-12-01 15:59 UTC" in client.get(f"/assignments/{ch09}").get_data(as_text=True)


def test_archived_course_is_listed_apart_and_read_only(app: Flask, client: FlaskClient, login: Login) -> None:
    ch09 = _set(app, "Asia/Shanghai", archived=True)
    login(client, "student1")
    courses = client.get("/courses").get_data(as_text=True)
    assert 'id="archived-courses"' in courses and "已归档的课程" in courses
    assert "这门课程已归档" in courses
    assert client.get(f"/assignments/{ch09}").status_code == 200  # results stay visible
