"""Listing counts: the kept submission counts (0021) split by exercise too, with the counts of the final statuses,
so that the API listing's ``total`` under an exercise or status filter reads a few kept rows (grader.models.
SubmissionCount) instead of counting the course's submissions.

A row's exercise never changes, so inserts, deletes and moves keep the counts as before; a status change moves
them only when the old or the new status is final (graded, invalid, error): a grade pays one UPDATE of one kept row
(its claim, queued -> grading, is turned away by the trigger's WHEN without running it). Queued and grading rows
are the in-flight backlog, counted from the rows when asked for.

Revision ID: 0023_listing_counts
Revises: 0021
Create Date: 2026-12-02 08:10:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0023_listing_counts"
down_revision: str | None = "0021"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

FINAL = ("graded", "invalid", "error")  # grader.models.FINAL_STATUSES, one kept column each


def _is(row: str, status: str) -> str:
    """SQL: 1 if the row has ``status``, else 0."""
    return f"CASE WHEN {row}.status = '{status}' THEN 1 ELSE 0 END"


_KEY = "assignment_id = {row}.assignment_id AND exercise_id = {row}.exercise_id AND shard = {row}.user_id % 16"
# An increment is an upsert; a decrement a plain UPDATE (when the assignment itself is being deleted its counts are
# already gone, and an upsert would write a row for it).
_ADD = (
    "INSERT INTO submission_counts (assignment_id, exercise_id, shard, submissions, graded, invalid, error) "
    "VALUES ({row}.assignment_id, {row}.exercise_id, {row}.user_id % 16, 1, "
    + ", ".join(_is("{row}", status) for status in FINAL)
    + ") ON CONFLICT (assignment_id, exercise_id, shard) DO UPDATE SET "
    "submissions = submission_counts.submissions + 1, "
    + ", ".join(f"{status} = submission_counts.{status} + excluded.{status}" for status in FINAL)
)
_TAKE = (
    "UPDATE submission_counts SET submissions = submissions - 1, "
    + ", ".join(f"{status} = {status} - {_is('{row}', status)}" for status in FINAL)
    + f" WHERE {_KEY}"
)
# The same row, another status: the old status's count to the new one's.
_SHIFT = (
    "UPDATE submission_counts SET "
    + ", ".join(f"{status} = {status} + {_is('NEW', status)} - {_is('OLD', status)}" for status in FINAL)
    + f" WHERE {_KEY.format(row='NEW')}"
)
_FINAL_LIST = ", ".join(f"'{status}'" for status in FINAL)


def _moved(distinct: str) -> str:
    """SQL: the UPDATE moved the row to another kept row (``distinct``: the dialect's null-safe inequality)."""
    return (
        f"(OLD.assignment_id {distinct} NEW.assignment_id OR OLD.exercise_id <> NEW.exercise_id "
        "OR OLD.user_id % 16 <> NEW.user_id % 16)"
    )


_SHIFTED = f"(OLD.status <> NEW.status AND (OLD.status IN ({_FINAL_LIST}) OR NEW.status IN ({_FINAL_LIST})))"
_COLUMNS = "assignment_id, exercise_id, user_id, status"

_POSTGRESQL = [
    f"""
    CREATE FUNCTION submissions_counted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF TG_OP = 'UPDATE' THEN
            IF NOT {_moved("IS DISTINCT FROM")} THEN
                IF NEW.assignment_id IS NOT NULL THEN
                    {_SHIFT};
                END IF;
                RETURN NULL;
            END IF;
        END IF;
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
    "CREATE TRIGGER submissions_counted AFTER INSERT OR DELETE ON submissions "
    "FOR EACH ROW EXECUTE FUNCTION submissions_counted()",
    f"CREATE TRIGGER submissions_recounted AFTER UPDATE OF {_COLUMNS} ON submissions FOR EACH ROW "
    f"WHEN ({_moved('IS DISTINCT FROM')} OR {_SHIFTED}) EXECUTE FUNCTION submissions_counted()",
]
_SQLITE = [
    "CREATE TRIGGER submissions_counted_insert AFTER INSERT ON submissions "
    f"WHEN NEW.assignment_id IS NOT NULL BEGIN {_ADD.format(row='NEW')}; END",
    "CREATE TRIGGER submissions_counted_delete AFTER DELETE ON submissions "
    f"WHEN OLD.assignment_id IS NOT NULL BEGIN {_TAKE.format(row='OLD')}; END",
    f"CREATE TRIGGER submissions_counted_take AFTER UPDATE OF {_COLUMNS} ON submissions "
    f"WHEN OLD.assignment_id IS NOT NULL AND {_moved('IS NOT')} BEGIN {_TAKE.format(row='OLD')}; END",
    f"CREATE TRIGGER submissions_counted_add AFTER UPDATE OF {_COLUMNS} ON submissions "
    f"WHEN NEW.assignment_id IS NOT NULL AND {_moved('IS NOT')} BEGIN {_ADD.format(row='NEW')}; END",
    f"CREATE TRIGGER submissions_counted_shift AFTER UPDATE OF {_COLUMNS} ON submissions "
    f"WHEN NEW.assignment_id IS NOT NULL AND NOT {_moved('IS NOT')} AND {_SHIFTED} BEGIN {_SHIFT}; END",
]
_SQLITE_TRIGGERS = ("insert", "delete", "take", "add", "shift")

# 0021's shape, for the downgrade.
_OLD_ADD = (
    "INSERT INTO submission_counts (assignment_id, shard, submissions) VALUES ({row}.assignment_id, "
    "{row}.user_id % 16, 1) ON CONFLICT (assignment_id, shard) DO UPDATE SET "
    "submissions = submission_counts.submissions + 1"
)
_OLD_TAKE = (
    "UPDATE submission_counts SET submissions = submissions - 1 "
    "WHERE assignment_id = {row}.assignment_id AND shard = {row}.user_id % 16"
)
_OLD_POSTGRESQL = [
    f"""
    CREATE FUNCTION submissions_counted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF TG_OP <> 'INSERT' THEN
            IF OLD.assignment_id IS NOT NULL THEN
                {_OLD_TAKE.format(row="OLD")};
            END IF;
        END IF;
        IF TG_OP <> 'DELETE' THEN
            IF NEW.assignment_id IS NOT NULL THEN
                {_OLD_ADD.format(row="NEW")};
            END IF;
        END IF;
        RETURN NULL;
    END
    $$
    """,
    "CREATE TRIGGER submissions_counted AFTER INSERT OR DELETE OR UPDATE OF assignment_id, user_id "
    "ON submissions FOR EACH ROW EXECUTE FUNCTION submissions_counted()",
]
_OLD_SQLITE = [
    "CREATE TRIGGER submissions_counted_insert AFTER INSERT ON submissions "
    f"WHEN NEW.assignment_id IS NOT NULL BEGIN {_OLD_ADD.format(row='NEW')}; END",
    "CREATE TRIGGER submissions_counted_delete AFTER DELETE ON submissions "
    f"WHEN OLD.assignment_id IS NOT NULL BEGIN {_OLD_TAKE.format(row='OLD')}; END",
    "CREATE TRIGGER submissions_counted_take AFTER UPDATE OF assignment_id, user_id ON submissions "
    f"WHEN OLD.assignment_id IS NOT NULL BEGIN {_OLD_TAKE.format(row='OLD')}; END",
    "CREATE TRIGGER submissions_counted_add AFTER UPDATE OF assignment_id, user_id ON submissions "
    f"WHEN NEW.assignment_id IS NOT NULL BEGIN {_OLD_ADD.format(row='NEW')}; END",
]


def _drop_triggers(sqlite_names: Sequence[str]) -> None:
    """Drop the counting triggers (and PostgreSQL's function) of either shape."""
    if op.get_bind().dialect.name == "sqlite":
        for name in sqlite_names:
            op.execute(f"DROP TRIGGER IF EXISTS submissions_counted_{name}")
    else:
        op.execute("DROP TRIGGER IF EXISTS submissions_recounted ON submissions")
        op.execute("DROP TRIGGER submissions_counted ON submissions")
        op.execute("DROP FUNCTION submissions_counted()")


def upgrade() -> None:
    """Apply this revision."""
    _drop_triggers(("insert", "delete", "take", "add"))
    op.drop_table("submission_counts")
    op.create_table(
        "submission_counts",
        sa.Column("assignment_id", sa.Integer(), nullable=False),
        sa.Column("exercise_id", sa.String(length=64), nullable=False),
        sa.Column("shard", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("submissions", sa.Integer(), nullable=False),
        *(sa.Column(status, sa.Integer(), nullable=False) for status in FINAL),
        sa.ForeignKeyConstraint(
            ["assignment_id"],
            ["assignments.id"],
            name=op.f("fk_submission_counts_assignment_id_assignments"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("assignment_id", "exercise_id", "shard", name=op.f("pk_submission_counts")),
    )
    op.execute(
        "INSERT INTO submission_counts (assignment_id, exercise_id, shard, submissions, graded, invalid, error) "
        "SELECT assignment_id, exercise_id, user_id % 16, count(*), "
        + ", ".join(f"sum({_is('submissions', status)})" for status in FINAL)
        + " FROM submissions WHERE assignment_id IS NOT NULL GROUP BY assignment_id, exercise_id, user_id % 16"
    )
    for statement in _SQLITE if op.get_bind().dialect.name == "sqlite" else _POSTGRESQL:
        op.execute(statement)


def downgrade() -> None:
    """Revert this revision: 0021's counts (per assignment and shard), counted afresh."""
    _drop_triggers(_SQLITE_TRIGGERS)
    op.drop_table("submission_counts")
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
    for statement in _OLD_SQLITE if op.get_bind().dialect.name == "sqlite" else _OLD_POSTGRESQL:
        op.execute(statement)
