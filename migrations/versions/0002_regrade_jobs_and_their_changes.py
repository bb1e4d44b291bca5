"""Regrade jobs (teacher dashboard) and the changes each one found.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29 19:11:54.700537
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "regrade_jobs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("assignment_id", sa.Integer(), nullable=False),
        sa.Column("requested_by_id", sa.Integer(), nullable=True),
        sa.Column("requested_by", sa.String(length=200), nullable=False),
        sa.Column("never_lower", sa.Boolean(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("engine_version", sa.String(length=32), nullable=True),
        sa.Column("total", sa.Integer(), nullable=False),
        sa.Column("processed", sa.Integer(), nullable=False),
        sa.Column("changed", sa.Integer(), nullable=False),
        sa.Column("kept", sa.Integer(), nullable=False),
        sa.Column("cursor", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("max_attempts", sa.Integer(), nullable=False),
        sa.Column("lease_owner", sa.String(length=200), nullable=True),
        sa.Column("lease_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("dispatched_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("error_message", sa.Text(), nullable=True),
        sa.Column("queued_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint("status IN ('queued', 'running', 'done', 'error')", name=op.f("ck_regrade_jobs_status")),
        sa.ForeignKeyConstraint(
            ["assignment_id"],
            ["assignments.id"],
            name=op.f("fk_regrade_jobs_assignment_id_assignments"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["requested_by_id"], ["users.id"], name=op.f("fk_regrade_jobs_requested_by_id_users"), ondelete="SET NULL"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_regrade_jobs")),
        sqlite_autoincrement=True,
    )
    with op.batch_alter_table("regrade_jobs", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_regrade_jobs_assignment_id"), ["assignment_id"], unique=False)

    op.create_table(
        "regrade_changes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("job_id", sa.Integer(), nullable=False),
        sa.Column("submission_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("exercise_id", sa.String(length=64), nullable=False),
        sa.Column("old_status", sa.String(length=16), nullable=False),
        sa.Column("new_status", sa.String(length=16), nullable=False),
        sa.Column("old_score", sa.Double(), nullable=True),
        sa.Column("new_score", sa.Double(), nullable=True),
        sa.Column("old_engine_version", sa.String(length=32), nullable=True),
        sa.Column("new_engine_version", sa.String(length=32), nullable=True),
        sa.Column("applied", sa.Boolean(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["job_id"], ["regrade_jobs.id"], name=op.f("fk_regrade_changes_job_id_regrade_jobs"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["submission_id"],
            ["submissions.id"],
            name=op.f("fk_regrade_changes_submission_id_submissions"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_regrade_changes_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_regrade_changes")),
        sa.UniqueConstraint("job_id", "submission_id", name=op.f("uq_regrade_changes_job_id_submission_id")),
    )
    with op.batch_alter_table("regrade_changes", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_regrade_changes_job_id"), ["job_id"], unique=False)


def downgrade() -> None:
    """Revert this revision."""
    with op.batch_alter_table("regrade_changes", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_regrade_changes_job_id"))

    op.drop_table("regrade_changes")
    with op.batch_alter_table("regrade_jobs", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_regrade_jobs_assignment_id"))

    op.drop_table("regrade_jobs")
