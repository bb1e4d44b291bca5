"""Attempt numbers: a student's submissions to one exercise of one assignment are attempts 1, 2, 3, never global
submission ids."""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import select
from sqlalchemy.orm import Session

from grader.grading import policy
from grader.models import Submission


def attempt_numbers(submissions: Iterable[Submission]) -> dict[int, int]:
    """Submission id -> its attempt number (1, 2, 3, oldest first) among one user's submissions to one exercise of
    one assignment; only those that use an attempt get one (an unreadable answer or a grading error uses none)."""
    counted = sorted(s.id for s in submissions if s.status in policy.COUNTED_STATUSES)
    return {submission_id: number for number, submission_id in enumerate(counted, start=1)}


def attempt_number(session: Session, submission: Submission) -> int | None:
    """The attempt number of ``submission`` among its user's submissions to the same exercise and assignment."""
    siblings = session.scalars(
        select(Submission).where(
            Submission.user_id == submission.user_id,
            Submission.exercise_id == submission.exercise_id,
            Submission.assignment_id.is_(None)
            if submission.assignment_id is None
            else Submission.assignment_id == submission.assignment_id,
        )
    )
    return attempt_numbers(siblings).get(submission.id)
