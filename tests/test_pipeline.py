"""The grading pipeline with a real worker process: graded exactly once, duplicates are no-ops."""

from __future__ import annotations

import uuid

import pytest
from flask import Flask
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from grader import create_app
from grader.extensions import get_db
from grader.grading import pipeline
from grader.grading.refusals import SubmissionRejected
from grader.grading.submissions import serialise_submission
from grader.models import GradeLogEntry, Submission, SubmissionStatus, User
from tests.conftest import clean_database
from tests.factories import BOOK_ANSWER, BOOK_SEED, EXERCISE, UNREADABLE_ANSWER, make_user
from tests.pipeline_helpers import get_result, log_entries, send_duplicate, submit, submit_book_answer, wait_final
from tests.support import Backend, WorkerProcess


def test_submission_is_committed_queued_then_graded_once(
    session: Session, student: User, worker: WorkerProcess
) -> None:
    submission = submit_book_answer(session, student)
    assert submission.id is not None and submission.status in (SubmissionStatus.QUEUED, SubmissionStatus.GRADING)

    graded = wait_final(session, submission.id)
    assert graded.status == SubmissionStatus.GRADED
    assert graded.score == 1.0
    assert graded.engine_version
    assert set(graded.parts) == set(BOOK_ANSWER)
    assert graded.attempts == 1
    assert graded.lease_owner is None and graded.lease_until is None
    assert graded.queued_at <= graded.started_at <= graded.finished_at
    assert log_entries(session, submission.id) == 1
    entry = session.scalars(select(GradeLogEntry).where(GradeLogEntry.submission_id == submission.id)).one()
    assert (entry.old_score, entry.new_score, entry.reason) == (None, 1.0, "graded")
    assert entry.new_engine_version == graded.engine_version and entry.actor.startswith("worker:")
    assert entry.created_at == graded.finished_at


def test_serialised_result_has_engine_fields_and_timestamps(
    session: Session, student: User, worker: WorkerProcess
) -> None:
    submission = wait_final(session, submit_book_answer(session, student).id)
    data = serialise_submission(submission)
    assert data["status"] == "graded" and data["score"] == 1.0 and data["errors"] == []
    assert data["parts"]["scored_count"]["correct"] is True
    assert data["parsed"]["scored_count"] == 4
    assert data["id"] == submission.id and data["finished_at"].endswith("+00:00")


def test_unreadable_answer_is_stored_as_invalid(session: Session, student: User, worker: WorkerProcess) -> None:
    submission = submit(
        session,
        user_id=student.id,
        exercise_id=EXERCISE,
        seed=BOOK_SEED,
        raw_answer=UNREADABLE_ANSWER,
        parsed_answer=None,
        lang="zh",
    )
    result = wait_final(session, submission.id)
    assert result.status == SubmissionStatus.INVALID
    assert result.score is None and result.error_message is None
    assert result.lease_owner is None and result.lease_until is None and result.finished_at is not None
    assert result.engine_version and log_entries(session, submission.id) == 0  # no score, so nothing to log
    assert {error["field"] for error in result.errors} >= {"bos_scored", "scored_count"}


def test_unknown_exercise_ends_as_error_with_message(session: Session, student: User, worker: WorkerProcess) -> None:
    submission = submit(
        session, user_id=student.id, exercise_id="ch99.no-such", seed=1, raw_answer={}, parsed_answer=None, lang="en"
    )
    result = wait_final(session, submission.id)
    assert result.status == SubmissionStatus.ERROR
    assert "UnknownExercise" in (result.error_message or "")


def test_redelivery_of_graded_submission_changes_nothing(
    app: Flask, session: Session, student: User, worker: WorkerProcess
) -> None:
    graded = wait_final(session, submit_book_answer(session, student).id)
    before = serialise_submission(graded)

    task_id = send_duplicate(app, graded.id)
    assert worker.task_outcome(task_id) == pipeline.Outcome.SKIPPED

    assert serialise_submission(get_result(session, graded.id)) == before
    assert log_entries(session, graded.id) == 1


def test_simultaneous_duplicate_deliveries_grade_once(
    app: Flask, session: Session, student: User, worker: WorkerProcess
) -> None:
    submission = submit_book_answer(session, student)
    duplicates = [send_duplicate(app, submission.id) for _ in range(4)]

    outcomes = [worker.task_outcome(task_id) for task_id in duplicates]
    result = wait_final(session, submission.id)
    assert result.status == SubmissionStatus.GRADED and result.attempts == 1
    assert outcomes.count(pipeline.Outcome.GRADED) <= 1
    assert set(outcomes) <= {pipeline.Outcome.GRADED, pipeline.Outcome.SKIPPED}
    assert log_entries(session, submission.id) == 1


def test_grading_a_graded_submission_in_process_is_a_no_op(
    app: Flask, session: Session, student: User, worker: WorkerProcess
) -> None:
    graded = wait_final(session, submit_book_answer(session, student).id)
    outcome = pipeline.grade_submission(get_db(app), graded.id, worker="test:duplicate", lease_seconds=30)
    assert outcome == pipeline.Outcome.SKIPPED
    assert get_result(session, graded.id).attempts == 1


def test_repeated_idempotency_key_returns_the_same_submission(
    session: Session, student: User, worker: WorkerProcess
) -> None:
    first = submit_book_answer(session, student, idempotency_key="retry-1")
    again = submit_book_answer(session, student, idempotency_key="retry-1")
    assert again.id == first.id
    assert session.scalar(select(func.count()).where(Submission.user_id == student.id)) == 1

    with pytest.raises(SubmissionRejected) as rejected:
        submit(
            session,
            user_id=student.id,
            exercise_id=EXERCISE,
            seed=BOOK_SEED,
            raw_answer=UNREADABLE_ANSWER,
            parsed_answer=None,
            lang="en",
            idempotency_key="retry-1",
        )
    assert rejected.value.code == "idempotency_conflict"
    assert wait_final(session, first.id).attempts == 1


def test_same_idempotency_key_for_two_users_makes_two_submissions(
    session: Session, student: User, worker: WorkerProcess
) -> None:
    other = make_user(session)
    mine = submit_book_answer(session, student, idempotency_key="shared")
    theirs = submit_book_answer(session, other, idempotency_key="shared")
    assert mine.id != theirs.id
    assert wait_final(session, theirs.id).status == SubmissionStatus.GRADED


def test_backend_is_the_one_parametrised(app: Flask, backend: Backend) -> None:
    assert get_db(app).dialect == backend.name


def test_submit_returns_the_row_exactly_as_stored(backend: Backend) -> None:
    # A queue no worker reads, so that nothing grades the row between the submit and the comparison.
    app = create_app(backend.config(GRADER_QUEUE=f"unread_{uuid.uuid4().hex[:8]}"))
    try:
        with app.app_context(), get_db(app).session() as session:
            student = make_user(session)
            returned = submit(
                session,
                user_id=student.id,
                exercise_id=EXERCISE,
                seed=BOOK_SEED,
                raw_answer=BOOK_ANSWER,
                parsed_answer={"scored_count": 4},
                lang="zh",
                idempotency_key="k",
            )
            with get_db(app).session() as fresh_session:
                stored = fresh_session.get_one(Submission, returned.id)
                columns = [column.key for column in Submission.__table__.columns]
                assert {key: getattr(returned, key) for key in columns} == {
                    key: getattr(stored, key) for key in columns
                }
            assert returned.user.id == student.id  # attached to the session: relationships load as for any row
    finally:
        backend.drop_queue(app.config["GRADER_QUEUE"])
        clean_database(app)
        get_db(app).dispose()
