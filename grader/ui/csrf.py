"""A small CSRF guard: one random token per session, sent back in a form field or the X-CSRF-Token header."""

from __future__ import annotations

import hmac
import secrets

from flask import Request, abort, session

CSRF_SESSION_KEY = "csrf_token"
CSRF_FORM_FIELD = "csrf_token"
CSRF_HEADER = "X-CSRF-Token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})


def csrf_token() -> str:
    """This session's CSRF token, created on first use (login starts a new session, so a new token)."""
    token = session.get(CSRF_SESSION_KEY)
    if not isinstance(token, str):
        token = secrets.token_urlsafe(32)
        session[CSRF_SESSION_KEY] = token
    return token


def token_is_valid(request: Request) -> bool:
    """True if the request carries this session's token in the header or the form field."""
    expected = session.get(CSRF_SESSION_KEY)
    sent = request.headers.get(CSRF_HEADER) or request.form.get(CSRF_FORM_FIELD)
    # compare_digest raises TypeError on non-ASCII str; our tokens are ASCII, so such a value is simply wrong.
    if not isinstance(expected, str) or not isinstance(sent, str) or not sent.isascii():
        return False
    return hmac.compare_digest(expected, sent)


def protect(request: Request) -> None:
    """Refuse (400) an unsafe request that does not carry the session's CSRF token."""
    if request.method not in SAFE_METHODS and not token_is_valid(request):
        abort(400, description="csrf")
