"""Running a course: per-student extensions (a later due date, extra attempts), late policies, and
score overrides with their append-only log, and points per exercise (an empty map: 1 each, as before).

Late policy columns: existing assignments get none (``late_until`` NULL: no work after the due date, as before), a
penalty of 0 per day and no cap.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-01 20:30:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "extensions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("assignment_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("due_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("extra_attempts", sa.Integer(), nullable=False),
        sa.Column("reason", sa.String(length=500), nullable=False),
        sa.Column("granted_by", sa.Integer(), nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("extra_attempts >= 0", name=op.f("ck_extensions_extra_attempts_non_negative")),
        sa.ForeignKeyConstraint(
            ["assignment_id"],
            ["assignments.id"],
            name=op.f("fk_extensions_assignment_id_assignments"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["granted_by"], ["users.id"], name=op.f("fk_extensions_granted_by_users"), ondelete="SET NULL"
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_extensions_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_extensions")),
        sa.UniqueConstraint("assignment_id", "user_id", name=op.f("uq_extensions_assignment_id_user_id")),
    )
    op.create_index(op.f("ix_extensions_user_id"), "extensions", ["user_id"], unique=False)
    op.create_table(
        "score_overrides",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("assignment_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("exercise_id", sa.String(length=64), nullable=False),
        sa.Column("score", sa.Double(), nullable=False),
        sa.Column("reason", sa.String(length=500), nullable=False),
        sa.Column("set_by", sa.String(length=200), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("score >= 0 AND score <= 1", name=op.f("ck_score_overrides_score_fraction")),
        sa.ForeignKeyConstraint(
            ["assignment_id"],
            ["assignments.id"],
            name=op.f("fk_score_overrides_assignment_id_assignments"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_score_overrides_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_score_overrides")),
        sa.UniqueConstraint(
            "assignment_id", "user_id", "exercise_id", name=op.f("uq_score_overrides_assignment_id_user_id_exercise_id")
        ),
    )
    op.create_index(op.f("ix_score_overrides_user_id"), "score_overrides", ["user_id"], unique=False)
    op.create_table(
        "override_log",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("assignment_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("exercise_id", sa.String(length=64), nullable=False),
        sa.Column("old_score", sa.Double(), nullable=True),
        sa.Column("new_score", sa.Double(), nullable=True),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("actor", sa.String(length=200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["assignment_id"],
            ["assignments.id"],
            name=op.f("fk_override_log_assignment_id_assignments"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_override_log_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_override_log")),
        sqlite_autoincrement=True,
    )
    op.create_index(op.f("ix_override_log_assignment_id"), "override_log", ["assignment_id"], unique=False)
    sqlite = op.get_bind().dialect.name == "sqlite"
    # Recreated on SQLite (a CHECK constraint cannot be added there otherwise), keeping AUTOINCREMENT (0009).
    with op.batch_alter_table(
        "assignments",
        schema=None,
        recreate="always" if sqlite else "auto",
        table_kwargs={"sqlite_autoincrement": True} if sqlite else {},
    ) as batch_op:
        batch_op.add_column(sa.Column("late_until", sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column("late_penalty_per_day", sa.Double(), server_default="0", nullable=False))
        batch_op.add_column(sa.Column("late_cap", sa.Double(), nullable=True))
        batch_op.add_column(sa.Column("exercise_points", sa.JSON(), server_default="{}", nullable=False))
        batch_op.create_check_constraint(
            "late_penalty_percent", "late_penalty_per_day >= 0 AND late_penalty_per_day <= 100"
        )
        batch_op.create_check_constraint("late_cap_percent", "late_cap IS NULL OR (late_cap >= 0 AND late_cap <= 100)")


def downgrade() -> None:
    """Revert this revision."""
    op.drop_index(op.f("ix_override_log_assignment_id"), table_name="override_log")
    op.drop_table("override_log")
    op.drop_index(op.f("ix_score_overrides_user_id"), table_name="score_overrides")
    op.drop_table("score_overrides")
    sqlite = op.get_bind().dialect.name == "sqlite"
    with op.batch_alter_table(
        "assignments",
        schema=None,
        recreate="always" if sqlite else "auto",
        table_kwargs={"sqlite_autoincrement": True} if sqlite else {},
    ) as batch_op:
        batch_op.drop_constraint("late_cap_percent", type_="check")
        batch_op.drop_constraint("late_penalty_percent", type_="check")
        batch_op.drop_column("exercise_points")
        batch_op.drop_column("late_cap")
        batch_op.drop_column("late_penalty_per_day")
        batch_op.drop_column("late_until")
    op.drop_index(op.f("ix_extensions_user_id"), table_name="extensions")
    op.drop_table("extensions")
