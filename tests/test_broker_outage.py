"""A broker that refuses or hangs: sends fail instead of blocking, and refused sends do not slow the sweeper later.

Found by a chaos run of the production setup: a stopped Redis held every submission request (and the sweeper)
for as long as it was stopped, and after a long outage rows waited minutes for idle workers because re-sends
the broker had refused still counted towards the sweeper's back-off.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import threading
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from flask import Flask
from sqlalchemy import select, update

from grader.extensions import get_db
from grader.grading import sweeper
from grader.models import Submission, SubmissionStatus, User, utcnow
from tests.factories import BOOK_ANSWER, BOOK_SEED, EXERCISE
from tests.pipeline_helpers import submit
from tests.support import free_port, wait_for
from tests.web.conftest import make_app

# Far above the broker's socket timeout (two tries of 5 s): without it the send would never return.
SEND_RETURNS_WITHIN = 60


def _listening(port: int) -> bool | None:
    """True once something accepts connections on ``port`` (None meanwhile, for ``wait_for``)."""
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except OSError:
        return None
    return True


def _submit(app: Flask) -> int:
    """Submit the book answer as the demo student; returns the row id."""
    with app.app_context(), get_db(app).session() as session:
        student = session.scalars(select(User).where(User.username == "student1")).one()
        return submit(
            session,
            user_id=student.id,
            exercise_id=EXERCISE,
            seed=BOOK_SEED,
            raw_answer=BOOK_ANSWER,
            parsed_answer=None,
            lang="en",
        ).id


def _row(app: Flask, row_id: int) -> Submission:
    with app.app_context(), get_db(app).session() as session:
        row = session.get_one(Submission, row_id)
        session.expunge(row)
        return row


@pytest.fixture()
def frozen_redis(tmp_path: Path) -> Iterator[str]:
    """The URL of a Redis server of this test's own, stopped with SIGSTOP (accepts connections, never answers)."""
    server = shutil.which("redis-server")
    if server is None:
        pytest.skip("redis-server is not installed")
    port = free_port()
    process = subprocess.Popen(
        [
            server,
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(tmp_path),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for(lambda: _listening(port), "the test's redis-server to listen")
        os.kill(process.pid, signal.SIGSTOP)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        os.kill(process.pid, signal.SIGCONT)
        process.terminate()
        process.wait(timeout=10)


def test_a_frozen_redis_fails_the_send_and_the_submission_is_kept_for_the_sweeper(
    tmp_path: Path, frozen_redis: str
) -> None:
    app = make_app(tmp_path, CELERY_BROKER_URL=frozen_redis, RATELIMIT_STORAGE_URI="memory://")
    submitted: list[int] = []
    sender = threading.Thread(target=lambda: submitted.append(_submit(app)), daemon=True)
    sender.start()
    sender.join(SEND_RETURNS_WITHIN)
    assert not sender.is_alive(), "the submission's send is still blocked on the stopped Redis"
    assert submitted, "the submission raised instead of leaving its row for the sweeper"
    assert _row(app, submitted[0]).status == SubmissionStatus.QUEUED


def test_a_send_the_broker_refused_does_not_count_towards_the_back_off(tmp_path: Path) -> None:
    app = make_app(
        tmp_path, CELERY_BROKER_URL=f"redis://127.0.0.1:{free_port()}/0", RATELIMIT_STORAGE_URI="memory://"
    )  # nothing listens there: every send is refused
    row_id = _submit(app)
    with app.app_context(), get_db(app).session() as session:
        stale_since = utcnow() - timedelta(seconds=app.config["GRADER_REQUEUE_AFTER"] + 1)
        session.execute(update(Submission).where(Submission.id == row_id).values(dispatched_at=stale_since))
        session.commit()
    report = sweeper.sweep(app)
    assert row_id not in report.resent["Submission"]  # the report lists only sends that reached the broker
    row = _row(app, row_id)
    assert row.resends == 0, row.resends
    assert row.dispatched_at is not None and row.dispatched_at > stale_since  # tried again one interval later
