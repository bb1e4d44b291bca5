"""Worker liveness rows: the sweeper re-sends promptly while a worker is alive and holds back while none is.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-01 20:30:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "worker_beats",
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("queues", sa.String(length=1000), nullable=False),
        sa.Column("concurrency", sa.Integer(), nullable=False),
        sa.Column("seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_worker_beats")),
    )


def downgrade() -> None:
    """Revert this revision."""
    op.drop_table("worker_beats")
