"""The grading service. ``create_app`` is the WSGI factory (``gunicorn "grader:create_app()"``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from flask import Flask


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """Build the Flask app from the environment, then ``config`` (see grader.app.build_app)."""
    # Imported here so that `import grader.models` (migrations, CLI, worker tools) does not load the web stack.
    from grader.app import build_app

    return build_app(config)
