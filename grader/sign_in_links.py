"""One-time sign-in links: issue them for students (the raw token is returned once, a hash is kept), and redeem
one by choosing a password, which ends every session of the account begun before."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from grader.models import Role, SignInLink, User, utcnow
from grader.security import hash_password, hash_token

LINK_LIFETIME = timedelta(days=14)
MIN_PASSWORD = 8
MAX_PASSWORD = 256  # argon2 takes any length; a megabyte "password" would only cost CPU


@dataclass(frozen=True)
class IssuedLink:
    """A link just issued: its student and the raw token (shown once, in the teacher's download)."""

    user: User
    token: str
    link: SignInLink


def issue_links(session: Session, users: list[User], issued_by: User) -> list[IssuedLink]:
    """A new link for each student in ``users``; their earlier unused links stop working. Commits.

    Only active student accounts get links: a teacher must never be able to take over a colleague's or an admin's
    account, nor bring back one an administrator deactivated."""
    students = [user for user in users if user.role == Role.STUDENT and user.deactivated_at is None]
    if not students:
        return []
    now = utcnow()
    session.execute(
        update(SignInLink)
        .where(SignInLink.user_id.in_([u.id for u in students]), SignInLink.used_at.is_(None))
        .values(used_at=now)
    )
    issued = []
    for user in students:
        token = secrets.token_urlsafe(32)
        link = SignInLink(
            user_id=user.id, token_hash=hash_token(token), expires_at=now + LINK_LIFETIME, issued_by=issued_by.id
        )
        session.add(link)
        issued.append(IssuedLink(user, token, link))
    session.commit()
    return issued


def live_link(session: Session, token: str) -> SignInLink | None:
    """The unused, unexpired link with ``token``, or None (one answer for unknown, used and expired alike)."""
    if not token or len(token) > 100:
        return None
    link = session.scalar(select(SignInLink).where(SignInLink.token_hash == hash_token(token)))
    if link is None or link.used_at is not None or link.expires_at <= utcnow():
        return None
    return link


def password_error(password: str, again: str) -> str | None:
    """The string key of what is wrong with a new password and its repetition, or None if it can be set."""
    if not password:
        return "link.err_empty"
    if len(password) < MIN_PASSWORD:
        return "link.err_short"
    if len(password) > MAX_PASSWORD:
        return "link.err_long"
    if password != again:
        return "link.err_mismatch"
    return None


def redeem(session: Session, token: str, password: str) -> User | None:
    """Use the link once: set the student's password and end their other sessions; commits. None if the link is
    not (or no longer) live, e.g. a second tab used it first. Check password_error first."""
    link = live_link(session, token)
    if link is None:
        return None
    # The conditional UPDATE is the arbiter: of two requests with one link, exactly one sees a row changed.
    used = session.execute(
        update(SignInLink).where(SignInLink.id == link.id, SignInLink.used_at.is_(None)).values(used_at=utcnow())
    )
    if used.rowcount != 1:  # type: ignore[attr-defined]
        session.rollback()
        return None
    user = session.get(User, link.user_id)
    if user is None or user.deactivated_at is not None:
        session.rollback()
        return None
    user.password_hash = hash_password(password)
    user.session_epoch = user.session_epoch + 1
    session.commit()
    return user
