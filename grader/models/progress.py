"""One row per (student, assignment, exercise): what the teacher pages, the grades CSV and the dashboards read.

Kept in the grade's own transaction by ``grader.grading.progress`` (the pipeline's graded write, and every change of
a counted score through ``grader.grading.score_changes.counted_scores_changed``), so that a page costs what it shows
and not what the course holds. ``grader check-progress`` recomputes every row from the submissions.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from grader.models.base import Base


class ProgressRow(Base):
    """One student's standing on one exercise of one assignment, with the gradebook's counting.

    ``best_counted``/``last_counted`` (and their ``*_late`` flags) are the counted values (late penalty applied) of
    the best and of the latest scored attempt; they let a new grade update the row with one statement, whatever the
    score policy. ``score`` is what counts: a teacher's override, else the policy's choice of those two.
    """

    __tablename__ = "progress_rows"
    __table_args__ = (
        # The dashboards aggregate one assignment's rows per exercise; the student tables page through one student
        # set: both lead with the assignment.
        Index("ix_progress_rows_assignment_exercise", "assignment_id", "exercise_id"),
        Index("ix_progress_rows_user_assignment", "user_id", "assignment_id"),
    )

    assignment_id: Mapped[int] = mapped_column(ForeignKey("assignments.id", ondelete="CASCADE"), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    exercise_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    attempts: Mapped[int] = mapped_column(default=0)  # graded attempts
    first_score: Mapped[float | None]  # the engine score of the first graded attempt (the first-try figures)
    first_submission_id: Mapped[int | None]
    best_score: Mapped[float | None]  # the best engine score (the verdict, untouched)
    last_score: Mapped[float | None]  # the engine score of the latest scored attempt
    last_submission_id: Mapped[int | None]  # that attempt
    best_counted: Mapped[float | None]
    best_late: Mapped[bool] = mapped_column(default=False)
    last_counted: Mapped[float | None]
    last_late: Mapped[bool] = mapped_column(default=False)
    score: Mapped[float | None]  # the counted score; None: nothing counts yet (kept apart from 0)
    late: Mapped[bool] = mapped_column(default=False)  # the counted attempt was late
    overridden: Mapped[bool] = mapped_column(default=False)  # ``score`` is a teacher's override
    last_activity: Mapped[datetime | None]  # when the latest graded attempt was submitted
    # ``score`` and ``first_score`` as they were before the row's latest grade: the grade's statement returns them,
    # so the student's assignment sums (``AssignmentProgress``) move by exactly what that grade changed, even when
    # two grades of the row land together (each update sees the row the other left).
    prior_score: Mapped[float | None]
    prior_first_score: Mapped[float | None]
