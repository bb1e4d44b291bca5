"""The language switch returns to a page that can be fetched: a page that answered a post (a confirm page, a form
shown again with its errors) leads to the nearest page above it, never to a 405; and a 405 says what it means."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select

from grader.extensions import get_db
from grader.models import Assignment, Course, Submission, User
from grader.ui.page_helpers import gettable_next

Login = Callable[[FlaskClient, str], str]
ALERT = re.compile(r'<p class="message error" role="alert">(.*?)</p>', re.DOTALL)
LANG_NEXT = re.compile(r'<form method="post" action="/lang".*?name="next" value="([^"]*)"', re.DOTALL)
DEFAULT = "/courses"


def _course_and_assignment(app: Flask) -> tuple[int, int]:
    """The demo course and its chapter 9 assignment."""
    with app.app_context(), get_db(app).session() as session:
        assignment = session.scalars(select(Assignment).where(Assignment.title_en.startswith("Chapter 9"))).one()
        return session.get_one(Course, assignment.course_id).id, assignment.id


def _student_submitted(app: Flask, assignment_id: int) -> None:
    """An unreadable answer of student1 to the assignment (enough to keep it from being deleted)."""
    with app.app_context(), get_db(app).session() as session:
        student = session.scalars(select(User).where(User.username == "student1")).one()
        session.add(
            Submission(
                user_id=student.id,
                assignment_id=assignment_id,
                exercise_id="ch09.scaled-dot-attention",
                seed=0,
                lang="zh",
                raw_answer={},
                status="invalid",
            )
        )
        session.commit()


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        ("/teach/courses/11/archive", "/teach/courses/11"),
        ("/teach/courses/11/unarchive", "/teach/courses/11"),
        ("/teach/assignments/7/delete", "/teach/assignments/7"),
        ("/teach/courses", "/teach/"),  # the new-course form's error page; /teach redirects to /teach/
        ("/teach/courses/11/roster/add", "/teach/courses/11/roster"),
        ("/teach/courses/11/roster/upload", "/teach/courses/11/roster"),
        ("/teach/courses/11/roster/confirm", "/teach/courses/11/roster"),
        ("/teach/courses/11/roster/5/remove", "/teach/courses/11/roster"),
        ("/teach/tokens/3/revoke", "/teach/tokens"),
        ("/lab/runs", "/lab"),
        ("/logout", "/"),
        ("/submissions?page=2", "/submissions?page=2"),  # a page that answers GET keeps its query
        ("/teach/courses/11/settings", "/teach/courses/11/settings"),  # GET and POST
        ("/assignments/3/exercises/ch13.shift-pairs", "/assignments/3/exercises/ch13.shift-pairs"),
        ("/nothing/here", "/"),
    ],
)
def test_next_is_the_nearest_page_that_answers_get(app: Flask, target: str, expected: str) -> None:
    with app.test_request_context("/lang", method="POST"):
        assert gettable_next(target, DEFAULT) == expected


@pytest.mark.parametrize(
    "target",
    [
        "https://evil.example/teach/courses/1",
        "//evil.example/teach/courses/1",
        "/\\evil.example",
        "teach/courses/1/archive",
        "",
        None,
    ],
)
def test_another_host_or_a_relative_path_is_never_a_target(app: Flask, target: str | None) -> None:
    with app.test_request_context("/lang", method="POST"):
        assert gettable_next(target, DEFAULT) == DEFAULT


def _switch(client: FlaskClient, token: str, page: str, lang: str) -> str:
    """Press the header's language switch on ``page`` (its hidden 'next' as the page wrote it): where it leads."""
    (next_path,) = LANG_NEXT.findall(page)
    response = client.post("/lang", data={"csrf_token": token, "lang": lang, "next": next_path})
    assert response.status_code == 302
    return response.headers["Location"]


def test_switching_language_on_a_confirm_page_returns_to_the_course(
    app: Flask, client: FlaskClient, login: Login
) -> None:
    course_id, assignment_id = _course_and_assignment(app)
    token = login(client, "teacher")
    for action in ("archive", "unarchive"):
        asked = client.post(f"/teach/courses/{course_id}/{action}", data={"csrf_token": token})
        assert asked.status_code == 200
        location = _switch(client, token, asked.get_data(as_text=True), "en")
        assert location == f"/teach/courses/{course_id}"
        assert client.get(location).status_code == 200
        done = client.post(f"/teach/courses/{course_id}/{action}", data={"csrf_token": token, "confirm": "yes"})
        assert done.status_code == 302
    asked = client.post(f"/teach/assignments/{assignment_id}/delete", data={"csrf_token": token})
    assert asked.status_code == 200
    assert _switch(client, token, asked.get_data(as_text=True), "en") == f"/teach/assignments/{assignment_id}"
    _student_submitted(app, assignment_id)
    cannot = client.post(f"/teach/assignments/{assignment_id}/delete", data={"csrf_token": token})
    assert cannot.status_code == 409
    location = _switch(client, token, cannot.get_data(as_text=True), "zh")
    assert location == f"/teach/assignments/{assignment_id}"
    assert "课程概览" in client.get(f"/teach/courses/{course_id}").get_data(as_text=True)  # the switch took effect


def test_switching_language_on_a_form_shown_again_returns_to_a_page(
    app: Flask, client: FlaskClient, login: Login
) -> None:
    course_id, _ = _course_and_assignment(app)
    token = login(client, "teacher")
    refused = client.post("/teach/courses", data={"csrf_token": token, "code": "!", "title": ""})
    assert refused.status_code == 422
    location = _switch(client, token, refused.get_data(as_text=True), "en")
    assert location == "/teach/"
    assert client.get(location).status_code == 200
    roster = client.post(f"/teach/courses/{course_id}/roster/add", data={"csrf_token": token, "username": ""})
    location = _switch(client, token, roster.get_data(as_text=True), "zh")
    assert location == f"/teach/courses/{course_id}/roster"


def test_a_get_page_keeps_its_query_string(client: FlaskClient, login: Login) -> None:
    token = login(client, "teacher")
    page = client.get("/teach/exercises/ch13.shift-pairs/preview?seed=5").get_data(as_text=True)
    assert _switch(client, token, page, "en") == "/teach/exercises/ch13.shift-pairs/preview?seed=5"


@pytest.mark.parametrize("path", ["/teach/courses/{course}/archive", "/logout"])
def test_the_405_page_says_the_address_cannot_be_opened_directly(
    app: Flask, client: FlaskClient, login: Login, path: str
) -> None:
    course_id, _ = _course_and_assignment(app)
    token = login(client, "teacher")
    url = path.format(course=course_id)
    response = client.get(url)
    assert response.status_code == 405 and "POST" in response.headers["Allow"]
    (message,) = ALERT.findall(response.get_data(as_text=True))
    assert "这个地址不能直接打开" in message and "请求无效" not in message and "过期" not in message
    client.post("/lang", data={"csrf_token": token, "lang": "en", "next": "/courses"})
    (message,) = ALERT.findall(client.get(url).get_data(as_text=True))
    assert "This address cannot be opened directly" in message
    assert "Bad request" not in message and "expired" not in message
