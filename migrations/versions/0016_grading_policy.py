"""Grading policy per assignment: element-wise partial credit on or off, follow-through credit full, half or none.

Existing assignments get the defaults (partial credit on, full follow-through): the engine's verdicts before
policies existed, so no stored score differs from what its assignment's policy gives.

Revision ID: 0016
Revises: 0014
Create Date: 2026-12-02 01:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    sqlite = op.get_bind().dialect.name == "sqlite"
    # Recreated on SQLite (a CHECK constraint cannot be added there otherwise), keeping AUTOINCREMENT (0009).
    with op.batch_alter_table(
        "assignments",
        schema=None,
        recreate="always" if sqlite else "auto",
        table_kwargs={"sqlite_autoincrement": True} if sqlite else {},
    ) as batch_op:
        batch_op.add_column(sa.Column("partial_credit", sa.Boolean(), nullable=False, server_default=sa.true()))
        batch_op.add_column(
            sa.Column("follow_through_credit", sa.String(length=8), nullable=False, server_default="full")
        )
        batch_op.create_check_constraint("follow_through_credit", "follow_through_credit IN ('full', 'half', 'none')")


def downgrade() -> None:
    """Revert this revision."""
    sqlite = op.get_bind().dialect.name == "sqlite"
    # Recreated on SQLite (a CHECK constraint cannot be added there otherwise), keeping AUTOINCREMENT (0009).
    with op.batch_alter_table(
        "assignments",
        schema=None,
        recreate="always" if sqlite else "auto",
        table_kwargs={"sqlite_autoincrement": True} if sqlite else {},
    ) as batch_op:
        batch_op.drop_constraint("follow_through_credit", type_="check")
        batch_op.drop_column("follow_through_credit")
        batch_op.drop_column("partial_credit")
