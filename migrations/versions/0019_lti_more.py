"""LTI roster: when each LMS course's roster was last read (and why it failed), when its sync was last asked
for, and who is on it, active or left (grader.lti.nrps).

Revision ID: 0019
Revises: 0016
Create Date: 2026-12-02 01:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0019"
down_revision: str | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    with op.batch_alter_table("lti_contexts", schema=None) as batch_op:
        batch_op.add_column(sa.Column("roster_synced_at", sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column("roster_requested_at", sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column("roster_error", sa.String(length=1000), nullable=True))
    op.create_table(
        "lti_members",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("context_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("staff", sa.Boolean(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("left_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("status IN ('active', 'inactive', 'deleted', 'gone')", name=op.f("ck_lti_members_status")),
        sa.ForeignKeyConstraint(
            ["context_id"], ["lti_contexts.id"], name=op.f("fk_lti_members_context_id_lti_contexts"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_lti_members_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_lti_members")),
        sa.UniqueConstraint("context_id", "user_id", name=op.f("uq_lti_members_context_id_user_id")),
    )
    with op.batch_alter_table("lti_members", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_lti_members_user_id"), ["user_id"], unique=False)


def downgrade() -> None:
    """Revert this revision."""
    with op.batch_alter_table("lti_members", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_lti_members_user_id"))
    op.drop_table("lti_members")
    with op.batch_alter_table("lti_contexts", schema=None) as batch_op:
        batch_op.drop_column("roster_error")
        batch_op.drop_column("roster_requested_at")
        batch_op.drop_column("roster_synced_at")
