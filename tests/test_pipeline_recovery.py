"""Recovery: killed workers, lost messages, an unreachable broker and used-up attempts never leave a row stuck."""

from __future__ import annotations

import threading
from datetime import timedelta
from pathlib import Path

import pytest
from flask import Flask
from sqlalchemy.orm import Session

from grader import create_app
from grader.extensions import get_db
from grader.grading import leases, pipeline, sweeper
from grader.models import Submission, SubmissionStatus, User, utcnow
from tests.factories import BOOK_ANSWER, BOOK_SEED, EXERCISE, unique
from tests.pipeline_helpers import get_result, log_entries, send_duplicate, submit, wait_final
from tests.support import Backend, WorkerProcess, wait_for


def submit_through(app: Flask, user_id: int) -> int:
    """Submit the book answer through ``app`` (its own queue or broker); returns the submission id."""
    with app.app_context(), get_db(app).session() as session:
        user = session.get_one(User, user_id)
        return submit(
            session,
            user_id=user.id,
            exercise_id=EXERCISE,
            seed=BOOK_SEED,
            raw_answer=BOOK_ANSWER,
            parsed_answer=None,
            lang="en",
        ).id


def swept(app: Flask, submission_id: int) -> bool:
    """Run one sweep; True if it re-sent ``submission_id``."""
    return submission_id in sweeper.sweep(app).resent["Submission"]


def stranded_row(session: Session, user: User, **state: object) -> Submission:
    """A submission as a crashed system might leave it (written directly, no message sent)."""
    row = Submission(user_id=user.id, exercise_id=EXERCISE, seed=BOOK_SEED, lang="en", raw_answer=BOOK_ANSWER, **state)
    session.add(row)
    session.commit()
    return row


def test_worker_killed_while_holding_the_lease_is_recovered_once(
    app: Flask, backend: Backend, session: Session, student: User, worker: WorkerProcess, tmp_path: Path
) -> None:
    queue = unique("slow")
    # A worker that holds its lease for a long time before writing (test hook), on a queue of its own.
    slow = WorkerProcess(
        backend.env(GRADER_QUEUE=queue, GRADER_TEST_GRADE_DELAY="30", GRADER_LEASE_SECONDS="2"),
        queue,
        tmp_path / "slow-worker.log",
    )
    try:
        slow.wait_ready()
        submission_id = submit_through(create_app(backend.config(GRADER_QUEUE=queue)), student.id)
        held = wait_for(
            lambda: (row := get_result(session, submission_id)).status == SubmissionStatus.GRADING and row,
            "the slow worker to take the lease",
        )
        slow.kill()
    finally:
        slow.stop()
    killed_owner = held.lease_owner
    assert get_result(session, submission_id).status == SubmissionStatus.GRADING  # the dead worker's lease remains

    wait_for(lambda: swept(app, submission_id), "the sweeper to re-send after the lease expired")
    result = wait_final(session, submission_id)
    assert result.status == SubmissionStatus.GRADED and result.score == 1.0
    assert result.attempts == 2
    assert log_entries(session, submission_id) == 1
    assert killed_owner not in result.grade_log[0].actor


def test_lost_messages_are_resent_by_the_sweeper(
    app: Flask, backend: Backend, session: Session, student: User, worker: WorkerProcess
) -> None:
    queue = unique("unconsumed")
    nobody_listens = create_app(backend.config(GRADER_QUEUE=queue))
    ids = [submit_through(nobody_listens, student.id) for _ in range(3)]
    assert backend.pending_messages(queue) == 3

    backend.lose_messages(queue)  # Redis FLUSHDB / the file broker's messages deleted: as after a Redis restart
    assert backend.pending_messages(queue) == 0
    assert {get_result(session, i).status for i in ids} == {SubmissionStatus.QUEUED}

    resent: set[int] = set()
    wait_for(
        lambda: resent.update(sweeper.sweep(app).resent["Submission"]) or set(ids) <= resent,
        "the sweeper to re-send every queued submission",
    )
    for submission_id in ids:
        result = wait_final(session, submission_id)
        assert result.status == SubmissionStatus.GRADED and result.attempts == 1
        assert log_entries(session, submission_id) == 1


def test_submission_is_kept_when_the_broker_is_unreachable(
    app: Flask, backend: Backend, session: Session, student: User, worker: WorkerProcess
) -> None:
    if not backend.broker_url.startswith("redis://"):
        pytest.skip("only a broker server can be unreachable")
    broker_down = create_app(backend.config(CELERY_BROKER_URL="redis://127.0.0.1:1/0"))
    submission_id = submit_through(broker_down, student.id)  # committed; the failed send does not raise
    assert get_result(session, submission_id).status == SubmissionStatus.QUEUED

    wait_for(lambda: swept(app, submission_id), "the sweeper to send the never-sent submission")
    assert wait_final(session, submission_id).status == SubmissionStatus.GRADED


