"""An assignment's grading policy (partial credit, follow-through) as the engine takes it, in one place for the
worker, regrades and their previews, and the re-rendering of feedback in another language."""

from __future__ import annotations

from exercises import api as engine
from grader.models import Assignment


def engine_policy(partial_credit: bool, follow_through_credit: str) -> engine.GradingPolicy:
    """The engine's policy for an assignment's two stored settings."""
    return engine.GradingPolicy(bool(partial_credit), engine.FollowThrough(follow_through_credit))


def policy_of(assignment: Assignment | None) -> engine.GradingPolicy:
    """The policy ``assignment`` grades under; the default for a submission without an assignment."""
    if assignment is None:
        return engine.DEFAULT_POLICY
    return engine_policy(assignment.partial_credit, assignment.follow_through_credit)


def is_default(assignment: Assignment) -> bool:
    """Whether the assignment grades as the engine does by default (full partial and follow-through credit)."""
    return policy_of(assignment) == engine.DEFAULT_POLICY
