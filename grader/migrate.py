"""Alembic from code: the migrations folder beside the package, applied to a given database URL."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory

PROJECT_ROOT = Path(__file__).resolve().parent.parent
MIGRATIONS = PROJECT_ROOT / "migrations"


def alembic_config(database_url: str) -> Config:
    """An Alembic config pointing at ``migrations/`` and ``database_url`` (no alembic.ini needed)."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.set_main_option("path_separator", "os")
    # ConfigParser treats % as interpolation; URLs may contain %-escapes.
    config.set_main_option("sqlalchemy.url", database_url.replace("%", "%%"))
    return config


def upgrade(database_url: str, revision: str = "head") -> None:
    """Apply migrations up to ``revision``."""
    command.upgrade(alembic_config(database_url), revision)


def heads(database_url: str = "sqlite://") -> list[str]:
    """The head revisions of the migration scripts (one, unless history has branched)."""
    return list(ScriptDirectory.from_config(alembic_config(database_url)).get_heads())
