"""The hottest statements run on the driver: a Core statement compiled once, executed on its connection's cursor.

Every job sends the same few statements: the web's token look-up and submission insert, the worker's claim and
result write. Through ``Session.execute`` each paid more CPU in SQLAlchemy's execution path (execution context,
result proxy, session transaction states) than psycopg spent sending it. Here the statement is still built as
Core, from the same definitions as everywhere else, and compiled by SQLAlchemy once per dialect and set of
parameter names; each run only converts the parameters with the type processors SQLAlchemy would use, adds the
columns' scalar defaults as SQLAlchemy would, and hands the SQL to the cursor.

Only on connections in autocommit (each statement commits on its own), so that no transaction is kept apart from
SQLAlchemy's. Elsewhere (SQLite, a request in a transaction), and for a statement that needs more of
SQLAlchemy's execution than its compiled form (a column default computed per row, expanding parameters), the
statement goes through the session as before.

A driver error is raised as SQLAlchemy's own exception (``OperationalError`` for a lost connection,
``IntegrityError``, ...), and a lost connection is invalidated with the pool's older connections, as SQLAlchemy
does, so the callers' retries and refusals work the same on both paths. The engine's ``before_cursor_execute``
listeners still see every statement sent (with no execution context, and their return value unused).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from sqlalchemy import Connection, Dialect, Insert, Row, Select, Update
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.schema import ScalarElementColumnDefault

Processor = Callable[[Any], Any]
Statement = Update | Insert | Select[Any]  # built once, returning rows (RETURNING or SELECT)


class DriverRow(tuple[Any, ...]):
    """One returned row: a tuple, with ``_mapping`` by column key as SQLAlchemy's Row has."""

    keys: tuple[str, ...] = ()

    def __new__(cls, values: Sequence[Any], keys: tuple[str, ...]) -> DriverRow:
        row = super().__new__(cls, values)
        row.keys = keys
        return row

    @property
    def _mapping(self) -> dict[str, Any]:
        """The row's values by column key."""
        return dict(zip(self.keys, self, strict=True))


@dataclass
class _Compiled:
    """A statement compiled for one dialect and set of parameter names, with its parameters' processors and the
    scalar column defaults SQLAlchemy would add; the result processors are found on the first run, from the types
    the server reported (SQLAlchemy's numeric processors need them)."""

    compiled: SQLCompiler
    sql: str
    keys: tuple[str, ...]
    result_types: tuple[Any, ...]
    defaults: dict[str, Any]
    bind_processors: dict[str, Processor] = field(default_factory=dict)
    result_processors: tuple[Processor | None, ...] | None = None


_COMPILED: dict[tuple[Statement, str, tuple[str, ...]], _Compiled | None] = {}


def first(
    session: Session, statement: Statement, parameters: Mapping[str, Any], *, commit: bool = False
) -> DriverRow | Row[Any] | None:
    """Run ``statement`` (a Core statement built once, returning rows) with ``parameters`` in ``session``; its
    first returned row, or None if it returned none.

    If the session's connection autocommits, the statement goes on the driver and is committed by the time this
    returns; otherwise it goes through the session, which is committed if ``commit``.
    """
    connection = _connection_of(session)
    driver_connection = connection.connection.dbapi_connection
    if getattr(driver_connection, "autocommit", None) is True:
        entry = _compiled(statement, connection.dialect, tuple(sorted(parameters)))
        if entry is not None:
            return _on_driver(connection, driver_connection, entry, parameters)
    row: Row[Any] | None = session.execute(statement, parameters).first()
    if commit:
        session.commit()
    return row


def _connection_of(session: Session) -> Connection:
    """The connection ``session`` runs on: the one it is bound to (``Database.pinned_session``) without beginning
    the session's own transaction, which a statement sent on the driver in autocommit does not need."""
    bind = session.bind
    return bind if isinstance(bind, Connection) else session.connection()


