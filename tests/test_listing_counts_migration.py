"""Migration 0023 (listing counts) on SQLite and PostgreSQL: the submissions already there are counted per
assignment, exercise, shard and final status; its triggers keep counting after it; a downgrade to 0021 gives back
0021's counts per assignment and shard, kept by 0021's triggers."""

from __future__ import annotations

from alembic import command
from sqlalchemy import Connection, Engine, text

from grader.extensions import make_engine
from grader.migrate import alembic_config, upgrade

SUBMISSION = (
    "INSERT INTO submissions (user_id, assignment_id, exercise_id, seed, lang, raw_answer, status, created_at, "
    "attempts, max_attempts, resends, queued_at) VALUES (:user, :assignment, :exercise, 0, 'en', '{}', :status, "
    "CURRENT_TIMESTAMP, 0, 3, 0, CURRENT_TIMESTAMP)"
)


def _school(connection: Connection) -> tuple[list[int], int]:
    """Two students (shards 1 and 2 apart) and one assignment: (user ids, assignment id)."""
    for name in ("u1", "u2"):
        connection.execute(
            text(
                "INSERT INTO users (username, display_name, role, password_hash, created_at, session_epoch) "
                "VALUES (:name, 'U', 'student', 'x', CURRENT_TIMESTAMP, 0)"
            ),
            {"name": name},
        )
    users = list(connection.execute(text("SELECT id FROM users ORDER BY id")).scalars())
    connection.execute(text("INSERT INTO courses (code, title, created_at) VALUES ('c', 'C', CURRENT_TIMESTAMP)"))
    connection.execute(
        text(
            "INSERT INTO assignments (course_id, title_zh, title_en, exercise_ids, score_policy, answer_key_policy, "
            "created_at, updated_at) SELECT max(id), 'a', 'a', '[]', 'best', 'never', CURRENT_TIMESTAMP, "
            "CURRENT_TIMESTAMP FROM courses"
        )
    )
    return users, connection.execute(text("SELECT max(id) FROM assignments")).scalar_one()


def _counts(engine: Engine, columns: str) -> set[tuple[object, ...]]:
    """The kept counts' rows, as tuples of ``columns``."""
    with engine.connect() as connection:
        return {tuple(row) for row in connection.execute(text(f"SELECT {columns} FROM submission_counts"))}


def test_counts_are_filled_kept_and_given_back(empty_database: str) -> None:
    upgrade(empty_database, "0021")
    engine = make_engine(empty_database)
    try:
        with engine.begin() as connection:
            users, assignment = _school(connection)
            for user, exercise, status in [
                (users[0], "e1", "graded"),
                (users[0], "e1", "error"),
                (users[0], "e2", "queued"),
                (users[1], "e1", "invalid"),
            ]:
                connection.execute(
                    text(SUBMISSION), {"user": user, "assignment": assignment, "exercise": exercise, "status": status}
                )
        upgrade(empty_database, "0023_listing_counts")
        first, second = users[0] % 16, users[1] % 16
        columns = "assignment_id, exercise_id, shard, submissions, graded, invalid, error"
        assert _counts(engine, columns) == {
            (assignment, "e1", first, 2, 1, 0, 1),
            (assignment, "e2", first, 1, 0, 0, 0),
            (assignment, "e1", second, 1, 0, 1, 0),
        }
        with engine.begin() as connection:  # the new triggers: a grade of the queued row, a new error
            connection.execute(text("UPDATE submissions SET status = 'grading' WHERE status = 'queued'"))
            connection.execute(text("UPDATE submissions SET status = 'graded' WHERE status = 'grading'"))
            connection.execute(
                text(SUBMISSION), {"user": users[1], "assignment": assignment, "exercise": "e1", "status": "error"}
            )
        assert _counts(engine, columns) == {
            (assignment, "e1", first, 2, 1, 0, 1),
            (assignment, "e2", first, 1, 1, 0, 0),
            (assignment, "e1", second, 2, 0, 1, 1),
        }
        command.downgrade(alembic_config(empty_database), "0021")
        assert _counts(engine, "assignment_id, shard, submissions") == {(assignment, first, 3), (assignment, second, 2)}
        with engine.begin() as connection:  # 0021's triggers again
            connection.execute(text("DELETE FROM submissions WHERE user_id = :user"), {"user": users[1]})
        assert _counts(engine, "assignment_id, shard, submissions") == {(assignment, first, 3), (assignment, second, 0)}
    finally:
        engine.dispose()
