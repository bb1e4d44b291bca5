"""A one-time sign-in link: the student chooses a password, is signed in, and the link is spent."""

from __future__ import annotations

from flask import make_response, redirect, request, url_for
from flask.typing import ResponseReturnValue

from grader.auth_session import login_user
from grader.extensions import get_session
from grader.models import User
from grader.sign_in_links import MIN_PASSWORD, live_link, password_error, redeem
from grader.ui.page_helpers import render
from grader.ui.routes import Routes

routes = Routes()


def _page(status: int, user: User | None, **extra: object) -> ResponseReturnValue:
    """The choose-a-password form (or, without ``user``, the page saying the link is spent or expired); the token
    in the address is never sent on as a Referer."""
    response = make_response(render("welcome.html", status, student=user, min_length=MIN_PASSWORD, **extra))
    response.headers["Referrer-Policy"] = "no-referrer"
    return response


@routes.get("/welcome/<token>")
def sign_in_link(token: str) -> ResponseReturnValue:
    """The form to choose a password, if the link is live (looking does not spend it)."""
    link = live_link(get_session(), token)
    user = get_session().get(User, link.user_id) if link else None
    return _page(200, user) if user else _page(410, None)


@routes.post("/welcome/<token>")
def sign_in_link_submit(token: str) -> ResponseReturnValue:
    """Set the password, spend the link and sign the student in; a refused password says why, spends nothing."""
    session = get_session()
    link = live_link(session, token)
    user = session.get(User, link.user_id) if link else None
    if user is None:
        return _page(410, None)
    error = password_error(request.form.get("password", ""), request.form.get("again", ""))
    if error is not None:
        return _page(422, user, error=error)
    redeemed = redeem(session, token, request.form.get("password", ""))
    if redeemed is None:  # another tab used the link a moment ago
        return _page(410, None)
    login_user(redeemed)
    return redirect(url_for("web.courses"))
