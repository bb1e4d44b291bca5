"""Sweeper re-sends since the last claim, per leased job (the sweeper backs off exponentially).

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-29 21:55:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TABLES = ("submissions", "lab_runs", "regrade_jobs")


def upgrade() -> None:
    """Apply this revision."""
    for table in TABLES:
        op.add_column(table, sa.Column("resends", sa.Integer(), server_default="0", nullable=False))


def downgrade() -> None:
    """Revert this revision."""
    for table in TABLES:
        with op.batch_alter_table(table) as batch:
            batch.drop_column("resends")
