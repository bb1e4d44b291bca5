"""PostgreSQL sessions run in UTC, whatever the server's or the connection's own time zone, and the app's
statements under a timeout."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import text
from sqlalchemy.exc import OperationalError

from grader import create_app
from grader.extensions import get_db, make_engine
from tests.support import Backend

EDGE_OF_THE_CALENDAR = datetime(9999, 12, 31, 23, 59, tzinfo=UTC)


def _in_shanghai(url: str) -> str:
    """``url`` with the connection's time zone set to UTC+8 at start-up, as a server configured for China has."""
    return f"{url}?options=-c%20timezone%3DAsia%2FShanghai"


def test_a_time_at_the_end_of_the_calendar_reads_back_in_any_server_time_zone(backend: Backend) -> None:
    """9999-12-31 23:59 UTC is 10000-01-01 in UTC+8: read in the server's zone it could not be read at all."""
    if backend.name != "postgresql":
        pytest.skip("SQLite stores times as text, with no session time zone")
    engine = make_engine(_in_shanghai(backend.database_url))
    try:
        with engine.connect() as connection:
            assert connection.execute(text("SHOW TimeZone")).scalar_one() == "UTC"
            read = connection.execute(
                text("SELECT CAST(:at AS timestamptz)"), {"at": EDGE_OF_THE_CALENDAR}
            ).scalar_one()
            assert read == EDGE_OF_THE_CALENDAR
            connection.rollback()
        # Still UTC on a connection the pool hands out again after its reset (a rollback).
        with engine.connect() as connection:
            assert connection.execute(text("SHOW TimeZone")).scalar_one() == "UTC"
    finally:
        engine.dispose()


def test_the_apps_statements_are_cut_after_the_statement_timeout_and_migrations_are_not(backend: Backend) -> None:
    """A blocked grade write must not commit long after its lease (the change feed's settle margin assumes it)."""
    if backend.name != "postgresql":
        pytest.skip("SQLite has no statement timeout; its writers wait on one lock with busy_timeout")
    app = create_app(backend.config(GRADER_STATEMENT_TIMEOUT="1"))
    try:
        with get_db(app).session() as session:
            assert session.execute(text("SHOW statement_timeout")).scalar_one() == "1s"
            with pytest.raises(OperationalError, match="statement timeout"):
                session.execute(text("SELECT pg_sleep(3)"))
    finally:
        get_db(app).dispose()
    default = create_app(backend.config())
    try:
        with get_db(default).session() as session:
            assert session.execute(text("SHOW statement_timeout")).scalar_one() == "30s"
    finally:
        get_db(default).dispose()
    migrations = make_engine(backend.database_url)  # what migrations/env.py uses: a long migration runs on
    try:
        with migrations.connect() as connection:
            assert connection.execute(text("SHOW statement_timeout")).scalar_one() == "0"
    finally:
        migrations.dispose()
