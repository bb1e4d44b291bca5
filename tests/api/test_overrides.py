"""Score overrides through the API: a teacher's correction counts (per exercise or for the total) in progress and
the gradebook, is logged with who and when, stands through a regrade until cleared; bad requests are a 4xx naming
the field and change nothing; only the course's staff may set one."""

from __future__ import annotations

import json
from typing import Any

import pytest
from sqlalchemy import select
from werkzeug.test import TestResponse

from grader.extensions import get_db
from grader.grading.regrade import run_regrade
from grader.models import OverrideLogEntry, RegradeJob, RegradeStatus, Submission
from tests.factories import BOOK_ANSWER, EXERCISE

from .support import Api, Attempt, add_attempts, assert_error


def _put(api: Api, who: str | None, assignment_id: int, student_id: int, body: Any) -> TestResponse:
    return api.client.put(
        f"/api/v1/assignments/{assignment_id}/overrides/{student_id}",
        data=json.dumps(body),
        content_type="application/json",
        headers=api.headers(who),
    )


def _delete(api: Api, who: str, assignment_id: int, student_id: int, exercise_id: str = "") -> TestResponse:
    query = f"?exercise_id={exercise_id}" if exercise_id else ""
    return api.client.delete(
        f"/api/v1/assignments/{assignment_id}/overrides/{student_id}{query}", headers=api.headers(who)
    )


def _log(api: Api) -> list[OverrideLogEntry]:
    with get_db(api.client.application).session() as session:
        return list(session.scalars(select(OverrideLogEntry).order_by(OverrideLogEntry.id)))


def _cell(api: Api, assignment_id: int, username: str) -> dict[str, Any]:
    rows = api.get(f"/assignments/{assignment_id}/grades", "teacher").get_json()["students"]
    return next(row for row in rows if row["username"] == username)


def test_an_exercise_override_counts_and_is_logged(api: Api) -> None:
    school, alice = api.school, api.school.user_ids["alice"]
    add_attempts(api.client.application, [Attempt(alice, school.open_assignment, EXERCISE, score=0.25)])
    reply = _put(
        api,
        "teacher",
        school.open_assignment,
        alice,
        {"exercise_id": EXERCISE, "score": 0.9, "reason": "the reader misread a full-width comma"},
    )
    assert reply.status_code == 200, reply.get_data(as_text=True)
    progress = api.get(f"/assignments/{school.open_assignment}/progress", "alice").get_json()
    item = progress["exercises"][0]
    assert item["score"] == 0.9 and item["best_score"] == 0.25
    assert item["override"]["reason"] == "the reader misread a full-width comma"
    cell = _cell(api, school.open_assignment, "alice")
    assert cell["exercises"][0] == {**cell["exercises"][0], "score": 0.9, "overridden": True}
    (entry,) = _log(api)
    assert (entry.old_score, entry.new_score, entry.actor) == (None, 0.9, "user:teacher")


def test_a_total_override_replaces_the_mean(api: Api) -> None:
    school, bob = api.school, api.school.user_ids["bob"]
    assert (
        _put(api, "teacher", school.practice_assignment, bob, {"score": 0.5, "reason": "oral exam"}).status_code == 200
    )
    total = _cell(api, school.practice_assignment, "bob")["total"]
    assert total["score"] == 0.5 and total["override"]["reason"] == "oral exam"
    assert (
        api.get(f"/assignments/{school.practice_assignment}/progress", "bob").get_json()["total_override"]["score"]
        == 0.5
    )
    assert _delete(api, "teacher", school.practice_assignment, bob).status_code == 204
    assert _cell(api, school.practice_assignment, "bob")["total"]["override"] is None
    assert [e.new_score for e in _log(api)] == [0.5, None]


