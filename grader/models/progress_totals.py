"""One row per (assignment, student): the sums over the student's progress rows that the course dashboard reads.

The course dashboard's per-assignment means, histograms and first-try shares are figures per student (the sum of
their counted scores over the exercises set); kept here, a page reads one row per student and assignment instead of
grouping every progress row of the course. Kept in the same transactions as the progress rows
(``grader.grading.progress`` and ``grader.grading.progress_write``) and checked by ``grader check-progress``.
"""

from __future__ import annotations

from sqlalchemy import ForeignKey
from sqlalchemy.orm import Mapped, mapped_column

from grader.models.base import Base


class AssignmentProgress(Base):
    """One student's sums over their progress rows with a counted score on the exercises the assignment sets.

    A row exists exactly when ``scored`` is above 0 (a student with no counted score has none).
    """

    __tablename__ = "assignment_progress"

    assignment_id: Mapped[int] = mapped_column(ForeignKey("assignments.id", ondelete="CASCADE"), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    points: Mapped[float] = mapped_column(default=0.0)  # sum of the counted scores
    scored: Mapped[int] = mapped_column(default=0)  # exercises with a counted score
    pairs: Mapped[int] = mapped_column(default=0)  # of those, with a first graded try (not an override alone)
    firsts: Mapped[int] = mapped_column(default=0)  # of those, whose first graded try was fully correct
