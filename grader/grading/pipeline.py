"""Grading one submission under a lease: claim, run the engine, write the result only if the lease still holds."""

from __future__ import annotations

import time
from enum import StrEnum
from typing import Any

from exercises import api as engine
from grader.extensions import Database
from grader.grading import leases
from grader.models import GradeLogEntry, Submission, SubmissionStatus


class Outcome(StrEnum):
    """What one delivery of a grading task did."""

    GRADED = "graded"
    INVALID = "invalid"
    ERROR = "error"
    SKIPPED = "skipped"  # not claimable: already final, or leased by another live worker
    LOST_LEASE = "lost-lease"  # the lease expired and someone else took over before the write


def grade_submission(
    database: Database, submission_id: int, *, worker: str, lease_seconds: float, test_delay: float = 0.0
) -> Outcome:
    """Grade one submission exactly once however often its task is delivered."""
    with database.session() as session:
        lease = leases.claim(session, Submission, submission_id, worker, lease_seconds)
        if lease is None:
            given_up = leases.give_up_exhausted(session, Submission, SubmissionStatus.ERROR, row_id=submission_id)
            return Outcome.ERROR if given_up else Outcome.SKIPPED
        submission = session.get_one(Submission, submission_id)
        exercise_id, seed, answer, lang = (
            submission.exercise_id,
            submission.seed,
            submission.raw_answer,
            submission.lang,
        )
    try:
        result = engine.grade(exercise_id, seed, answer, lang)
    except (engine.UnknownExercise, engine.BadSeed) as exc:
        # Retrying cannot help: the submission itself names something the engine does not have.
        with database.session() as session:
            failed = leases.fail(session, Submission, lease, SubmissionStatus.ERROR, leases.failure_message(exc))
        return Outcome.ERROR if failed else Outcome.LOST_LEASE
    except Exception as exc:
        # An engine fault: keep the message on the row (the final error shows it), then let Celery record the failure.
        with database.session() as session:
            leases.release_after_failure(
                session, Submission, lease, leases.failure_message(exc), SubmissionStatus.ERROR
            )
        raise
    if test_delay:
        time.sleep(test_delay)  # test-only window in which the worker holds the lease (GRADER_TEST_GRADE_DELAY)
    return _write_result(database, lease, result)


def _write_result(database: Database, lease: leases.Lease, result: dict[str, Any]) -> Outcome:
    """Store the engine result and log the new score, if the lease still holds."""
    status = SubmissionStatus.GRADED if result["status"] == "graded" else SubmissionStatus.INVALID
    with database.session() as session:
        written = leases.finish(
            session,
            Submission,
            lease,
            status,
            score=result.get("score"),
            parts=result.get("parts") or {},
            errors=result.get("errors") or [],
            parsed_answer=result.get("parsed"),
            engine_version=result["engine_version"],
            error_message=None,
        )
        if not written:
            session.rollback()
            return Outcome.LOST_LEASE
        if status == SubmissionStatus.GRADED:
            session.add(
                GradeLogEntry(
                    submission_id=lease.row_id,
                    old_score=None,
                    new_score=result["score"],
                    old_engine_version=None,
                    new_engine_version=result["engine_version"],
                    reason="graded",
                    actor=f"worker:{lease.owner}",
                )
            )
        session.commit()
    return Outcome(status.value)