def test_an_override_stands_through_a_regrade_until_cleared(api: Api) -> None:
    school, alice = api.school, api.school.user_ids["alice"]
    app = api.client.application
    (submission_id,) = add_attempts(app, [Attempt(alice, school.open_assignment, EXERCISE, score=0.0)])
    with get_db(app).session() as session:
        row = session.get_one(Submission, submission_id)
        row.raw_answer, row.seed = BOOK_ANSWER, 0  # the book answer, stored wrong by an "old engine"
        session.commit()
    _put(api, "teacher", school.open_assignment, alice, {"exercise_id": EXERCISE, "score": 0.4, "reason": "late oral"})
    with get_db(app).session() as session:
        job = RegradeJob(
            assignment_id=school.open_assignment,
            requested_by_id=school.user_ids["teacher"],
            requested_by="user:teacher",
            never_lower=False,
        )
        session.add(job)
        session.commit()
        job_id = job.id
    assert run_regrade(get_db(app), job_id, worker="test", lease_seconds=60) == RegradeStatus.DONE
    item = api.get(f"/assignments/{school.open_assignment}/progress", "alice").get_json()["exercises"][0]
    assert item["best_score"] == 1.0 and item["score"] == 0.4  # regraded, yet the override still counts
    assert _delete(api, "teacher", school.open_assignment, alice, EXERCISE).status_code == 204
    assert (
        api.get(f"/assignments/{school.open_assignment}/progress", "alice").get_json()["exercises"][0]["score"] == 1.0
    )


BAD = [
    pytest.param({"exercise_id": EXERCISE, "score": 1.5, "reason": "x"}, "score", id="over-the-maximum"),
    pytest.param({"exercise_id": EXERCISE, "score": -0.1, "reason": "x"}, "score", id="negative"),
    pytest.param({"exercise_id": EXERCISE, "score": "1", "reason": "x"}, "score", id="text"),
    pytest.param({"exercise_id": EXERCISE, "score": True, "reason": "x"}, "score", id="boolean"),
    pytest.param({"exercise_id": EXERCISE, "score": 0.5}, "reason", id="no-reason"),
    pytest.param({"exercise_id": EXERCISE, "score": 0.5, "reason": "  "}, "reason", id="blank-reason"),
    pytest.param({"exercise_id": EXERCISE, "score": 0.5, "reason": "x" * 501}, "reason", id="long-reason"),
    pytest.param({"exercise_id": "ch09.rnn-step", "score": 0.5, "reason": "x"}, "exercise_id", id="not-set-here"),
    pytest.param({"exercise_id": 3, "score": 0.5, "reason": "x"}, "exercise_id", id="id-not-text"),
    pytest.param({"score": 0.5, "reason": "x", "points": 3}, "points", id="unknown-field"),
]


@pytest.mark.parametrize(("body", "field"), BAD)
def test_a_bad_override_is_refused_naming_the_field_and_changes_nothing(
    api: Api, body: dict[str, Any], field: str
) -> None:
    assert_error(_put(api, "teacher", api.school.open_assignment, api.school.user_ids["alice"], body), 422, field=field)
    assert api.get(f"/assignments/{api.school.open_assignment}/overrides", "teacher").get_json() == {"overrides": []}
    assert _log(api) == []


def test_a_non_finite_score_is_refused(api: Api) -> None:
    reply = api.client.put(
        f"/api/v1/assignments/{api.school.open_assignment}/overrides/{api.school.user_ids['alice']}",
        data='{"score": NaN, "reason": "x"}',
        content_type="application/json",
        headers=api.headers("teacher"),
    )
    assert reply.status_code == 422 and _log(api) == []


@pytest.mark.parametrize(("who", "status"), [("alice", 403), ("teacher_b", 404), (None, 401)])
def test_only_the_courses_staff_may_override(api: Api, who: str | None, status: int) -> None:
    body = {"score": 1.0, "reason": "I deserve it"}
    assert _put(api, who, api.school.open_assignment, api.school.user_ids["alice"], body).status_code == status
    assert _log(api) == []
