"""Columns shared by rows that a worker processes under a lease (submissions, capacity-lab runs)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import String, Text
from sqlalchemy.orm import Mapped, mapped_column

from grader.models.base import utcnow


class LeasedJob:
    """Mixin: the database row is the job; a worker owns it only while ``lease_owner``/``lease_until`` say so."""

    QUEUED: str = "queued"
    WORKING: str = "working"  # overridden: "grading" for submissions, "running" for lab runs

    attempts: Mapped[int] = mapped_column(default=0)
    max_attempts: Mapped[int] = mapped_column(default=3)
    lease_owner: Mapped[str | None] = mapped_column(String(200))
    lease_until: Mapped[datetime | None]
    dispatched_at: Mapped[datetime | None]  # last time a task message was sent for this row
    # Sweeper re-sends since the row was last claimed; each one doubles the wait before the next (see sweeper).
    resends: Mapped[int] = mapped_column(default=0, server_default="0")
    error_message: Mapped[str | None] = mapped_column(Text)
    queued_at: Mapped[datetime] = mapped_column(default=utcnow)  # when it (last) entered "queued"
    started_at: Mapped[datetime | None]  # when the latest lease was taken ("grading" / "running")
    finished_at: Mapped[datetime | None]  # when it reached a final status
