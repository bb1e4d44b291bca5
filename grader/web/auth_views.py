"""Log in, log out, and the sticky language switch."""

from __future__ import annotations

from flask import flash, redirect, request, url_for
from flask.typing import ResponseReturnValue

from exercises.i18n import LANGS
from grader import ratelimit
from grader.auth_session import current_user, login_user, logout_user
from grader.extensions import get_session
from grader.i18n import LANG_COOKIE, LANG_COOKIE_MAX_AGE, t
from grader.models import User
from grader.security import PasswordChecksBusy, authenticate_password
from grader.ui.page_helpers import gettable_next, page_lang, render, safe_next
from grader.ui.routes import Routes


def _landing(user: User) -> str:
    """Where a sign-in leads when no page was asked for: teachers to their dashboard, students to their courses."""
    return url_for("teacher.home") if user.is_teacher else url_for("web.courses")


routes = Routes()


@routes.get("/login")
def login() -> ResponseReturnValue:
    """The login form (signed-in users go straight on)."""
    user = current_user()
    if user is not None:
        return redirect(safe_next(request.args.get("next"), _landing(user)))
    return render("login.html", next=request.args.get("next", ""))


@routes.post("/login")
def login_submit() -> ResponseReturnValue:
    """Check the password; on success start a fresh session and go on to the page asked for."""
    username = request.form.get("username", "").strip()
    wait = ratelimit.login_retry_after(username)
    if wait:  # refused before the password is even checked, so guessing gets no faster by trying harder
        return render(
            "login.html",
            429,
            error=t("login.too_many", page_lang(), seconds=wait),
            username=username,
            next=request.form.get("next", ""),
        )
    try:
        user = authenticate_password(get_session(), username, request.form.get("password", ""))
    except PasswordChecksBusy:  # a sign-in flood: answered at once, counted as nothing, the thread kept free
        html, status = render(
            "login.html", 429, error=t("login.busy", page_lang()), username=username, next=request.form.get("next", "")
        )
        return html, status, {"Retry-After": "1"}
    if user is None:
        ratelimit.count_failed_login(username)
        return render(
            "login.html",
            401,
            error=t("login.failed", page_lang()),
            username=username,
            next=request.form.get("next", ""),
        )
    login_user(user)
    return redirect(safe_next(request.form.get("next"), _landing(user)))


@routes.post("/logout")
def logout() -> ResponseReturnValue:
    """End the session."""
    logout_user()
    flash(t("login.logged_out", page_lang()))
    return redirect(url_for("web.login"))


@routes.post("/lang")
def switch_language() -> ResponseReturnValue:
    """Remember the chosen language in a long-lived cookie and return to the page (or, for a page that answered a
    post, the nearest one above it that can be fetched)."""
    chosen = request.form.get("lang")
    response = redirect(gettable_next(request.form.get("next"), url_for("web.courses")))
    if chosen in LANGS:
        response.set_cookie(LANG_COOKIE, chosen, max_age=LANG_COOKIE_MAX_AGE, samesite="Lax", httponly=False)
    return response
