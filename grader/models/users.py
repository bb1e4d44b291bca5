"""People and their credentials: users with a role, and hashed API tokens."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy import CheckConstraint, ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column, relationship

from grader.models.base import Base, one_of, utcnow


class Role(StrEnum):
    """What a user (or a token) may do; ordered from least to most privileged."""

    STUDENT = "student"
    TEACHER = "teacher"
    ADMIN = "admin"


ROLE_VALUES = tuple(role.value for role in Role)


class User(Base):
    """A person who signs in: a student, teacher or admin."""

    __tablename__ = "users"
    # AUTOINCREMENT: SQLite must never hand a deleted user's id (kept in session cookies) to someone else.
    __table_args__ = (CheckConstraint(one_of("role", ROLE_VALUES), name="role"), {"sqlite_autoincrement": True})

    id: Mapped[int] = mapped_column(primary_key=True)
    username: Mapped[str] = mapped_column(String(64), unique=True)
    display_name: Mapped[str] = mapped_column(String(128))
    role: Mapped[str] = mapped_column(String(16))
    password_hash: Mapped[str | None] = mapped_column(String(255))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    # Signed-in browsers carry the epoch they signed in under; signing out moves it on, so a copied or replayed
    # session cookie stops working (the cookie itself lives in the browser and cannot be recalled).
    session_epoch: Mapped[int] = mapped_column(default=0, server_default="0")
    # Set by an administrator: the account cannot sign in, and its sessions, tokens and sign-in links have ended.
    deactivated_at: Mapped[datetime | None]

    tokens: Mapped[list[ApiToken]] = relationship(back_populates="user", cascade="all, delete-orphan")

    @property
    def is_teacher(self) -> bool:
        """True for teachers and admins."""
        return self.role in (Role.TEACHER, Role.ADMIN)

    def __repr__(self) -> str:
        return f"<User {self.id} {self.username} {self.role}>"


class ApiToken(Base):
    """A bearer token for the API; only its SHA-256 hash is stored."""

    __tablename__ = "api_tokens"
    __table_args__ = (CheckConstraint(one_of("role", ROLE_VALUES), name="role"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(128))
    role: Mapped[str] = mapped_column(String(16))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    last_used_at: Mapped[datetime | None]
    revoked_at: Mapped[datetime | None]
    expires_at: Mapped[datetime | None]  # None: until revoked

    user: Mapped[User] = relationship(back_populates="tokens")
