"""Database engine and session handling shared by the web app, the worker and the CLI."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import wraps
from typing import Any, NamedTuple, ParamSpec, TypeVar, cast

from flask import Flask, current_app, g
from sqlalchemy import Connection, CursorResult, Engine, Result, create_engine, event
from sqlalchemy.orm import Session, sessionmaker

from grader import json_codec

EXTENSION_KEY = "grader.db"
AUTOCOMMIT_FLAG = "db_autocommit"
REQUEST_SCOPE_KEY = "request_scoped"
P = ParamSpec("P")
R = TypeVar("R")
SQLITE_BUSY_TIMEOUT_MS = 15000
# How JSON columns are written and read, on both dialects (``json_codec``: the same values as ``json``, faster).
JSON_COLUMNS: dict[str, Any] = {"json_serializer": json_codec.dumps, "json_deserializer": json_codec.loads}
POOL_RECYCLE_SECONDS = 3600  # below common idle-connection cut-offs of proxies and firewalls
# Kept connections per process: at least a web process's threads (8 in the README and compose file). With fewer,
# busy moments open "overflow" connections that are closed on return, and PostgreSQL forks a backend for each.
POOL_SIZE = 10
# psycopg keeps the conversion of a statement's %(name)s placeholders only for statements up to 4 KiB; the grade
# write (one statement: result, grade log, progress and sums) is ~10 KiB, and converting it again took ~0.25 ms of
# a worker's CPU per job. Kept up to this length instead (psycopg's cache holds 128 statements).
CONVERTED_STATEMENT_CACHE_LENGTH = 64 * 1024


def _postgresql_settings(statement_timeout_seconds: int) -> Callable[[Any, Any], None]:
    """The per-connection settings: sessions in UTC and, if above 0, a statement timeout."""

    def configure(dbapi_connection: Any, _record: Any) -> None:
        """Sessions in UTC: read back in the server's own zone, a stored time near the ends of the calendar (a due
        date of 9999-12-31 23:59 UTC seen from UTC+8) falls outside Python's years and every read of its row fails.
        The statement timeout bounds how long a grade write can stay uncommitted (the change feed's settle margin
        relies on it) and how long a blocked query holds a web thread."""
        with dbapi_connection.cursor() as cursor:
            cursor.execute("SET TIME ZONE 'UTC'")
            if statement_timeout_seconds > 0:
                cursor.execute(f"SET statement_timeout = {int(statement_timeout_seconds) * 1000}")
        # Committed, or the pool's first rollback would undo it; SET travels with the session, once per connection.
        dbapi_connection.commit()

    return configure


def _keep_long_statement_conversions() -> None:
    """Let psycopg cache the placeholder conversion of statements up to ``CONVERTED_STATEMENT_CACHE_LENGTH``.

    The limit is a module constant of psycopg's, with no public setting; the test of repeated grades checks
    that their every statement is converted from the cache, so a psycopg that moved it would be noticed."""
    from psycopg import _queries  # imported by the PostgreSQL engines only

    _queries.MAX_CACHED_STATEMENT_LENGTH = max(_queries.MAX_CACHED_STATEMENT_LENGTH, CONVERTED_STATEMENT_CACHE_LENGTH)


def _configure_sqlite(dbapi_connection: Any, _record: Any) -> None:
    """WAL lets the web app read while the worker writes; busy_timeout makes writers wait instead of failing."""
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def make_engine(url: str, statement_timeout_seconds: int = 0) -> Engine:
    """An engine for ``url`` with per-dialect settings (SQLite pragmas; PostgreSQL sessions in UTC, statements
    cut after ``statement_timeout_seconds`` if above 0 (migrations run without), connections recycled hourly).

    No pre-ping on PostgreSQL: it costs a round trip per checkout, i.e. per request and per job. A connection
    that died with its server fails its next statement instead; SQLAlchemy then discards the pool's older
    connections, the worker's task retries (OperationalError) and a web request answers 503 with Retry-After.
    """
    if url.startswith("sqlite"):
        engine = create_engine(
            url,
            connect_args={"timeout": SQLITE_BUSY_TIMEOUT_MS / 1000},
            **JSON_COLUMNS,
        )
        event.listen(engine, "connect", _configure_sqlite)
        return engine
    _keep_long_statement_conversions()
    engine = create_engine(
        url,
        pool_recycle=POOL_RECYCLE_SECONDS,
        pool_size=POOL_SIZE,
        **JSON_COLUMNS,
    )
    event.listen(engine, "connect", _postgresql_settings(statement_timeout_seconds))
    return engine


class _Held(NamedTuple):
    """A thread's kept autocommitting connection: the process that opened it, and when (``time.monotonic``)."""

    pid: int
    since: float
    connection: Connection


