"""The assignment dashboard's misconception table, kept by the database itself: each wrong graded answer's tags
(``AnswerTag``, every submitter) and, for the course's enrolled students only, the wrong and tagged answers per
exercise (``MisconceptionCount``) and the answers and students per exercise and tag (``MisconceptionTagCount``).

Triggers on ``submissions`` and ``enrolments`` (migration 0024) keep them on every grade, regrade, re-queue,
delete and move of a submission and on every enrolment, unenrolment and change of role, whoever writes it; ``grader
check-progress`` recomputes them from the submissions and compares. Rows of exercises an assignment no longer sets
stay, and are left out when read, as the dashboard leaves out those answers. The counts are split by student
over ``SHARDS`` rows (``grader.models.submission_counts``), read as their sum.
"""

from __future__ import annotations

from sqlalchemy import ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from grader.models.base import Base


class AnswerTag(Base):
    """One tag of one wrong graded answer and the field of its lowest-scoring tagged part (ties: first by name)."""

    __tablename__ = "answer_tags"
    __table_args__ = (
        # The newest examples of an exercise's tag, and one student's tags (enrolments, the students count).
        Index("ix_answer_tags_newest", "assignment_id", "exercise_id", "tag", "submission_id"),
        Index("ix_answer_tags_student", "user_id", "assignment_id", "exercise_id", "tag"),
    )

    # No foreign key to submissions: the triggers delete a submission's tags after reading them, which a cascade
    # run before them would prevent.
    submission_id: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    tag: Mapped[str] = mapped_column(Text, primary_key=True)
    assignment_id: Mapped[int] = mapped_column(ForeignKey("assignments.id", ondelete="CASCADE"))
    exercise_id: Mapped[str] = mapped_column(String(64))
    user_id: Mapped[int]
    field: Mapped[str] = mapped_column(Text)  # the example's text is this part's "read", in the submission


class MisconceptionCount(Base):
    """The wrong graded answers to one exercise of one assignment by the enrolled students with ``user_id % SHARDS
    == shard``, and how many of them carry a tag."""

    __tablename__ = "misconception_counts"

    assignment_id: Mapped[int] = mapped_column(ForeignKey("assignments.id", ondelete="CASCADE"), primary_key=True)
    exercise_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    shard: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)  # user_id % SHARDS
    wrong: Mapped[int] = mapped_column(default=0)
    tagged: Mapped[int] = mapped_column(default=0)


class MisconceptionTagCount(Base):
    """The wrong graded answers to one exercise carrying one tag by the enrolled students of one shard, and how
    many students gave them."""

    __tablename__ = "misconception_tag_counts"

    assignment_id: Mapped[int] = mapped_column(ForeignKey("assignments.id", ondelete="CASCADE"), primary_key=True)
    exercise_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    tag: Mapped[str] = mapped_column(Text, primary_key=True)
    shard: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)  # user_id % SHARDS
    answers: Mapped[int] = mapped_column(default=0)
    students: Mapped[int] = mapped_column(default=0)
