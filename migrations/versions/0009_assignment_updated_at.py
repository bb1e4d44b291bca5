"""Assignments record when their settings last changed (``updated_at``), and their ids are never reused.

A new score policy or exercise list changes every student's counted total without any grade-log entry, so the
grade-change feed cannot tell an LMS; the assignment's ``updated_at`` (in the API's Assignment) can. Existing
assignments start from their creation time.

An assignment with no submissions can be deleted (since 0007); without AUTOINCREMENT SQLite would give the next
assignment, perhaps in another teacher's course, the deleted one's id, so an LMS's stored link or gradebook mapping
would lead to someone else's assignment. PostgreSQL's sequence never goes back.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-30 12:30:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    with op.batch_alter_table("assignments", schema=None) as batch_op:
        batch_op.add_column(sa.Column("updated_at", sa.DateTime(timezone=True), nullable=True))
    op.execute("UPDATE assignments SET updated_at = created_at")
    sqlite = op.get_bind().dialect.name == "sqlite"
    with op.batch_alter_table(
        "assignments",
        schema=None,
        recreate="always" if sqlite else "auto",
        table_kwargs={"sqlite_autoincrement": True} if sqlite else {},
    ) as batch_op:
        batch_op.alter_column("updated_at", existing_type=sa.DateTime(timezone=True), nullable=False)


def downgrade() -> None:
    """Revert this revision."""
    sqlite = op.get_bind().dialect.name == "sqlite"
    with op.batch_alter_table(
        "assignments",
        schema=None,
        recreate="always" if sqlite else "auto",
        table_kwargs={"sqlite_autoincrement": False} if sqlite else {},
    ) as batch_op:
        batch_op.drop_column("updated_at")
