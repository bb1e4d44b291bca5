"""GET /grade-changes: the grade log as a feed, so that an LMS syncing incrementally also learns of regrades.

Entries come oldest first after a cursor with the student, assignment and exercise they touched; the caller sees
what the submission listing shows them (staff: their courses; students: their own, without the actor); and an
entry is listed only once it has settled, so that a lower id committed late is never stepped over.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import insert

from grader.api.changes import SETTLE_SETTING
from grader.config import ConfigError, load_config
from grader.extensions import get_db
from grader.grading.regrade import run_regrade
from grader.models import GradeLogEntry, RegradeJob, RegradeStatus, Submission, utcnow
from tests.factories import BOOK_ANSWER, BOOK_SEED
from tests.support import Backend

from .support import CH13_IDS, Api, Attempt, add_attempts, add_grade_log, assert_error

SHIFT = CH13_IDS[0]
ANSWER = {"pairs": "BOS→red", "bos_scored": "no", "eos_scored": "yes", "scored_count": "1"}  # read, partly right
LONG_AGO = timedelta(hours=2)


@pytest.fixture(autouse=True)
def settled_at_once(api_app: Flask) -> Iterator[None]:
    """No settle interval, unless a test sets one."""
    api_app.config[SETTLE_SETTING] = 0.0
    yield


def _feed(api: Api, who: str, query: str = "") -> dict[str, Any]:
    """One page of the feed as ``who``, which must be a 200."""
    response = api.get(f"/grade-changes{'?' + query if query else ''}", who)
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()


def _ids(page: dict[str, Any]) -> list[int]:
    """The entry ids of a page."""
    return [change["id"] for change in page["changes"]]


def _world(api: Api) -> dict[str, int]:
    """A graded submission each of alice (course A, practice), bob (A, open), carol (B) and the teacher's own try
    (no assignment), and a regrade of alice's; entry ids by name."""
    users, school, app = api.school.user_ids, api.school, api.client.application
    stamp = utcnow() - LONG_AGO
    alice, bob, carol, own = add_attempts(
        app,
        [
            Attempt(users["alice"], school.practice_assignment, SHIFT, "graded", 0.5, logged_at=stamp),
            Attempt(users["bob"], school.open_assignment, SHIFT, "graded", 1.0, logged_at=stamp),
            Attempt(users["carol"], school.other_assignment, SHIFT, "graded", 0.0, logged_at=stamp),
            Attempt(users["teacher"], None, SHIFT, "graded", 1.0, logged_at=stamp),
        ],
    )
    regrade = add_grade_log(app, alice, 0.5, 0.75, stamp + timedelta(minutes=1), reason="regrade #7: a: ✗ → ✓")
    entries = _ids(_feed(api, "admin"))
    assert len(entries) == 5 and entries == sorted(entries) and entries[-1] == regrade
    return {
        "alice": entries[0],
        "bob": entries[1],
        "carol": entries[2],
        "own": entries[3],
        "regrade": regrade,
        "alice_submission": alice,
        "bob_submission": bob,
        "carol_submission": carol,
        "own_submission": own,
    }


def test_entries_come_oldest_first_with_what_they_changed(api: Api) -> None:
    world = _world(api)
    page = _feed(api, "teacher", f"course={api.school.course_a}")
    assert _ids(page) == [world["alice"], world["bob"], world["regrade"]]
    regrade = page["changes"][-1]
    assert regrade == {
        "id": world["regrade"],
        "submission_id": world["alice_submission"],
        "student_id": api.school.user_ids["alice"],
        "assignment_id": api.school.practice_assignment,
        "exercise_id": SHIFT,
        "old_score": 0.5,
        "new_score": 0.75,
        "old_engine_version": "1.0.0",
        "new_engine_version": "1.1.0",
        "reason": "regrade #7: a: ✗ → ✓",
        "actor": "user:teacher",
        "created_at": regrade["created_at"],
    }
    assert datetime.fromisoformat(regrade["created_at"]) < utcnow() - LONG_AGO + timedelta(minutes=2)
    assert page["next_after_id"] == world["regrade"] and page["has_more"] is False
    assert page["settle_seconds"] == 0 and page["limit"] == 100
    assert page["changes"][0]["old_score"] is None and page["changes"][0]["reason"] == "graded"


def test_a_cursor_walk_lists_each_entry_once(api: Api) -> None:
    world = _world(api)
    seen, cursor = [], 0
    for _ in range(10):
        page = _feed(api, "admin", f"after_id={cursor}&limit=2")
        seen += _ids(page)
        assert page["next_after_id"] == (seen[-1] if seen else 0)
        cursor = page["next_after_id"]
        if not page["has_more"]:
            break
    assert seen == sorted(seen) and len(seen) == 5 and seen[-1] == world["regrade"]
    caught_up = _feed(api, "admin", f"after_id={cursor}")
    assert caught_up["changes"] == [] and caught_up["next_after_id"] == cursor and caught_up["has_more"] is False
    later = add_grade_log(api.client.application, world["bob_submission"], 1.0, 0.5, utcnow())
    assert _ids(_feed(api, "admin", f"after_id={cursor}")) == [later]


