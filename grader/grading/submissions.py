"""Accepting submissions (commit, then send) and reading them back in the engine's result shape."""

from __future__ import annotations

import functools
from datetime import datetime
from typing import Any, cast

from flask import current_app
from sqlalchemy import Table, insert, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, make_transient_to_detached

from exercises.i18n import Text
from grader import driver_statements, sql_dialects
from grader.extensions import Database, get_db
from grader.grading import dispatch, policy
from grader.grading.refusals import SubmissionRejected
from grader.models import Assignment, Submission, SubmissionStatus, iso_timestamp, utcnow


def accept(
    session: Session,
    *,
    user_id: int,
    exercise_id: str,
    seed: int,
    raw_answer: Any,
    parsed_answer: Any,
    lang: str,
    assignment_id: int | None = None,
    idempotency_key: str | None = None,
) -> tuple[Submission, bool]:
    """Store a queued submission, commit, then send its grading task; returns the row and whether it is a replay.

    A repeated ``idempotency_key`` (per user) returns the earlier submission without sending anything (a replay);
    reusing a key for a different answer raises SubmissionRejected("idempotency_conflict").
    Assignment rules (enrolment, window, attempts) raise SubmissionRejected with a code.
    """
    if idempotency_key is not None:
        earlier = _by_idempotency_key(session, user_id, idempotency_key)
        if earlier is not None:
            return _same_request_or_conflict(earlier, exercise_id, seed, lang, raw_answer, assignment_id), True
    now = utcnow()
    assignment = None
    if assignment_id is not None:
        assignment = session.get(Assignment, assignment_id)
        if assignment is None:
            raise SubmissionRejected("no_such_assignment", policy.NO_SUCH_ASSIGNMENT)
    values = {
        "user_id": user_id,
        "exercise_id": exercise_id,
        "seed": seed,
        "lang": lang,
        "raw_answer": raw_answer,
        "parsed_answer": parsed_answer,
        "assignment_id": assignment_id,
        "idempotency_key": idempotency_key,
        "status": SubmissionStatus.QUEUED,
        "attempts": 0,
        "max_attempts": current_app.config["GRADER_MAX_ATTEMPTS"],
        "created_at": now,
        "queued_at": now,
        "dispatched_at": now,
    }
    conflict: IntegrityError | None = None
    try:
        if assignment is None:
            inserted = driver_statements.first(session, _INSERT_RETURNING_ID, values, commit=True)
            submission_id: int | None = None if inserted is None else int(inserted[0])
        else:
            submission_id = _insert_within_the_rules(get_db(), user_id, assignment, exercise_id, now, values)
            session.commit()
    except IntegrityError as exc:
        session.rollback()
        submission_id, conflict = None, exc  # e.g. a concurrent request with the same idempotency key came first
    if submission_id is None:
        earlier = _by_idempotency_key(session, user_id, idempotency_key) if idempotency_key else None
        if earlier is None:
            raise conflict or RuntimeError("the idempotency key was taken, but its submission is not there")
        return _same_request_or_conflict(earlier, exercise_id, seed, lang, raw_answer, assignment_id), True
    dispatch.send(Submission, submission_id)
    return _as_loaded(session, submission_id, values), False


# One Core INSERT, built once: the ORM unit of work for a single new row cost more CPU than the statement itself.
_INSERT_RETURNING_ID = insert(cast(Table, Submission.__table__)).returning(Submission.__table__.c.id)


def _insert_within_the_rules(
    database: Database, user_id: int, assignment: Assignment, exercise_id: str, now: datetime, values: dict[str, Any]
) -> int | None:
    """Check the assignment's rules and insert the row in one transaction that holds the student's lock on the
    assignment: two parallel requests would otherwise both count an attempt left and both insert.

    None if, by the time the lock is held, the request's idempotency key is already taken (a retry that overlapped
    its original, which must be answered with the original, not refused for the attempt the original used).
    """
    with database.engine.connect() as connection:
        sql_dialects.take_write_lock(connection, attempt_lock_key(user_id, assignment.id))  # before counting
        with Session(bind=connection) as locked:
            key = values["idempotency_key"]
            if key is not None and _by_idempotency_key(locked, user_id, key) is not None:
                return None
            policy.check_can_submit(locked, user_id, assignment, exercise_id, now)
            submission_id = int(locked.execute(_INSERT_RETURNING_ID, values).scalar_one())
        connection.commit()
    return submission_id


