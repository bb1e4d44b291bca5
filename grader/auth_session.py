"""Cookie sessions for the web pages: sign a user in or out and find who is signed in."""

from __future__ import annotations

from flask import session
from sqlalchemy import update

from grader.extensions import get_session, request_scoped
from grader.models import User

SESSION_USER_KEY = "user_id"
SESSION_EPOCH_KEY = "epoch"


def login_user(user: User) -> None:
    """Sign ``user`` in for this browser (a fresh session, so a fixed session id cannot be reused)."""
    session.clear()
    session[SESSION_USER_KEY] = user.id
    session[SESSION_EPOCH_KEY] = user.session_epoch
    session.permanent = True
    request_scoped()["current_user"] = user


def logout_user() -> None:
    """Sign out whoever is signed in: this browser, and every session cookie of theirs issued before (a copy of
    the cookie replayed later, another device)."""
    user = current_user()
    if user is not None:
        db = get_session()
        db.execute(update(User).where(User.id == user.id).values(session_epoch=User.session_epoch + 1))
        db.commit()
    session.clear()
    request_scoped().pop("current_user", None)


def current_user() -> User | None:
    """The signed-in user of this request, or None; loaded once per request. A cookie from before the user's
    last sign-out, or of a deactivated account, counts as nobody."""
    cache = request_scoped()
    if "current_user" not in cache:
        user_id = session.get(SESSION_USER_KEY)
        user = get_session().get(User, user_id) if isinstance(user_id, int) else None
        if user is not None and (
            session.get(SESSION_EPOCH_KEY, 0) != user.session_epoch or user.deactivated_at is not None
        ):
            user = None
        cache["current_user"] = user
    known: User | None = cache["current_user"]
    return known
