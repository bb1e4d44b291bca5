"""People and their credentials: users with a role, and hashed API tokens."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy import CheckConstraint, ColumnElement, ForeignKey, String, func, literal
from sqlalchemy.orm import Mapped, mapped_column, relationship

from grader.models.base import Base, one_of, utcnow


class Role(StrEnum):
    """What a user (or a token) may do; ordered from least to most privileged."""

    STUDENT = "student"
    TEACHER = "teacher"
    ADMIN = "admin"


ROLE_VALUES = tuple(role.value for role in Role)
# Between the username and the name in a search: nobody types it, so no match spans the two.
NAME_SEPARATOR = "\x1f"


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

    @classmethod
    def name_contains(cls, text: str) -> ColumnElement[bool]:
        """SQL: the username or the display name contains ``text``, in any case; LIKE's wildcards in ``text`` match
        themselves. Every search of people (rosters, dashboards, the gradebook, the users page) asks this.

        One LIKE over both names lowered together: on PostgreSQL it reads a MOOC course's names in less than half
        the time of an ILIKE on each; the database lowers both sides, so the two agree on what case is."""
        # The separator is no letter of anyone's name: typed (or sent) in a search, it is dropped.
        escaped = text.replace(NAME_SEPARATOR, "").replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        names = func.lower(cls.username + NAME_SEPARATOR + cls.display_name)
        return names.like(func.lower(literal(f"%{escaped}%")), escape="\\")

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
