"""Passwords (argon2) and API tokens (random, stored as SHA-256) and their look-up."""

from __future__ import annotations

import functools
import hashlib
import secrets
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, cast

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import Select, Table, bindparam, or_, select, update
from sqlalchemy.orm import Session, contains_eager

from grader import driver_statements
from grader.models import ApiToken, Role, User, utcnow

TOKEN_PREFIX = "grd_"
# last_used_at is kept to this precision (a minute is plenty to spot stale or leaked tokens).
LAST_USED_GRANULARITY = timedelta(seconds=60)
_ROLE_RANK = {Role.STUDENT: 0, Role.TEACHER: 1, Role.ADMIN: 2}
_hasher = PasswordHasher()


@dataclass(frozen=True)
class LiveToken:
    """What a request needs to know about a live bearer token and its owner (read without ORM objects)."""

    token_id: int
    token_role: str
    last_used_at: datetime | None
    user_id: int
    username: str
    user_role: str


def _live_token_query() -> Select[Any]:
    """SQL: the live token with ``token_hash`` joined to its owner, as plain columns."""
    tokens, users = ApiToken.__table__.c, User.__table__.c
    return (
        select(tokens.id, tokens.role, tokens.last_used_at, users.id, users.username, users.role)
        .select_from(ApiToken.__table__.join(User.__table__, users.id == tokens.user_id))
        .where(
            tokens.token_hash == bindparam("token_hash"),
            tokens.revoked_at.is_(None),
            users.deactivated_at.is_(None),
            or_(tokens.expires_at.is_(None), tokens.expires_at > bindparam("now", type_=tokens.expires_at.type)),
        )
    )


# Built once: every API request runs them, and building a statement costs more than SQLAlchemy's cached compile.
_LIVE_TOKEN_QUERY = _live_token_query()
_TOKEN_USED = (
    update(cast(Table, ApiToken.__table__))
    .where(ApiToken.__table__.c.id == bindparam("token_id"))
    .values(last_used_at=bindparam("used_at", type_=ApiToken.__table__.c.last_used_at.type))
)


def hash_password(password: str) -> str:
    """An argon2id hash of ``password`` (salted; safe to store)."""
    return _hasher.hash(password)


def verify_password(password_hash: str | None, password: str) -> bool:
    """True if ``password`` matches ``password_hash``; False for users without a password."""
    if not password_hash:
        return False
    try:
        return _hasher.verify(password_hash, password)
    except (VerificationError, InvalidHashError):
        return False


class PasswordChecksBusy(RuntimeError):
    """Every slot for checking a password in this process is taken: ask the client to try again in a second."""


# At most this many password checks (argon2, or the equal wait for an unknown name) run at once per web process: a
# flood of sign-ins then holds two threads, not every thread the other users' requests need.
CONCURRENT_PASSWORD_CHECKS = 2
_password_checks = threading.BoundedSemaphore(CONCURRENT_PASSWORD_CHECKS)


def authenticate_password(session: Session, username: str, password: str) -> User | None:
    """The user with this username and password, or None; raises PasswordChecksBusy (nothing checked) while
    CONCURRENT_PASSWORD_CHECKS other checks run in this process."""
    if not _password_checks.acquire(blocking=False):
        raise PasswordChecksBusy()
    try:
        return _check_password(session, username, password)
    finally:
        _password_checks.release()


def _check_password(session: Session, username: str, password: str) -> User | None:
    """``authenticate_password`` once a slot is held."""
    user = session.scalar(select(User).where(User.username == username))
    if user is None:
        # Take as long as a wrong password would, so that unknown usernames cannot be told apart, but by waiting
        # rather than hashing: a flood of made-up names then costs threads, not the CPU every other user needs.
        time.sleep(_verify_seconds())
        return None
    # A deactivated account is checked like any other (the same time taken), then refused as a wrong password is.
    return user if verify_password(user.password_hash, password) and user.deactivated_at is None else None


