"""Cookie sessions for the web pages: sign a user in or out and find who is signed in."""

from __future__ import annotations

from flask import session

from grader.extensions import get_session, request_scoped
from grader.models import User

SESSION_USER_KEY = "user_id"


def login_user(user: User) -> None:
    """Sign ``user`` in for this browser (a fresh session, so a fixed session id cannot be reused)."""
    session.clear()
    session[SESSION_USER_KEY] = user.id
    session.permanent = True
    request_scoped()["current_user"] = user


def logout_user() -> None:
    """Sign out whoever is signed in."""
    session.clear()
    request_scoped().pop("current_user", None)


def current_user() -> User | None:
    """The signed-in user of this request, or None; loaded once per request."""
    cache = request_scoped()
    if "current_user" not in cache:
        user_id = session.get(SESSION_USER_KEY)
        cache["current_user"] = get_session().get(User, user_id) if isinstance(user_id, int) else None
    return cache["current_user"]
