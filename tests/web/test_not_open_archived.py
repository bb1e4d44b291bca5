"""An exercise of a not-yet-open assignment in an archived course says the course is archived, and promises no
answer form for when it opens (nothing can be submitted to an archived course)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from flask import Flask
from flask.testing import FlaskClient
from markupsafe import escape
from sqlalchemy import select

from grader.extensions import get_db
from grader.models import Assignment, Course, utcnow

Login = Callable[[FlaskClient, str], str]
ATTENTION = "ch09.scaled-dot-attention"


def _not_open(app: Flask, archived: bool) -> int:
    """The demo's chapter 9 assignment, opening in two days, its course archived or not."""
    with app.app_context(), get_db(app).session() as session:
        assignment = session.scalars(select(Assignment).where(Assignment.title_en.startswith("Chapter 9"))).one()
        assignment.opens_at = utcnow() + timedelta(days=2)
        assignment.due_at = assignment.opens_at + timedelta(days=30)
        session.get_one(Course, assignment.course_id).archived_at = utcnow() if archived else None
        session.commit()
        return assignment.id


def test_the_notice_says_archived_and_promises_no_form(app: Flask, client: FlaskClient, login: Login) -> None:
    ch09 = _not_open(app, archived=True)
    token = login(client, "student1")
    html = client.get(f"/assignments/{ch09}/exercises/{ATTENTION}").get_data(as_text=True)
    assert 'id="archived-badge"' in html and 'id="archived-notice"' in html and "这门课程已归档" in html
    assert "但课程已归档" in html and "不能提交答案" in html
    assert "答题表单" not in html and 'id="answer-form"' not in html
    client.post("/lang", data={"csrf_token": token, "lang": "en", "next": "/courses"})
    html = client.get(f"/assignments/{ch09}/exercises/{ATTENTION}").get_data(as_text=True)
    assert "but the course is archived" in html and "no answers can be submitted" in html
    assert str(escape("the answer form appear")) not in html


def test_a_course_that_is_not_archived_still_promises_the_form(app: Flask, client: FlaskClient, login: Login) -> None:
    ch09 = _not_open(app, archived=False)
    login(client, "student1")
    html = client.get(f"/assignments/{ch09}/exercises/{ATTENTION}").get_data(as_text=True)
    assert "答题表单" in html and "已归档" not in html and 'id="archived-badge"' not in html
