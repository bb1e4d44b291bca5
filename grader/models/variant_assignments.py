"""The seed each student gets for each exercise, fixed once assigned."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, CheckConstraint, ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from grader.models.base import Base, utcnow


class VariantAssignment(Base):
    """Which variant (seed) of an exercise a user works on; created by ``grader.grading.variant_seeds.seed_for``."""

    __tablename__ = "variant_assignments"
    __table_args__ = (
        UniqueConstraint("user_id", "exercise_id"),
        CheckConstraint("seed >= 0", name="seed_non_negative"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    exercise_id: Mapped[str] = mapped_column(String(64))
    seed: Mapped[int] = mapped_column(BigInteger)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
