"""Entry point for ``celery -A grader.worker worker``: builds the app from the environment and exposes ``celery``."""

from __future__ import annotations

import sys
from typing import Any

from celery.signals import worker_process_init, worker_ready, worker_shutdown

from grader import create_app, startup_objects
from grader.config import ConfigError
from grader.exiting import exit_without_freeing
from grader.extensions import get_db
from grader.grading.liveness import Beating

try:
    # Not named ``app``: Celery's -A lookup would pick the Flask app instead of the Celery one.
    flask_app = create_app()
except ConfigError as refused:
    # Settings that cannot work stop the worker with one line naming them, not an import traceback.
    sys.exit(f"grader worker: configuration refused: {refused}")
celery = flask_app.extensions["celery"]
startup_objects.set_aside()  # before the pool forks: its processes inherit them set aside


@worker_process_init.connect
def drop_inherited_connections(**_kwargs: object) -> None:
    """A forked pool process must not reuse database connections it inherited from the parent."""
    get_db(flask_app).engine.dispose(close=False)


_beating: list[Beating] = []


@worker_ready.connect
def start_beating(sender: Any, **_kwargs: object) -> None:
    """Once the worker consumes: announce it (name, queues, concurrency) until it shuts down."""
    queues = sorted(sender.app.amqp.queues.consume_from or sender.app.amqp.queues)
    beat = flask_app.config["GRADER_WORKER_BEAT_SECONDS"]
    beating = Beating(get_db(flask_app), sender.hostname, queues, int(sender.controller.concurrency), beat)
    beating.start()
    _beating.append(beating)


@worker_shutdown.connect
def stop_beating(**_kwargs: object) -> None:
    """A warm shutdown removes the worker's beat row (a killed worker's row simply stops being renewed)."""
    while _beating:
        _beating.pop().stop()
    exit_without_freeing()  # the worker exits next: seconds of freeing objects one by one otherwise
