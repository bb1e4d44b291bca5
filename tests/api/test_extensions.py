"""Extensions through the API: a student's own due date and extra attempts count for submitting, progress and the
gradebook; bad requests are a 4xx naming the field and change nothing; only the course's staff may give them."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from werkzeug.test import TestResponse

from tests.factories import BOOK_ANSWER, EXERCISE

from .support import Api, Attempt, add_attempts, assert_error


def _put(api: Api, who: str | None, assignment_id: int, student_id: int, body: Any) -> TestResponse:
    return api.client.put(
        f"/api/v1/assignments/{assignment_id}/extensions/{student_id}",
        data=json.dumps(body),
        content_type="application/json",
        headers=api.headers(who),
    )


def _delete(api: Api, who: str, assignment_id: int, student_id: int) -> TestResponse:
    return api.client.delete(f"/api/v1/assignments/{assignment_id}/extensions/{student_id}", headers=api.headers(who))


def _submit(api: Api, who: str, assignment_id: int) -> TestResponse:
    return api.post(
        "/submissions", who, {"exercise_id": EXERCISE, "assignment_id": assignment_id, "answer": BOOK_ANSWER}
    )


def _later(days: float) -> str:
    return (datetime.now(UTC) + timedelta(days=days)).isoformat()


def test_a_later_due_date_opens_a_closed_assignment_for_that_student_only(api: Api) -> None:
    school = api.school
    due = datetime.now(UTC) + timedelta(days=2)
    reply = _put(
        api, "teacher", school.closed_assignment, school.user_ids["alice"], {"due_at": due.isoformat(), "reason": "ill"}
    )
    assert reply.status_code == 200, reply.get_data(as_text=True)
    assert reply.get_json()["reason"] == "ill"
    assert _submit(api, "alice", school.closed_assignment).status_code == 202
    assert_error(_submit(api, "bob", school.closed_assignment), 403, "past_due")
    mine = api.get(f"/assignments/{school.closed_assignment}/progress", "alice").get_json()["terms"]
    assert mine["extended_due"] is True
    assert datetime.fromisoformat(mine["due_at"]) == due.replace(microsecond=due.microsecond)
    theirs = api.get(f"/assignments/{school.closed_assignment}/progress", "bob").get_json()["terms"]
    assert theirs["extended_due"] is False and datetime.fromisoformat(theirs["due_at"]) < datetime.now(UTC)


def test_extra_attempts_give_back_a_used_up_exercise(api: Api) -> None:
    school, alice = api.school, api.school.user_ids["alice"]
    add_attempts(api.client.application, [Attempt(alice, school.open_assignment, EXERCISE, score=0.5)] * 2)
    assert_error(_submit(api, "alice", school.open_assignment), 409, "attempts_exhausted")
    assert _put(api, "teacher", school.open_assignment, alice, {"extra_attempts": 1}).status_code == 200
    progress = api.get(f"/assignments/{school.open_assignment}/progress", "alice").get_json()
    assert progress["terms"] == {**progress["terms"], "attempts_allowed": 3, "extra_attempts": 1}
    assert progress["exercises"][0]["attempts_left"] == 1
    assert _submit(api, "alice", school.open_assignment).status_code == 202
    assert_error(_submit(api, "alice", school.open_assignment), 409, "attempts_exhausted")


def test_the_gradebook_shows_each_students_terms(api: Api) -> None:
    school = api.school
    _put(api, "teacher", school.open_assignment, school.user_ids["bob"], {"extra_attempts": 2, "due_at": _later(9)})
    rows = {
        row["username"]: row["terms"]
        for row in api.get(f"/assignments/{school.open_assignment}/grades", "teacher").get_json()["students"]
    }
    assert rows["bob"]["extended_due"] and rows["bob"]["attempts_allowed"] == 4
    assert rows["alice"] == {**rows["alice"], "extended_due": False, "extra_attempts": 0, "attempts_allowed": 2}


def test_clearing_an_extension_restores_the_assignments_terms(api: Api) -> None:
    school, alice = api.school, api.school.user_ids["alice"]
    _put(api, "teacher", school.closed_assignment, alice, {"due_at": _later(1)})
    assert _delete(api, "teacher", school.closed_assignment, alice).status_code == 204
    assert_error(_submit(api, "alice", school.closed_assignment), 403, "past_due")
    assert_error(_delete(api, "teacher", school.closed_assignment, alice), 404, "not_found")


BAD_REQUESTS = [
    pytest.param("open_assignment", {"due_at": _later(1)}, "due_at", id="before-the-assignments-due-date"),
    pytest.param("open_assignment", {"due_at": "2026-13-01T00:00"}, "due_at", id="not-a-time"),
    pytest.param("open_assignment", {"due_at": "2099-01-01T00:00:00"}, "due_at", id="time-without-offset"),
    pytest.param("open_assignment", {"extra_attempts": -1}, "extra_attempts", id="negative-attempts"),
    pytest.param("open_assignment", {"extra_attempts": 1.5}, "extra_attempts", id="fractional-attempts"),
    pytest.param("open_assignment", {"extra_attempts": True}, "extra_attempts", id="boolean-attempts"),
    pytest.param("open_assignment", {"extra_attempts": 5000}, "extra_attempts", id="too-many-attempts"),
    pytest.param("open_assignment", {}, "due_at", id="nothing-asked"),
    pytest.param("open_assignment", {"extra_attempts": 1, "reason": "x" * 501}, "reason", id="reason-too-long"),
    pytest.param("open_assignment", {"extra_attempts": 1, "days": 3}, "days", id="unknown-field"),
    pytest.param("practice_assignment", {"extra_attempts": 1}, "extra_attempts", id="attempts-already-unlimited"),
    pytest.param("practice_assignment", {"due_at": _later(3)}, "due_at", id="no-due-date-to-extend"),
]


@pytest.mark.parametrize(("assignment", "body", "field"), BAD_REQUESTS)
def test_a_bad_extension_is_refused_naming_the_field_and_changes_nothing(
    api: Api, assignment: str, body: dict[str, Any], field: str
) -> None:
    assignment_id = getattr(api.school, assignment)
    assert_error(_put(api, "teacher", assignment_id, api.school.user_ids["alice"], body), 422, field=field)
    assert api.get(f"/assignments/{assignment_id}/extensions", "teacher").get_json() == {"extensions": []}


@pytest.mark.parametrize("who", ["teacher", "carol"])
def test_only_a_student_of_the_course_can_have_one(api: Api, who: str) -> None:
    reply = _put(api, "teacher", api.school.open_assignment, api.school.user_ids[who], {"extra_attempts": 1})
    assert_error(reply, 422, field="student")


@pytest.mark.parametrize(("who", "status"), [("alice", 403), ("teacher_b", 404), (None, 401)])
def test_only_the_courses_staff_may_give_extensions(api: Api, who: str | None, status: int) -> None:
    school = api.school
    assert _put(api, who, school.open_assignment, school.user_ids["alice"], {"extra_attempts": 3}).status_code == status
    assert api.get(f"/assignments/{school.open_assignment}/extensions", "teacher").get_json() == {"extensions": []}
