"""A grade's own update of its progress row: one INSERT ... ON CONFLICT DO UPDATE, part of the pipeline's graded
write (inside its one statement on PostgreSQL), so the row moves in the grade's transaction.

The statement only compares and picks; every value it stores was computed by ``grader.grading.progress`` rules:
the attempt's counted value and lateness come in as parameters (``attempt_parameters``), the rest is "the better
of the two" and "the newer of the two", so two grades of one student's exercise landing together both count.
"""

from __future__ import annotations

import functools
from typing import Any, cast

from sqlalchemy import ColumnElement, Insert, Table, and_, bindparam, case, literal, or_, select, true
from sqlalchemy.orm import Session

from grader import sql_dialects
from grader.grading.progress import counted_value
from grader.grading.terms import terms_from
from grader.models import Assignment, Extension, ProgressRow, ScoreOverride, ScorePolicy, Submission

_KEY = ["assignment_id", "user_id", "exercise_id"]


def attempt_parameters(session: Session, submission_id: int, score: float | None) -> dict[str, Any]:
    """The bound parameters of the progress update for submission ``submission_id`` graded ``score``: its counted
    value, whether it was late, and the assignment's score policy (one read)."""
    found = session.execute(
        select(Submission.created_at, Assignment, Extension)
        .join(Assignment, Assignment.id == Submission.assignment_id)
        .outerjoin(Extension, and_(Extension.assignment_id == Assignment.id, Extension.user_id == Submission.user_id))
        .where(Submission.id == submission_id)
    ).first()
    counted, late, best = score, False, True
    if found is not None and score is not None:
        created_at, assignment, extension = found
        counted, late = counted_value(terms_from(assignment, extension), assignment, score, created_at)
    if found is not None:
        best = found[1].score_policy == ScorePolicy.BEST
    return {"progress_counted": counted, "progress_late": late, "progress_best": best}


def _newer(row: Any, new: Any) -> ColumnElement[bool]:
    """The new attempt is scored and later than the row's latest scored one."""
    return and_(
        new.last_score.is_not(None),
        or_(row.last_submission_id.is_(None), new.last_submission_id > row.last_submission_id),
    )


def _above(old: Any, value: Any) -> ColumnElement[bool]:
    """``value`` is present and above ``old`` (or ``old`` is absent): the first of equals stays, as ``max`` keeps."""
    return and_(value.is_not(None), or_(old.is_(None), value > old))


def _updates(new: Any) -> dict[str, Any]:
    """The SET clause when the row exists: ``new`` is the proposed row (``excluded``)."""
    row = ProgressRow.__table__.c
    newer, better = _newer(row, new), _above(row.best_counted, new.best_counted)
    best_counted = case((better, new.best_counted), else_=row.best_counted)
    best_late = case((better, new.best_late), else_=row.best_late)
    last_counted = case((newer, new.last_counted), else_=row.last_counted)
    last_late = case((newer, new.last_late), else_=row.last_late)
    policy_best = bindparam("progress_best", type_=row.late.type)
    first = or_(row.first_submission_id.is_(None), new.first_submission_id < row.first_submission_id)
    return {
        "attempts": row.attempts + 1,
        "first_score": case((first, new.first_score), else_=row.first_score),
        "first_submission_id": case((first, new.first_submission_id), else_=row.first_submission_id),
        "best_score": case((_above(row.best_score, new.best_score), new.best_score), else_=row.best_score),
        "last_score": case((newer, new.last_score), else_=row.last_score),
        "last_submission_id": case((newer, new.last_submission_id), else_=row.last_submission_id),
        "best_counted": best_counted,
        "best_late": best_late,
        "last_counted": last_counted,
        "last_late": last_late,
        "score": case((new.overridden, new.score), (policy_best, best_counted), else_=last_counted),
        "late": case((policy_best, best_late), else_=last_late),
        "overridden": new.overridden,
        "last_activity": case(
            (_above(row.last_activity, new.last_activity), new.last_activity), else_=row.last_activity
        ),
    }


@functools.cache
def progress_statement(dialect: str, written: Any = None) -> Insert:
    """The upsert of the row of the submission ``:held_row_id`` (inside one statement: of the rows of the
    ``written`` CTE, so nothing moves when the lease-guarded UPDATE matched nothing), graded ``:new_score`` with the
    parameters of ``attempt_parameters``."""
    chosen = (
        Submission.id.in_(select(written.c.id)) if written is not None else Submission.id == bindparam("held_row_id")
    )
    row = ProgressRow.__table__.c
    score = bindparam("new_score", type_=row.score.type)
    counted = bindparam("progress_counted", type_=row.score.type)
    late = bindparam("progress_late", type_=row.late.type)
    override = (
        select(ScoreOverride.score)
        .where(
            ScoreOverride.assignment_id == Submission.assignment_id,
            ScoreOverride.user_id == Submission.user_id,
            ScoreOverride.exercise_id == Submission.exercise_id,
        )
        .scalar_subquery()
    )
    scored = score.is_not(None)
    rows = select(
        Submission.assignment_id,
        Submission.user_id,
        Submission.exercise_id,
        literal(1),
        score,
        Submission.id,
        score,
        score,
        case((scored, Submission.id), else_=None),
        counted,
        late,
        counted,
        late,
        case((override.is_not(None), override), else_=counted),
        late,
        override.is_not(None),
        Submission.created_at,
    ).where(chosen, Submission.assignment_id.is_not(None), true())
    columns = [
        *_KEY,
        "attempts",
        "first_score",
        "first_submission_id",
        "best_score",
        "last_score",
        "last_submission_id",
        "best_counted",
        "best_late",
        "last_counted",
        "last_late",
        "score",
        "late",
        "overridden",
        "last_activity",
    ]
    return sql_dialects.insert_or_update(dialect, cast(Table, ProgressRow.__table__), _KEY, columns, rows, _updates)
