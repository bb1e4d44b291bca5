"""A grade's own update of its progress row: one INSERT ... ON CONFLICT DO UPDATE, part of the pipeline's graded
write (inside its one statement on PostgreSQL), so the row moves in the grade's transaction.

The statement only compares and picks; every value it stores was computed by ``grader.grading.progress`` rules:
the attempt's counted value and lateness come in as parameters (``attempt_parameters``), the rest is "the better
of the two" and "the newer of the two", so two grades of one student's exercise landing together both count.

The student's assignment sums (``grader.models.AssignmentProgress``) move in the same statement by what the grade
changed: the upsert keeps the row's score and first score as they were (``prior_*``) and returns both, and the sums'
upsert adds the difference, so concurrent grades of one student each add their own change.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import (
    Boolean,
    ColumnElement,
    Float,
    Insert,
    Integer,
    Table,
    and_,
    bindparam,
    case,
    func,
    literal,
    null,
    or_,
    select,
    true,
)
from sqlalchemy.orm import Session

from exercises import api as engine
from grader import sql_dialects
from grader.grading import grading_rules
from grader.grading.progress import counted_value
from grader.grading.terms import terms_from
from grader.models import (
    Assignment,
    AssignmentProgress,
    Extension,
    ProgressRow,
    ScoreOverride,
    ScorePolicy,
    Submission,
)
from grader.percent import FULL_MARKS

_KEY = ["assignment_id", "user_id", "exercise_id"]


@dataclass(frozen=True)
class AttemptContext:
    """What a grade of one submission needs from its assignment, read once before the engine runs: the policy it
    grades under and what its counted value depends on (None: no assignment, or one deleted meanwhile)."""

    assignment: Assignment | None
    extension: Extension | None = None
    created_at: datetime | None = None
    exercise_id: str = ""

    @property
    def policy(self) -> engine.GradingPolicy:
        """The policy the submission grades under (the default without an assignment)."""
        return grading_rules.policy_of(self.assignment)


NO_ASSIGNMENT = AttemptContext(None)


def attempt_context(session: Session, submission_id: int, assignment_id: int | None) -> AttemptContext:
    """The submission's assignment, the student's extension and when it was submitted, in one read; no read at
    all for a submission without an assignment (the worker's most common job pays no statement for it)."""
    if assignment_id is None:
        return NO_ASSIGNMENT
    found = session.execute(
        select(Assignment, Extension, Submission.created_at, Submission.exercise_id)
        .join(Assignment, Assignment.id == Submission.assignment_id)
        .outerjoin(Extension, and_(Extension.assignment_id == Assignment.id, Extension.user_id == Submission.user_id))
        .where(Submission.id == submission_id)
    ).first()
    return NO_ASSIGNMENT if found is None else AttemptContext(*found)


def attempt_parameters(context: AttemptContext, score: float | None) -> dict[str, Any]:
    """The bound parameters of the progress update for a submission graded ``score``: its counted value, whether
    it was late, the assignment's score policy and whether it still sets the exercise."""
    counted, late, best, in_set = score, False, True, False
    assignment = context.assignment
    if assignment is not None:
        if score is not None and context.created_at is not None:
            terms = terms_from(assignment, context.extension)
            counted, late = counted_value(terms, assignment, score, context.created_at)
        best = assignment.score_policy == ScorePolicy.BEST
        in_set = context.exercise_id in assignment.exercise_ids
    return {"progress_counted": counted, "progress_late": late, "progress_best": best, "progress_in_set": in_set}


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
        "prior_score": row.score,
        "prior_first_score": row.first_score,
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
        null(),
        null(),
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
        "prior_score",
        "prior_first_score",
    ]
    upsert = sql_dialects.insert_or_update(dialect, cast(Table, ProgressRow.__table__), _KEY, columns, rows, _updates)
    return upsert.returning(*(row[name] for name in _RETURNED))


# What the progress upsert returns: the row's key and its score and first score after and before the grade.
_RETURNED = ("assignment_id", "user_id", "score", "first_score", "prior_score", "prior_first_score")
_SUMS = ("points", "scored", "pairs", "firsts")


def _sums_of(score: Any, first_score: Any) -> list[ColumnElement[Any]]:
    """SQL: what one progress row with ``score`` and ``first_score`` adds to its student's assignment sums (see
    ``AssignmentProgress``): nothing without a counted score."""
    scored = score.is_not(None)
    return [
        func.coalesce(score, 0.0),
        case((scored, 1), else_=0),
        case((and_(scored, first_score.is_not(None)), 1), else_=0),
        case((and_(scored, first_score >= FULL_MARKS), 1), else_=0),
    ]


def sums_statement(dialect: str, progressed: Any) -> Insert:
    """The upsert adding to the student's assignment sums what the progress upsert ``progressed`` (a CTE of its
    returned rows, or a SELECT of them as bound parameters) changed; nothing when the exercise is no longer set
    (``:progress_in_set``) or nothing changed, so a student without a counted score gets no row."""
    new, old = (
        _sums_of(progressed.c.score, progressed.c.first_score),
        _sums_of(progressed.c.prior_score, progressed.c.prior_first_score),
    )
    changes = [after - before for after, before in zip(new, old, strict=True)]
    rows = (
        select(progressed.c.assignment_id, progressed.c.user_id, *changes)
        .select_from(progressed)
        .where(bindparam("progress_in_set", type_=Boolean()), or_(*(change != 0 for change in changes)))
    )
    table = cast(Table, AssignmentProgress.__table__)

    def added(new_row: Any) -> dict[str, Any]:
        return {name: table.c[name] + new_row[name] for name in _SUMS}

    return sql_dialects.insert_or_update(dialect, table, ["assignment_id", "user_id"], [*_KEY[:2], *_SUMS], rows, added)


@functools.cache
def _sums_from_parameters(dialect: str) -> Insert:
    """``sums_statement`` over one returned progress row passed as bound parameters (``returned_*``)."""
    types = {"assignment_id": Integer(), "user_id": Integer()}
    source = select(
        *(bindparam(f"returned_{name}", type_=types.get(name, Float())).label(name) for name in _RETURNED)
    ).subquery("progressed")
    return sums_statement(dialect, source)


def write_progress(session: Session, parameters: dict[str, Any]) -> None:
    """The progress upsert and the sums' upsert as two statements (where a write is not one statement): the grade
    of ``:held_row_id`` with the pipeline's parameters, in ``session``'s transaction."""
    dialect = sql_dialects.dialect_of(session)
    returned = session.execute(progress_statement(dialect), parameters).first()
    if returned is not None:
        values = {f"returned_{name}": value for name, value in zip(_RETURNED, returned, strict=True)}
        session.execute(_sums_from_parameters(dialect), {**parameters, **values})
