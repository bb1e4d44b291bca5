"""Alembic environment: the grader models are the target; the URL comes from the caller or the grader config."""

from __future__ import annotations

from typing import Literal

from alembic import context
from alembic.autogenerate.api import AutogenContext
from sqlalchemy import Connection

from grader.config import load_config
from grader.extensions import make_engine
from grader.models import Base
from grader.models.base import UTCDateTime

config = context.config
target_metadata = Base.metadata


def database_url() -> str:
    """The URL given by `grader db upgrade` (or -x url=...), else DATABASE_URL from the environment."""
    return (
        context.get_x_argument(as_dictionary=True).get("url")
        or config.get_main_option("sqlalchemy.url")
        or load_config()["DATABASE_URL"]
    )


def render_item(type_: str, obj: object, autogen_context: AutogenContext) -> str | Literal[False]:
    """Write the UTC timestamp type as a plain timezone-aware DateTime, so migrations never import model code."""
    if type_ == "type" and isinstance(obj, UTCDateTime):
        return "sa.DateTime(timezone=True)"
    return False


def configure(connection: Connection | None = None, url: str | None = None) -> None:
    """Shared context options; batch mode lets ALTERs work on SQLite."""
    context.configure(
        connection=connection,
        url=url,
        target_metadata=target_metadata,
        render_as_batch=True,
        compare_type=True,
        render_item=render_item,
        literal_binds=connection is None,
    )


def run_migrations_offline() -> None:
    """Emit SQL without a database connection."""
    configure(url=database_url())
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    """Run migrations on a live connection (the caller's, if it passed one)."""
    connection = config.attributes.get("connection")
    if connection is not None:
        configure(connection=connection)
        with context.begin_transaction():
            context.run_migrations()
        return
    engine = make_engine(database_url())
    with engine.connect() as connection:
        configure(connection=connection)
        with context.begin_transaction():
            context.run_migrations()
    engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
