"""Attempt limits hold under parallel requests: counting the attempts left and inserting one are one step."""
from __future__ import annotations

import threading
from collections import Counter
from datetime import timedelta

import pytest
from flask import Flask
from werkzeug.test import TestResponse

from grader.extensions import get_db
from grader.models import Assignment, utcnow

from .support import Api

SHIFT = "ch13.shift-pairs"
ANSWER = {"pairs": "BOS→x", "bos_scored": "no", "eos_scored": "no", "scored_count": "1"}
PARALLEL = 8
ROUNDS = 15  # the race needs the requests to interleave just so; several rounds make it show reliably


def _open_assignment(app: Flask, course_id: int) -> int:
    """A new open assignment of the course over SHIFT with 2 attempts."""
    with app.app_context(), get_db(app).session() as session:
        assignment = Assignment(course_id=course_id, title_zh="并发", title_en="Parallel", exercise_ids=[SHIFT],
                                attempts_allowed=2, opens_at=utcnow() - timedelta(days=1),
                                due_at=utcnow() + timedelta(days=1))
        session.add(assignment)
        session.commit()
        return assignment.id


@pytest.mark.parametrize("round_number", range(ROUNDS))
def test_parallel_submissions_cannot_use_more_attempts_than_allowed(api: Api, api_app: Flask,
                                                                    round_number: int) -> None:
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
