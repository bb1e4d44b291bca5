"""Submitted answers with their grading state, and the append-only log of grade changes."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import JSON, BigInteger, CheckConstraint, ForeignKey, Index, String, Text, UniqueConstraint, event
from sqlalchemy.orm import Mapped, Mapper, mapped_column, relationship

from grader.models.base import Base, one_of, utcnow
from grader.models.courses import Assignment
from grader.models.jobs import LeasedJob
from grader.models.users import User


class SubmissionStatus(StrEnum):
    """Life cycle: queued -> grading -> graded | invalid | error."""

    QUEUED = "queued"
    GRADING = "grading"
    GRADED = "graded"
    INVALID = "invalid"
    ERROR = "error"


FINAL_STATUSES = (SubmissionStatus.GRADED, SubmissionStatus.INVALID, SubmissionStatus.ERROR)


class Submission(LeasedJob, Base):
    """One answer to one exercise variant, and what grading made of it."""

    __tablename__ = "submissions"
    __table_args__ = (
        UniqueConstraint("user_id", "idempotency_key"),
        CheckConstraint(one_of("status", tuple(s.value for s in SubmissionStatus)), name="status"),
        CheckConstraint("score IS NULL OR (score >= 0 AND score <= 1)", name="score_range"),
        Index("ix_submissions_user_exercise", "user_id", "exercise_id"),
        Index("ix_submissions_status_dispatched", "status", "dispatched_at"),
        # One assignment's rows in id order: "newest first, one page" listings and the oldest-first CSV export read
        # a few index entries instead of walking the primary key past every newer submission of other courses.
        # Its leading column serves every other look-up by assignment too (the dashboards).
        Index("ix_submissions_assignment_id_id", "assignment_id", "id"),
        # AUTOINCREMENT: task messages carry ids; SQLite must never reuse one for a different submission.
        {"sqlite_autoincrement": True},
    )
    QUEUED = SubmissionStatus.QUEUED
    WORKING = SubmissionStatus.GRADING

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    assignment_id: Mapped[int | None] = mapped_column(ForeignKey("assignments.id", ondelete="SET NULL"))
    exercise_id: Mapped[str] = mapped_column(String(64))
    seed: Mapped[int] = mapped_column(BigInteger)
    lang: Mapped[str] = mapped_column(String(8))
    raw_answer: Mapped[Any] = mapped_column(JSON)  # exactly what was typed or sent
    parsed_answer: Mapped[Any | None] = mapped_column(JSON)  # the engine's reading at submit time
    idempotency_key: Mapped[str | None] = mapped_column(String(128))
    status: Mapped[str] = mapped_column(String(16), default=SubmissionStatus.QUEUED)
    score: Mapped[float | None]
    parts: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    errors: Mapped[list[Any] | None] = mapped_column(JSON)
    engine_version: Mapped[str | None] = mapped_column(String(32))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    user: Mapped[User] = relationship()
    assignment: Mapped[Assignment | None] = relationship()
    grade_log: Mapped[list[GradeLogEntry]] = relationship(
        back_populates="submission", order_by="GradeLogEntry.id", passive_deletes=True
    )

    @property
    def is_final(self) -> bool:
        """True once grading has ended (graded, invalid or error)."""
        return self.status in FINAL_STATUSES


class GradeLogEntry(Base):
    """One change of a submission's score; rows are only ever inserted."""

    __tablename__ = "grade_log"
    # AUTOINCREMENT: the grade-change feed pages by id; SQLite must never give a new entry a passed cursor's id.
    __table_args__ = ({"sqlite_autoincrement": True},)

    id: Mapped[int] = mapped_column(primary_key=True)
    submission_id: Mapped[int] = mapped_column(ForeignKey("submissions.id", ondelete="CASCADE"), index=True)
    old_score: Mapped[float | None]
    new_score: Mapped[float | None]
    old_engine_version: Mapped[str | None] = mapped_column(String(32))
    new_engine_version: Mapped[str | None] = mapped_column(String(32))
    reason: Mapped[str] = mapped_column(Text)
    actor: Mapped[str] = mapped_column(String(200))  # "worker:<host>:<pid>" or "user:<username>"
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    submission: Mapped[Submission] = relationship(back_populates="grade_log")


class AppendOnlyError(RuntimeError):
    """Raised when code tries to change or delete a grade-log row."""


@event.listens_for(GradeLogEntry, "before_update")
@event.listens_for(GradeLogEntry, "before_delete")
def _refuse_grade_log_change(_mapper: Mapper[Any], _connection: Any, target: GradeLogEntry) -> None:
    """The grade log is an audit trail: refuse updates and deletes through the ORM."""
    raise AppendOnlyError(f"grade log entry {target.id} is append-only")
