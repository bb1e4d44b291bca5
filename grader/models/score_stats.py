"""The dashboards' score summaries kept per assignment and per (assignment, exercise), so that a dashboard reads a
few rows per assignment instead of one per student.

Kept by the database itself (migration 0025_score_stats): triggers on ``progress_rows`` and ``assignment_progress``
(every change of a counted score), ``enrolments`` (a student in or out, a role change) and ``assignments`` (a new
one, an edited exercise list or course rebuilds its rows). Only students enrolled as students count, and only the
exercises the assignment sets: a row exists for each exercise set and shard (and for the assignment and each shard
when it sets any), so the triggers only update. Each key is split over ``SHARDS`` rows by student (``user_id %
SHARDS``) so that parallel grades do not queue on one row's lock. ``grader check-progress`` recomputes and compares.
"""

from __future__ import annotations

from sqlalchemy import ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from grader.models.base import Base

# The histogram's bins (grader.score_bins.BIN_COUNT; the triggers spell them too).
BIN_COLUMNS = ("bin_0", "bin_1", "bin_2", "bin_3", "bin_4", "bin_5")
FIGURE_COLUMNS = ("attempted", "score_sum", "pairs", "firsts", *BIN_COLUMNS)


class _Figures:
    """The kept figures of one key and shard."""

    attempted: Mapped[int] = mapped_column(default=0)  # students with a counted score
    score_sum: Mapped[float] = mapped_column(default=0.0)  # the sum of their scores (for the mean)
    pairs: Mapped[int] = mapped_column(default=0)  # first-try denominator: scored exercises with a graded first try
    firsts: Mapped[int] = mapped_column(default=0)  # of those, fully correct on the first try
    bin_0: Mapped[int] = mapped_column(default=0)  # students per histogram bin (grader.score_bins.score_bin)
    bin_1: Mapped[int] = mapped_column(default=0)
    bin_2: Mapped[int] = mapped_column(default=0)
    bin_3: Mapped[int] = mapped_column(default=0)
    bin_4: Mapped[int] = mapped_column(default=0)
    bin_5: Mapped[int] = mapped_column(default=0)


class ExerciseScoreStats(_Figures, Base):
    """The counted scores on one exercise of one assignment of the enrolled students with ``user_id % SHARDS ==
    shard``."""

    __tablename__ = "exercise_score_stats"

    assignment_id: Mapped[int] = mapped_column(ForeignKey("assignments.id", ondelete="CASCADE"), primary_key=True)
    exercise_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    shard: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)


class AssignmentScoreStats(_Figures, Base):
    """The assignment scores (points / exercises set) of the enrolled students with ``user_id % SHARDS ==
    shard``; ``pairs`` and ``firsts`` are summed over their scored exercises."""

    __tablename__ = "assignment_score_stats"

    assignment_id: Mapped[int] = mapped_column(ForeignKey("assignments.id", ondelete="CASCADE"), primary_key=True)
    shard: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    exercises: Mapped[int] = mapped_column(default=0)  # exercises set when the rows were built (their bins use it)
