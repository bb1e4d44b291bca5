"""Our gunicorn worker gives the first second of waits threads of their own: with Redis (a wait in its thread
sleeps until the grade's notice), ``WAIT_THREADS_PER_THREAD`` for each of its ``--threads`` beside them, so that
waits held never take a thread another request needs; without Redis (waits are parked at once, nothing would wake a
thread) only ``--threads``.

The worker is built in this process as gunicorn's arbiter builds it, with the test's app loaded into it."""

from __future__ import annotations

import logging
import os
import threading
import time
from typing import Any

import pytest
from flask import Flask
from gunicorn.config import Config
from werkzeug.test import EnvironBuilder

from grader import gunicorn_worker
from grader.api import parking
from tests.support import wait_for

THREADS = 3


class _Loaded:
    """What gunicorn hands a worker: an application whose ``wsgi()`` is the WSGI app."""

    def __init__(self, app: Flask) -> None:
        self.app = app

    def wsgi(self) -> Flask:
        """The app to serve."""
        return self.app


@pytest.fixture
def worker(app: Flask) -> Any:
    """Our worker as it stands after gunicorn's start-up (its pool made, then the app loaded)."""
    config = Config()
    config.set("threads", THREADS)
    built = gunicorn_worker.ThreadWorker(0, os.getpid(), [], _Loaded(app), 30, config, logging.getLogger(__name__))
    built.tpool = built.get_thread_pool()
    built.load_wsgi()
    yield built
    built.tpool.shutdown(wait=True)


def _wait_threads_wanted(app: Flask) -> int:
    """The threads this backend's worker should add: some for each of its ``--threads`` with Redis, none without."""
    redis = str(app.config["CELERY_BROKER_URL"]).startswith("redis://")
    return THREADS * gunicorn_worker.WAIT_THREADS_PER_THREAD if redis else 0


def _most_at_once(worker: Any, tasks: int, expected: int) -> int:
    """How many of ``tasks`` blocking jobs the worker's pool runs at the same time, once ``expected`` have started
    (and a moment more, in which a pool larger than expected would start another)."""
    started, release, lock = [0], threading.Event(), threading.Lock()

    def job() -> None:
        with lock:
            started[0] += 1
        release.wait(300)  # released in the finally below; a job that ended early would free its thread

    submitted = [worker.tpool.submit(job) for _ in range(tasks)]
    try:
        wait_for(lambda: started[0] >= expected, f"{expected} jobs to run at once", timeout=10)
        time.sleep(0.2)
        return started[0]
    finally:
        release.set()
        for future in submitted:
            future.result(timeout=30)


def test_the_pool_runs_the_request_threads_and_the_wait_threads_at_once(worker: Any, app: Flask) -> None:
    threads = THREADS + _wait_threads_wanted(app)
    assert _most_at_once(worker, threads + 2, threads) == threads


def test_waits_may_hold_only_the_added_threads(worker: Any, app: Flask) -> None:
    environ = EnvironBuilder(path="/healthz").get_environ()
    worker._call_app(environ, lambda *_args: None)
    budget = environ.get(parking.BUDGET_KEY)
    assert isinstance(budget, parking.ThreadBudget)
    wanted, taken = _wait_threads_wanted(app), 0
    while budget.try_take():
        taken += 1
        assert taken <= wanted, "the budget gives more threads than were added"
    assert taken == wanted
