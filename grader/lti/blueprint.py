"""The LTI blueprint (mounted at /lti): its routes added explicitly, and the CSRF check on every post but the two
the LMS sends."""

from __future__ import annotations

from flask import Blueprint, Flask, request

from grader.lti import admin_views, picker_views, views
from grader.ui.csrf import protect

VIEW_MODULES = (views, picker_views, admin_views)
lti = Blueprint("lti", __name__, url_prefix="/lti")
# The LMS's login initiation and id_token form post come from another site and cannot carry our CSRF token; the
# state (used once, with its cookie), the nonce and the platform's signature protect them instead.
CSRF_EXEMPT = frozenset({"lti.login", "lti.launch"})


@lti.before_request
def _require_csrf_token() -> None:
    """Our own forms under /lti carry the CSRF token; the LMS's login and launch posts cannot."""
    if request.endpoint not in CSRF_EXEMPT:
        protect(request)


def init_app(app: Flask) -> None:
    """Add the routes of every LTI view module to the blueprint and register it."""
    for module in VIEW_MODULES:
        module.routes.register(lti)
    app.register_blueprint(lti)
