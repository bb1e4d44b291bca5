"""The benchmark's floors do what bench/README.md says they do, so that the ratios it prints mean what they say.

The required-work floor must really authenticate, read answers, grade with the engine under a lease and log the
grade (else the grader would be compared with less work than it does); the bare floor must really store and
finish a job. Task bodies are called directly, as in the grader's own unit tests; the web apps run in the Flask
test client against a scratch PostgreSQL database and the test Redis.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import psycopg
import pytest
import redis
from flask.testing import FlaskClient

from exercises import api as engine
from tests.conftest import BACKENDS
from tests.engine.test_book_answers import BOOK_ANSWERS
from tests.support import own_redis_url, postgres_database

pytestmark = pytest.mark.skipif("postgresql" not in BACKENDS, reason="the floors run on PostgreSQL and Redis")
TOKEN = "floor-test-token"


class Floors:
    """The two floor modules, loaded with this test's settings, and where their data lives."""

    def __init__(self, url: str, broker: str, queue: str) -> None:
        self.url, self.broker, self.queue = url, broker, queue
        for name in ("bench.floor.settings", "bench.floor.worker", "bench.floor.web", "bench.floor.required"):
            importlib.reload(importlib.import_module(name))  # their Celery apps read the environment on import
        self.bare_web: ModuleType = importlib.import_module("bench.floor.web")
        self.bare_worker: ModuleType = importlib.import_module("bench.floor.worker")
        self.required: ModuleType = importlib.import_module("bench.floor.required")
        importlib.import_module("bench.floor.required_schema").create_tables(url, TOKEN)
        importlib.import_module("bench.floor.settings").create_table(url)

    def rows(self, query: str, *params: Any) -> list[tuple[Any, ...]]:
        """Rows of ``query`` on the floors' database."""
        with psycopg.connect(self.url, autocommit=True) as connection:
            return connection.execute(query, params).fetchall()


@pytest.fixture(scope="module")
def floors() -> Iterator[Floors]:
    """Both floors on a scratch database; the messages they sent are deleted afterwards."""
    broker, queue = own_redis_url(), f"floor-test-{os.getpid()}"
    with postgres_database(f"floor_test_{os.getpid()}") as url, pytest.MonkeyPatch.context() as patch:
        libpq_url = url.replace("postgresql+psycopg://", "postgresql://")
        for name, value in {
            "FLOOR_DATABASE_URL": libpq_url,
            "FLOOR_BROKER_URL": broker,
            "FLOOR_QUEUE": queue,
            "FLOOR_POLL_SECONDS": "0.01",
        }.items():
            patch.setenv(name, value)
        yield Floors(libpq_url, broker, queue)
        redis.Redis.from_url(broker).delete(queue)


@pytest.fixture
def required_client(floors: Floors) -> FlaskClient:
    """The required-work floor's web app."""
    return floors.required.create_app().test_client()


def book_body(exercise_id: str, **changes: Any) -> dict[str, Any]:
    """A submission body with the book answer (seed 0), optionally with fields changed."""
    return {"exercise_id": exercise_id, "seed": 0, "lang": "en", "answer": {**BOOK_ANSWERS[exercise_id], **changes}}


AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.mark.parametrize("headers", [{}, {"Authorization": "Bearer not-a-token"}, {"Authorization": TOKEN}])
def test_required_floor_refuses_requests_without_a_live_token(
    required_client: FlaskClient, headers: dict[str, str]
) -> None:
    response = required_client.post("/jobs", json=book_body("ch13.shift-pairs"), headers=headers)
    assert response.status_code == 401
    assert response.json["error"]["code"] == "unauthorized"
    assert required_client.get("/jobs/1", headers=headers).status_code == 401


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"exercise_id": "ch99.nope", "seed": 0, "answer": {}}, "exercise_id"),
        ({"exercise_id": "ch13.shift-pairs", "seed": 0, "answer": "yes"}, "answer"),
        ({"exercise_id": "ch13.shift-pairs", "seed": -1, "answer": {}}, "seed"),
        (book_body("ch13.shift-pairs", pairs="not pairs at all"), "answer"),
    ],
)
def test_required_floor_reads_the_answer_before_storing_it(
    required_client: FlaskClient, floors: Floors, body: dict[str, Any], field: str
) -> None:
    before = floors.rows("SELECT count(*) FROM required_submissions")[0][0]
    response = required_client.post("/jobs", json=body, headers=AUTH)
    assert response.status_code == 422
    assert response.json["error"]["field"] == field
    assert floors.rows("SELECT count(*) FROM required_submissions")[0][0] == before


@pytest.mark.parametrize("exercise_id", sorted(BOOK_ANSWERS))
def test_required_floor_grades_with_the_engine_once_under_a_lease(
    required_client: FlaskClient, floors: Floors, exercise_id: str
) -> None:
    response = required_client.post("/jobs", json=book_body(exercise_id), headers=AUTH)
    assert response.status_code == 202
    job_id = response.json["id"]
    assert floors.rows("SELECT status FROM required_submissions WHERE id = %s", job_id) == [("queued",)]

    assert floors.required.grade(job_id) == "graded"
    assert floors.required.grade(job_id) == "skipped"  # a second delivery changes nothing

    graded = required_client.get(f"/jobs/{job_id}", headers=AUTH).json
    expected = engine.grade(exercise_id, 0, BOOK_ANSWERS[exercise_id], "en")
    assert (graded["status"], graded["score"], graded["parts"]) == ("graded", 1.0, expected["parts"])
    assert floors.rows("SELECT attempts, lease_owner FROM required_submissions WHERE id = %s", job_id) == [(1, None)]
    assert floors.rows("SELECT new_score, reason FROM required_grade_log WHERE submission_id = %s", job_id) == [
        (1.0, "graded")
    ]


def test_required_floor_scores_a_wrong_answer_below_one(required_client: FlaskClient, floors: Floors) -> None:
    job_id = required_client.post("/jobs", json=book_body("ch13.greedy-decode", stopped_by="cap"), headers=AUTH).json[
        "id"
    ]
    floors.required.grade(job_id)
    graded = required_client.get(f"/jobs/{job_id}", headers=AUTH).json
    assert graded["status"] == "graded"
    assert graded["score"] < 1.0


def test_required_floor_leaves_a_row_leased_by_a_live_worker(required_client: FlaskClient, floors: Floors) -> None:
    job_id = required_client.post("/jobs", json=book_body("ch13.loss-average"), headers=AUTH).json["id"]
    floors.rows(
        "UPDATE required_submissions SET status = 'grading', lease_owner = 'other', attempts = 1, "
        "lease_until = now() + interval '1 minute' WHERE id = %s RETURNING id",
        job_id,
    )
    assert floors.required.grade(job_id) == "skipped"
    assert floors.rows("SELECT status, lease_owner FROM required_submissions WHERE id = %s", job_id) == [
        ("grading", "other")
    ]


def test_bare_floor_stores_sends_and_finishes_a_job(floors: Floors) -> None:
    client = floors.bare_web.create_app().test_client()
    response = client.post("/jobs", json=book_body("ch13.shift-pairs"))
    assert response.status_code == 202
    job_id = response.json["id"]
    assert client.get(f"/jobs/{job_id}").json["status"] == "queued"
    assert redis.Redis.from_url(floors.broker).llen(floors.queue) >= 1
    floors.bare_worker.finish_job(job_id)
    assert client.get(f"/jobs/{job_id}?wait=1").json["status"] == "done"
