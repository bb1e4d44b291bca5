"""Safe edits: how many grades an edit of an assignment's exercise list would stop counting."""

from __future__ import annotations

from collections.abc import Collection

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from grader.models import Assignment, Enrolment, EnrolmentRole, Submission, SubmissionStatus


def grades_dropped(session: Session, assignment: Assignment, kept: Collection[str]) -> int:
    """How many grades (a student of the course with a graded attempt at an exercise) stop counting if the
    assignment keeps only the exercises ``kept``: their submissions stay, but totals leave them out."""
    removed = [exercise_id for exercise_id in assignment.exercise_ids if exercise_id not in kept]
    if not removed:
        return 0
    students = select(Enrolment.user_id).where(
        Enrolment.course_id == assignment.course_id, Enrolment.role == EnrolmentRole.STUDENT
    )
    # One per (student, exercise), however many attempts: a subquery, since SQLite counts no distinct pairs.
    pairs = (
        select(Submission.user_id, Submission.exercise_id)
        .where(
            Submission.assignment_id == assignment.id,
            Submission.exercise_id.in_(removed),
            Submission.status == SubmissionStatus.GRADED,
            Submission.user_id.in_(students),
        )
        .distinct()
        .subquery()
    )
    return session.scalar(select(func.count()).select_from(pairs)) or 0
