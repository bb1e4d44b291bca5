"""Progress rows: one per (student, assignment, exercise), what the teacher pages read (grader.grading.progress).

Existing rows are computed by ``grader check-progress --repair`` after the upgrade (the counting is the service's
Python, which a migration should not freeze); until then the dashboards show no scores.

Revision ID: 0017
Revises: 0019
Create Date: 2026-12-02 00:45:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0017"
down_revision: str | None = "0019"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "progress_rows",
        sa.Column("assignment_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("exercise_id", sa.String(length=64), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("first_score", sa.Double(), nullable=True),
        sa.Column("first_submission_id", sa.Integer(), nullable=True),
        sa.Column("best_score", sa.Double(), nullable=True),
        sa.Column("last_score", sa.Double(), nullable=True),
        sa.Column("last_submission_id", sa.Integer(), nullable=True),
        sa.Column("best_counted", sa.Double(), nullable=True),
        sa.Column("best_late", sa.Boolean(), nullable=False),
        sa.Column("last_counted", sa.Double(), nullable=True),
        sa.Column("last_late", sa.Boolean(), nullable=False),
        sa.Column("score", sa.Double(), nullable=True),
        sa.Column("late", sa.Boolean(), nullable=False),
        sa.Column("overridden", sa.Boolean(), nullable=False),
        sa.Column("last_activity", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["assignment_id"],
            ["assignments.id"],
            name=op.f("fk_progress_rows_assignment_id_assignments"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_progress_rows_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("assignment_id", "user_id", "exercise_id", name=op.f("pk_progress_rows")),
    )
    op.create_index(
        "ix_progress_rows_assignment_exercise", "progress_rows", ["assignment_id", "exercise_id"], unique=False
    )
    op.create_index("ix_progress_rows_user_assignment", "progress_rows", ["user_id", "assignment_id"], unique=False)


def downgrade() -> None:
    """Revert this revision."""
    op.drop_index("ix_progress_rows_user_assignment", table_name="progress_rows")
    op.drop_index("ix_progress_rows_assignment_exercise", table_name="progress_rows")
    op.drop_table("progress_rows")
