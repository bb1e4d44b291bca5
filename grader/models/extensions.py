"""Exceptions to an assignment's rules for one student: a later due date and extra attempts."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import CheckConstraint, ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from grader.models.base import Base, utcnow

REASON_MAX = 500


class Extension(Base):
    """One student's own terms on one assignment: a due date later than the assignment's, extra attempts, or both.

    Read only through ``grader.grading.terms``, which answers every caller's "what is this student's due date and
    attempt limit here"."""

    __tablename__ = "extensions"
    __table_args__ = (
        UniqueConstraint("assignment_id", "user_id"),
        CheckConstraint("extra_attempts >= 0", name="extra_attempts_non_negative"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    assignment_id: Mapped[int] = mapped_column(ForeignKey("assignments.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    due_at: Mapped[datetime | None]  # None: the assignment's own due date
    extra_attempts: Mapped[int] = mapped_column(default=0)
    reason: Mapped[str] = mapped_column(String(REASON_MAX), default="")
    # Who gave it; kept (as NULL) if that account is removed.
    granted_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)
