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
        UniqueConstraint("user_id", "exercise_id", "scope"),
        CheckConstraint("seed >= 0", name="seed_non_negative"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    exercise_id: Mapped[str] = mapped_column(String(64))
    seed: Mapped[int] = mapped_column(BigInteger)
    # SHARED_SCOPE (0): the variant every assignment sharing variants shows; otherwise the id of the one assignment
    # with fresh variants it belongs to (assignment ids start at 1 and are never reused).
    scope: Mapped[int] = mapped_column(default=0, server_default="0")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
