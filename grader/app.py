"""The Flask application factory: configuration, database, Celery, health check, API and web pages."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import Flask
from werkzeug.middleware.proxy_fix import ProxyFix

from grader import api, health, teacher, web
from grader.auth_session import CappedSessionInterface
from grader.celery_app import celery_init_app
from grader.config import load_config
from grader.extensions import init_db
from grader.lti import blueprint as lti
from grader.routing import RowIdConverter, SeedConverter


def build_app(config: Mapping[str, Any] | None = None) -> Flask:
    """Build the app: settings from the environment (then ``config``), database, Celery, API and web pages."""
    app = Flask("grader")
    app.config.update(load_config(config))
    app.session_interface = CappedSessionInterface()  # a course's cap on its members' sign-ins ends the cookie too
    proxies = app.config["GRADER_TRUSTED_PROXIES"]
    if proxies > 0:  # the client's address and scheme as the trusted proxies saw them
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=proxies, x_proto=proxies)  # type: ignore[method-assign]
    app.url_map.converters["int"] = RowIdConverter  # before any blueprint registers an <int:...> rule
    app.url_map.converters["seed"] = SeedConverter
    init_db(app)
    celery_init_app(app)
    health.init_app(app)
    api.init_app(app)
    web.init_app(app)
    teacher.init_app(app)
    lti.init_app(app)  # LTI 1.3: /lti/login, /lti/launch, /lti/jwks.json
    return app
