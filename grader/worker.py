"""Entry point for ``celery -A grader.worker worker``: builds the app from the environment and exposes ``celery``."""

from __future__ import annotations

from celery.signals import worker_process_init

from grader import create_app
from grader.extensions import get_db

# Not named ``app``: Celery's -A lookup would pick the Flask app instead of the Celery one.
flask_app = create_app()
celery = flask_app.extensions["celery"]


@worker_process_init.connect
def drop_inherited_connections(**_kwargs: object) -> None:
    """A forked pool process must not reuse database connections it inherited from the parent."""
    get_db(flask_app).engine.dispose(close=False)
