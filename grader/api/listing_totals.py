"""The API submission listing's ``total`` and the assignments worth searching, from the kept submission counts
(``grader.models.SubmissionCount``: per assignment, exercise and student shard, the submissions and how many of
them are graded, invalid or error), so that neither grows with the course.

The kept counts give a listing's total when its caller sees every submission of its assignments (the counts know
no visibility) and when its filters are ones the counts are kept by: exercise, a final status, neither. A student
filter, or the statuses in flight (queued, grading), are counted from the rows instead: a student's own rows are
few (index (user_id, exercise_id)), and so is the backlog in flight (index (status, dispatched_at)).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from grader.models import FINAL_STATUSES, Submission, SubmissionCount

KEPT_STATUSES = frozenset(status.value for status in FINAL_STATUSES)


def _kept_column(status: str | None) -> Any:
    """SQL: the kept count of the rows with ``status`` (None: all of them; a status in flight: all in flight)."""
    if status is None:
        return SubmissionCount.submissions
    if status in KEPT_STATUSES:
        return getattr(SubmissionCount, status)
    final = [getattr(SubmissionCount, kept) for kept in sorted(KEPT_STATUSES)]
    return SubmissionCount.submissions - sum(final[1:], final[0])


def kept_by_assignment(
    session: Session, assignment_ids: list[int], exercise_id: str | None, status: str | None
) -> dict[int, int]:
    """Per assignment of ``assignment_ids``, how many of its submissions (of every student) the exercise and status
    filters leave; for a status in flight, how many are in flight at all (queued or grading). One statement over
    a few kept rows per (assignment, exercise); an assignment without any is left out."""
    query = (
        select(SubmissionCount.assignment_id, func.sum(_kept_column(status)))
        .where(SubmissionCount.assignment_id.in_(assignment_ids))
        .group_by(SubmissionCount.assignment_id)
    )
    if exercise_id is not None:
        query = query.where(SubmissionCount.exercise_id == exercise_id)
    return {assignment_id: int(n) for assignment_id, n in session.execute(query) if n}


def kept_total_applies(student_id: int | None, status: str | None) -> bool:
    """Whether the kept counts give the total of a listing whose caller sees every submission of its assignments:
    no filter the counts are not kept by (a student, a status in flight) narrows it."""
    return student_id is None and (status is None or status in KEPT_STATUSES)


def counted_total(session: Session, conditions: list[Any]) -> int:
    """How many submissions match ``conditions``, counted from the rows."""
    return session.scalar(select(func.count()).select_from(Submission).where(*conditions)) or 0
