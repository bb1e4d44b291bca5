"""Courses get a time zone (IANA name) and may be archived.

Opening and due times stay UTC instants; the course's zone only says how teachers enter them and how every page
shows them. Existing courses keep UTC through the server default, so no deadline moves or reads differently.
An archived course (archived_at set) is read-only for its students.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01 09:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    with op.batch_alter_table("courses", schema=None) as batch_op:
        batch_op.add_column(sa.Column("time_zone", sa.String(length=64), server_default="UTC", nullable=False))
        batch_op.add_column(sa.Column("archived_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    """Revert this revision."""
    with op.batch_alter_table("courses", schema=None) as batch_op:
        batch_op.drop_column("archived_at")
        batch_op.drop_column("time_zone")
