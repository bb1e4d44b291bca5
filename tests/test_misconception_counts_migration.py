"""Migration 0024 (misconception counts) on SQLite and PostgreSQL: the wrong graded answers already there get their
tags and the enrolled students' counts; its triggers keep them after it; a downgrade to 0023 drops the tables and
the triggers, and the submissions and enrolments are written as before."""

from __future__ import annotations

from alembic import command
from sqlalchemy import Connection, Engine, inspect, text

from grader.extensions import make_engine
from grader.migrate import alembic_config, upgrade
from tests.test_listing_counts_migration import _school

GRADED = (
    "INSERT INTO submissions (user_id, assignment_id, exercise_id, seed, lang, raw_answer, status, score, parts, "
    "created_at, attempts, max_attempts, resends, queued_at) VALUES (:user, :assignment, 'e1', 0, 'en', '{}', "
    "'graded', :score, :parts, CURRENT_TIMESTAMP, 0, 3, 0, CURRENT_TIMESTAMP)"
)
TWO_TAGS = '{"a": {"score": 0.0, "read": "x", "tags": ["t1", "t2"]}, "b": {"score": 0.5, "tags": ["t2"]}}'
ONE_TAG = '{"b": {"score": 0.2, "read": "y", "tags": ["t2"]}, "a": {"score": 0.2, "tags": ["t2"]}}'


def _rows(engine: Engine, query: str) -> set[tuple[object, ...]]:
    """The rows of ``query``, as tuples."""
    with engine.connect() as connection:
        return {tuple(row) for row in connection.execute(text(query))}


def _graded(connection: Connection, user: int, assignment: int, score: float, parts: str) -> None:
    """A graded submission written straight to the table."""
    connection.execute(text(GRADED), {"user": user, "assignment": assignment, "score": score, "parts": parts})


def test_counts_are_filled_kept_and_dropped(empty_database: str) -> None:
    upgrade(empty_database, "0023_listing_counts")
    engine = make_engine(empty_database)
    try:
        with engine.begin() as connection:
            users, assignment = _school(connection)
            connection.execute(  # the first a student, the second not enrolled
                text(
                    "INSERT INTO enrolments (course_id, user_id, role, created_at) SELECT course_id, :user, "
                    "'student', CURRENT_TIMESTAMP FROM assignments WHERE id = :assignment"
                ),
                {"user": users[0], "assignment": assignment},
            )
            _graded(connection, users[0], assignment, 0.0, TWO_TAGS)
            _graded(connection, users[0], assignment, 1.0, TWO_TAGS)  # right: not counted
            _graded(connection, users[1], assignment, 0.0, TWO_TAGS)
        upgrade(empty_database, "0024_misconception_counts")
        assert _rows(engine, "SELECT user_id, tag, field FROM answer_tags") == {
            (users[0], "t1", "a"),
            (users[0], "t2", "a"),
            (users[1], "t1", "a"),
            (users[1], "t2", "a"),
        }
        assert _rows(
            engine,
            "SELECT assignment_id, exercise_id, sum(wrong), sum(tagged) FROM misconception_counts "
            "GROUP BY assignment_id, exercise_id",
        ) == {(assignment, "e1", 1, 1)}
        tag_counts = "SELECT tag, sum(answers), sum(students) FROM misconception_tag_counts GROUP BY tag"  # over shards
        assert _rows(engine, tag_counts) == {("t1", 1, 1), ("t2", 1, 1)}
        with engine.begin() as connection:  # the triggers: a new wrong answer (the tie goes to field a)
            _graded(connection, users[0], assignment, 0.2, ONE_TAG)
        assert _rows(engine, tag_counts) == {("t1", 1, 1), ("t2", 2, 1)}
        assert (users[0], "t2", "a") in _rows(engine, "SELECT user_id, tag, field FROM answer_tags")
        with engine.begin() as connection:  # the second student enrols: their answer counts now
            connection.execute(
                text(
                    "INSERT INTO enrolments (course_id, user_id, role, created_at) SELECT course_id, :user, "
                    "'student', CURRENT_TIMESTAMP FROM assignments WHERE id = :assignment"
                ),
                {"user": users[1], "assignment": assignment},
            )
        assert _rows(engine, tag_counts) == {("t1", 2, 2), ("t2", 3, 2)}

        command.downgrade(alembic_config(empty_database), "0023_listing_counts")
        tables = set(inspect(engine).get_table_names())
        assert not tables & {"answer_tags", "misconception_counts", "misconception_tag_counts"}
        with engine.begin() as connection:  # no trigger left to write to the dropped tables
            _graded(connection, users[1], assignment, 0.0, TWO_TAGS)
            connection.execute(text("DELETE FROM submissions"))
            connection.execute(text("DELETE FROM enrolments"))
        assert _rows(engine, "SELECT count(*) FROM submissions") == {(0,)}
    finally:
        engine.dispose()
