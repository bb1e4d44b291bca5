"""Administering accounts: find users, change a role, deactivate an account (its sessions, API tokens and sign-in
links end at once) or activate it again."""

from __future__ import annotations

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from grader.models import ApiToken, Role, SignInLink, User, utcnow

PAGE_SIZE = 50
MAX_QUERY = 64


class AccountRefused(ValueError):
    """The change is not allowed; ``key`` names the string that says why."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def find_users(session: Session, query: str) -> list[User]:
    """Up to PAGE_SIZE users whose username or name contains ``query`` (every user for an empty one), by username."""
    statement = select(User).order_by(User.username).limit(PAGE_SIZE)
    text = query.strip()[:MAX_QUERY]
    if text:
        statement = statement.where(User.name_contains(text))
    return list(session.scalars(statement))


def _other_user(session: Session, admin: User, user_id: int) -> User:
    """The user ``user_id``, who must not be ``admin``: an administrator cannot lock themselves out."""
    user = session.get(User, user_id)
    if user is None:
        raise AccountRefused("admin.err_no_user")
    if user.id == admin.id:
        raise AccountRefused("admin.err_self")
    return user


def change_role(session: Session, admin: User, user_id: int, role: str) -> User:
    """Give the user ``role``; commits. A token keeps working only up to its owner's new role (see grader.auth)."""
    if role not in {r.value for r in Role}:
        raise AccountRefused("admin.err_role")
    user = _other_user(session, admin, user_id)
    user.role = role
    session.commit()
    return user


def set_active(session: Session, admin: User, user_id: int, active: bool) -> User:
    """Deactivate the account (every session, API token and unused sign-in link of it ends now) or activate it
    again (it signs in with its password; ended tokens stay revoked); commits."""
    user = _other_user(session, admin, user_id)
    if active:
        user.deactivated_at = None
    elif user.deactivated_at is None:
        now = utcnow()
        user.deactivated_at = now
        user.session_epoch = user.session_epoch + 1
        session.execute(
            update(ApiToken).where(ApiToken.user_id == user.id, ApiToken.revoked_at.is_(None)).values(revoked_at=now)
        )
        session.execute(
            update(SignInLink).where(SignInLink.user_id == user.id, SignInLink.used_at.is_(None)).values(used_at=now)
        )
    session.commit()
    return user
