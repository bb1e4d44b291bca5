"""Cookie sessions for the web pages: sign a user in or out and find who is signed in.

A sign-in lasts ``GRADER_SESSION_HOURS`` without use (the cookie is renewed on every request). A course can also
cap how long its members' sign-ins last from the moment they signed in (``Course.session_hours``, set by its
teachers): a member of such a course is signed out that many hours after signing in, whatever they do meanwhile,
and the cookie expires then as well.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

from flask import Flask, Request, session
from flask.sessions import SecureCookieSession, SecureCookieSessionInterface, SessionMixin
from sqlalchemy import ScalarSelect, func, select, update
from sqlalchemy.orm import Session

from grader.extensions import get_session, request_scoped
from grader.models import Course, Enrolment, User

SESSION_USER_KEY = "user_id"
SESSION_EPOCH_KEY = "epoch"
SIGNED_IN_AT_KEY = "signed_in_at"  # epoch seconds of the sign-in
ENDS_AT_KEY = "ends_at"  # epoch seconds when a course's cap ends this sign-in (absent: no cap applies)


def login_user(user: User) -> None:
    """Sign ``user`` in for this browser (a fresh session, so a fixed session id cannot be reused)."""
    session.clear()
    session[SESSION_USER_KEY] = user.id
    session[SESSION_EPOCH_KEY] = user.session_epoch
    session[SIGNED_IN_AT_KEY] = int(time.time())
    session.permanent = True
    _note_cap_end(get_session().scalar(select(session_cap_hours(user.id))))  # the cookie ends with the cap
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
    last sign-out, of a deactivated account, or older than a course of theirs allows, counts as nobody."""
    cache = request_scoped()
    if "current_user" not in cache:
        user_id = session.get(SESSION_USER_KEY)
        found = _user_and_cap(get_session(), user_id) if isinstance(user_id, int) else None
        user = None
        if found is not None:
            user, cap_hours = found
            ends_at = _note_cap_end(cap_hours)
            if (
                session.get(SESSION_EPOCH_KEY, 0) != user.session_epoch
                or user.deactivated_at is not None
                or (ends_at is not None and time.time() >= ends_at)
            ):
                user = None
        cache["current_user"] = user
    known: User | None = cache["current_user"]
    return known


def session_cap_hours(user_id: Any) -> ScalarSelect[int | None]:
    """SQL: the shortest sign-in length any course of ``user_id`` sets (hours from signing in); NULL if none does."""
    return (
        select(func.min(Course.session_hours))
        .join(Enrolment, Enrolment.course_id == Course.id)
        .where(Enrolment.user_id == user_id)
        .scalar_subquery()
    )


def _user_and_cap(db: Session, user_id: int) -> tuple[User, int | None] | None:
    """The user and their courses' cap, in the one statement that loaded the user alone before caps existed."""
    row = db.execute(select(User, session_cap_hours(User.id)).where(User.id == user_id)).first()
    return None if row is None else (row[0], row[1])


def _note_cap_end(hours: int | None) -> int | None:
    """When this sign-in ends under its courses' cap of ``hours`` (epoch seconds; None: no cap), kept in the session
    for the cookie's expiry, so that a cap set, changed or lifted since the sign-in applies from the next request on.
    A session without a sign-in time (issued before caps existed) ended at once: 0."""
    if hours is None:
        session.pop(ENDS_AT_KEY, None)
        return None
    signed_in_at = session.get(SIGNED_IN_AT_KEY)
    if not isinstance(signed_in_at, int):
        return 0
    ends_at = signed_in_at + hours * 3600
    if session.get(ENDS_AT_KEY) != ends_at:
        session[ENDS_AT_KEY] = ends_at
    return ends_at


class CappedSessionInterface(SecureCookieSessionInterface):
    """Flask's signed-cookie sessions, whose cookie expires no later than a course's cap on the sign-in."""

    def open_session(self, app: Flask, request: Request) -> SecureCookieSession | None:
        """Flask's, without building the signing serializer for a request that carries no session cookie (every
        API call with a token, every first visit): its new session is empty either way."""
        if app.secret_key and not request.cookies.get(self.get_cookie_name(app)):
            return self.session_class()
        return super().open_session(app, request)

    def get_expiration_time(self, app: Flask, session: SessionMixin) -> datetime | None:
        """The site's renewed expiry, or the cap's end if that comes first."""
        expires = super().get_expiration_time(app, session)
        ends_at: Any = session.get(ENDS_AT_KEY)
        if expires is None or not isinstance(ends_at, int):
            return expires
        return min(expires, datetime.fromtimestamp(ends_at, UTC))
