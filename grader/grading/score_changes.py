"""The one place told that a student's counted assignment score may have changed.

Every writer of something that can change a counted score (a grade, a regrade, an override, an extension, a change
of an assignment's policy, points or exercise list) calls ``counted_scores_changed`` inside its own transaction, so
that whatever follows a score (the LMS grade passback's outbox, the progress rows of ``grader.grading.progress``)
is written atomically with the change itself. The
grade write of the pipeline, one statement on PostgreSQL, takes the same rule as a statement
(``submission_score_changed``).

An outbox row says "the counted score of this student in this assignment, as this LMS context sees it, changed at
this moment"; the sender reads the score itself when it sends, so a row can never carry a stale value, and only
students the LMS knows (an identity of the context's platform) get one.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Insert, Select, Table, bindparam, insert, literal, select
from sqlalchemy.orm import Session

from grader.models import (
    Assignment,
    Enrolment,
    EnrolmentRole,
    LtiContext,
    LtiIdentity,
    LtiPlatform,
    LtiScoreOutbox,
    OutboxStatus,
    Submission,
    User,
)

_OUTBOX_COLUMNS = [
    "context_id",
    "assignment_id",
    "user_id",
    "changed_at",
    "status",
    "attempts",
    "next_attempt_at",
    "created_at",
]


def _outbox_insert(pairs: Select[Any, Any], changed_at: Any) -> Insert:
    """INSERT one pending outbox row per LMS context of the course, for each (assignment_id, user_id) of ``pairs``
    whose user the context's platform knows."""
    source = pairs.subquery("changed")
    rows = (
        select(
            LtiContext.id,
            source.c.assignment_id,
            source.c.user_id,
            changed_at,
            literal(OutboxStatus.PENDING.value),
            literal(0),
            changed_at,
            changed_at,
        )
        .select_from(source)
        .join(Assignment, Assignment.id == source.c.assignment_id)
        .join(LtiContext, LtiContext.course_id == Assignment.course_id)
        .join(LtiPlatform, LtiPlatform.id == LtiContext.platform_id)
        .join(LtiIdentity, (LtiIdentity.user_id == source.c.user_id) & (LtiIdentity.issuer == LtiPlatform.issuer))
    )
    return insert(cast(Table, LtiScoreOutbox.__table__)).from_select(_OUTBOX_COLUMNS, rows)


def submission_score_changed(written: Any = None) -> Insert:
    """The statement form for a grade write: the submission ``:held_row_id`` (or, inside one statement, the rows
    of the ``written`` CTE, so nothing is recorded when the lease-guarded UPDATE matched nothing) changed its
    owner's counted score at ``:now`` (bound parameters of the pipeline's write)."""
    chosen = (
        Submission.id.in_(select(written.c.id)) if written is not None else Submission.id == bindparam("held_row_id")
    )
    pairs = select(Submission.assignment_id.label("assignment_id"), Submission.user_id.label("user_id")).where(
        chosen, Submission.assignment_id.is_not(None)
    )
    return _outbox_insert(pairs, bindparam("now", type_=LtiScoreOutbox.__table__.c.changed_at.type))


def counted_scores_changed(session: Session, assignment_id: int, user_ids: Iterable[int] | None, at: datetime) -> None:
    """Record that the counted scores of ``user_ids`` (None: every student) in ``assignment_id`` may have changed
    at ``at``, in ``session``'s transaction (the caller commits)."""
    if user_ids is None:
        pairs = (
            select(Assignment.id.label("assignment_id"), Enrolment.user_id.label("user_id"))
            .join(Enrolment, Enrolment.course_id == Assignment.course_id)
            .where(Assignment.id == assignment_id, Enrolment.role == EnrolmentRole.STUDENT)
        )
    else:
        chosen = sorted(set(user_ids))
        if not chosen:
            return
        pairs = select(User.id.label("user_id"), literal(assignment_id).label("assignment_id")).where(
            User.id.in_(chosen)
        )
    stamp = bindparam("changed_at", at, type_=LtiScoreOutbox.__table__.c.changed_at.type)
    session.execute(_outbox_insert(pairs, stamp))
    # Imported here: the progress rows count with the policy, which imports the writers that call this function.
    from grader.grading import progress

    progress.rebuild(session, assignment_id, None if user_ids is None else chosen)
