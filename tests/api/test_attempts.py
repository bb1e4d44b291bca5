"""Attempt limits hold under parallel requests: counting the attempts left and inserting one are one step."""

from __future__ import annotations

import threading
import time
from collections import Counter
from datetime import timedelta

import pytest
from flask import Flask
from sqlalchemy import func, select
from werkzeug.test import TestResponse

from grader.extensions import get_db
from grader.grading.submissions import attempt_lock_key
from grader.models import Assignment, utcnow

from .support import Api

SHIFT = "ch13.shift-pairs"
ANSWER = {"pairs": "BOS→x", "bos_scored": "no", "eos_scored": "no", "scored_count": "1"}
PARALLEL = 8
ROUNDS = 15  # the race needs the requests to interleave just so; several rounds make it show reliably


def _open_assignment(app: Flask, course_id: int) -> int:
    """A new open assignment of the course over SHIFT with 2 attempts."""
    with app.app_context(), get_db(app).session() as session:
        assignment = Assignment(
            course_id=course_id,
            title_zh="并发",
            title_en="Parallel",
            exercise_ids=[SHIFT],
            attempts_allowed=2,
            opens_at=utcnow() - timedelta(days=1),
            due_at=utcnow() + timedelta(days=1),
        )
        session.add(assignment)
        session.commit()
        return assignment.id


@pytest.mark.parametrize("round_number", range(ROUNDS))
def test_parallel_submissions_cannot_use_more_attempts_than_allowed(
    api: Api, api_app: Flask, round_number: int
) -> None:
    # 2 attempts allowed; 8 requests arrive at once (queued rows count: no worker needed).
    assignment_id = _open_assignment(api_app, api.school.course_a)
    body = {"exercise_id": SHIFT, "answer": ANSWER, "assignment_id": assignment_id}
    start = threading.Barrier(PARALLEL)
    replies: list[TestResponse] = []

    def submit() -> None:
        client = Api(api_app.test_client(), api.school)
        start.wait()
        replies.append(client.post("/submissions", "alice", body))

    threads = [threading.Thread(target=submit) for _ in range(PARALLEL)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    outcomes = Counter((reply.status_code, (reply.get_json().get("error") or {}).get("code")) for reply in replies)
    assert outcomes == Counter({(202, None): 2, (409, "attempts_exhausted"): PARALLEL - 2}), outcomes
    listed = api.get(f"/submissions?assignment={assignment_id}", "alice").get_json()
    assert listed["total"] == 2


def test_a_retry_that_overlaps_its_original_on_the_last_attempt_gets_the_original(api: Api, api_app: Flask) -> None:
    # The original and its retry (same Idempotency-Key) both pass the early key look-up, then queue on the
    # student's lock; the second must answer with the first's row, not refuse for the attempt the first used.
    assignment_id = _open_assignment(api_app, api.school.course_a)
    body = {"exercise_id": SHIFT, "answer": ANSWER, "assignment_id": assignment_id}
    assert api.post("/submissions", "alice", body).status_code == 202  # attempt 1 of 2
    database = get_db(api_app)
    holder = database.engine.connect()  # stands in for a request that is mid-insert and holds the lock
    if database.dialect == "sqlite":
        holder.exec_driver_sql("BEGIN IMMEDIATE")
    else:
        holder.execute(
            select(func.pg_advisory_xact_lock(attempt_lock_key(api.school.user_ids["alice"], assignment_id)))
        )
    replies: list[TestResponse] = []

    def send() -> None:
        client = Api(api_app.test_client(), api.school)
        replies.append(client.post("/submissions", "alice", body, headers={"Idempotency-Key": "overlap-1"}))

    threads = [threading.Thread(target=send) for _ in range(2)]
    for thread in threads:
        thread.start()
    time.sleep(1.0)  # both requests are now waiting for the lock
    holder.rollback()
    holder.close()
    for thread in threads:
        thread.join()
    assert sorted(reply.status_code for reply in replies) == [200, 202], [reply.get_json() for reply in replies]
    replayed = next(reply for reply in replies if reply.status_code == 200)
    assert replayed.headers["Idempotent-Replayed"] == "true"
    assert {reply.get_json()["id"] for reply in replies} == {replayed.get_json()["id"]}
