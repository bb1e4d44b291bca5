"""What a teacher sees of the grade passback: per student and assignment, the newest score change and whether it
was sent (when), is pending, or needs attention (why), with a resend."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from grader.models import Assignment, LtiContext, LtiMember, LtiScoreOutbox, MemberStatus, OutboxStatus, User


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


@dataclass(frozen=True)
class LeftMember:
    """Someone who left an LMS course: how the roster said so (inactive, deleted, gone) and when we found out."""

    name: str
    username: str
    status: str
    left_at: datetime | None


@dataclass(frozen=True)
class ContextRoster:
    """One LMS course bound to the course: its latest roster sync (or why it failed) and who has left it."""

    context_id: int
    title: str
    synced_at: datetime | None
    error: str | None
    left: list[LeftMember]


def roster_rows(session: Session, course_id: int) -> list[ContextRoster]:
    """The course's LMS courses with their roster state, members who left listed by name."""
    contexts = session.scalars(select(LtiContext).where(LtiContext.course_id == course_id).order_by(LtiContext.id))
    found = []
    for context in contexts:
        left = session.execute(
            select(User.display_name, User.username, LtiMember.status, LtiMember.left_at)
            .join(User, User.id == LtiMember.user_id)
            .where(LtiMember.context_id == context.id, LtiMember.status != MemberStatus.ACTIVE)
            .order_by(User.display_name)
        ).all()
        found.append(
            ContextRoster(
                context.id,
                context.title,
                context.roster_synced_at,
                context.roster_error,
                [LeftMember(*row) for row in left],
            )
        )
    return found
