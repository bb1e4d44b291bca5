"""Liveness and readiness endpoint used by container health checks."""

from __future__ import annotations

from flask import Blueprint, Flask, jsonify
from flask.typing import ResponseReturnValue
from sqlalchemy import text
from sqlalchemy.exc import OperationalError

from grader.extensions import get_session

health = Blueprint("health", __name__)


@health.get("/healthz")
def healthz() -> ResponseReturnValue:
    """200 when the database answers, 503 otherwise."""
    try:
        get_session().execute(text("SELECT 1"))
    except OperationalError:
        return jsonify(status="unavailable", database=False), 503
    return jsonify(status="ok", database=True)


def init_app(app: Flask) -> None:
    """Register the health endpoint."""
    app.register_blueprint(health)