class Database:
    """An engine plus a session factory; one per Flask app."""

    def __init__(self, url: str, statement_timeout_seconds: int = 0) -> None:
        self.url = url
        self.engine = make_engine(url, statement_timeout_seconds)
        self._held = threading.local()  # each thread's autocommitting connection (``_held_autocommit``)
        self.sessionmaker: sessionmaker[Session] = sessionmaker(self.engine, expire_on_commit=False)
        # Each statement commits on its own: no BEGIN/COMMIT round trips (see ``autocommit_requests``).
        self.autocommit_sessionmaker: sessionmaker[Session] = sessionmaker(
            self.engine.execution_options(isolation_level="AUTOCOMMIT"), expire_on_commit=False
        )

    @property
    def dialect(self) -> str:
        """The SQLAlchemy dialect name: ``sqlite`` or ``postgresql``."""
        return self.engine.dialect.name

    @contextmanager
    def session(self) -> Iterator[Session]:
        """A session that is closed (and rolled back if uncommitted) when the block ends."""
        with self.sessionmaker() as session:
            yield session

    @contextmanager
    def pinned_session(self, *, autocommit: bool = False) -> Iterator[Session]:
        """A session that keeps one pooled connection across its commits: one checkout per job.

        With ``autocommit`` every statement commits on its own (no BEGIN/COMMIT round trips); only for callers
        whose every write is a single statement. Such a session runs on the connection this thread kept from its
        last one (``_held_autocommit``).
        """
        if autocommit:
            with self._held_autocommit() as connection, Session(bind=connection, expire_on_commit=False) as session:
                yield session
            return
        with self.engine.connect() as connection, Session(bind=connection, expire_on_commit=False) as session:
            yield session

    @contextmanager
    def _held_autocommit(self) -> Iterator[Connection]:
        """This thread's autocommitting connection, kept from one block to the next.

        A worker's job checked a connection out of the pool, set it to autocommit, and on return had the pool
        reset it and take it back: a tenth of a pool process's CPU. Kept instead, a connection is given back to
        the pool (which resets it, or discards it if it broke) when a block raises or left it invalidated, after
        ``POOL_RECYCLE_SECONDS``, and at ``dispose``; a forked child leaves its parent's alone. Only autocommit
        sessions hold one, and their only caller is the worker's grading, one job at a time per process.
        """
        held: _Held | None = getattr(self._held, "connection", None)
        if held is not None and (
            held.pid != os.getpid()
            # Invalidated in a block that went on (a lost connection it caught): SQLAlchemy would reconnect it
            # without the autocommit setting.
            or held.connection.invalidated
            or time.monotonic() - held.since > POOL_RECYCLE_SECONDS
        ):
            self._give_back_held()
            held = None
        if held is None:
            connection = self.engine.connect()
            connection.execution_options(isolation_level="AUTOCOMMIT")
            held = _Held(os.getpid(), time.monotonic(), connection)
            self._held.connection = held
        try:
            yield held.connection
        except BaseException:  # any exit by exception, re-raised: the connection may be mid-failure
            self._give_back_held()
            raise

    def _give_back_held(self) -> None:
        """Return this thread's kept connection to the pool (not if it is a forked parent's)."""
        held: _Held | None = getattr(self._held, "connection", None)
        self._held.connection = None
        if held is not None and held.pid == os.getpid():
            held.connection.close()

    def dispose(self) -> None:
        """Close pooled connections (e.g. after fork, or when tests drop the database)."""
        self._give_back_held()
        self.engine.dispose()


def init_db(app: Flask) -> Database:
    """Attach a Database to ``app``; the session and request-scoped values end with each request (and context)."""
    database = Database(app.config["DATABASE_URL"], app.config["GRADER_STATEMENT_TIMEOUT"])
    app.extensions[EXTENSION_KEY] = database
    # Per request, not only per app context: a request inside an already pushed app context (tests, scripts)
    # reuses that context's ``g``, and must not inherit the previous request's session or caller.
    app.teardown_request(_end_request_scope)
    app.teardown_appcontext(_end_request_scope)
    return database


def get_db(app: Flask | None = None) -> Database:
    """The Database of ``app`` (default: the current app)."""
    return cast(Database, (app or current_app).extensions[EXTENSION_KEY])


def request_scoped() -> dict[str, Any]:
    """Values cached for the current request only (who is calling, ...); dropped when the request ends."""
    return cast(dict[str, Any], g.setdefault(REQUEST_SCOPE_KEY, {}))


def get_session() -> Session:
    """The session for the current app context (request or task), created on first use."""
    if "db_session" not in g:
        database = get_db()
        g.db_session = (database.autocommit_sessionmaker if g.get(AUTOCOMMIT_FLAG) else database.sessionmaker)()
    return cast(Session, g.db_session)


def autocommit_requests(view: Callable[P, R]) -> Callable[P, R]:
    """View decorator: the request's session autocommits each statement.

    Only for views whose every write is a single statement and whose reads need no common snapshot (the hot
    submission routes): it saves the BEGIN and COMMIT/ROLLBACK round trips of each request.
    """

    @wraps(view)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        g.setdefault(AUTOCOMMIT_FLAG, True)
        return view(*args, **kwargs)

    return wrapper


def _end_request_scope(_exc: BaseException | None) -> None:
    """Close the session (uncommitted work is rolled back) and forget the request-scoped values."""
    g.pop(REQUEST_SCOPE_KEY, None)
    g.pop(AUTOCOMMIT_FLAG, None)
    session: Session | None = g.pop("db_session", None)
    if session is not None:
        session.close()


def rows_matched(result: Result[Any]) -> int:
    """How many rows an UPDATE or DELETE matched (``Session.execute`` is typed as returning a plain Result)."""
    return cast(CursorResult[Any], result).rowcount
