"""How many submissions each assignment has, per exercise, and how many of them ended graded, invalid or error,
kept by the database itself: the API listing's ``total`` for a course or an assignment, whole or filtered by
exercise or by a final status, reads these few rows instead of counting every submission.

Triggers on ``submissions`` (migrations 0021, 0023) keep the counts on every insert, delete and move of a row and
on every change of its status to or from a final one, whoever writes it; ``grader check-progress`` counts the
submissions afresh and compares. Each (assignment, exercise)'s counts are split over ``SHARDS`` rows by student, so
that parallel submissions and grades do not all wait for one row's lock.
"""

from __future__ import annotations

from sqlalchemy import ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from grader.models.base import Base

SHARDS = 16  # the triggers spell it too (user_id % 16)


class SubmissionCount(Base):
    """The submissions to one exercise of one assignment by the students with ``user_id % SHARDS == shard``."""

    __tablename__ = "submission_counts"

    assignment_id: Mapped[int] = mapped_column(ForeignKey("assignments.id", ondelete="CASCADE"), primary_key=True)
    exercise_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    shard: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    submissions: Mapped[int] = mapped_column(default=0)
    # One column per final status (FINAL_STATUSES; the triggers spell them too).
    graded: Mapped[int] = mapped_column(default=0)
    invalid: Mapped[int] = mapped_column(default=0)
    error: Mapped[int] = mapped_column(default=0)
