"""Junk input to the pages and the API is a 4xx, never a 500: one case per input that used to crash."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from grader.extensions import get_db
from tests.factories import BOOK_ANSWER, make_assignment, make_course_teacher, make_user

TOKEN = "<csrf>"  # replaced by the signed-in session's CSRF token
BEYOND_ID = 2**31  # one past what an INTEGER id column holds (PostgreSQL refuses it; SQLite overflowed at 2**63)


@dataclass(frozen=True)
class People:
    """Usernames and ids of a teacher and a student sharing one course with one assignment."""

    teacher: str
    student: str
    course_id: int
    assignment_id: int


@pytest.fixture
def people(app: Flask) -> People:
    """A course taught by a teacher, with a student and an open assignment."""
    with app.app_context(), get_db(app).session() as db:
        student = make_user(db)
        assignment = make_assignment(db, [student])
        teacher = make_course_teacher(db, assignment.course_id)
        return People(teacher.username, student.username, assignment.course_id, assignment.id)


def _fill(value: Any, token: str, people: People) -> Any:
    """``value`` with the CSRF placeholder and {course}/{assignment} ids filled in."""
    if isinstance(value, dict):
        return {key: _fill(item, token, people) for key, item in value.items()}
    if isinstance(value, str):
        return (
            value.replace(TOKEN, token)
            .replace("{course}", str(people.course_id))
            .replace("{assignment}", str(people.assignment_id))
        )
    return value


CASES = [
    # A CSRF token with non-ASCII characters made hmac.compare_digest raise TypeError.
    pytest.param(
        "student", "POST", "/lang", {"data": {"lang": "en", "csrf_token": "é"}}, 400, id="csrf-form-non-ascii"
    ),
    pytest.param(
        "student",
        "POST",
        "/api/v1/validate",
        {"json": {"exercise_id": "ch13.shift-pairs", "answer": {}}, "headers": {"X-CSRF-Token": "²"}},
        403,
        id="csrf-header-non-ascii-api",
    ),
    # Ids beyond the INTEGER columns reached the driver (OverflowError / NumericValueOutOfRange).
    pytest.param("student", "GET", f"/lab?run={10**20}", {}, 200, id="lab-run-id-huge"),
    pytest.param("student", "GET", f"/submissions/{BEYOND_ID}", {}, 404, id="page-submission-id-huge"),
    pytest.param("teacher", "GET", f"/teach/courses/{BEYOND_ID}", {}, 404, id="teacher-course-id-huge"),
    pytest.param("teacher", "GET", f"/api/v1/submissions/{BEYOND_ID}", {}, 404, id="api-submission-id-huge"),
    pytest.param("teacher", "GET", f"/api/v1/assignments/{BEYOND_ID}/progress", {}, 404, id="api-assignment-id-huge"),
    pytest.param("teacher", "GET", f"/api/v1/submissions?course={BEYOND_ID}", {}, 400, id="api-course-filter-huge"),
    pytest.param(
        "teacher",
        "POST",
        "/api/v1/submissions",
        {
            "json": {"exercise_id": "ch13.shift-pairs", "answer": BOOK_ANSWER, "assignment_id": BEYOND_ID},
            "headers": {"X-CSRF-Token": TOKEN},
        },
        422,
        id="api-assignment-id-field-huge",
    ),
    # The lab's JSON endpoint assumed an object and int()-able numbers; it now reads its body as the API does.
    pytest.param(
        "student", "POST", "/lab/runs", {"json": [32, 64], "headers": {"X-CSRF-Token": TOKEN}}, 400, id="lab-json-list"
    ),
    pytest.param(
        "student",
        "POST",
        "/lab/runs",
        {
            "data": '{"ds": [Infinity], "t_max": 8}',
            "content_type": "application/json",
            "headers": {"X-CSRF-Token": TOKEN},
        },
        422,
        id="lab-json-infinity",
    ),
    # str.isdigit() accepts '²' and 5000-digit strings, which int() refuses.
    pytest.param(
        "teacher", "GET", "/teach/exercises/ch13.shift-pairs/preview?seed=²", {}, 422, id="preview-seed-superscript"
    ),
    pytest.param(
        "teacher",
        "GET",
        "/teach/exercises/ch13.shift-pairs/preview?seed=" + "9" * 5000,
        {},
        422,
        id="preview-seed-5000-digits",
    ),
    pytest.param(
        "teacher",
        "POST",
        "/teach/courses/{course}/assignments/new",
        {
            "data": {
                "csrf_token": TOKEN,
                "title_zh": "作业",
                "title_en": "Work",
                "exercise_ids": "ch13.shift-pairs",
                "attempts": "²",
                "score_policy": "best",
                "answer_key_policy": "never",
            }
        },
        422,
        id="assignment-attempts-superscript",
    ),
    # PostgreSQL text cannot hold NUL: the query failed with DataError.
    pytest.param(
        None,
        "POST",
        "/login",
        {"data": {"csrf_token": TOKEN, "username": "a\x00b", "password": "x"}},
        400,
        id="login-username-nul",
    ),
    pytest.param(
        "teacher",
        "POST",
        "/teach/courses/{course}/roster/add",
        {"data": {"csrf_token": TOKEN, "username": "a\x00b"}},
        400,
        id="roster-username-nul",
    ),
]


@pytest.mark.parametrize(("who", "method", "path", "request_args", "status"), CASES)
def test_junk_input_is_a_client_error(
    app: Flask,
    people: People,
    login: Callable[[str], tuple[FlaskClient, str]],
    who: str | None,
    method: str,
    path: str,
    request_args: dict[str, Any],
    status: int,
) -> None:
    if who is None:
        client = app.test_client()
        client.get("/login")
        with client.session_transaction() as cookie_session:
            token = str(cookie_session["csrf_token"])
    else:
        client, token = login(getattr(people, who))
    response = client.open(_fill(path, token, people), method=method, **_fill(request_args, token, people))
    assert response.status_code == status, response.get_data(as_text=True)[:500]
    if path.startswith("/api/"):
        assert response.mimetype == "application/json"
        assert {"code", "message", "field"} <= set(response.get_json()["error"])


@pytest.mark.parametrize(
    "hidden",
    ["\x1b[31m", "\u202e", "\u2066", "\x00", "\x85"],
    ids=["terminal-escape", "right-to-left-override", "isolate", "nul", "c1-next-line"],
)
def test_a_title_with_hidden_control_characters_is_refused_with_a_page_that_says_so(
    app: Flask, people: People, login: Callable[[str], tuple[FlaskClient, str]], hidden: str
) -> None:
    client, token = login(people.teacher)
    form = {
        "csrf_token": token,
        "title_zh": f"作业{hidden}",
        "title_en": "Work",
        "exercise_ids": "ch13.shift-pairs",
        "attempts": "",
        "score_policy": "best",
        "answer_key_policy": "never",
    }
    path = f"/teach/courses/{people.course_id}/assignments/new"
    refused = client.post(path, data=form)
    assert refused.status_code == 400
    assert "invisible control characters" in refused.get_data(as_text=True)  # these sessions read English
    kept = client.post(path, data={**form, "title_zh": "作业\t第一周"})  # a tab is not hidden
    assert kept.status_code == 302, kept.get_data(as_text=True)[:300]


def test_a_students_answer_with_a_direction_override_reaches_the_engine_which_names_it_unreadable(
    app: Flask, people: People, login: Callable[[str], tuple[FlaskClient, str]]
) -> None:
    client, token = login(people.student)
    reply = client.post(
        "/api/v1/validate",
        json={"exercise_id": "ch13.shift-pairs", "answer": {**BOOK_ANSWER, "scored_count": "\u202e4"}},
        headers={"X-CSRF-Token": token},
    )
    # Not a 400 from the pages' hidden-character guard: the engine reads it and refuses the override character by
    # name (issue 20: bidirectional overrides are unreadable everywhere, never stored or echoed).
    body = reply.get_json()
    assert reply.status_code == 200 and body["status"] == "invalid", body
    assert [e["field"] for e in body["errors"]] == ["scored_count"] and "U+202E" in body["errors"][0]["message"]
