"""Teachers' corrections of a counted score (per exercise, or of an assignment's total), and their append-only log."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import CheckConstraint, ForeignKey, String, Text, UniqueConstraint, event
from sqlalchemy.orm import Mapped, Mapper, mapped_column

from grader.models.base import Base, utcnow
from grader.models.submissions import AppendOnlyError

OVERRIDE_REASON_MAX = 500
TOTAL = ""  # the exercise id of an override of the assignment's total


class ScoreOverride(Base):
    """The score that counts for one student on one exercise of an assignment (or on its total, ``TOTAL``), set by a
    teacher with a reason; it stands through regrades until a teacher clears it. Read through
    ``grader.grading.overrides``."""

    __tablename__ = "score_overrides"
    __table_args__ = (
        UniqueConstraint("assignment_id", "user_id", "exercise_id"),
        CheckConstraint("score >= 0 AND score <= 1", name="score_fraction"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    assignment_id: Mapped[int] = mapped_column(ForeignKey("assignments.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    exercise_id: Mapped[str] = mapped_column(String(64))
    score: Mapped[float]  # a fraction of the exercise's (or the total's) full marks, as engine scores are
    reason: Mapped[str] = mapped_column(String(OVERRIDE_REASON_MAX))
    set_by: Mapped[str] = mapped_column(String(200))  # "user:<username>", as the grade log's actor
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class OverrideLogEntry(Base):
    """One setting or clearing of an override; rows are only ever inserted (the overrides' part of the grade log)."""

    __tablename__ = "override_log"
    __table_args__ = ({"sqlite_autoincrement": True},)

    id: Mapped[int] = mapped_column(primary_key=True)
    assignment_id: Mapped[int] = mapped_column(ForeignKey("assignments.id", ondelete="CASCADE"), index=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    exercise_id: Mapped[str] = mapped_column(String(64))
    old_score: Mapped[float | None]  # the override before (None: none)
    new_score: Mapped[float | None]  # None: cleared
    reason: Mapped[str] = mapped_column(Text)
    actor: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


@event.listens_for(OverrideLogEntry, "before_update")
@event.listens_for(OverrideLogEntry, "before_delete")
def _refuse_log_change(_mapper: Mapper[Any], _connection: Any, target: OverrideLogEntry) -> None:
    """An audit trail: refuse updates and deletes through the ORM."""
    raise AppendOnlyError(f"override log entry {target.id} is append-only")
