"""A teacher's own API tokens (for an LMS or a script): create one (shown once), list them, revoke one."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta

from flask import flash, redirect, request, url_for
from flask.typing import ResponseReturnValue
from werkzeug.exceptions import NotFound

from grader.extensions import get_session
from grader.i18n import t
from grader.models import ApiToken, Role, utcnow
from grader.security import issue_token, revoke_token, tokens_of
from grader.teacher.access import teacher_required
from grader.ui.page_helpers import page_lang, render, signed_in
from grader.ui.routes import Routes

TOKEN_NAME_MAX = 128
# A teacher may hold a token acting as a teacher, or one that acts as a student (e.g. to test as a student would).
TOKEN_ROLES = (Role.TEACHER.value, Role.STUDENT.value)
# Lifetimes offered, in days ("" = until revoked); a year is the default for an LMS's token.
TOKEN_LIFETIMES = ("365", "90", "30", "7", "")


def _page(
    status: int = 200, new_token: str | None = None, error: str | None = None, chosen: Mapping[str, str] | None = None
) -> ResponseReturnValue:
    """The token list with the create form; ``new_token`` is the one just made (never shown again); after an
    ``error`` the form shows what was ``chosen`` (a reset role or lifetime would make the next press create a
    stronger, longer-lived token than the one asked for)."""
    tokens = tokens_of(get_session(), signed_in().username)
    return render(
        "teach/tokens.html",
        status,
        tokens=tokens,
        new_token=new_token,
        error=error,
        roles=TOKEN_ROLES,
        lifetimes=TOKEN_LIFETIMES,
        now=utcnow(),
        chosen=chosen or {},
    )


routes = Routes()


@routes.get("/tokens")
@teacher_required
def tokens() -> ResponseReturnValue:
    """The signed-in teacher's API tokens."""
    return _page()


@routes.post("/tokens")
@teacher_required
def new_token() -> ResponseReturnValue:
    """Create a token for the signed-in teacher and show it once."""
    name, role = request.form.get("name", "").strip(), request.form.get("role", Role.TEACHER.value)
    lifetime = request.form.get("expires_in_days", "")
    if not 1 <= len(name) <= TOKEN_NAME_MAX or role not in TOKEN_ROLES or lifetime not in TOKEN_LIFETIMES:
        return _page(422, error="tokens.bad_form", chosen=request.form)
    expires_in = timedelta(days=int(lifetime)) if lifetime else None
    raw = issue_token(get_session(), signed_in(), name=name, role=role, expires_in=expires_in)
    get_session().commit()
    return _page(201, new_token=raw)


@routes.post("/tokens/<int:token_id>/revoke")
@teacher_required
def revoke(token_id: int) -> ResponseReturnValue:
    """Revoke one of the signed-in teacher's tokens (someone else's is a 404): the first post asks, one with
    confirm=yes acts."""
    session = get_session()
    token = session.get(ApiToken, token_id)
    if token is None or token.user_id != signed_in().id:
        raise NotFound()
    if request.form.get("confirm") != "yes":
        lang = page_lang()
        return render(
            "teach/confirm.html",
            cancel=url_for("teacher.tokens"),
            action=request.path,
            heading=t("tokens.revoke_heading", lang, name=token.name),
            question=t("tokens.revoke_question", lang),
            button=t("tokens.revoke_yes", lang),
        )
    revoke_token(session, token_id)
    session.commit()
    flash(t("tokens.revoked", page_lang()))
    return redirect(url_for("teacher.tokens"))
