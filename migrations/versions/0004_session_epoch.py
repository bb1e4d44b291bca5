"""Users' session epoch: signing out ends every session cookie issued before.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-30 00:20:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    op.add_column("users", sa.Column("session_epoch", sa.Integer(), server_default="0", nullable=False))


def downgrade() -> None:
    """Revert this revision."""
    with op.batch_alter_table("users") as batch:
        batch.drop_column("session_epoch")