def test_each_caller_sees_what_the_submission_listing_shows_them(api: Api) -> None:
    world = _world(api)
    teacher = _feed(api, "teacher")
    assert _ids(teacher) == [world[k] for k in ("alice", "bob", "own", "regrade")]
    assert all(change["actor"] for change in teacher["changes"])
    assert _ids(_feed(api, "teacher_b")) == [world["carol"]]
    alice = _feed(api, "alice")
    assert _ids(alice) == [world["alice"], world["regrade"]]
    assert {change["student_id"] for change in alice["changes"]} == {api.school.user_ids["alice"]}
    assert [change["actor"] for change in alice["changes"]] == [None, None]  # who graded is for staff
    assert _ids(_feed(api, "bob")) == [world["bob"]]
    assert _ids(_feed(api, "carol")) == [world["carol"]]
    as_student = _feed(api, "teacher_as_student")  # a teacher's student-role token: their own rows, as a student
    assert _ids(as_student) == [world["own"]] and as_student["changes"][0]["actor"] is None
    assert _ids(_feed(api, "admin", f"after_id={world['own']}")) == [world["regrade"]]


def test_filters_by_course_and_assignment(api: Api) -> None:
    world, school = _world(api), api.school
    assert _ids(_feed(api, "teacher", f"assignment={school.open_assignment}")) == [world["bob"]]
    assert _ids(_feed(api, "alice", f"course={school.course_a}")) == [world["alice"], world["regrade"]]
    assert _ids(_feed(api, "alice", f"assignment={school.open_assignment}")) == []
    assert _ids(_feed(api, "admin", f"course={school.course_b}")) == [world["carol"]]
    mismatch = _feed(api, "admin", f"course={school.course_b}&assignment={school.open_assignment}&after_id=3")
    assert mismatch["changes"] == [] and mismatch["next_after_id"] == 3
    for who, query, field in [
        ("teacher", f"course={school.course_b}", "course"),  # another teacher's course
        ("alice", f"course={school.course_b}", "course"),
        ("teacher", f"assignment={school.other_assignment}", "assignment"),
        ("carol", f"assignment={school.open_assignment}", "assignment"),
        ("admin", "course=1000000", "course"),
        ("admin", "assignment=1000000", "assignment"),
    ]:
        assert_error(api.get(f"/grade-changes?{query}", who), 404, "not_found", field)


@pytest.mark.parametrize(
    "query, field",
    [
        ("course=0", "course"),
        ("assignment=2147483648", "assignment"),
        ("after_id=-1", "after_id"),
        ("after_id=x", "after_id"),
        ("limit=0", "limit"),
        ("limit=201", "limit"),
        ("student=1", "student"),
        ("after_id=1&after_id=2", "after_id"),
        ("before_id=5", "before_id"),
    ],
)
def test_bad_parameters_are_a_400_naming_them(api: Api, query: str, field: str) -> None:
    assert_error(api.get(f"/grade-changes?{query}", "teacher"), 400, field=field)


def test_anonymous_callers_are_refused(api: Api) -> None:
    assert_error(api.get("/grade-changes", None), 401)


def test_an_entry_is_listed_once_it_has_settled_and_a_page_stops_before_an_unsettled_one(api: Api) -> None:
    app, users = api.client.application, api.school.user_ids
    (submission,) = add_attempts(app, [Attempt(users["alice"], api.school.practice_assignment, SHIFT, "graded", 0.5)])
    settled = add_grade_log(app, submission, None, 0.5, utcnow() - LONG_AGO)
    fresh = add_grade_log(app, submission, 0.5, 0.6, utcnow())
    # Stamped long ago but inserted after the fresh one: listing it would move a cursor past the fresh one.
    late = add_grade_log(app, submission, 0.6, 0.7, utcnow() - LONG_AGO)
    app.config[SETTLE_SETTING] = 60.0
    page = _feed(api, "teacher")
    assert _ids(page) == [settled] and page["next_after_id"] == settled and page["has_more"] is False
    assert page["settle_seconds"] == 60
    assert abs(datetime.fromisoformat(page["settled_before"]) - (utcnow() - timedelta(seconds=60))) < timedelta(
        seconds=5
    )
    assert _feed(api, "teacher", f"after_id={settled}")["changes"] == []
    app.config[SETTLE_SETTING] = 0.0  # as if a minute had passed
    assert _ids(_feed(api, "teacher", f"after_id={settled}")) == [fresh, late]


def test_a_fresh_entry_appears_once_the_settle_interval_has_passed(api: Api) -> None:
    app = api.client.application
    (submission,) = add_attempts(app, [Attempt(api.school.user_ids["bob"], api.school.open_assignment, SHIFT)])
    app.config[SETTLE_SETTING] = 1.0
    entry = add_grade_log(app, submission, None, 1.0, utcnow())
    assert _feed(api, "teacher")["changes"] == []
    time.sleep(1.2)
    assert _ids(_feed(api, "teacher")) == [entry]


