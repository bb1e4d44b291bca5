"""Regrade jobs (re-checking an assignment's submissions on the workers) and the changes each one found."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy import CheckConstraint, ForeignKey, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from grader.models.base import Base, one_of, utcnow
from grader.models.courses import Assignment
from grader.models.jobs import LeasedJob
from grader.models.users import User


class RegradeStatus(StrEnum):
    """Life cycle: queued -> running -> done | error."""

    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    ERROR = "error"


ACTIVE_REGRADE_STATUSES = (RegradeStatus.QUEUED, RegradeStatus.RUNNING)


class RegradeJob(LeasedJob, Base):
    """One re-check of every final submission of an assignment with the current engine."""

    __tablename__ = "regrade_jobs"
    __table_args__ = (
        CheckConstraint(one_of("status", tuple(s.value for s in RegradeStatus)), name="status"),
        {"sqlite_autoincrement": True},  # task messages carry ids: never reuse one (SQLite)
    )
    QUEUED = RegradeStatus.QUEUED
    WORKING = RegradeStatus.RUNNING

    id: Mapped[int] = mapped_column(primary_key=True)
    assignment_id: Mapped[int] = mapped_column(ForeignKey("assignments.id", ondelete="CASCADE"), index=True)
    requested_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    requested_by: Mapped[str] = mapped_column(String(200))  # "user:<username>", kept for the grade log
    never_lower: Mapped[bool] = mapped_column(default=False)
    status: Mapped[str] = mapped_column(String(16), default=RegradeStatus.QUEUED)
    engine_version: Mapped[str | None] = mapped_column(String(32))  # the engine that did the re-check
    total: Mapped[int] = mapped_column(default=0)  # submissions to re-check, counted when the job starts
    processed: Mapped[int] = mapped_column(default=0)
    changed: Mapped[int] = mapped_column(default=0)  # changes applied to submissions
    kept: Mapped[int] = mapped_column(default=0)  # lower scores not applied because of never_lower
    cursor: Mapped[int] = mapped_column(default=0)  # highest submission id done; a re-delivered job resumes here
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    assignment: Mapped[Assignment] = relationship()
    changes: Mapped[list[RegradeChange]] = relationship(
        back_populates="job", order_by="RegradeChange.id", passive_deletes=True
    )

    @property
    def progress(self) -> float:
        """Fraction of submissions re-checked (1.0 once done)."""
        if self.status == RegradeStatus.DONE:
            return 1.0
        return self.processed / self.total if self.total else 0.0


class RegradeChange(Base):
    """One submission whose verdict a regrade job changed (or would have lowered, under never_lower)."""

    __tablename__ = "regrade_changes"
    __table_args__ = (UniqueConstraint("job_id", "submission_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    job_id: Mapped[int] = mapped_column(ForeignKey("regrade_jobs.id", ondelete="CASCADE"), index=True)
    submission_id: Mapped[int] = mapped_column(ForeignKey("submissions.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    exercise_id: Mapped[str] = mapped_column(String(64))
    old_status: Mapped[str] = mapped_column(String(16))
    new_status: Mapped[str] = mapped_column(String(16))
    old_score: Mapped[float | None]
    new_score: Mapped[float | None]
    old_engine_version: Mapped[str | None] = mapped_column(String(32))
    new_engine_version: Mapped[str | None] = mapped_column(String(32))
    applied: Mapped[bool] = mapped_column(default=True)  # False: a lower score kept back by never_lower
    reason: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    job: Mapped[RegradeJob] = relationship(back_populates="changes")
    user: Mapped[User] = relationship()
