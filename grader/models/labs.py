"""Capacity-lab runs: cached by a hash of their parameters, with progress for the page that waits."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import JSON, CheckConstraint, ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from grader.models.base import Base, one_of, utcnow
from grader.models.jobs import LeasedJob


class LabStatus(StrEnum):
    """Life cycle: queued -> running -> done | error."""

    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    ERROR = "error"


class LabRun(LeasedJob, Base):
    """One run of ``engine.run_capacity_lab``; the same parameters always map to the same row."""

    __tablename__ = "lab_runs"
    __table_args__ = (
        CheckConstraint(one_of("status", tuple(s.value for s in LabStatus)), name="status"),
        CheckConstraint("progress >= 0 AND progress <= 1", name="progress_range"),
        {"sqlite_autoincrement": True},  # task messages carry ids: never reuse one (SQLite)
    )
    QUEUED = LabStatus.QUEUED
    WORKING = LabStatus.RUNNING

    id: Mapped[int] = mapped_column(primary_key=True)
    params_hash: Mapped[str] = mapped_column(String(64), unique=True)
    params: Mapped[dict[str, Any]] = mapped_column(JSON)
    engine_version: Mapped[str] = mapped_column(String(32))
    status: Mapped[str] = mapped_column(String(16), default=LabStatus.QUEUED)
    progress: Mapped[float] = mapped_column(default=0.0)
    result: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    requested_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
