"""What a teacher sees of the grade passback: per student and assignment, the newest score change and whether it
was sent (when), is pending, or needs attention (why), with a resend."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from grader.models import Assignment, LtiContext, LtiScoreOutbox, OutboxStatus, User


@dataclass(frozen=True)
class PassbackRow:
    """The newest score change of one student in one assignment and LMS context."""

    outbox_id: int
    student: str
    assignment: Assignment
    context_title: str
    status: str  # sent / pending / failed (superseded rows are never the newest)
    changed_at: datetime
    sent_at: datetime | None
    attempts: int
    last_error: str | None
    score_given: float | None


def passback_rows(session: Session, course_id: int) -> list[PassbackRow]:
    """The newest outbox row per (context, assignment, student) of the course's LMS contexts, failed ones first."""
    newest = (
        select(func.max(LtiScoreOutbox.id))
        .join(LtiContext, LtiContext.id == LtiScoreOutbox.context_id)
        .where(LtiContext.course_id == course_id)
        .group_by(LtiScoreOutbox.context_id, LtiScoreOutbox.assignment_id, LtiScoreOutbox.user_id)
    )
    found = session.execute(
        select(LtiScoreOutbox, User.display_name, Assignment, LtiContext.title)
        .join(User, User.id == LtiScoreOutbox.user_id)
        .join(Assignment, Assignment.id == LtiScoreOutbox.assignment_id)
        .join(LtiContext, LtiContext.id == LtiScoreOutbox.context_id)
        .where(LtiScoreOutbox.id.in_(newest))
        .order_by(Assignment.id, User.display_name)
    ).all()
    rows = [
        PassbackRow(
            row.id,
            name,
            assignment,
            title,
            row.status,
            row.changed_at,
            row.sent_at,
            row.attempts,
            row.last_error,
            row.score_given,
        )
        for row, name, assignment, title in found
    ]
    return sorted(rows, key=lambda r: r.status != OutboxStatus.FAILED)


def outbox_course(session: Session, outbox_id: int) -> int | None:
    """The course of an outbox row (through its context), or None."""
    return session.scalar(
        select(LtiContext.course_id)
        .join(LtiScoreOutbox, LtiScoreOutbox.context_id == LtiContext.id)
        .where(LtiScoreOutbox.id == outbox_id)
    )
