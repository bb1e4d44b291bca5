"""Course staff: co-teachers and teaching assistants of a course, beside its own teachers (its teacher enrolments).

What each part may do is decided in grader.grading.access; existing courses get no rows, so nobody's access changes.
(Numbered 0015 when it was written; it follows 0019, the head when it landed.)

Revision ID: 0015
Revises: 0017
Create Date: 2026-12-02 01:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015"
down_revision: str | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "course_staff",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("course_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("added_by", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("role IN ('co_teacher', 'ta')", name=op.f("ck_course_staff_role")),
        sa.ForeignKeyConstraint(
            ["added_by"], ["users.id"], name=op.f("fk_course_staff_added_by_users"), ondelete="SET NULL"
        ),
        sa.ForeignKeyConstraint(
            ["course_id"], ["courses.id"], name=op.f("fk_course_staff_course_id_courses"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_course_staff_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_course_staff")),
        sa.UniqueConstraint("course_id", "user_id", name=op.f("uq_course_staff_course_id_user_id")),
    )
    op.create_index(op.f("ix_course_staff_user_id"), "course_staff", ["user_id"], unique=False)


def downgrade() -> None:
    """Revert this revision."""
    op.drop_index(op.f("ix_course_staff_user_id"), table_name="course_staff")
    op.drop_table("course_staff")