@functools.cache
def _verify_seconds() -> float:
    """How long checking one password takes here (the fastest of a few checks against a throw-away hash)."""
    sample = _hasher.hash(secrets.token_urlsafe(16))
    timings = []
    for _ in range(3):
        started = time.perf_counter()
        verify_password(sample, "not-the-password")
        timings.append(time.perf_counter() - started)
    return min(timings)


class RoleMismatch(ValueError):
    """An existing user has a different role from the one asked for."""


def ensure_user(
    session: Session, username: str, role: str, display_name: str | None = None, password: str | None = None
) -> User:
    """The user called ``username``, created (and flushed) with ``role`` and ``password`` if missing.

    Raises RoleMismatch if the user exists with another role. The caller commits.
    """
    user = session.scalar(select(User).where(User.username == username))
    if user is None:
        user = User(
            username=username,
            display_name=display_name or username,
            role=role,
            password_hash=hash_password(password) if password else None,
        )
        session.add(user)
        session.flush()
    elif user.role != role:
        raise RoleMismatch(f"user {username!r} exists with role {user.role}, not {role}")
    return user


def hash_token(raw_token: str) -> str:
    """The SHA-256 hex digest under which a token is stored (tokens are random, so no salt is needed)."""
    return hashlib.sha256(raw_token.encode("utf-8")).hexdigest()


def generate_token() -> str:
    """A new random bearer token string."""
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def issue_token(
    session: Session, user: User, *, name: str, role: str | None = None, expires_in: timedelta | None = None
) -> str:
    """Create an ApiToken for ``user`` (role defaults to the user's; never above it) and return the raw token.

    With ``expires_in`` the token stops working that long from now; without, when revoked. The raw token is shown
    once; only its hash is kept. The caller commits.
    """
    token_role = Role(role or user.role)
    if _ROLE_RANK[token_role] > _ROLE_RANK[Role(user.role)]:
        raise ValueError(f"a {user.role} cannot hold a {token_role} token")
    raw = generate_token()
    expires_at = utcnow() + expires_in if expires_in is not None else None
    session.add(ApiToken(user=user, name=name, role=token_role, token_hash=hash_token(raw), expires_at=expires_at))
    return raw


def find_live_token(session: Session, raw_token: str | None) -> LiveToken | None:
    """The live (not revoked, not expired) token for ``raw_token`` and its owner, in one query; writes nothing."""
    if not raw_token:
        return None
    row = driver_statements.first(session, _LIVE_TOKEN_QUERY, {"token_hash": hash_token(raw_token), "now": utcnow()})
    return None if row is None else LiveToken(*row)


def record_token_use(session: Session, token: LiveToken) -> bool:
    """Write ``last_used_at`` unless it was set within LAST_USED_GRANULARITY; True if it wrote (caller commits).

    A write (and its commit) on every request would double the request's round trips for a figure nobody
    needs to the second.
    """
    now = utcnow()
    if token.last_used_at is not None and now - token.last_used_at < LAST_USED_GRANULARITY:
        return False
    session.execute(_TOKEN_USED, {"token_id": token.token_id, "used_at": now})
    return True


def tokens_of(session: Session, username: str | None = None) -> list[ApiToken]:
    """Every API token (or ``username``'s), oldest first, with its owner loaded; hashes only, never the tokens."""
    query = select(ApiToken).join(ApiToken.user).options(contains_eager(ApiToken.user)).order_by(ApiToken.id)
    if username is not None:
        query = query.where(User.username == username)
    return list(session.scalars(query))


def revoke_token(session: Session, token_id: int) -> ApiToken | None:
    """Mark token ``token_id`` revoked (it stops working at once; its row stays for the record); the caller
    commits. None if there is no such token; an already revoked token keeps its first revocation time."""
    token = session.get(ApiToken, token_id)
    if token is not None and token.revoked_at is None:
        token.revoked_at = utcnow()
    return token


def role_at_least(role: str, minimum: str) -> bool:
    """True if ``role`` is ``minimum`` or more privileged (student < teacher < admin)."""
    return _ROLE_RANK[Role(role)] >= _ROLE_RANK[Role(minimum)]
