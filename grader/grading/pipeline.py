"""Grading one submission under a lease: claim, run the engine, write the result only if the lease still holds."""

from __future__ import annotations

import functools
import time
from collections.abc import Mapping
from enum import StrEnum
from typing import Any, cast

from flask import current_app, has_app_context
from sqlalchemy import Insert, Select, Table, Update, bindparam, insert, literal, select, update
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session

from exercises import api as engine
from grader import driver_statements, sql_dialects
from grader.extensions import Database
from grader.grading import final_row, heartbeat, leases, notify
from grader.grading.progress_write import (
    AttemptContext,
    attempt_context,
    attempt_parameters,
    progress_statement,
    sums_statement,
    write_progress,
)
from grader.grading.score_changes import submission_score_changed
from grader.models import GradeLogEntry, Submission, SubmissionStatus, utcnow


class Outcome(StrEnum):
    """What one delivery of a grading task did."""

    GRADED = "graded"
    INVALID = "invalid"
    ERROR = "error"
    SKIPPED = "skipped"  # not claimable: already final, or leased by another live worker
    LOST_LEASE = "lost-lease"  # the lease expired and someone else took over before the write


FINAL_OUTCOMES = frozenset({Outcome.GRADED, Outcome.INVALID, Outcome.ERROR})


def grade_submission(
    database: Database,
    submission_id: int,
    *,
    worker: str,
    lease_seconds: float,
    renew_every: float = 0.0,
    test_delay: float = 0.0,
) -> Outcome:
    """Grade one submission exactly once however often its task is delivered; the lease is renewed every
    ``renew_every`` seconds while the engine runs (0: never)."""
    try:
        outcome, written = _grade(database, submission_id, worker, (lease_seconds, renew_every), test_delay)
    except Exception:
        _announce(submission_id)  # the failed attempt may have been the last one (row now final as error)
        raise
    if outcome in FINAL_OUTCOMES:
        _announce(submission_id, None if written is None else final_row.encode(written))
    return outcome


def _announce(submission_id: int, payload: bytes | None = None) -> None:
    """Wake readers waiting on the submission, with the columns just written if given; only after the commit, so
    that a woken reader finds the row final."""
    if has_app_context():
        notify.announce_final(current_app.config, submission_id, payload)


def _grade(
    database: Database, submission_id: int, worker: str, lease_terms: tuple[float, float], test_delay: float
) -> tuple[Outcome, Mapping[str, Any] | None]:
    """Claim, grade and write in one session on one connection (a job is a handful of round trips); the outcome,
    and the row's grading columns as a graded or invalid write returned them. ``lease_terms``: the lease's length
    and how often it is renewed while the engine runs."""
    lease_seconds, renew_every = lease_terms
    # On PostgreSQL every write below is one statement, so autocommit saves a BEGIN and a COMMIT per write.
    single_statements = sql_dialects.single_statement_autocommit(database.dialect)
    with database.pinned_session(autocommit=single_statements) as session:
        claimed = leases.claim_reading(
            session,
            Submission,
            submission_id,
            worker,
            lease_seconds,
            "exercise_id",
            "seed",
            "raw_answer",
            "lang",
            "assignment_id",
        )
        if claimed is None:
            given_up = leases.give_up_exhausted(session, Submission, SubmissionStatus.ERROR, row_id=submission_id)
            return (Outcome.ERROR if given_up else Outcome.SKIPPED), None
        lease, (_, exercise_id, seed, answer, lang, assignment_id) = claimed
        # Read once, before the engine: the policy it grades under and what the counted value depends on.
        context = attempt_context(session, submission_id, assignment_id)
        try:
            with heartbeat.renewing(database, Submission, lease, lease_seconds, renew_every):
                result = engine.grade(exercise_id, seed, answer, lang, context.policy)
                if test_delay:
                    time.sleep(test_delay)  # test-only window in which the worker holds the lease
        except (engine.UnknownExercise, engine.BadSeed) as exc:
            # Retrying cannot help: the submission itself names something the engine does not have.
            failed = leases.fail(session, Submission, lease, SubmissionStatus.ERROR, leases.failure_message(exc))
            return (Outcome.ERROR if failed else Outcome.LOST_LEASE), None
        except Exception as exc:
            # An engine fault: keep the message on the row (the final error shows it), then let Celery record it.
            leases.release_after_failure(
                session, Submission, lease, leases.failure_message(exc), SubmissionStatus.ERROR
            )
            raise
        try:
            written = _write_result(session, lease, result, context, single_statement=single_statements)
        except OperationalError as exc:
            # The retry would otherwise find the row still leased to this attempt and skip it.
            leases.give_back(database, Submission, lease, exc, SubmissionStatus.ERROR)
            raise  # the task retries (autoretry_for OperationalError) and claims the row again
        if written is None:
            return Outcome.LOST_LEASE, None
        return (Outcome.GRADED if result["status"] == "graded" else Outcome.INVALID), written


