"""A regrade's preview: what re-checking an assignment's final submissions with the current engine and the
assignment's grading policy would change,
counted (changed, up, down), with nothing written."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from grader.grading.grading_rules import policy_of
from grader.grading.regrade import REGRADABLE, SCORE_EPSILON, recheck, worth
from grader.models import Assignment, Submission

# Submissions graded in the request at most: beyond, the preview says it counted only the first ones.
PREVIEW_LIMIT = 2000


@dataclass(frozen=True)
class RegradePreview:
    """Counts over the submissions checked: changed (score, status or some part's verdict), up and down (by what
    the verdict is worth), and those the engine cannot grade any more; ``partial``: more were left unchecked."""

    checked: int
    changed: int
    up: int
    down: int
    unknown: int
    partial: bool


def preview_regrade(session: Session, assignment: Assignment, limit: int = PREVIEW_LIMIT) -> RegradePreview:
    """Re-check the assignment's final submissions (the first ``limit``, in id order) as a regrade would, and
    count what would change; writes nothing."""
    found = session.scalars(
        select(Submission)
        .where(Submission.assignment_id == assignment.id, Submission.status.in_(REGRADABLE))
        .order_by(Submission.id)
        .limit(limit + 1)
    ).all()
    changed = up = down = unknown = 0
    grading_policy = policy_of(assignment)  # as saved now: a changed policy shows in the preview before it runs
    for submission in found[:limit]:
        check = recheck(submission, grading_policy)
        if check is None:
            unknown += 1
            continue
        if not check.changed:
            continue
        changed += 1
        gain = worth(check.new_status, check.new_score) - worth(check.old_status, check.old_score)
        up += gain > SCORE_EPSILON
        down += check.lowered
    return RegradePreview(min(len(found), limit), changed, up, down, unknown, len(found) > limit)
