"""Who is calling: a bearer token (API clients) or the session cookie (web pages); 401 versus 403."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property, wraps
from typing import ParamSpec, TypeVar

from flask import request

from grader.api_errors import ApiError
from grader.auth_session import current_user
from grader.extensions import get_session, request_scoped
from grader.grading.access import Actor
from grader.models import Role, User
from grader.security import find_live_token, record_token_use, role_at_least

P = ParamSpec("P")
R = TypeVar("R")
BEARER_CHALLENGE = {"WWW-Authenticate": 'Bearer realm="grader"'}


@dataclass(frozen=True)
class Principal:
    """The caller: a user acting with a role (a token's role may be lower than its owner's)."""

    user_id: int
    username: str
    role: str
    via: str  # "token" or "session"

    @classmethod
    def of_user(cls, user: User, role: str, via: str) -> Principal:
        """A principal for an already loaded ``user`` (no second look-up when ``user`` is asked for)."""
        principal = cls(user.id, user.username, role, via)
        principal.__dict__["user"] = user
        return principal

    @cached_property
    def user(self) -> User:
        """The caller's User row, loaded on first use into this request's session (most API calls need only the id)."""
        user = get_session().get(User, self.user_id)
        if user is None:  # deleted while the request ran
            raise ApiError(401, "invalid_token", "The token's owner no longer exists.", headers=BEARER_CHALLENGE)
        return user

    @property
    def actor(self) -> Actor:
        """The caller as the access rules (grader.grading.access) see it: a user acting with this role."""
        return Actor(self.user_id, self.role)

    @property
    def is_admin(self) -> bool:
        """True when acting as an admin."""
        return self.actor.is_admin

    @property
    def is_staff(self) -> bool:
        """True when acting as a teacher or admin."""
        return role_at_least(self.role, Role.TEACHER)


def _acting_role(user_role: str, token_role: str) -> str:
    """The lower of a user's role and its token's role (a token never grants more than its owner has)."""
    return token_role if role_at_least(user_role, token_role) else user_role


def _resolve() -> Principal | None:
    """Read the Authorization header, else the session cookie; a malformed or unknown token is a 401."""
    header = request.headers.get("Authorization")
    if header is not None:
        scheme, _, raw_token = header.strip().partition(" ")
        if scheme.lower() != "bearer" or not raw_token.strip():
            raise ApiError(401, "invalid_token", "Use 'Authorization: Bearer <token>'.", headers=BEARER_CHALLENGE)
        session = get_session()
        token = find_live_token(session, raw_token.strip())
        if token is None:
            # One message for every dead token: which of the three it is would tell a guesser that a token existed.
            raise ApiError(401, "invalid_token", "The token is unknown, revoked or expired.", headers=BEARER_CHALLENGE)
        if record_token_use(session, token):
            session.commit()  # keep last_used_at even if the request later fails
        return Principal(token.user_id, token.username, _acting_role(token.user_role, token.token_role), "token")
    user = current_user()
    return Principal.of_user(user, user.role, "session") if user is not None else None


def current_principal() -> Principal | None:
    """The caller of this request, or None if anonymous; resolved once per request."""
    cache = request_scoped()
    if "principal" not in cache:
        cache["principal"] = _resolve()
    principal: Principal | None = cache["principal"]
    return principal


def require_principal() -> Principal:
    """The caller, or a 401 error if nobody is signed in."""
    principal = current_principal()
    if principal is None:
        raise ApiError(
            401, "unauthenticated", "Sign in or send 'Authorization: Bearer <token>'.", headers=BEARER_CHALLENGE
        )
    return principal


def require_user(view: Callable[P, R]) -> Callable[P, R]:
    """View decorator: 401 unless the caller is authenticated."""

    @wraps(view)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        require_principal()
        return view(*args, **kwargs)

    return wrapper


def require_role(*roles: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """View decorator: 401 if anonymous, 403 unless the caller acts with one of ``roles``."""

    def decorate(view: Callable[P, R]) -> Callable[P, R]:
        @wraps(view)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            principal = require_principal()
            if principal.role not in roles:
                raise ApiError(403, "forbidden", f"This needs the role {' or '.join(roles)}.")
            return view(*args, **kwargs)

        return wrapper

    return decorate
