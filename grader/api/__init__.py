"""JSON API v1: the blueprint under /api/v1, its error handlers, rate limits and OpenAPI document."""

from __future__ import annotations

from flask import Flask

from grader import api_errors, ratelimit
from grader.api import extension_views, override_views, roster_views, staff_views  # noqa: F401  (they register routes on the blueprint)
from grader.api.views import blueprint

MAX_BODY_BYTES = 64 * 1024


def init_app(app: Flask) -> None:
    """Register the API blueprint under /api/v1, the JSON error handlers and the submission rate limit."""
    if app.config.get("MAX_CONTENT_LENGTH") is None:  # Flask ships the key with None (unlimited)
        app.config["MAX_CONTENT_LENGTH"] = MAX_BODY_BYTES
    api_errors.init_app(app)
    app.register_blueprint(blueprint, url_prefix=api_errors.API_PREFIX)
    ratelimit.init_app(app)