def test_sweeper_ends_exhausted_submission_as_error(app: Flask, session: Session, student: User) -> None:
    row = stranded_row(
        session,
        student,
        status=SubmissionStatus.GRADING,
        attempts=3,
        max_attempts=3,
        lease_owner="host:1:dead",
        lease_until=utcnow() - timedelta(seconds=5),
    )
    report = sweeper.sweep(app)
    assert row.id in report.given_up["Submission"] and row.id not in report.resent["Submission"]
    result = get_result(session, row.id)
    assert result.status == SubmissionStatus.ERROR
    assert "gave up after 3 attempts" in (result.error_message or "")
    assert result.lease_owner is None and result.finished_at is not None


def test_delivery_after_last_attempt_ends_as_error(
    app: Flask, session: Session, student: User, worker: WorkerProcess
) -> None:
    row = stranded_row(
        session,
        student,
        status=SubmissionStatus.GRADING,
        attempts=3,
        max_attempts=3,
        lease_owner="host:1:dead",
        lease_until=utcnow() - timedelta(seconds=5),
        error_message="SoftTimeLimitExceeded: ",
    )
    assert worker.task_outcome(send_duplicate(app, row.id)) == pipeline.Outcome.ERROR
    result = get_result(session, row.id)
    assert result.status == SubmissionStatus.ERROR
    assert "gave up after 3 attempts" in (result.error_message or "")
    assert "SoftTimeLimitExceeded" in (result.error_message or "")


def test_live_lease_is_not_taken_over(app: Flask, session: Session, student: User, worker: WorkerProcess) -> None:
    row = stranded_row(
        session,
        student,
        status=SubmissionStatus.GRADING,
        attempts=1,
        max_attempts=3,
        lease_owner="host:1:alive",
        lease_until=utcnow() + timedelta(hours=1),
    )
    assert not swept(app, row.id)
    assert worker.task_outcome(send_duplicate(app, row.id)) == pipeline.Outcome.SKIPPED
    assert get_result(session, row.id).lease_owner == "host:1:alive"


def test_two_sweepers_never_send_the_same_row_twice(
    app: Flask, session: Session, student: User, worker: WorkerProcess
) -> None:
    long_ago = utcnow() - timedelta(minutes=5)
    ids = {stranded_row(session, student, status=SubmissionStatus.QUEUED, dispatched_at=long_ago).id for _ in range(20)}
    reports: list[sweeper.SweepReport] = []
    threads = [threading.Thread(target=lambda: reports.append(sweeper.sweep(app))) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    first, second = (set(report.resent["Submission"]) & ids for report in reports)
    assert first.isdisjoint(second)
    assert first | second == ids
    for submission_id in ids:
        assert wait_final(session, submission_id).attempts == 1


def test_recently_sent_queued_row_is_left_alone(backend: Backend, session: Session, student: User) -> None:
    patient = create_app(backend.config(GRADER_REQUEUE_AFTER="3600"))
    row = stranded_row(session, student, status=SubmissionStatus.QUEUED, dispatched_at=utcnow())
    assert not swept(patient, row.id)
    assert get_result(session, row.id).status == SubmissionStatus.QUEUED


def test_sweeper_backs_off_while_nothing_claims_a_queued_row(backend: Backend, session: Session, student: User) -> None:
    queue = unique("unread")  # no worker reads it: every re-send stays unclaimed
    app = create_app(backend.config(GRADER_REQUEUE_AFTER="10", GRADER_QUEUE=queue))
    try:

        def resent(seconds_ago: float, resends: int) -> bool:
            """Is a queued row last sent ``seconds_ago`` after ``resends`` re-sends sent again now?"""
            row = stranded_row(
                session,
                student,
                status=SubmissionStatus.QUEUED,
                resends=resends,
                dispatched_at=utcnow() - timedelta(seconds=seconds_ago),
            )
            return swept(app, row.id)

        assert resent(11, 0)  # the first re-send after GRADER_REQUEUE_AFTER
        assert not resent(15, 1) and resent(21, 1)  # then twice as long
        assert not resent(35, 2) and resent(41, 2)  # four times
        assert not resent(300, 9) and resent(330, 9)  # capped at 2**5 times (320 s)
        row = stranded_row(
            session, student, status=SubmissionStatus.QUEUED, dispatched_at=utcnow() - timedelta(minutes=1)
        )
        assert swept(app, row.id)
        assert get_result(session, row.id).resends == 1  # counted
        assert leases.claim(session, Submission, row.id, "host:1:claimer", 60) is not None
        assert get_result(session, row.id).resends == 0  # a claim starts the backoff over
    finally:
        backend.drop_queue(queue)
        get_db(app).dispose()
