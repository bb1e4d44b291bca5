"""A course's sign-in length: at most this many hours from signing in, its members' sign-ins end (NULL: only the
site's idle limit).

Revision ID: 0026_course_session_hours
Revises: 0025_score_stats
Create Date: 2026-12-05 23:45:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0026_course_session_hours"
down_revision: str | None = "0025_score_stats"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add the nullable column (every course keeps the site's limit only)."""
    op.add_column("courses", sa.Column("session_hours", sa.Integer(), nullable=True))


def downgrade() -> None:
    """Drop the column."""
    with op.batch_alter_table("courses") as batch:
        batch.drop_column("session_hours")
