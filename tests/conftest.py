"""Shared fixtures: a backend per test session (SQLite + file broker, PostgreSQL + Redis), app, session, client,
a real Celery worker per backend, and factories. Every test that uses ``app`` runs on both backends."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from psycopg.errors import DeadlockDetected
from sqlalchemy import Engine, delete, text
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session

from grader import create_app
from grader.config import EMBEDDED_BROKER_URL
from grader.extensions import get_db
from grader.migrate import upgrade
from grader.models import Base, User
from tests.factories import make_user
from tests.fast_apps import for_tests
from tests.support import (
    Backend,
    WorkerProcess,
    cache_url_builders,
    own_redis_url,
    postgres_database,
)

# The `browser` fixture (Debian Chromium under Playwright) for the browser tests of every folder.
pytest_plugins = ["tests.browser_support"]

cache_url_builders()

BACKENDS = [name for name in os.environ.get("GRADER_TEST_BACKENDS", "sqlite,postgresql").split(",") if name]


@pytest.fixture(scope="session", params=BACKENDS)
def backend(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Backend]:
    """A migrated database and a broker for this session: SQLite + file broker, or PostgreSQL + Redis."""
    data_dir = tmp_path_factory.mktemp(f"grader-{request.param}")
    queue = f"grading-test-{os.getpid()}"
    if request.param == "sqlite":
        chosen = Backend("sqlite", f"sqlite:///{data_dir / 'grader.sqlite'}", EMBEDDED_BROKER_URL, data_dir, queue)
        upgrade(chosen.database_url)
        yield chosen
        return
    with postgres_database(f"grader_test_{os.getpid()}") as url:
        # A Redis database of its own, so flushing it in a test touches nothing else on the server.
        broker = own_redis_url()
        chosen = Backend("postgresql", url, broker, data_dir, queue)
        upgrade(chosen.database_url)
        yield chosen


def _postgres_emptying() -> str:
    """One script that empties every table on PostgreSQL, as TRUNCATE would but about twenty times faster.

    TRUNCATE gives each table a new file and removes the old one at commit (≈0.5 s for the schema on a busy
    machine, paid after every test); DELETE of the few rows a test wrote costs milliseconds. The tables are
    locked first, as TRUNCATE locks them, so a worker transaction still writing from the test that ended
    finishes before the rows are deleted (and its rows are deleted too), then children before parents."""
    names = ", ".join(f'"{table.name}"' for table in Base.metadata.sorted_tables)
    deletes = [f'DELETE FROM "{table.name}"' for table in reversed(Base.metadata.sorted_tables)]
    return "; ".join([f"LOCK TABLE {names} IN ACCESS EXCLUSIVE MODE", *deletes])


POSTGRES_EMPTYING = _postgres_emptying()


EMPTYING_ATTEMPTS = 5


def clean_database(app: Flask) -> None:
    """Empty every table. Ids are never reused (PostgreSQL sequences, SQLite AUTOINCREMENT), so a stale task
    message from an earlier test can never touch a later test's row.

    On PostgreSQL the LOCK takes the tables one by one, so a worker transaction still writing from the test that
    ended can hold one the script needs while waiting for one it holds; the server then aborts one of the two. If
    it picks the script, the worker's transaction has gone on and the script is simply run again."""
    database = get_db(app)
    for attempt in range(EMPTYING_ATTEMPTS):
        try:
            _empty_tables(database.engine, database.dialect)
            return
        except OperationalError as error:
            if not isinstance(error.orig, DeadlockDetected) or attempt == EMPTYING_ATTEMPTS - 1:
                raise


def _empty_tables(engine: Engine, dialect: str) -> None:
    """One transaction deleting every table's rows (see ``clean_database``)."""
    with engine.begin() as connection:
        if dialect == "postgresql":
            connection.execute(text(POSTGRES_EMPTYING))
        else:
            for table in reversed(Base.metadata.sorted_tables):
                connection.execute(delete(table))


@contextmanager
def app_on(backend: Backend) -> Iterator[Flask]:
    """The app on ``backend``; its database is emptied when the block ends (for folders whose ``app`` is another)."""
    application = for_tests(create_app(backend.config()), shared_engine=True)
    yield application
    clean_database(application)
    get_db(application).dispose()


@pytest.fixture
def app(backend: Backend) -> Iterator[Flask]:
    """The app on this session's backend; the database is emptied after each test."""
    with app_on(backend) as application:
        yield application


@pytest.fixture
def session(app: Flask) -> Iterator[Session]:
    """A database session inside an app context (service functions read the app's config)."""
    with app.app_context(), get_db(app).session() as db_session:
        yield db_session


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    """A Flask test client."""
    return app.test_client()


@pytest.fixture(scope="session")
def worker(backend: Backend, tmp_path_factory: pytest.TempPathFactory) -> Iterator[WorkerProcess]:
    """A real `celery -A grader.worker worker` consuming this session's queue (prefork, 2 processes)."""
    log_path = tmp_path_factory.mktemp("worker") / f"worker-{backend.name}.log"
    process = WorkerProcess(backend.env(), backend.queue, log_path, concurrency=2)
    try:
        process.wait_ready()
        yield process
    finally:
        process.stop_soon()  # the session is ending: nothing waits for its shutdown


@pytest.fixture
def student(session: Session) -> User:
    """A committed student."""
    return make_user(session)


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    """An empty GRADER_DATA_DIR for tests that build their own app."""
    directory = tmp_path / "data"
    directory.mkdir()
    return directory


@pytest.fixture(params=["sqlite", "postgresql"])
def empty_database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The URL of a database with no tables at all."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'empty.sqlite'}"
        return
    with postgres_database(f"grader_migrations_{os.getpid()}") as url:
        yield url
