"""How many submissions each assignment has, kept by the database itself: the API listing's ``total`` for a
course or an assignment reads these few rows instead of counting every submission.

Triggers on ``submissions`` (migration 0021) keep the counts on every insert, delete and move of a row, whoever
writes it; ``grader check-progress`` counts the submissions afresh and compares. Each assignment's count is split
over ``SHARDS`` rows by student, so that parallel submissions to one assignment do not all wait for one row's lock.
"""

from __future__ import annotations

from sqlalchemy import ForeignKey
from sqlalchemy.orm import Mapped, mapped_column

from grader.models.base import Base

SHARDS = 16  # the triggers spell it too (user_id % 16)


class SubmissionCount(Base):
    """The submissions of one assignment by the students with ``user_id % SHARDS == shard``."""

    __tablename__ = "submission_counts"

    assignment_id: Mapped[int] = mapped_column(ForeignKey("assignments.id", ondelete="CASCADE"), primary_key=True)
    shard: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    submissions: Mapped[int] = mapped_column(default=0)
