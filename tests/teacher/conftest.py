"""Fixtures for the teacher dashboard: the app with /teach registered, signed-in clients, a worker that knows
the regrade task (on its own queue, so the shared worker never receives a task it does not know)."""
from __future__ import annotations

import re
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from grader import create_app, teacher
from grader.extensions import get_db
from grader.i18n_ui import LANG_COOKIE
from tests.conftest import clean_database
from tests.factories import TEST_PASSWORD
from tests.support import Backend, WorkerProcess

CSRF_META = re.compile(r'<meta name="csrf-token" content="([^"]+)">')
WORKER_APP = "tests.teacher.worker_app"


def teacher_queue(backend: Backend) -> str:
    """The queue of the teacher tests' app and worker."""
    return f"{backend.queue}-teacher"


@pytest.fixture
def app(backend: Backend) -> Iterator[Flask]:
    """The app on this session's backend with the teacher pages; the database is emptied after each test."""
    application = create_app(backend.config(GRADER_QUEUE=teacher_queue(backend)))
    teacher.init_app(application)
    yield application
    clean_database(application)
    get_db(application).dispose()


def csrf_from(html: str) -> str:
    """The CSRF token in a page's <meta name="csrf-token">."""
    match = CSRF_META.search(html)
    assert match, "page has no csrf-token meta"
    return match.group(1)


def sign_in(client: FlaskClient, username: str, password: str = TEST_PASSWORD) -> str:
    """Log in through the form; returns the session's CSRF token."""
    token = csrf_from(client.get("/login").get_data(as_text=True))
    response = client.post("/login", data={"username": username, "password": password, "csrf_token": token})
    assert response.status_code == 302, response.get_data(as_text=True)[:500]
    return csrf_from(client.get("/courses").get_data(as_text=True))


@pytest.fixture
def login(app: Flask) -> Callable[[str], tuple[FlaskClient, str]]:
    """``login(username)``: a new client signed in as ``username`` (pages in English) and its CSRF token."""

    def signed_in_client(username: str) -> tuple[FlaskClient, str]:
        client = app.test_client()
        client.set_cookie(LANG_COOKIE, "en")
        return client, sign_in(client, username)

    return signed_in_client


class TeacherWorker(WorkerProcess):
    """WorkerProcess running the teacher tests' Celery entry point (which registers the regrade task)."""

    def __init__(self, env: dict[str, str], queue: str, log_path: Path) -> None:
        self.queue = queue
        self.log_path = log_path
        self.name = f"teach-{uuid.uuid4().hex[:8]}@%h"
        command = [sys.executable, "-m", "celery", "-A", WORKER_APP, "worker", "--loglevel", "INFO",
                   "--concurrency", "1", "--queues", queue, "--hostname", self.name,
                   "--without-gossip", "--without-mingle"]
        self._log = log_path.open("wb")
        self.process = subprocess.Popen(command, env=env, stdout=self._log, stderr=subprocess.STDOUT,
                                        start_new_session=True, cwd=Path(__file__).resolve().parents[2])


@pytest.fixture(scope="session")
def regrade_worker(backend: Backend, tmp_path_factory: pytest.TempPathFactory) -> Iterator[WorkerProcess]:
    """A real Celery worker process consuming the teacher tests' queue."""
    queue = teacher_queue(backend)
    log_path = tmp_path_factory.mktemp("teach-worker") / f"worker-{backend.name}.log"
    process = TeacherWorker(backend.env(GRADER_QUEUE=queue), queue, log_path)
    try:
        process.wait_ready()
        yield process
    finally:
        process.stop()
