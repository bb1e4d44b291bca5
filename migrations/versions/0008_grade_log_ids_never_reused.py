"""Grade-log ids are never reused on SQLite (AUTOINCREMENT), as submission ids already are.

The grade-change feed (``GET /api/v1/grade-changes``) pages by ``after_id``. Without AUTOINCREMENT, SQLite gives a
new row the highest id plus one, so if the newest log row went (its submission or student deleted) the next one
would take its id, which a client's cursor has already passed, and the client would never see it. PostgreSQL's
sequence never goes back: nothing changes there.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-30 12:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _recreate(autoincrement: bool) -> None:
    """Rebuild grade_log on SQLite with or without AUTOINCREMENT (its rows, ids, index and foreign key kept)."""
    if op.get_bind().dialect.name != "sqlite":
        return
    with op.batch_alter_table(
        "grade_log", recreate="always", table_kwargs={"sqlite_autoincrement": autoincrement}
    ) as batch_op:
        batch_op.alter_column("id", existing_nullable=False)


def upgrade() -> None:
    """Apply this revision."""
    _recreate(True)


def downgrade() -> None:
    """Revert this revision."""
    _recreate(False)
