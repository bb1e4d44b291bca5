"""Assignment progress: one row per (assignment, student) with the sums over the student's progress rows that the
course dashboard reads (grader.models.AssignmentProgress), and the two columns of progress_rows that let a grade move
those sums by what it changed.

Existing rows are computed by ``grader check-progress --repair`` after the upgrade (it finds them missing), as for
0017.

Revision ID: 0020
Revises: 0015
Create Date: 2026-12-02 05:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0020"
down_revision: str | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "assignment_progress",
        sa.Column("assignment_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("points", sa.Double(), nullable=False),
        sa.Column("scored", sa.Integer(), nullable=False),
        sa.Column("pairs", sa.Integer(), nullable=False),
        sa.Column("firsts", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["assignment_id"],
            ["assignments.id"],
            name=op.f("fk_assignment_progress_assignment_id_assignments"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_assignment_progress_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("assignment_id", "user_id", name=op.f("pk_assignment_progress")),
    )
    with op.batch_alter_table("progress_rows", schema=None) as batch_op:
        batch_op.add_column(sa.Column("prior_score", sa.Double(), nullable=True))
        batch_op.add_column(sa.Column("prior_first_score", sa.Double(), nullable=True))


def downgrade() -> None:
    """Revert this revision."""
    with op.batch_alter_table("progress_rows", schema=None) as batch_op:
        batch_op.drop_column("prior_first_score")
        batch_op.drop_column("prior_score")
    op.drop_table("assignment_progress")
