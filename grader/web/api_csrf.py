"""CSRF for the JSON API when the caller is authenticated by the session cookie (the pages' scripts)."""

from __future__ import annotations

from flask import request, session

from grader.api_errors import ApiError, is_api_request
from grader.auth_session import SESSION_USER_KEY
from grader.ui.csrf import CSRF_HEADER, SAFE_METHODS, token_is_valid


def protect_cookie_api_posts() -> None:
    """An unsafe API request riding on a signed-in session must send X-CSRF-Token; bearer-token calls need not.

    A cross-site page can make the browser send the cookie but cannot read the token from our pages.
    """
    if request.method in SAFE_METHODS or not is_api_request() or "Authorization" in request.headers:
        return
    if session.get(SESSION_USER_KEY) is not None and not token_is_valid(request):
        raise ApiError(
            403,
            "csrf_failed",
            f"Cookie-authenticated requests must send the {CSRF_HEADER} header "
            'with the token from the page\'s <meta name="csrf-token">.',
        )