def attempt_lock_key(user_id: int, assignment_id: int) -> int:
    """A signed 64-bit advisory-lock key for one student's submissions to one assignment (a collision only makes
    two students wait for each other)."""
    key = ((assignment_id & 0xFFFFFFFF) << 32) | (user_id & 0xFFFFFFFF)
    return key - 2**64 if key >= 2**63 else key


def _as_loaded(session: Session, submission_id: int, values: dict[str, Any]) -> Submission:
    """The just-inserted row as a persistent Submission in ``session``, built from what was inserted (no SELECT).

    Every column gets a value, the ones the INSERT left out their scalar default or NULL, so that no attribute is
    left to load later.
    """
    submission = Submission(**{**_column_defaults(), **values, "id": submission_id})
    make_transient_to_detached(submission)
    session.add(submission)
    return submission


@functools.cache
def _column_defaults() -> dict[str, Any]:
    """Every column of a submission with its scalar default, or None: what an INSERT leaves out stores. Read
    once; the copy ``_as_loaded`` makes leaves it unchanged."""
    return {
        column.key: column.default.arg if column.default is not None and column.default.is_scalar else None
        for column in Submission.__table__.columns
    }


def replay_of(
    session: Session,
    *,
    user_id: int,
    idempotency_key: str,
    exercise_id: str,
    seed: int,
    lang: str,
    raw_answer: Any,
    assignment_id: int | None,
) -> Submission | None:
    """The user's earlier submission made with this key if the request repeats it, None if the key is new; a key
    reused for something else raises SubmissionRejected("idempotency_conflict")."""
    earlier = _by_idempotency_key(session, user_id, idempotency_key)
    if earlier is None:
        return None
    return _same_request_or_conflict(earlier, exercise_id, seed, lang, raw_answer, assignment_id)


def _by_idempotency_key(session: Session, user_id: int, key: str) -> Submission | None:
    """The user's submission made with ``key``, if any."""
    return session.scalar(select(Submission).where(Submission.user_id == user_id, Submission.idempotency_key == key))


def _same_request_or_conflict(
    earlier: Submission, exercise_id: str, seed: int, lang: str, raw_answer: Any, assignment_id: int | None
) -> Submission:
    """Return ``earlier`` if it is the same request again; a key reused for something else is a conflict."""
    if (earlier.exercise_id, earlier.seed, earlier.lang, earlier.raw_answer, earlier.assignment_id) != (
        exercise_id,
        seed,
        lang,
        raw_answer,
        assignment_id,
    ):
        raise SubmissionRejected(
            "idempotency_conflict",
            Text(
                zh="这个幂等键已用于另一份提交。",
                en="This idempotency key was already used for a different submission.",
            ),
        )
    return earlier


def serialise_submission(submission: Submission) -> dict[str, Any]:
    """JSON form: the engine's result fields (as ``grader exercises grade`` prints them) plus id and timestamps."""
    return {
        "id": submission.id,
        "exercise_id": submission.exercise_id,
        "seed": submission.seed,
        "seed_text": str(submission.seed),  # seeds pass 2**53, where a JavaScript number stops being exact
        "lang": submission.lang,
        "assignment_id": submission.assignment_id,
        "status": str(submission.status),
        "score": submission.score,
        "engine_version": submission.engine_version,
        "parts": submission.parts or {},
        "errors": submission.errors or [],
        "parsed": submission.parsed_answer,
        "raw_answer": submission.raw_answer,
        "error_message": submission.error_message,
        "attempts": submission.attempts,
        "created_at": iso_timestamp(submission.created_at),
        "queued_at": iso_timestamp(submission.queued_at),
        "started_at": iso_timestamp(submission.started_at),
        "finished_at": iso_timestamp(submission.finished_at),
    }
