"""The administrators' LTI page: the values to paste into an LMS, the platforms registered (register one from the
browser, remove one), and linking an existing local account to an LMS user."""

from __future__ import annotations

import json

from flask import flash, redirect, request, url_for
from flask.typing import ResponseReturnValue

from grader.extensions import get_session
from grader.i18n import t
from grader.lti import admin
from grader.lti.registration import RegistrationError, canvas_developer_key, platforms, tool_values
from grader.teacher.access import admin_required
from grader.ui.page_helpers import page_lang, render
from grader.ui.routes import Routes

routes = Routes()


def _setup_page(status: int = 200, errors: dict[str, str] | None = None) -> ResponseReturnValue:
    """The set-up page; after a refused form, that form's values again with the error by its field."""
    base = request.host_url
    return render(
        "lti/setup.html",
        status,
        values=tool_values(base),
        platforms=platforms(get_session()),
        canvas_json=json.dumps(canvas_developer_key(base), indent=2),
        errors=errors or {},
        typed=request.form if status != 200 else {},
    )


@routes.get("/setup")
@admin_required
def setup() -> ResponseReturnValue:
    """The values to paste into the LMS (and Canvas's developer key), and the platforms registered."""
    return _setup_page()


@routes.post("/setup/platforms")
@admin_required
def add_platform() -> ResponseReturnValue:
    """Register a platform (or add deployments to it): the rules of `grader lti add-platform`."""
    try:
        given = admin.platform_input(
            request.form.to_dict(), request.form.get("deployment_ids", ""), request.form.get("accept_new") == "yes"
        )
        platform = admin.register_platform(get_session(), given)
    except RegistrationError as refused:
        get_session().rollback()
        return _setup_page(422, {refused.field: f"lti.admin.err_{refused.field}"})
    flash(t("lti.admin.registered", page_lang(), issuer=platform.issuer, client_id=platform.client_id))
    return redirect(url_for("lti.setup"))


@routes.post("/setup/platforms/<int:platform_id>/remove")
@admin_required
def remove_platform(platform_id: int) -> ResponseReturnValue:
    """Remove a platform: its launches stop; the courses and grades here stay."""
    removed = admin.remove_platform(get_session(), platform_id)
    if removed is not None:
        flash(t("lti.admin.removed", page_lang(), issuer=removed.issuer))
    return redirect(url_for("lti.setup"))


@routes.post("/setup/identities")
@admin_required
def link_identity() -> ResponseReturnValue:
    """Link an existing local account to an LMS user: their launches sign in to it."""
    form = request.form
    try:
        linked = admin.link_identity(
            get_session(), form.get("platform_id", ""), form.get("sub", ""), form.get("username", "")
        )
    except RegistrationError as refused:
        get_session().rollback()
        return _setup_page(422, {refused.field: f"lti.admin.err_{refused.field}"})
    flash(t("lti.admin.linked", page_lang(), username=linked.user.username, sub=linked.sub, issuer=linked.issuer))
    return redirect(url_for("lti.setup"))
