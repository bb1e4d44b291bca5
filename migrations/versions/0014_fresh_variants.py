"""Fresh variants per assignment: a variant row has a scope (0: shared by every assignment, as before; otherwise the
id of the one assignment it belongs to), and an assignment says whether its students get fresh variants.

Existing assignments keep sharing (``fresh_variants`` false), and every stored seed moves to scope 0 unchanged, so
no student's variant changes. New assignments are made fresh by the teacher form (grader.teacher.assignments.save).

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-01 21:30:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    sqlite = op.get_bind().dialect.name == "sqlite"
    # A boolean column makes SQLite's batch mode rebuild the table: keep AUTOINCREMENT (since 0009) so that a deleted
    # assignment's id is never given to the next one.
    with op.batch_alter_table(
        "assignments",
        schema=None,
        recreate="always" if sqlite else "auto",
        table_kwargs={"sqlite_autoincrement": True} if sqlite else {},
    ) as batch_op:
        batch_op.add_column(sa.Column("fresh_variants", sa.Boolean(), nullable=False, server_default=sa.false()))
    with op.batch_alter_table("variant_assignments", schema=None) as batch_op:
        batch_op.add_column(sa.Column("scope", sa.Integer(), nullable=False, server_default="0"))
        batch_op.drop_constraint("uq_variant_assignments_user_id_exercise_id", type_="unique")
        batch_op.create_unique_constraint(
            "uq_variant_assignments_user_id_exercise_id_scope", ["user_id", "exercise_id", "scope"]
        )


def downgrade() -> None:
    """Revert this revision (the fresh variants' rows are dropped: only the shared ones fit the old key)."""
    op.execute("DELETE FROM variant_assignments WHERE scope <> 0")
    with op.batch_alter_table("variant_assignments", schema=None) as batch_op:
        batch_op.drop_constraint("uq_variant_assignments_user_id_exercise_id_scope", type_="unique")
        batch_op.create_unique_constraint("uq_variant_assignments_user_id_exercise_id", ["user_id", "exercise_id"])
        batch_op.drop_column("scope")
    sqlite = op.get_bind().dialect.name == "sqlite"
    with op.batch_alter_table(
        "assignments",
        schema=None,
        recreate="always" if sqlite else "auto",
        table_kwargs={"sqlite_autoincrement": True} if sqlite else {},
    ) as batch_op:
        batch_op.drop_column("fresh_variants")
