"""SQL that differs between PostgreSQL and SQLite, kept in this one module.

Queries elsewhere are written once, in SQLAlchemy's portable constructs (``with_for_update`` is dropped on SQLite;
JSON values are read with the JSON type's accessors). What is left here has no portable spelling (locks, JSON
set-returning functions, upserts) or is a choice of plan that is fast on one database and slow on the other; each
function says why.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import JSON, ColumnElement, Connection, any_, case, cast, func, literal, select, text, type_coerce
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import InstrumentedAttribute, Session
from sqlalchemy.sql.dml import Insert

POSTGRESQL = "postgresql"


def dialect_of(session: Session) -> str:
    """The dialect name of the database ``session`` is bound to: ``postgresql`` or ``sqlite``."""
    return session.get_bind().dialect.name


def insert_ignoring_conflict(dialect: str, table: Any, index_elements: list[str], **values: Any) -> Insert:
    """INSERT ... ON CONFLICT (index_elements) DO NOTHING: each dialect has its own insert construct for it."""
    insert = postgresql.insert if dialect == POSTGRESQL else sqlite.insert
    return insert(table).values(**values).on_conflict_do_nothing(index_elements=index_elements)


def insert_or_update(
    dialect: str, table: Any, index_elements: list[str], columns: list[str], rows: Any, updates: Any
) -> Insert:
    """INSERT ... SELECT ... ON CONFLICT (index_elements) DO UPDATE SET ``updates(excluded)``: each dialect has its
    own insert construct for an upsert. ``rows`` must carry a WHERE clause (SQLite's parser needs one to tell a
    SELECT's join from the upsert clause)."""
    insert = postgresql.insert if dialect == POSTGRESQL else sqlite.insert
    statement = insert(table).from_select(columns, rows)
    return statement.on_conflict_do_update(index_elements=index_elements, set_=updates(statement.excluded))


def take_write_lock(connection: Connection, lock_key: int) -> None:
    """Serialise writers on ``lock_key`` for the rest of the transaction. SQLite has one database-wide write lock,
    taken up front with BEGIN IMMEDIATE (writers queue there); PostgreSQL locks just the key (an advisory lock)."""
    if connection.dialect.name == POSTGRESQL:
        connection.execute(select(func.pg_advisory_xact_lock(lock_key)))
    else:
        connection.exec_driver_sql("BEGIN IMMEDIATE")


def single_statement_autocommit(dialect: str) -> bool:
    """Whether a job whose writes are single statements may run them in autocommit (saving a BEGIN and a COMMIT
    each): on PostgreSQL yes; SQLite's pysqlite driver manages its own transactions, so no."""
    return dialect == POSTGRESQL


def equals_keeping_index_order(
    column: ColumnElement[Any] | InstrumentedAttribute[Any], value: int, dialect: str
) -> ColumnElement[bool]:
    """SQL ``column = value``, said so that only the index (column, id) gives the rows' id order.

    PostgreSQL folds ``column = value`` into a constant and may then walk the primary key instead (its estimate
    cannot know that one value's rows are clustered, so it expects a match every few rows); ``= ANY(ARRAY[value])``
    is not folded. SQLite has no such folding (and no arrays).
    """
    if dialect == POSTGRESQL:
        return column == any_(postgresql.array([value]))
    return column == value


def ranks_by_window(dialect: str) -> bool:
    """Whether to find a group's first and last rows by window functions rather than by primary-key look-ups:
    joined back by id, PostgreSQL hashes the whole table, while SQLite looks each row up, about twice as fast as a
    window's sort there."""
    return dialect == POSTGRESQL


def plan_json_expansion_without_jit(session: Session) -> None:
    """Before a query expanding JSON: PostgreSQL's json_each has no row estimate, so the planner guesses 100 rows per
    call and JIT-compiles (about a second, for a query that runs in tens of milliseconds); off for this transaction
    only. SQLite has no JIT."""
    if dialect_of(session) == POSTGRESQL:
        session.execute(text("SET LOCAL jit = off"))


def json_object_items(dialect: str, document: ColumnElement[Any], object_type: Any) -> Any:
    """Table-valued: every (key, value) of ``document``, a JSON object column; a row whose document is not an object
    (JSON null, written by hand or by old code) yields nothing. PostgreSQL's json_each fails on a non-object
    ("cannot deconstruct a scalar"), so it is given an empty object instead; SQLite's yields no rows by itself."""
    source: Any = document
    if dialect == POSTGRESQL:
        source = case((func.json_typeof(document) == "object", document), else_=cast(literal("{}"), object_type))
    return func.json_each(source).table_valued("key", "value", joins_implicitly=True)


def json_array_texts(dialect: str, array_of: ColumnElement[Any], key: str) -> Any:
    """Table-valued: every element, as text, of the JSON array ``array_of[key]``. PostgreSQL has a function for an
    array's elements as text; SQLite's json_each takes a path."""
    if dialect == POSTGRESQL:
        elements = func.json_array_elements_text(array_of.op("->")(key))
    else:
        elements = func.json_each(array_of, f"$.{key}")
    return elements.table_valued("value", joins_implicitly=True)


def json_text(document: ColumnElement[Any], key: str) -> ColumnElement[Any]:
    """SQL: the text of ``document[key]`` (a JSON object), by the JSON type's portable accessor."""
    text_of: ColumnElement[Any] = type_coerce(document, JSON)[key].as_string()
    return text_of
