"""Reliability audit: the embedded broker's folders going missing or its exchange table cut short, the sweeper's
back-off on rows of dead workers, and a regrade task for a job that does not exist."""

from __future__ import annotations

import dataclasses
import shutil
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from flask import Flask
from sqlalchemy.orm import Session

from grader import create_app
from grader.extensions import get_db
from grader.grading import sweeper
from grader.grading.dispatch import REGRADE_TASK, celery_app
from grader.models import Submission, SubmissionStatus, User, utcnow
from tests.factories import BOOK_ANSWER, BOOK_SEED, EXERCISE, unique
from tests.pipeline_helpers import get_result, log_entries, submit, wait_final
from tests.support import Backend, WorkerProcess, wait_for


def submit_through(app: Flask, user_id: int) -> int:
    """Submit the book answer through ``app`` (its own broker folder or queue); returns the submission id."""
    with app.app_context(), get_db(app).session() as session:
        return submit(
            session,
            user_id=user_id,
            exercise_id=EXERCISE,
            seed=BOOK_SEED,
            raw_answer=BOOK_ANSWER,
            parsed_answer=None,
            lang="en",
        ).id


@pytest.fixture
def own_broker(backend: Backend, tmp_path: Path) -> Iterator[Backend]:
    """The session's SQLite database with a file broker folder and queue of this test's own (which it damages)."""
    if not backend.broker_url.startswith("filesystem://"):
        pytest.skip("the embedded file broker only")
    yield dataclasses.replace(backend, data_dir=tmp_path / "data", queue=unique("files"))


def queue_folder(backend: Backend) -> Path:
    """Where the file broker keeps the messages of ``backend``."""
    return backend.data_dir / "broker" / "queue"


def test_web_and_sweeper_send_after_the_queue_folder_was_removed(
    app: Flask, own_broker: Backend, session: Session, student: User, tmp_path: Path
) -> None:
    # Before: kombu listed the missing folder on every send; the request failed after its row was committed and
    # the sweeper's loop ended on the error, so nothing was ever re-sent.
    web = create_app(own_broker.config())
    shutil.rmtree(queue_folder(own_broker))
    submission_id = submit_through(web, student.id)
    assert get_result(session, submission_id).status == SubmissionStatus.QUEUED

    shutil.rmtree(queue_folder(own_broker))  # gone again, with the message in it
    wait_for(lambda: submission_id in sweeper.sweep(web).resent["Submission"], "the sweeper to re-send the row")

    worker = WorkerProcess(own_broker.env(), own_broker.queue, tmp_path / "worker.log")
    try:
        worker.wait_ready()
        result = wait_final(session, submission_id)
    finally:
        worker.stop_soon()  # its own broker folder and queue
    assert result.status == SubmissionStatus.GRADED and result.attempts == 1
    assert log_entries(session, submission_id) == 1


def test_worker_survives_the_queue_folder_being_removed(
    app: Flask, own_broker: Backend, session: Session, student: User, tmp_path: Path
) -> None:
    # Before: the worker's next poll failed to list the folder, an "unrecoverable error" that stopped it for good.
    worker = WorkerProcess(own_broker.env(), own_broker.queue, tmp_path / "worker.log")
    try:
        worker.wait_ready()
        folder = queue_folder(own_broker)
        shutil.rmtree(folder)

        def made_again() -> bool:
            """True once the folder is back; fails at once if the worker died."""
            assert worker.process.poll() is None, f"the worker exited:\n{worker.log()[-3000:]}"
            return folder.is_dir()

        wait_for(made_again, "the worker to make the queue folder again")
        submission_id = submit_through(create_app(own_broker.config()), student.id)
        result = wait_final(session, submission_id)
        assert worker.process.poll() is None
    finally:
        worker.stop_soon()  # its own broker folder and queue
    assert result.status == SubmissionStatus.GRADED and log_entries(session, submission_id) == 1


def test_an_exchange_table_cut_short_does_not_stop_the_worker_or_the_web(
    app: Flask, own_broker: Backend, session: Session, student: User, tmp_path: Path
) -> None:
    # kombu creates the table file, then writes it: a full disk or a kill in between leaves it empty. Before, the
    # worker stopped at start ("unrecoverable error") and every send failed, long after the disk had room again.
    control = own_broker.data_dir / "broker" / "control"
    control.mkdir(parents=True)
    (control / f"{own_broker.queue}.exchange").write_bytes(b"")
    worker = WorkerProcess(own_broker.env(), own_broker.queue, tmp_path / "worker.log")
    try:
        worker.wait_ready()
        submission_id = submit_through(create_app(own_broker.config()), student.id)
        result = wait_final(session, submission_id)
    finally:
        worker.stop_soon()  # its own broker folder and queue
    assert result.status == SubmissionStatus.GRADED and log_entries(session, submission_id) == 1


def test_sweeper_backs_off_on_a_dead_workers_row_while_nothing_claims_it(
    backend: Backend, session: Session, student: User
) -> None:
    # Before: a row left "grading" by a dead worker was re-sent every GRADER_REQUEUE_AFTER for as long as no worker
    # ran, so an outage piled up copies (the README promises the doubling back-off for every lost message).
    queue = unique("unread")  # no worker reads it: every re-send stays unclaimed
    app = create_app(backend.config(GRADER_REQUEUE_AFTER="10", GRADER_QUEUE=queue))
    expired = utcnow() - timedelta(minutes=10)
    try:

        def resent(seconds_ago: float, resends: int) -> bool:
            """Is a row whose lease expired, last sent ``seconds_ago`` after ``resends`` re-sends, sent again now?"""
            row = Submission(
                user_id=student.id,
                exercise_id=EXERCISE,
                seed=BOOK_SEED,
                lang="en",
                raw_answer=BOOK_ANSWER,
                status=SubmissionStatus.GRADING,
                attempts=1,
                max_attempts=3,
                lease_owner="host:1:dead",
                lease_until=expired,
                resends=resends,
                dispatched_at=utcnow() - timedelta(seconds=seconds_ago),
            )
            session.add(row)
            session.commit()
            return row.id in sweeper.sweep(app).resent["Submission"]

        assert resent(3600, 0)  # sent before the dead worker claimed it: re-sent as soon as the lease expired
        assert not resent(15, 1) and resent(21, 1)  # then after twice GRADER_REQUEUE_AFTER
        assert not resent(35, 2) and resent(41, 2)  # four times
        assert not resent(300, 9) and resent(330, 9)  # capped at 2**5 times
    finally:
        backend.drop_queue(queue)
        get_db(app).dispose()


def test_regrade_task_for_a_job_that_does_not_exist_is_a_no_op(app: Flask, worker: WorkerProcess) -> None:
    # Before: the task failed with NoResultFound (a traceback per delivery) where submissions and lab runs say
    # "missing" (ids are never reused, so no job can appear under this id later).
    with app.app_context():
        task_id = celery_app().send_task(REGRADE_TASK, args=[2**31 - 1], queue=app.config["GRADER_QUEUE"]).id
    assert worker.task_outcome(task_id) == "missing"
