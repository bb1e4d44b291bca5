"""A database that is unreachable or drops its connections: 503 with Retry-After for the web, retries for the worker.

The engine does not pre-ping pooled connections (a round trip per request), so these tests check what replaces
it: a dead connection fails one request as a clean 503, the pool is discarded, and the next request works; a
worker whose connection died retries the task and grades the submission.
"""

from __future__ import annotations

import os
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from sqlalchemy import Engine, create_engine, text
from sqlalchemy.exc import OperationalError

from grader import create_app
from grader.auth_session import SESSION_USER_KEY
from grader.extensions import get_db
from grader.grading.labs import request_lab_run, run_lab
from grader.migrate import upgrade
from grader.models import LabStatus
from tests.api.support import School, build_school
from tests.conftest import clean_database
from tests.support import PG_ADMIN_URL, Backend, WorkerProcess, own_redis_url, postgres_database, wait_for

SHIFT = "ch13.shift-pairs"
BOOK = {"pairs": "BOS→blue, blue→door, door→., .→EOS", "bos_scored": "no", "eos_scored": "yes", "scored_count": "4"}
UNREACHABLE_PG = "postgresql+psycopg://postgres@127.0.0.1:1/nowhere"


@pytest.fixture(scope="module")
def pg_backend(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Backend]:
    """A PostgreSQL database and Redis queue of this module's own (its connections get cut on purpose)."""
    name = f"grader_outage_{os.getpid()}"
    with postgres_database(name) as url:
        upgrade(url)
        yield Backend(
            "postgresql", url, own_redis_url(), tmp_path_factory.mktemp("outage"), f"outage_{uuid.uuid4().hex[:8]}"
        )


@pytest.fixture
def outage_app(pg_backend: Backend) -> Iterator[Flask]:
    """An app on the module's database with the standard school, sending to a queue of this test's own (so a worker
    of the test can be left finishing its shutdown while the next test runs)."""
    queue = f"{pg_backend.queue}-{uuid.uuid4().hex[:8]}"
    application = create_app(pg_backend.config(SUBMISSION_RATE_LIMIT="10000/minute", GRADER_QUEUE=queue))
    yield application
    clean_database(application)
    get_db(application).dispose()


