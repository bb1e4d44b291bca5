"""Fixtures for the web pages: a migrated demo database, a test client, and (browser tests) a live server + worker."""

from __future__ import annotations

import atexit
import functools
import re
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select
from werkzeug.serving import BaseWSGIServer, make_server

from grader import create_app
from grader.extensions import get_db
from grader.models import User
from grader.serve import prepare, start_worker, stop_worker
from tests.factories import LIGHT_HASHER
from tests.fast_apps import for_tests

CSRF_META = re.compile(r'<meta name="csrf-token" content="([^"]+)">')
DATABASE_FILE = "grader.sqlite"  # where the app keeps its database in GRADER_DATA_DIR unless DATABASE_URL says
DEMO_PASSWORDS = {"student1": "demo-student1", "student2": "demo-student2", "teacher": "demo-teacher"}


@functools.cache
def _demo_database() -> Path:
    """A migrated SQLite database with the demo course, built once per test process.

    Building one costs about 1.7 s of CPU (every migration, and an argon2 hash per demo login, slow on purpose),
    and ``prepare`` on an existing one still ~0.2 s (alembic loads every migration script to find nothing to do);
    each test starts from a copy of the file instead, which is the state ``prepare`` leaves but for the demo
    logins' work factor.
    """
    directory = Path(tempfile.mkdtemp(prefix="grader-demo-"))
    atexit.register(shutil.rmtree, directory, ignore_errors=True)
    app = create_app({"GRADER_ENV": "testing", "GRADER_DATA_DIR": str(directory)})
    prepare(app)
    with app.app_context(), get_db(app).session() as session:
        # The demo logins' hashes with argon2id's lightest work factor, as the factories' users have (see
        # LIGHT_HASHER): signing in by form then costs ~1 ms of hashing instead of ~0.2 s.
        for user in session.scalars(select(User).where(User.username.in_(DEMO_PASSWORDS))):
            user.password_hash = LIGHT_HASHER.hash(DEMO_PASSWORDS[user.username])
        session.commit()
    get_db(app).dispose()  # every connection closed: the whole database is in its one file
    return directory / DATABASE_FILE


def make_app(data_dir: Path, **extra: object) -> Flask:
    """A migrated app with the demo course, its data (SQLite, embedded broker) in ``data_dir``."""
    app = for_tests(create_app({"GRADER_ENV": "testing", "GRADER_DATA_DIR": str(data_dir), **extra}))
    database = data_dir / DATABASE_FILE
    if app.config["DATABASE_URL"] == f"sqlite:///{database}" and not database.exists():
        shutil.copyfile(_demo_database(), database)  # create_app opens no connection: the copy is what it finds
    else:
        prepare(app)
    return app


def csrf_from(html: str) -> str:
    """The CSRF token a page carries in its <meta name="csrf-token">."""
    match = CSRF_META.search(html)
    assert match, "page has no csrf-token meta"
    return match.group(1)


def log_in(client: FlaskClient, username: str) -> str:
    """Log ``username`` in through the form; returns the new session's CSRF token."""
    token = csrf_from(client.get("/login").get_data(as_text=True))
    response = client.post(
        "/login", data={"username": username, "password": DEMO_PASSWORDS[username], "csrf_token": token}
    )
    assert response.status_code == 302, response.get_data(as_text=True)
    return csrf_from(client.get("/courses").get_data(as_text=True))


@pytest.fixture()
def login() -> Callable[[FlaskClient, str], str]:
    """``login(client, username)`` signs a demo user in and returns the session's CSRF token."""
    return log_in


@pytest.fixture()
def page_csrf() -> Callable[[str], str]:
    """``page_csrf(html)``: the CSRF token of a rendered page."""
    return csrf_from


@pytest.fixture()
def app(tmp_path: Path) -> Flask:
    """A fresh demo app per test."""
    return make_app(tmp_path)


@pytest.fixture()
def client(app: Flask) -> FlaskClient:
    """A test client of the demo app."""
    return app.test_client()


@dataclass(frozen=True)
class LiveServer:
    """A running app (HTTP server thread) with a real Celery worker process."""

    url: str
    app: Flask


@contextmanager
def serving(app: Flask) -> Iterator[LiveServer]:
    """``app`` served over HTTP on a free port, plus a Celery worker process, as `grader serve` runs them."""
    server: BaseWSGIServer = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, name="live-server", daemon=True)
    thread.start()
    worker: subprocess.Popen[bytes] = start_worker(app)
    try:
        yield LiveServer(f"http://127.0.0.1:{server.server_port}", app)
    finally:
        stop_worker(worker)
        server.shutdown()
        thread.join(10)


@pytest.fixture(scope="session")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """The demo app, live (see ``serving``), for the whole test session."""
    with serving(make_app(tmp_path_factory.mktemp("live"))) as live:
        yield live


def pytest_configure(config: pytest.Config) -> None:
    """Register the marker of the headless-Chromium tests (run them alone with ``-m browser``)."""
    config.addinivalue_line("markers", "browser: drives headless Chromium against a live server and worker")
