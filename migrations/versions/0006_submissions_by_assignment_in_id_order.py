"""Submissions indexed by (assignment_id, id) instead of assignment_id alone.

A listing of one assignment's submissions newest first (API, one page) walked the primary key backwards past every
newer submission of every other course; the CSV export sorted the whole assignment. The composite index serves both
in index order, and every look-up the single-column index served, so that one goes.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-30 05:30:00
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    with op.batch_alter_table("submissions", schema=None) as batch_op:
        batch_op.create_index("ix_submissions_assignment_id_id", ["assignment_id", "id"], unique=False)
        batch_op.drop_index("ix_submissions_assignment_id")


def downgrade() -> None:
    """Revert this revision."""
    with op.batch_alter_table("submissions", schema=None) as batch_op:
        batch_op.create_index("ix_submissions_assignment_id", ["assignment_id"], unique=False)
        batch_op.drop_index("ix_submissions_assignment_id_id")
