"""What one student's standing on one assignment is computed from, read once: their submissions to it, their own
terms (an extension applied) and the teachers' overrides. A page that shows several things made of these (the
exercise page: progress, attempts, history, when the key shows) reads them in three statements, not one set per
thing it shows."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from grader.grading.overrides import overrides_of
from grader.grading.terms import StudentTerms, student_terms
from grader.models import Assignment, ScoreOverride, Submission


@dataclass(frozen=True)
class StudentRecord:
    """One student's submissions to an assignment (oldest first), their terms and their overrides by (student id,
    exercise id; ``TOTAL`` for the total)."""

    submissions: Sequence[Submission]
    terms: StudentTerms
    overrides: Mapping[tuple[int, str], ScoreOverride]

    def history(self, exercise_id: str) -> list[Submission]:
        """The submissions to ``exercise_id``, newest first."""
        return [s for s in reversed(self.submissions) if s.exercise_id == exercise_id]


def student_record(session: Session, user_id: int, assignment: Assignment) -> StudentRecord:
    """The record of user ``user_id`` on ``assignment``, as the database holds it now."""
    submissions = session.scalars(
        select(Submission)
        .where(Submission.user_id == user_id, Submission.assignment_id == assignment.id)
        .order_by(Submission.id)
    ).all()
    return StudentRecord(
        submissions, student_terms(session, assignment, user_id), overrides_of(session, assignment, [user_id])
    )
