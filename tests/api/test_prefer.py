"""``Prefer: wait=N`` on POST /submissions: one request that submits and, if the grade comes in time, returns it."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask

from exercises import api as engine
from grader.api.body import prefer_wait
from grader.api_errors import ApiError
from grader.extensions import get_db
from tests.support import Backend, notices_subscribed

from .support import Api, assert_error

SHIFT = "ch13.shift-pairs"
BOOK = {"pairs": "BOS→blue, blue→door, door→., .→EOS", "bos_scored": "no", "eos_scored": "yes", "scored_count": "4"}


def practice(api: Api) -> dict[str, Any]:
    """Alice's body: the book answer to the school's practice assignment (open, no attempt limit)."""
    return {"exercise_id": SHIFT, "answer": BOOK, "assignment_id": api.school.practice_assignment}


@pytest.mark.parametrize(
    ("header", "seconds"),
    [
        (None, 0.0),
        ("wait=5", 5.0),
        ("WAIT = 3", 3.0),
        ('wait="7"', 7.0),
        ("respond-async, wait=4", 4.0),
        ("wait=2; foo=bar", 2.0),
        ("wait=30", 10.0),  # capped at the server's maximum
        ("wait=0", 0.0),
        ("wait=6, wait=1", 6.0),  # RFC 7240: only the first instance counts
        ("respond-async", 0.0),  # other preferences are ignored
        ("return=minimal, handling=lenient", 0.0),
        ("", 0.0),
    ],
)
def test_prefer_header_is_read(header: str | None, seconds: float) -> None:
    assert prefer_wait(header, 10.0) == seconds


@pytest.mark.parametrize("header", ["wait=soon", "wait=", "wait=-1", "wait=1.5", "wait=١", "wait=" + "9" * 40])
def test_a_malformed_wait_is_refused(header: str) -> None:
    with pytest.raises(ApiError) as refused:
        prefer_wait(header, 10.0)
    assert (refused.value.status, refused.value.code, refused.value.field) == (400, "invalid_header", "Prefer")


def test_malformed_wait_is_a_400_naming_the_header_and_stores_nothing(api: Api) -> None:
    before = api.get("/submissions", "alice").get_json()["total"]
    response = api.post("/submissions", "alice", practice(api), headers={"Prefer": "wait=soon"})
    assert_error(response, 400, "invalid_header", "Prefer")
    assert api.get("/submissions", "alice").get_json()["total"] == before


@pytest.fixture
def unconsumed_queue(api_app: Flask, backend: Backend) -> Iterator[str]:
    """Send this test's tasks to a queue no worker reads, so its submissions stay queued."""
    queue = f"{backend.queue}-nobody-{uuid.uuid4().hex[:8]}"
    previous, api_app.config["GRADER_QUEUE"] = api_app.config["GRADER_QUEUE"], queue
    yield queue
    api_app.config["GRADER_QUEUE"] = previous
    backend.drop_queue(queue)


def test_prefer_wait_answers_202_when_the_grade_does_not_come_in_time(api: Api, unconsumed_queue: str) -> None:
    started = time.monotonic()
    response = api.post("/submissions", "alice", practice(api), headers={"Prefer": "wait=1"})
    waited = time.monotonic() - started
    assert response.status_code == 202, response.get_json()
    assert response.get_json()["status"] == "queued"
    assert response.headers["Preference-Applied"] == "wait=1"
    assert response.headers["Location"] == f"/api/v1/submissions/{response.get_json()['id']}"
    assert waited >= 0.9  # it held the reply for the time asked


def test_other_preferences_do_not_hold_the_reply(api: Api, unconsumed_queue: str) -> None:
    response = api.post("/submissions", "alice", practice(api), headers={"Prefer": "respond-async"})
    assert response.status_code == 202
    assert response.get_json()["status"] == "queued"
    assert "Preference-Applied" not in response.headers


@pytest.mark.integration
def test_one_request_submits_and_returns_the_grade(api: Api, worker: Any) -> None:
    wrong = dict(BOOK, bos_scored="是")
    response = api.post(
        "/submissions",
        "teacher",
        {"exercise_id": SHIFT, "answer": wrong, "seed": 0, "lang": "en"},
        headers={"Prefer": "respond-async, wait=30"},
    )
    assert response.status_code == 200, response.get_json()
    result = response.get_json()
    assert result["status"] == "graded"
    assert result["parts"] == engine.grade(SHIFT, 0, wrong, "en")["parts"]
    assert result["parts"]["bos_scored"]["misconception"] == "bos-scored"
    assert response.headers["Preference-Applied"] == "wait=10"  # 30 asked, the server holds at most 10
    assert "Idempotent-Replayed" not in response.headers
    assert api.get(f"/submissions/{result['id']}", "teacher").get_json() == result


@pytest.mark.integration
def test_a_student_waiting_on_post_sees_no_seed_and_no_key(api: Api, worker: Any) -> None:
    response = api.post("/submissions", "alice", practice(api), headers={"Prefer": "wait=10"})
    assert response.status_code == 200, response.get_json()
    result = response.get_json()
    assert result["status"] == "graded" and result["user"]["username"] == "alice"
    assert "seed" not in result and "answer_key" not in result


@pytest.mark.integration
def test_a_replayed_key_with_wait_returns_the_first_submission(api: Api, worker: Any) -> None:
    body = {"exercise_id": SHIFT, "answer": BOOK, "seed": 0}
    headers = {"Prefer": "wait=10", "Idempotency-Key": f"prefer-{uuid.uuid4()}"}
    first = api.post("/submissions", "teacher", body, headers=headers)
    again = api.post("/submissions", "teacher", body, headers=headers)
    assert (first.status_code, again.status_code) == (200, 200)
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.get_json()["id"] == first.get_json()["id"]
    assert again.get_json()["status"] == "graded"


@pytest.mark.parametrize("how", ["GET ?wait", "POST Prefer: wait"])
def test_a_waiting_request_holds_no_database_connection(
    api: Api, api_app: Flask, unconsumed_queue: str, how: str
) -> None:
    # Every waiting request holding a pooled connection for up to 10 s would exhaust the pool (and PostgreSQL's
    # connection limit) long before the web threads run out.
    created = api.post("/submissions", "alice", practice(api)).get_json()
    # Until this process's listener has subscribed (its first wait starts it), a wait re-reads every 10-50 ms: on a
    # loaded machine those reads alone kept a connection out in most samples. Measured here is the wait itself.
    notices_subscribed(api_app.config)
    pool = get_db(api_app).engine.pool
    replies: list[Any] = []

    def wait_for_the_grade() -> None:
        if how == "GET ?wait":
            replies.append(api.get(f"/submissions/{created['id']}?wait=2", "alice"))
        else:
            replies.append(api.post("/submissions", "alice", practice(api), headers={"Prefer": "wait=2"}))

    waiting = threading.Thread(target=wait_for_the_grade)
    started = time.monotonic()
    waiting.start()
    samples = []
    while waiting.is_alive():
        samples.append(pool.checkedout())
        time.sleep(0.05)
    waiting.join()
    took = time.monotonic() - started
    assert replies[0].get_json()["status"] == "queued"
    # Re-reads check a connection out for a moment; in between, the pool has it back. (How long the request took
    # tells a wait cut short apart from one that held its connection.)
    assert samples.count(0) > len(samples) / 2, (samples, f"{took:.2f} s")
