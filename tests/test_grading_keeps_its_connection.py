"""A worker's grading keeps its autocommitting connection from one job to the next (``Database.pinned_session``
with ``autocommit``), and gives it back to the pool when a job raises, when it is old, and at ``dispose``."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from flask import Flask
from sqlalchemy import Connection, event, text
from sqlalchemy.orm import Session

from grader import extensions
from grader.extensions import Database, get_db
from grader.grading import pipeline
from grader.models import SubmissionStatus, User
from tests.support import Backend
from tests.test_pipeline_recovery import stranded_row

pytestmark = pytest.mark.integration


def _kept(database: Database) -> Connection:
    """The connection an autocommit session runs on now."""
    with database.pinned_session(autocommit=True) as pinned:
        bind = pinned.bind
        assert isinstance(bind, Connection)
        assert pinned.execute(text("SELECT 1")).scalar_one() == 1
        return bind


@contextmanager
def _checkouts(database: Database) -> Iterator[list[object]]:
    """Each pool checkout while the block runs."""
    seen: list[object] = []

    def record(*_args: object) -> None:
        seen.append(_args[0])

    event.listen(database.engine, "checkout", record)
    try:
        yield seen
    finally:
        event.remove(database.engine, "checkout", record)


def test_jobs_in_a_row_grade_on_one_checkout_on_postgresql(
    app: Flask, backend: Backend, session: Session, student: User
) -> None:
    database = get_db(app)
    rows = [stranded_row(session, student, status=SubmissionStatus.QUEUED).id for _ in range(3)]
    with app.app_context(), _checkouts(database) as checkouts:
        outcomes = [pipeline.grade_submission(database, row, worker="test:kept", lease_seconds=30) for row in rows]
    assert outcomes == [pipeline.Outcome.GRADED] * 3
    # SQLite grades in a transaction per job (no autocommit session), on a connection checked out for each.
    assert len(checkouts) == (1 if backend.name == "postgresql" else len(rows))


def test_the_connection_autocommits_and_is_the_same_server_session(app: Flask, backend: Backend) -> None:
    database = get_db(app)
    first, second = _kept(database), _kept(database)
    assert first is second and not first.in_transaction()
    if backend.name == "postgresql":
        assert first.connection.dbapi_connection.autocommit is True  # type: ignore[union-attr]


def test_a_block_that_raises_gives_its_connection_back(app: Flask) -> None:
    database = get_db(app)
    kept = _kept(database)
    with pytest.raises(ZeroDivisionError), database.pinned_session(autocommit=True):
        _ = 1 / 0
    assert kept.closed and database.engine.pool.checkedout() == 0
    assert _kept(database) is not kept


def test_a_connection_left_invalidated_is_replaced_by_one_that_autocommits(app: Flask, backend: Backend) -> None:
    database = get_db(app)
    with database.pinned_session(autocommit=True) as pinned:
        kept = pinned.bind
        assert isinstance(kept, Connection)
        kept.invalidate()  # as a lost connection caught within the block leaves it
    again = _kept(database)
    assert again is not kept and kept.closed
    if backend.name == "postgresql":
        assert again.connection.dbapi_connection.autocommit is True  # type: ignore[union-attr]


def test_dispose_gives_the_kept_connection_back(app: Flask) -> None:
    database = get_db(app)
    kept = _kept(database)
    database.dispose()
    assert kept.closed and database.engine.pool.checkedout() == 0


def test_an_old_connection_goes_back_to_the_pool_for_its_recycling(app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    database = get_db(app)
    kept = _kept(database)
    monkeypatch.setattr(extensions, "POOL_RECYCLE_SECONDS", -1.0)
    again = _kept(database)
    assert again is not kept and kept.closed and database.engine.pool.checkedout() == 1


def test_each_thread_keeps_its_own(app: Flask) -> None:
    database = get_db(app)
    mine = _kept(database)
    theirs: list[Connection] = []
    thread = threading.Thread(target=lambda: theirs.append(_kept(database)))
    thread.start()
    thread.join()
    assert theirs and theirs[0] is not mine and not mine.closed
    theirs[0].close()


def test_a_session_that_is_not_autocommit_checks_out_and_returns(app: Flask) -> None:
    database = get_db(app)
    with _checkouts(database) as checkouts:
        for _ in range(2):
            with database.pinned_session() as pinned:
                pinned.execute(text("SELECT 1"))
    assert len(checkouts) == 2 and database.engine.pool.checkedout() == 0
