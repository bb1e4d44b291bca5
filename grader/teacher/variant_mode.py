"""What the assignment form says about variants: fresh (the assignment's own) or shared, and, for a shared one,
which other shared assignments of the course set the same exercises while their key shows or may show."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from grader.models import AnswerKeyPolicy, Assignment


@dataclass(frozen=True)
class VariantMode:
    """The assignment's variant mode and, if it shares variants, the shared assignments whose key may answer it."""

    fresh: bool
    keys_shown_by: tuple[Assignment, ...] = ()


def key_may_show(assignment: Assignment, now: datetime) -> bool:
    """True if the assignment's key shows, or may show to some students, at ``now``: always; after the close, once
    past it (an extension may hold one student's back, but others see it); after the attempts, when they are
    limited (a student who used them sees it)."""
    policy = assignment.answer_key_policy
    if policy == AnswerKeyPolicy.ALWAYS:
        return True
    if policy == AnswerKeyPolicy.AFTER_DUE:
        close = assignment.late_until or assignment.due_at
        return close is not None and now >= close
    return policy == AnswerKeyPolicy.AFTER_ATTEMPTS and assignment.attempts_allowed is not None


def variant_mode(session: Session, assignment: Assignment | None, now: datetime) -> VariantMode:
    """The mode of ``assignment`` (None: a new one, which gets fresh variants) and, when it shares variants, the
    other shared assignments of its course that set one of its exercises and whose key may show at ``now``."""
    if assignment is None or assignment.fresh_variants:
        return VariantMode(fresh=True)
    others = session.scalars(
        select(Assignment)
        .where(
            Assignment.course_id == assignment.course_id,
            Assignment.id != assignment.id,
            Assignment.fresh_variants.is_(False),
        )
        .order_by(Assignment.id)
    )
    mine = set(assignment.exercise_ids)
    return VariantMode(
        fresh=False,
        keys_shown_by=tuple(other for other in others if mine & set(other.exercise_ids) and key_may_show(other, now)),
    )
