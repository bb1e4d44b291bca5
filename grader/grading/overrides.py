"""Score overrides: a teacher's correction of what counts for one student on one exercise (or on the assignment's
total), with a reason, logged with who and when, kept through regrades (which only rewrite submissions) until a
teacher clears it. Every counting of scores (progress, the gradebook, exports) applies them through here."""

from __future__ import annotations

import math
from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from grader.grading.refusals import FieldRefused
from grader.grading.score_changes import counted_scores_changed
from grader.grading.terms import is_student_of, naming_few
from grader.models import Assignment, OverrideLogEntry, ScoreOverride
from grader.models.overrides import OVERRIDE_REASON_MAX, TOTAL

CLEARED_REASON = "cleared"


class OverrideRefused(FieldRefused):
    """An override that cannot be set."""


@dataclass(frozen=True)
class OverrideRequest:
    """What a teacher sets: the exercise (``TOTAL`` for the assignment's total), the score (0..1) and why."""

    exercise_id: str
    score: float
    reason: str


def overrides_of(
    session: Session, assignment: Assignment, user_ids: Collection[int] | None = None
) -> dict[tuple[int, str], ScoreOverride]:
    """The assignment's overrides by (student id, exercise id; ``TOTAL`` for the total), for ``user_ids`` (None:
    every student)."""
    query = select(ScoreOverride).where(ScoreOverride.assignment_id == assignment.id)
    kept_for: set[int] | None = None  # the students kept, should the assignment's rows be read whole
    if user_ids is not None:
        if not user_ids:
            return {}
        query, kept_for = naming_few(query, ScoreOverride.user_id, user_ids), set(user_ids)
    found = session.scalars(query.order_by(ScoreOverride.id))
    return {(row.user_id, row.exercise_id): row for row in found if kept_for is None or row.user_id in kept_for}


def _check(session: Session, assignment: Assignment, user_id: int, wanted: OverrideRequest) -> None:
    """Raise OverrideRefused unless ``wanted`` can be set for student ``user_id``."""
    if not is_student_of(session, assignment, user_id):
        raise OverrideRefused("student", "ovr.err_student")
    if wanted.exercise_id != TOTAL and wanted.exercise_id not in assignment.exercise_ids:
        raise OverrideRefused("exercise_id", "ovr.err_exercise")
    if not math.isfinite(wanted.score) or not 0.0 <= wanted.score <= 1.0:
        raise OverrideRefused("score", "ovr.err_score")
    if not wanted.reason.strip() or len(wanted.reason) > OVERRIDE_REASON_MAX:
        raise OverrideRefused("reason", "ovr.err_reason")


def set_override(
    session: Session, assignment: Assignment, user_id: int, wanted: OverrideRequest, actor: str, now: datetime
) -> ScoreOverride:
    """Set (or replace) an override, logged with ``actor`` and ``now``; OverrideRefused changes nothing. Commits."""
    _check(session, assignment, user_id, wanted)
    row = overrides_of(session, assignment, [user_id]).get((user_id, wanted.exercise_id))
    old = None if row is None else row.score
    if row is None:
        row = ScoreOverride(assignment_id=assignment.id, user_id=user_id, exercise_id=wanted.exercise_id)
        session.add(row)
    row.score, row.reason, row.set_by, row.updated_at = wanted.score, wanted.reason.strip(), actor, now
    session.add(
        OverrideLogEntry(
            assignment_id=assignment.id,
            user_id=user_id,
            exercise_id=wanted.exercise_id,
            old_score=old,
            new_score=wanted.score,
            reason=row.reason,
            actor=actor,
            created_at=now,
        )
    )
    counted_scores_changed(session, assignment.id, [user_id], now)
    session.commit()
    return row


def clear_override(
    session: Session, assignment: Assignment, user_id: int, exercise_id: str, actor: str, now: datetime
) -> bool:
    """Clear an override (logged); False if there was none. Commits."""
    row = overrides_of(session, assignment, [user_id]).get((user_id, exercise_id))
    if row is None:
        return False
    session.add(
        OverrideLogEntry(
            assignment_id=assignment.id,
            user_id=user_id,
            exercise_id=exercise_id,
            old_score=row.score,
            new_score=None,
            reason=CLEARED_REASON,
            actor=actor,
            created_at=now,
        )
    )
    session.delete(row)
    counted_scores_changed(session, assignment.id, [user_id], now)
    session.commit()
    return True


def override_log(session: Session, assignment: Assignment) -> list[OverrideLogEntry]:
    """Every setting and clearing of the assignment's overrides, oldest first."""
    return list(
        session.scalars(
            select(OverrideLogEntry)
            .where(OverrideLogEntry.assignment_id == assignment.id)
            .order_by(OverrideLogEntry.id)
        )
    )
