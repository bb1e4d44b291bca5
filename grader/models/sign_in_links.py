"""One-time sign-in links: a new (or forgetful) student follows one to set a password; only its hash is stored."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from grader.models.base import Base, utcnow


class SignInLink(Base):
    """A link that signs its student in once, before ``expires_at``, to choose a password.

    The random token in the link is shown to the teacher once (in the download); the row keeps its SHA-256 only."""

    __tablename__ = "sign_in_links"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    expires_at: Mapped[datetime]
    used_at: Mapped[datetime | None]  # set when it was used, or when a newer link replaced it
    # Who issued it; kept (as NULL) if that account is removed.
    issued_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