def _compiled(statement: Statement, dialect: Dialect, names: tuple[str, ...]) -> _Compiled | None:
    """``statement`` compiled for ``dialect`` and the parameter ``names`` (sorted), once per process; None if
    running it needs SQLAlchemy's execution path.

    As in SQLAlchemy, a parameter named after a column of an INSERT or UPDATE target is one of the values it
    writes (an INSERT without ``values()`` writes the columns it is given).
    """
    key = (statement, dialect.name, names)
    if key not in _COMPILED:
        _COMPILED[key] = _compile(statement, dialect, names)
    return _COMPILED[key]


def _compile(statement: Statement, dialect: Dialect, names: tuple[str, ...]) -> _Compiled | None:
    """``_compiled``'s work, done once per key."""
    compiled = statement.compile(dialect=dialect, column_keys=list(names))
    columns = list(statement.exported_columns)
    binds = compiled.binds
    if (
        not columns
        or compiled.positional
        or compiled.escaped_bind_names
        or any(bind.expanding or bind.literal_execute for bind in binds.values())
    ):
        return None
    defaults: dict[str, Any] = {}
    for column in compiled.insert_prefetch:
        if not isinstance(column.default, ScalarElementColumnDefault):
            return None  # computed per row by SQLAlchemy's execution context
        defaults[column.key] = column.default.arg
    if compiled.update_prefetch:
        return None
    entry = _Compiled(
        compiled=compiled,
        sql=str(compiled),
        keys=tuple(str(column.key) for column in columns),
        result_types=tuple(column.type for column in columns),
        defaults=defaults,
    )
    for name, bind in binds.items():
        processor = bind.type.dialect_impl(dialect).bind_processor(dialect)
        if processor is not None:
            entry.bind_processors[name] = processor
    return entry


def _on_driver(
    connection: Connection, driver_connection: Any, entry: _Compiled, parameters: Mapping[str, Any]
) -> DriverRow | None:
    """``first`` on ``driver_connection``, the autocommitting driver connection under ``connection``."""
    dialect = connection.dialect
    values = entry.compiled.construct_params(dict(parameters))
    values.update(entry.defaults)
    for name, processor in entry.bind_processors.items():
        if name in values:
            values[name] = processor(values[name])
    for listener in connection.dispatch.before_cursor_execute:
        listener(connection, None, entry.sql, values, None, False)
    cursor = None
    try:
        cursor = driver_connection.cursor()
        cursor.execute(entry.sql, values)
        fetched = cursor.fetchone()
        if entry.result_processors is None:  # the first run: psycopg builds the description anew on each read
            entry.result_processors = tuple(
                type_.dialect_impl(dialect).result_processor(dialect, described[1])
                for type_, described in zip(entry.result_types, cursor.description, strict=True)
            )
    except dialect.loaded_dbapi.Error as exc:
        raise _as_sqlalchemy_error(connection, exc, entry.sql, values, cursor) from exc
    finally:
        if cursor is not None:
            cursor.close()  # a client-side cursor: no round trip, even on a dead connection
    if fetched is None:
        return None
    processors = entry.result_processors or ()
    return DriverRow(
        [
            value if processor is None else processor(value)
            for value, processor in zip(fetched, processors, strict=True)
        ],
        entry.keys,
    )


def _as_sqlalchemy_error(
    connection: Connection, exc: Exception, sql: str, values: Mapping[str, Any], cursor: Any
) -> BaseException:
    """SQLAlchemy's exception for a driver error; a lost connection is invalidated first, and the pool's other
    connections with it (they most likely met the same restart), as SQLAlchemy does on its own path."""
    dialect = connection.dialect
    lost = dialect.is_disconnect(exc, connection.connection.dbapi_connection, cursor)  # type: ignore[arg-type]
    if lost:
        connection.invalidate(exc)
        connection.engine.dispose(close=False)
    error = DBAPIError.instance(
        sql, dict(values), exc, dialect.loaded_dbapi.Error, connection_invalidated=lost, dialect=dialect
    )
    return cast(BaseException, error)