def _write_result(
    session: Session, lease: leases.Lease, result: dict[str, Any], context: AttemptContext, *, single_statement: bool
) -> Mapping[str, Any] | None:
    """Store the engine result and log a new score atomically, if the lease still holds; the row's grading
    columns as written (``final_row.returned_columns``), or None if the lease was lost.

    ``single_statement`` (PostgreSQL, the session in autocommit): the UPDATE and the log INSERT go as one statement
    (a data-modifying CTE), sent on the driver (``grader.driver_statements``); elsewhere they are two statements in
    one transaction. Both are built from the same pieces, once.
    """
    graded = result["status"] == "graded"
    parameters = {
        **leases.bound_lease(lease),
        "now": utcnow(),
        "new_status": SubmissionStatus.GRADED if graded else SubmissionStatus.INVALID,
        "new_score": result.get("score"),
        "new_parts": result.get("parts") or {},
        "new_errors": result.get("errors") or [],
        "new_parsed": result.get("parsed"),
        "new_engine_version": result["engine_version"],
        "actor": f"worker:{lease.owner}",
    }
    # Progress rows, assignment sums and the LMS outbox belong to an assignment's submissions: a grade outside any
    # (a teacher's try, the API without one) moves none of them, and its write leaves them out.
    counted = graded and context.assignment is not None
    if counted:
        # The progress row moves with the grade (grader.grading.progress_write), by the counted value of this score.
        parameters.update(attempt_parameters(context, parameters["new_score"]))
    if single_statement:
        statement = _graded_write_statement(counted) if graded else _finish_statement()
        returned = driver_statements.first(session, statement, parameters, commit=True)
        return None if returned is None else cast(Mapping[str, Any], returned._mapping)
    written = session.execute(_finish_statement(), parameters).first()
    if written is None:
        session.rollback()
        return None
    if graded:
        session.execute(_log_statement(), parameters)
    if counted:
        session.execute(_outbox_statement(), parameters)
        write_progress(session, parameters)
    session.commit()
    return cast(Mapping[str, Any], written._mapping)


@functools.cache
def _finish_statement() -> Update:
    """The lease-guarded UPDATE that stores a result (status ``new_status``), with bound parameters, returning the
    row's grading columns.

    Built once: building it anew for every job cost the worker more CPU than running it.
    """
    row = Submission.__table__.c
    return (
        update(cast(Table, Submission.__table__))
        .where(leases.holds_bound(Submission))
        .values(
            status=bindparam("new_status", type_=row.status.type),
            lease_owner=None,
            lease_until=None,
            finished_at=bindparam("now", type_=row.finished_at.type),
            score=bindparam("new_score", type_=row.score.type),
            parts=bindparam("new_parts", type_=row.parts.type),
            errors=bindparam("new_errors", type_=row.errors.type),
            parsed_answer=bindparam("new_parsed", type_=row.parsed_answer.type),
            engine_version=bindparam("new_engine_version", type_=row.engine_version.type),
            error_message=None,
        )
        .returning(*final_row.returned_columns())
    )


def _log_columns() -> dict[str, Any]:
    """The grade-log row of a first grading (no old score) as bound parameters, without the submission id."""
    log = GradeLogEntry.__table__.c
    return {
        "new_score": bindparam("new_score", type_=log.new_score.type),
        "new_engine_version": bindparam("new_engine_version", type_=log.new_engine_version.type),
        "reason": literal("graded", log.reason.type),
        "actor": bindparam("actor", type_=log.actor.type),
        "created_at": bindparam("now", type_=log.created_at.type),
    }


@functools.cache
def _log_statement() -> Insert:
    """The grade-log INSERT for the submission named by the lease parameters."""
    return insert(cast(Table, GradeLogEntry.__table__)).values(submission_id=bindparam("held_row_id"), **_log_columns())


@functools.cache
def _outbox_statement() -> Insert:
    """The LMS outbox INSERT for the submission named by the lease parameters (SQLite's second statement)."""
    return submission_score_changed()


@functools.cache
def _graded_write_statement(counted: bool) -> Select[Any]:
    """PostgreSQL: ``_finish_statement`` and ``_log_statement`` as one statement (the log row only if the UPDATE
    matched), returning the written row's grading columns; with ``counted`` (a submission to an assignment) also
    its LMS outbox row, progress row and assignment sums."""
    finished = _finish_statement().cte("finished")
    columns = _log_columns()
    logged = (
        insert(cast(Table, GradeLogEntry.__table__))
        .from_select(["submission_id", *columns], select(finished.c.id, *columns.values()))
        .cte("logged")
    )
    if not counted:
        return select(finished).add_cte(logged)
    # The LMS outbox row, if any, in the same statement (counted_scores_changed's rule as a statement); it reads
    # the submission's assignment and owner, which the UPDATE does not change, from the statement's snapshot.
    outboxed = submission_score_changed(finished).cte("outboxed")
    # The progress row (grader.grading.progress_write), likewise only if the UPDATE matched.
    progressed = progress_statement(sql_dialects.POSTGRESQL, finished).cte("progressed")
    # The student's assignment sums, by what the progress upsert returned it changed.
    summed = sums_statement(sql_dialects.POSTGRESQL, progressed).cte("summed")
    # PostgreSQL runs every data-modifying WITH clause exactly once, whether or not the outer SELECT reads it.
    return select(finished).add_cte(logged).add_cte(outboxed).add_cte(progressed).add_cte(summed)