def test_a_lower_id_committed_late_is_not_stepped_over(api: Api, backend: Backend) -> None:
    """The reason for the settle interval, on PostgreSQL (SQLite lets one writer at a time, in id order)."""
    if backend.name != "postgresql":
        pytest.skip("SQLite's single writer commits grade-log rows in id order")
    app = api.client.application
    (submission,) = add_attempts(app, [Attempt(api.school.user_ids["alice"], api.school.open_assignment, SHIFT)])
    row = {"submission_id": submission, "reason": "regrade #1: x", "actor": "user:teacher"}
    with get_db(app).engine.connect() as batch:  # a regrade batch, still open
        lower = batch.execute(
            insert(GradeLogEntry).returning(GradeLogEntry.id), {**row, "new_score": 0.1, "created_at": utcnow()}
        ).scalar_one()
        higher = add_grade_log(app, submission, 0.1, 0.2, utcnow())
        assert higher > lower
        assert _ids(_feed(api, "teacher")) == [higher]  # with no settle interval, the lower id is stepped over
        app.config[SETTLE_SETTING] = 60.0
        waiting = _feed(api, "teacher")
        assert waiting["changes"] == [] and waiting["next_after_id"] == 0
        batch.commit()
    app.config[SETTLE_SETTING] = 0.0  # a minute later
    assert _ids(_feed(api, "teacher", f"after_id={waiting['next_after_id']}")) == [lower, higher]


def test_a_regrade_the_submission_cursor_cannot_show_comes_through_the_feed(api: Api) -> None:
    app, users = api.client.application, api.school.user_ids
    with get_db(app).session() as session:
        stored = Submission(
            user_id=users["alice"],
            assignment_id=api.school.practice_assignment,
            exercise_id=SHIFT,
            seed=BOOK_SEED,
            lang="en",
            raw_answer=BOOK_ANSWER,
            status="graded",
            score=0.125,
            parts={},
            engine_version="0.0.1",
        )
        session.add(stored)
        session.commit()
        submission_id = stored.id
        job = RegradeJob(assignment_id=api.school.practice_assignment, requested_by="user:teacher")
        session.add(job)
        session.commit()
        job_id = job.id
    synced = api.get(f"/submissions?after_id={submission_id}", "teacher").get_json()
    cursor = _feed(api, "teacher")["next_after_id"]
    assert run_regrade(get_db(app), job_id, worker="test-worker", lease_seconds=60) == RegradeStatus.DONE
    assert api.get(f"/submissions?after_id={synced['next_after_id']}", "teacher").get_json()["submissions"] == []
    (change,) = _feed(api, "teacher", f"after_id={cursor}")["changes"]
    assert change["submission_id"] == submission_id and change["student_id"] == users["alice"]
    assert change["old_score"] == 0.125 and change["new_score"] == 1.0
    assert change["reason"].startswith(f"regrade #{job_id}: ") and change["actor"] == "user:teacher"
    assert change["old_engine_version"] == "0.0.1" and change["new_engine_version"]


def test_a_worker_grading_is_in_the_feed(api: Api, worker: Any) -> None:
    body = {"exercise_id": SHIFT, "answer": ANSWER, "assignment_id": api.school.practice_assignment}
    graded = api.post("/submissions", "bob", body, headers={"Prefer": "wait=10"}).get_json()
    assert graded["status"] == "graded", graded
    (change,) = _feed(api, "teacher")["changes"]
    assert (change["submission_id"], change["old_score"], change["new_score"], change["reason"]) == (
        graded["id"],
        None,
        graded["score"],
        "graded",
    )
    assert change["actor"].startswith("worker:") and change["new_engine_version"] == graded["engine_version"]
    assert _feed(api, "bob")["changes"][0]["actor"] is None
    assert _feed(api, "alice")["changes"] == []


def test_the_settle_interval_setting() -> None:
    """The environment sets it; by default it follows the worker lease; nonsense refuses to start."""

    def settle(**environ: str) -> float:
        return float(load_config(environ={"GRADER_ENV": "testing", "SECRET_KEY": "x" * 32, **environ})[SETTLE_SETTING])

    assert settle() == 120.0
    assert settle(GRADER_LEASE_SECONDS="300") == 330.0  # follows a longer lease
    assert settle(**{SETTLE_SETTING: "15"}) == 15.0
    assert settle(**{SETTLE_SETTING: "0"}) == 0.0
    assert (
        load_config({SETTLE_SETTING: "2.5"}, environ={"GRADER_ENV": "testing", SETTLE_SETTING: "15"})[SETTLE_SETTING]
        == 2.5
    )
    for bad in ("-1", "soon", "nan", "inf"):
        with pytest.raises(ConfigError):
            settle(**{SETTLE_SETTING: bad})


def test_the_document_states_the_guarantee(api: Api) -> None:
    document = api.get("/openapi.json", None).get_json()
    operation = document["paths"]["/api/v1/grade-changes"]["get"]
    assert "GRADER_CHANGE_FEED_SETTLE_SECONDS" in operation["description"]
    assert "lower id" in operation["description"]
    page = operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]  # generated from a model
    properties = document["components"]["schemas"][page.rsplit("/", 1)[1]]["properties"]
    assert {"settle_seconds", "settled_before", "next_after_id", "has_more"} <= set(properties)