def cut_connections(database_url: str) -> int:
    """Terminate every server connection to the database of ``database_url`` (as a server restart would)."""
    name = database_url.rsplit("/", 1)[1]
    admin = create_engine(PG_ADMIN_URL, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as connection:
            return len(
                connection.execute(
                    text(
                        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = :name AND pid <> pg_backend_pid()"
                    ),
                    {"name": name},
                ).all()
            )
    finally:
        admin.dispose()


def submit_and_wait(app: Flask, school: School) -> dict[str, object]:
    """POST the book answer as the teacher, then wait for its grade; returns the final submission."""
    client, headers = app.test_client(), {"Authorization": f"Bearer {school.tokens['teacher']}"}
    created = client.post(
        "/api/v1/submissions", json={"exercise_id": SHIFT, "seed": 0, "answer": BOOK}, headers=headers
    )
    assert created.status_code == 202, created.get_json()
    url = f"/api/v1/submissions/{created.get_json()['id']}?wait=10"
    return wait_for(
        lambda: (
            (body := client.get(url, headers=headers).get_json())["status"] != "queued"
            and body["status"] != "grading"
            and body
        ),
        "a final status",
    )


def test_unreachable_database_is_a_503_json_error_with_retry_after(tmp_path: Path) -> None:
    app = create_app(
        {
            "GRADER_ENV": "testing",
            "GRADER_DATA_DIR": str(tmp_path),
            "DATABASE_URL": UNREACHABLE_PG,
            "CELERY_BROKER_URL": "memory://",
        }
    )
    client = app.test_client()
    response = client.get("/api/v1/submissions/1", headers={"Authorization": "Bearer grd_whatever"})
    assert response.status_code == 503
    assert response.get_json()["error"]["code"] == "database_unavailable"
    assert response.headers["Retry-After"] == "1"
    with client.session_transaction() as cookie:
        cookie[SESSION_USER_KEY] = 1  # a signed-in visitor: the page must load the user from the database
    page = client.get("/courses")
    assert (page.status_code, page.mimetype, page.headers["Retry-After"]) == (503, "text/plain", "1")
    assert "Traceback" not in page.get_data(as_text=True)
    assert client.get("/healthz").status_code == 503


def test_a_dropped_connection_fails_one_request_cleanly_then_the_pool_recovers(outage_app: Flask) -> None:
    school = build_school(outage_app)
    client, headers = outage_app.test_client(), {"Authorization": f"Bearer {school.tokens['alice']}"}
    assert client.get("/api/v1/me", headers=headers).status_code == 200  # the pool now holds a live connection
    assert cut_connections(outage_app.config["DATABASE_URL"]) >= 1
    first = client.get("/api/v1/me", headers=headers)
    assert first.status_code == 503, first.get_data(as_text=True)
    assert first.get_json()["error"]["code"] == "database_unavailable"
    assert client.get("/api/v1/me", headers=headers).status_code == 200


def test_worker_grades_after_its_connections_were_dropped(
    outage_app: Flask, pg_backend: Backend, tmp_path: Path
) -> None:
    school = build_school(outage_app)
    queue = outage_app.config["GRADER_QUEUE"]
    worker = WorkerProcess(pg_backend.env(GRADER_QUEUE=queue), queue, tmp_path / "worker.log", concurrency=1)
    try:
        worker.wait_ready()
        assert submit_and_wait(outage_app, school)["score"] == 1.0  # graded; the worker's pool holds a connection
        assert cut_connections(pg_backend.database_url) >= 2  # the worker's and the web app's
        get_db(outage_app).dispose()  # the web side of a restart is the test above; here only the worker's matters
        after = submit_and_wait(outage_app, school)
        assert after["status"] == "graded", after
        assert after["score"] == 1.0
        assert "OperationalError" in worker.log()  # the first attempt met the dead connection and was retried
    finally:
        worker.stop_soon()


def test_a_connection_lost_while_prefer_wait_holds_a_stored_submission_answers_202(outage_app: Flask) -> None:
    # Found by a chaos run: the row was committed, yet the request answered 503 ("nothing was stored"), and a
    # client without an Idempotency-Key would have submitted again. No worker consumes this queue here.
    school = build_school(outage_app)
    client, headers = (
        outage_app.test_client(),
        {"Authorization": f"Bearer {school.tokens['teacher']}", "Prefer": "wait=3"},
    )
    replies: list[object] = []
    waiting = threading.Thread(
        target=lambda: replies.append(
            client.post("/api/v1/submissions", json={"exercise_id": SHIFT, "seed": 0, "answer": BOOK}, headers=headers)
        )
    )
    waiting.start()
    wait_for(lambda: _queued_rows(outage_app) or None, "the submission to be stored")
    assert cut_connections(outage_app.config["DATABASE_URL"]) >= 1
    waiting.join(30)
    assert replies, "the request did not answer"
    reply = replies[0]
    assert reply.status_code == 202, reply.get_data(as_text=True)
    assert reply.get_json()["status"] == "queued"
    assert _queued_rows(outage_app) == 1


def _queued_rows(app: Flask) -> int:
    """How many submissions are stored, read on a connection of the test's own."""
    engine = create_engine(app.config["DATABASE_URL"])
    try:
        with engine.connect() as connection:
            return int(connection.execute(text("SELECT count(*) FROM submissions")).scalar_one())
    finally:
        engine.dispose()


def test_a_write_whose_connection_died_is_retried_at_once_not_after_the_lease(
    outage_app: Flask, pg_backend: Backend, tmp_path: Path
) -> None:
    # Found by a chaos run: the task's retry found the row still leased to its own first try and skipped, so the
    # grade waited out the whole lease (here 600 s, far beyond the wait below).
    school = build_school(outage_app)
    queue = outage_app.config["GRADER_QUEUE"]
    worker = WorkerProcess(
        pg_backend.env(GRADER_QUEUE=queue, GRADER_TEST_GRADE_DELAY="3", GRADER_LEASE_SECONDS="600"),
        queue,
        tmp_path / "worker.log",
        concurrency=1,
    )
    try:
        worker.wait_ready()
        client, headers = outage_app.test_client(), {"Authorization": f"Bearer {school.tokens['teacher']}"}
        created = client.post(
            "/api/v1/submissions", json={"exercise_id": SHIFT, "seed": 0, "answer": BOOK}, headers=headers
        )
        assert created.status_code == 202, created.get_json()
        row_id = created.get_json()["id"]
        wait_for(lambda: _row_state(outage_app, row_id)[0] == "grading" or None, "the worker to hold the lease")
        assert cut_connections(pg_backend.database_url) >= 1  # the worker's, while it sleeps before its write
        get_db(outage_app).dispose()  # the web app's connections were cut too; only the worker's matter here
        status, attempts, logged = wait_for(
            lambda: (state := _row_state(outage_app, row_id))[0] == "graded" and state, "the retry to grade the row"
        )
        assert (status, attempts, logged) == ("graded", 2, 1)
        assert "OperationalError" in worker.log()
    finally:
        worker.stop_soon()


def _row_state(app: Flask, row_id: int) -> tuple[str, int, int]:
    """A submission's status, attempts and grade-log entries, read on a connection of the test's own."""
    engine = create_engine(app.config["DATABASE_URL"])
    try:
        with engine.connect() as connection:
            status, attempts = connection.execute(
                text("SELECT status, attempts FROM submissions WHERE id = :id"), {"id": row_id}
            ).one()
            logged = connection.execute(
                text("SELECT count(*) FROM grade_log WHERE submission_id = :id"), {"id": row_id}
            ).scalar_one()
            return str(status), int(attempts), int(logged)
    finally:
        engine.dispose()


def test_a_lab_result_whose_connection_died_is_handed_back_for_the_retry(outage_app: Flask) -> None:
    # The server ends the connection under the run's final write, once (a trigger terminates its own backend), as a
    # restart or failover at that moment would. The row must not stay leased to the failed attempt: the task's
    # retry would then skip it until the lease ran out.
    database_url = outage_app.config["DATABASE_URL"]
    admin = create_engine(database_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text("CREATE SEQUENCE lab_write_cut"))
        connection.execute(
            text(
                "CREATE FUNCTION cut_lab_write() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                "IF nextval('lab_write_cut') = 1 THEN PERFORM pg_terminate_backend(pg_backend_pid()); "
                "PERFORM pg_sleep(5); END IF; RETURN NEW; END $$"
            )
        )
        connection.execute(
            text(
                "CREATE TRIGGER cut_lab_write BEFORE UPDATE ON lab_runs FOR EACH ROW "
                "WHEN (NEW.status = 'done') EXECUTE FUNCTION cut_lab_write()"
            )
        )
    try:
        with outage_app.app_context():
            database = get_db()
            with database.session() as session:
                lab_id = request_lab_run(session, ds=[32], t_max=2, trials=2, seed=11).id
            with pytest.raises(OperationalError):
                run_lab(database, lab_id, worker="first-try", lease_seconds=600)
            assert _lab_state(admin, lab_id) == ("queued", 1, None)
            assert run_lab(database, lab_id, worker="retry", lease_seconds=600) == LabStatus.DONE
            assert _lab_state(admin, lab_id) == ("done", 2, None)
    finally:
        with admin.connect() as connection:
            connection.execute(text("DROP TRIGGER cut_lab_write ON lab_runs"))
            connection.execute(text("DROP FUNCTION cut_lab_write()"))
            connection.execute(text("DROP SEQUENCE lab_write_cut"))
        admin.dispose()


def _lab_state(engine: Engine, lab_id: int) -> tuple[str, int, str | None]:
    """A lab run's status, attempts and lease holder, read on the test's own connection."""
    with engine.connect() as connection:
        status, attempts, owner = connection.execute(
            text("SELECT status, attempts, lease_owner FROM lab_runs WHERE id = :id"), {"id": lab_id}
        ).one()
        return str(status), int(attempts), owner
