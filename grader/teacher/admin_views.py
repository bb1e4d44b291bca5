"""The administrator's users page: find users, change a role, deactivate an account or activate it again."""

from __future__ import annotations

from flask import flash, redirect, request, url_for
from flask.typing import ResponseReturnValue

from grader import accounts
from grader.extensions import get_session
from grader.i18n import t
from grader.models.users import ROLE_VALUES
from grader.teacher.access import admin_required
from grader.ui.page_helpers import page_lang, render, signed_in
from grader.ui.routes import Routes

routes = Routes()


def _page(status: int = 200, error: str | None = None) -> ResponseReturnValue:
    """The search form and the users found for ``q`` (kept in the form's address so a change returns to it)."""
    query = request.values.get("q", "")
    users = accounts.find_users(get_session(), query)
    return render(
        "teach/admin_users.html",
        status,
        users=users,
        q=query,
        roles=ROLE_VALUES,
        error=error,
        page_size=accounts.PAGE_SIZE,
    )


def _back() -> ResponseReturnValue:
    return redirect(url_for("teacher.admin_users", q=request.values.get("q", "")))


@routes.get("/admin/users")
@admin_required
def admin_users() -> ResponseReturnValue:
    """Find users by username or name."""
    return _page()


@routes.post("/admin/users/<int:user_id>/role")
@admin_required
def admin_user_role(user_id: int) -> ResponseReturnValue:
    """Change one user's role; a refusal is said on the page and changes nothing."""
    try:
        user = accounts.change_role(get_session(), signed_in(), user_id, request.form.get("role", ""))
    except accounts.AccountRefused as refused:
        return _page(422, t(refused.key, page_lang()))
    flash(t("admin.role_changed", page_lang(), name=user.username, role=t(f"admin.role_{user.role}", page_lang())))
    return _back()


@routes.post("/admin/users/<int:user_id>/active")
@admin_required
def admin_user_active(user_id: int) -> ResponseReturnValue:
    """Deactivate an account (its sessions and tokens end at once) or activate it again."""
    active = request.form.get("active") == "yes"
    try:
        user = accounts.set_active(get_session(), signed_in(), user_id, active)
    except accounts.AccountRefused as refused:
        return _page(422, t(refused.key, page_lang()))
    flash(t("admin.activated" if active else "admin.deactivated", page_lang(), name=user.username))
    return _back()
