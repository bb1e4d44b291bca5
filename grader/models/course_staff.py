"""Course staff besides the course's own teachers: co-teachers and teaching assistants of one course.

What each part may do is decided in one place, ``grader.grading.access``; this table only says who holds which part.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy import CheckConstraint, ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from grader.models.base import Base, one_of, utcnow
from grader.models.users import User


class StaffRole(StrEnum):
    """A staff member's part in one course."""

    CO_TEACHER = "co_teacher"
    TA = "ta"


class CourseStaff(Base):
    """One user's staff part in one course (the course's owners are its teacher enrolments, not rows here)."""

    __tablename__ = "course_staff"
    __table_args__ = (
        UniqueConstraint("course_id", "user_id"),
        CheckConstraint(one_of("role", tuple(r.value for r in StaffRole)), name="role"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    course_id: Mapped[int] = mapped_column(ForeignKey("courses.id", ondelete="CASCADE"))
    # Indexed: every access check of a staff member looks their rows up by user.
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    role: Mapped[str] = mapped_column(String(16))
    # Who added (or last changed) the row; kept (as NULL) if that account is removed.
    added_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)

    user: Mapped[User] = relationship(foreign_keys=[user_id])
