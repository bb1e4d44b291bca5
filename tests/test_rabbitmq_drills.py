"""RabbitMQ (durable quorum queues) as the broker, through the same drills as Redis, plus a broker restart.

The drills of tests/test_recovery_in_seconds.py run here against PostgreSQL + RabbitMQ (this module's ``backend``),
and a restarted RabbitMQ keeps every queued message: nothing is re-sent, everything is graded once.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import kombu
import pytest
from flask import Flask
from kombu.exceptions import OperationalError as BrokerUnavailable
from sqlalchemy.orm import Session

from grader import create_app
from grader.celery_app import celery_settings
from grader.config import load_config
from grader.extensions import get_db
from grader.grading import notify
from grader.migrate import upgrade
from grader.models import SubmissionStatus, User

# The same drills, collected again in this module with its own backend.
from tests import test_recovery_in_seconds as drills
from tests.pipeline_helpers import get_result, log_entries, wait_final
from tests.support import RABBITMQ_URL, Backend, WorkerProcess, postgres_database, wait_for
from tests.test_pipeline_recovery import submit_through
from tests.test_recovery_in_seconds import (  # noqa: F401
    resent,
    sweeping,
    test_a_grade_longer_than_the_lease_keeps_it_while_the_worker_lives,
    test_a_killed_workers_announcement_runs_out,
    test_a_worker_killed_mid_grade_has_its_row_graded_within_seconds,
    test_after_a_broker_wipe_while_no_worker_ran_everything_is_graded_soon_after_one_is_back,
    test_rows_waiting_in_a_backlog_are_not_resent,
)

queue = drills.queue  # the drills' fixture: a queue of the test's own


def _rabbitmq_answers() -> bool:
    try:
        with kombu.Connection(RABBITMQ_URL, connect_timeout=3) as connection:
            connection.ensure_connection(max_retries=1)
    except (OSError, BrokerUnavailable):
        return False
    return True


@pytest.fixture(scope="module")
def backend(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Backend]:
    """PostgreSQL + RabbitMQ for this module (overrides the session's backends)."""
    if not _rabbitmq_answers():
        pytest.skip("RabbitMQ is not running on 127.0.0.1:5672 (.ci/run starts it)")
    data_dir = tmp_path_factory.mktemp("grader-rabbitmq")
    with postgres_database(f"grader_rabbit_{os.getpid()}") as url:
        chosen = Backend("rabbitmq", url, RABBITMQ_URL, data_dir, f"grading-rabbit-{os.getpid()}")
        upgrade(chosen.database_url)
        yield chosen


def test_queues_are_durable_quorum_queues_and_publishes_are_confirmed() -> None:
    settings = celery_settings(
        load_config(environ={"GRADER_ENV": "testing", "SECRET_KEY": "s" * 40, "CELERY_BROKER_URL": RABBITMQ_URL})
    )
    assert settings["task_default_queue_type"] == settings["task_create_missing_queue_type"] == "quorum"
    assert settings["broker_transport_options"]["confirm_publish"] is True
    assert settings["task_default_delivery_mode"] == "persistent"


def test_the_declared_queue_is_a_quorum_queue(backend: Backend, app: Flask, student: User, queue: str) -> None:
    submit_through(create_app(backend.config(GRADER_QUEUE=queue)), student.id)
    listing = subprocess.run(
        ["rabbitmqctl", "list_queues", "name", "type", "durable"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    if listing.returncode != 0:
        pytest.skip(f"rabbitmqctl cannot list queues here: {listing.stderr.strip()}")
    row = next(line.split() for line in listing.stdout.splitlines() if line.startswith(queue))
    assert row[1:3] == ["quorum", "true"]
    assert backend.pending_messages(queue) == 1  # rabbitmqctl's own count lags behind


def _restart_rabbitmq() -> None:
    """Stop and start the RabbitMQ application on this machine (the node stays; durable data is kept)."""
    for step in ("stop_app", "start_app"):
        subprocess.run(["rabbitmqctl", step], check=True, capture_output=True, timeout=120)
    wait_for(lambda: _rabbitmq_answers() or None, "RabbitMQ to accept connections again")


@pytest.fixture
def restartable() -> Iterator[None]:
    """Skip unless this user may restart RabbitMQ; make sure it runs again afterwards, whatever happened."""
    if shutil.which("rabbitmqctl") is None:
        pytest.skip("rabbitmqctl is not installed")
    try:
        yield
    finally:
        if not _rabbitmq_answers():
            subprocess.run(["rabbitmqctl", "start_app"], capture_output=True, timeout=120)


def test_a_restarted_broker_keeps_every_queued_message_and_nothing_is_resent(
    backend: Backend, session: Session, student: User, queue: str, tmp_path: Path, restartable: None
) -> None:
    app = create_app(backend.config(GRADER_QUEUE=queue, GRADER_REQUEUE_AFTER="1"))
    worker: WorkerProcess | None = None
    try:
        ids = [submit_through(app, student.id) for _ in range(10)]
        assert backend.pending_messages(queue) == len(ids)
        _restart_rabbitmq()
        assert backend.pending_messages(queue) == len(ids)  # durable queue, persistent messages
        worker = WorkerProcess(backend.env(GRADER_QUEUE=queue), queue, tmp_path / "after-restart.log", concurrency=2)
        worker.wait_ready()
        with sweeping(app) as reports:
            results = [wait_final(session, row_id) for row_id in ids]
    finally:
        if worker is not None:
            worker.stop_soon()
        get_db(app).dispose()
    assert resent(reports, ids) == 0  # nothing was lost, so nothing is sent twice
    for result in results:
        assert result.status == SubmissionStatus.GRADED and result.attempts == 1
        assert log_entries(session, result.id) == 1


def test_a_broker_restart_under_a_running_worker_loses_and_doubles_nothing(
    backend: Backend, session: Session, student: User, queue: str, tmp_path: Path, restartable: None
) -> None:
    app = create_app(backend.config(GRADER_QUEUE=queue))
    worker = WorkerProcess(
        backend.env(GRADER_QUEUE=queue, GRADER_TEST_GRADE_DELAY="0.5"),
        queue,
        tmp_path / "through-restart.log",
        concurrency=2,
    )
    try:
        worker.wait_ready()
        with sweeping(app):
            ids = [submit_through(app, student.id) for _ in range(10)]
            wait_for(lambda: get_result_status(session, ids[0]) != SubmissionStatus.QUEUED, "grading to start")
            _restart_rabbitmq()
            ids += [submit_through(app, student.id) for _ in range(5)]  # after the restart: sent on a new connection
            results = [wait_final(session, row_id) for row_id in ids]
    finally:
        worker.stop_soon()
        get_db(app).dispose()
    for result in results:
        assert result.status == SubmissionStatus.GRADED
        assert log_entries(session, result.id) == 1


def get_result_status(session: Session, row_id: int) -> str:
    """The submission's status now."""
    return get_result(session, row_id).status


def test_the_ci_services_script_starts_a_stopped_rabbitmq(restartable: None) -> None:
    subprocess.run(["rabbitmqctl", "stop_app"], check=True, capture_output=True, timeout=120)
    assert not _rabbitmq_answers()
    script = Path(__file__).resolve().parents[1] / "scripts" / "services"
    done = subprocess.run([str(script)], capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr
    assert _rabbitmq_answers()


@pytest.mark.parametrize(
    ("settings", "expected"),
    [
        ({"CELERY_BROKER_URL": RABBITMQ_URL, "RATELIMIT_STORAGE_URI": "redis://redis:6379/0"}, "redis://redis:6379/0"),
        (
            {"CELERY_BROKER_URL": "redis://broker:6379/1", "RATELIMIT_STORAGE_URI": "redis://r:6379/0"},
            "redis://broker:6379/1",
        ),
        ({"CELERY_BROKER_URL": RABBITMQ_URL, "RATELIMIT_STORAGE_URI": "memory://"}, None),
    ],
)
def test_with_rabbitmq_grade_notices_travel_through_the_rate_limit_redis(
    settings: dict[str, str], expected: str | None
) -> None:
    assert notify.redis_url(settings) == expected
