"""Submission counts per assignment (grader.models.SubmissionCount), kept by triggers on ``submissions`` so that
every writer (the service, a bulk import, a cascade) keeps them; filled from the existing rows here.

Revision ID: 0021
Revises: 0020
Create Date: 2026-12-02 05:10:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0021"
down_revision: str | None = "0020"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# The count of a row's (assignment, shard): a decrement is a plain UPDATE (when the assignment itself is being
# deleted its counts are already gone, and an upsert would write a row for it), an increment an upsert.
_ADD = (
    "INSERT INTO submission_counts (assignment_id, shard, submissions) VALUES ({row}.assignment_id, "
    "{row}.user_id % 16, 1) ON CONFLICT (assignment_id, shard) DO UPDATE SET "
    "submissions = submission_counts.submissions + 1"
)
_TAKE = (
    "UPDATE submission_counts SET submissions = submissions - 1 "
    "WHERE assignment_id = {row}.assignment_id AND shard = {row}.user_id % 16"
)

_POSTGRESQL = [
    f"""
    CREATE FUNCTION submissions_counted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF TG_OP <> 'INSERT' THEN
            IF OLD.assignment_id IS NOT NULL THEN
                {_TAKE.format(row="OLD")};
            END IF;
        END IF;
        IF TG_OP <> 'DELETE' THEN
            IF NEW.assignment_id IS NOT NULL THEN
                {_ADD.format(row="NEW")};
            END IF;
        END IF;
        RETURN NULL;
    END
    $$
    """,
    "CREATE TRIGGER submissions_counted AFTER INSERT OR DELETE OR UPDATE OF assignment_id, user_id "
    "ON submissions FOR EACH ROW EXECUTE FUNCTION submissions_counted()",
]
_SQLITE = [
    "CREATE TRIGGER submissions_counted_insert AFTER INSERT ON submissions "
    f"WHEN NEW.assignment_id IS NOT NULL BEGIN {_ADD.format(row='NEW')}; END",
    "CREATE TRIGGER submissions_counted_delete AFTER DELETE ON submissions "
    f"WHEN OLD.assignment_id IS NOT NULL BEGIN {_TAKE.format(row='OLD')}; END",
    "CREATE TRIGGER submissions_counted_take AFTER UPDATE OF assignment_id, user_id ON submissions "
    f"WHEN OLD.assignment_id IS NOT NULL BEGIN {_TAKE.format(row='OLD')}; END",
    "CREATE TRIGGER submissions_counted_add AFTER UPDATE OF assignment_id, user_id ON submissions "
    f"WHEN NEW.assignment_id IS NOT NULL BEGIN {_ADD.format(row='NEW')}; END",
]


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "submission_counts",
        sa.Column("assignment_id", sa.Integer(), nullable=False),
        sa.Column("shard", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("submissions", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["assignment_id"],
            ["assignments.id"],
            name=op.f("fk_submission_counts_assignment_id_assignments"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("assignment_id", "shard", name=op.f("pk_submission_counts")),
    )
    op.execute(
        "INSERT INTO submission_counts (assignment_id, shard, submissions) "
        "SELECT assignment_id, user_id % 16, count(*) FROM submissions WHERE assignment_id IS NOT NULL "
        "GROUP BY assignment_id, user_id % 16"
    )
    for statement in _SQLITE if op.get_bind().dialect.name == "sqlite" else _POSTGRESQL:
        op.execute(statement)


def downgrade() -> None:
    """Revert this revision."""
    if op.get_bind().dialect.name == "sqlite":
        for name in ("insert", "delete", "take", "add"):
            op.execute(f"DROP TRIGGER submissions_counted_{name}")
    else:
        op.execute("DROP TRIGGER submissions_counted ON submissions")
        op.execute("DROP FUNCTION submissions_counted()")
    op.drop_table("submission_counts")
