"""Test apps made cheaper to build and run, with the service's own settings: commits without an fsync, templates
and compiled SQL kept from one test's app to the next (see ``for_tests``)."""

from __future__ import annotations

import functools
from typing import Any

from flask import Flask
from jinja2 import BytecodeCache
from jinja2.bccache import Bucket
from sqlalchemy import Engine, event

from grader.extensions import EXTENSION_KEY as DB_EXTENSION_KEY
from grader.extensions import Database, get_db


def _sqlite_without_fsync(dbapi_connection: Any, _record: Any) -> None:
    """``synchronous=NORMAL``: in WAL mode a commit then writes the log without an fsync (~5 ms each here)."""
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


class SharedTemplateCode(BytecodeCache):
    """Compiled templates kept in memory for every app of the test process.

    Each test builds its own app, whose Jinja environment would parse and compile every template it renders again
    (~50 ms for the pages of one sign-in); the code of a template depends only on its source, which Jinja checks
    against the checksum stored with the code before using it."""

    def __init__(self) -> None:
        self._code: dict[str, bytes] = {}

    def load_bytecode(self, bucket: Bucket) -> None:
        """Fill ``bucket`` with the code compiled earlier, if any."""
        code = self._code.get(bucket.key)
        if code is not None:
            bucket.bytecode_from_string(code)

    def dump_bytecode(self, bucket: Bucket) -> None:
        """Keep the code just compiled."""
        self._code[bucket.key] = bucket.bytecode_to_string()


SHARED_TEMPLATE_CODE = SharedTemplateCode()


@functools.cache
def _shared_database(url: str, statement_timeout_seconds: int) -> Database:
    """One engine per database of the test process, kept from test to test (see ``for_tests``)."""
    database = Database(url, statement_timeout_seconds)
    _without_fsync(database.engine)
    return database


def _without_fsync(engine: Engine) -> None:
    """SQLite connections of ``engine`` commit without an fsync (see ``for_tests``)."""
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_without_fsync)


def for_tests(app: Flask, *, shared_engine: bool = False) -> Flask:
    """What every test's app gets, before it first connects or renders; returns ``app``.

    - SQLite connections commit without an fsync: WAL with ``synchronous=NORMAL`` keeps every commit atomic and
      isolated as before (what readers and the worker see is unchanged); only an OS crash could lose the last
      commits, of a database the test throws away. PostgreSQL test databases get the same in ``postgres_database``.
    - Templates compiled by an earlier test's app are reused (``SharedTemplateCode``).
    - With ``shared_engine``, the app uses the engine an earlier test's app had on the same database, built with
      the same settings: SQLAlchemy caches each statement's compiled SQL per engine, and compiling them again in
      every test cost more than building the app. Its pool is emptied after each test (``app_on``), so no
      connection, and nothing set on one, outlives its test.

    The app's own settings stay the service's."""
    if shared_engine:
        app.extensions[DB_EXTENSION_KEY] = _shared_database(
            app.config["DATABASE_URL"], app.config["GRADER_STATEMENT_TIMEOUT"]
        )
    else:
        _without_fsync(get_db(app).engine)
    app.jinja_env.bytecode_cache = SHARED_TEMPLATE_CODE
    return app
