"""Migrations: one head, upgrade from empty on SQLite and PostgreSQL, and models and migrations agree."""

from __future__ import annotations

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect

from grader.extensions import make_engine
from grader.migrate import alembic_config, heads, upgrade
from grader.models import Base


def test_history_has_one_head() -> None:
    assert len(heads()) == 1


def test_upgrade_from_empty_creates_every_model_table(empty_database: str) -> None:
    upgrade(empty_database)
    engine = make_engine(empty_database)
    try:
        tables = set(inspect(engine).get_table_names())
    finally:
        engine.dispose()
    assert set(Base.metadata.tables) | {"alembic_version"} == tables


def test_models_and_migrations_agree(empty_database: str) -> None:
    upgrade(empty_database)
    engine = make_engine(empty_database)
    try:
        with engine.connect() as connection:
            context = MigrationContext.configure(connection, opts={"compare_type": True})
            differences = compare_metadata(context, Base.metadata)
    finally:
        engine.dispose()
    assert differences == []


def test_upgrade_twice_is_harmless(empty_database: str) -> None:
    upgrade(empty_database)
    upgrade(empty_database)


def test_downgrade_to_base_removes_every_table(empty_database: str) -> None:
    upgrade(empty_database)
    command.downgrade(alembic_config(empty_database), "base")
    engine = make_engine(empty_database)
    try:
        assert set(inspect(engine).get_table_names()) <= {"alembic_version"}
    finally:
        engine.dispose()
