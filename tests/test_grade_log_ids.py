"""Grade-log and assignment ids are never reused: the grade-change feed pages by id, and an LMS keeps ids.

SQLite without AUTOINCREMENT gives a new row the highest id plus one, which reuses the id of a newest row that was
deleted (with its submission or student); migration 0008 rebuilds the table with AUTOINCREMENT, keeping its rows.
"""

from __future__ import annotations

from sqlalchemy import Engine, text

from grader.extensions import make_engine
from grader.migrate import upgrade

ROWS = """INSERT INTO grade_log (submission_id, old_score, new_score, reason, actor, created_at)
          VALUES (:submission, NULL, :score, 'graded', 'worker:test', CURRENT_TIMESTAMP)"""


def _submission(engine: Engine) -> int:
    """A user and one submission to hang log entries on; its id."""
    with engine.begin() as connection:
        connection.execute(
            text(
                "INSERT INTO users (username, display_name, role, password_hash, created_at, "
                "session_epoch) VALUES ('u', 'U', 'student', 'x', CURRENT_TIMESTAMP, 0)"
            )
        )
        user = connection.execute(text("SELECT id FROM users WHERE username = 'u'")).scalar_one()
        connection.execute(
            text(
                "INSERT INTO submissions (user_id, exercise_id, seed, lang, raw_answer, status, created_at, attempts, "
                "max_attempts, resends, queued_at) VALUES (:user, 'ch13.shift-pairs', 0, 'en', '{}', 'graded', "
                "CURRENT_TIMESTAMP, 0, 3, 0, CURRENT_TIMESTAMP)"
            ),
            {"user": user},
        )
        return connection.execute(text("SELECT max(id) FROM submissions")).scalar_one()


def _log(engine: Engine, submission: int, score: float) -> int:
    with engine.begin() as connection:
        connection.execute(text(ROWS), {"submission": submission, "score": score})
        return connection.execute(text("SELECT max(id) FROM grade_log")).scalar_one()


def test_a_deleted_newest_entry_leaves_its_id_unused(empty_database: str) -> None:
    """Entries 1 and 2 exist before the upgrade to 0008 (kept with their ids); 2 goes; the next entry is 3."""
    upgrade(empty_database, "0007")
    engine = make_engine(empty_database)
    try:
        submission = _submission(engine)
        first, newest = _log(engine, submission, 0.5), _log(engine, submission, 1.0)
        upgrade(empty_database)
        with engine.begin() as connection:
            kept = connection.execute(text("SELECT id, new_score FROM grade_log ORDER BY id")).all()
            connection.execute(text("DELETE FROM grade_log WHERE id = :id"), {"id": newest})
        assert [tuple(row) for row in kept] == [(first, 0.5), (newest, 1.0)]
        assert _log(engine, submission, 0.75) > newest
    finally:
        engine.dispose()


def test_a_deleted_assignments_id_is_not_given_to_the_next_one(empty_database: str) -> None:
    """Assignments became deletable (when nothing was submitted); an LMS may still hold the old id."""
    upgrade(empty_database, "0008")
    engine = make_engine(empty_database)
    insert = text(
        "INSERT INTO courses (code, title, created_at, time_zone) VALUES (:code, 'C', CURRENT_TIMESTAMP, 'UTC')"
    )
    assignment = text(
        "INSERT INTO assignments (course_id, title_zh, title_en, exercise_ids, score_policy, "
        "answer_key_policy, created_at) VALUES (:course, 'a', 'a', '[]', 'best', 'after_due', "
        "CURRENT_TIMESTAMP)"
    )
    try:
        with engine.begin() as connection:
            connection.execute(insert, {"code": "c1"})
            course = connection.execute(text("SELECT max(id) FROM courses")).scalar_one()
            connection.execute(assignment, {"course": course})
        upgrade(empty_database)
        with engine.begin() as connection:
            existing = connection.execute(text("SELECT id, updated_at IS NOT NULL FROM assignments")).one()
            connection.execute(text("DELETE FROM assignments WHERE id = :id"), {"id": existing[0]})
            connection.execute(
                text(
                    str(assignment)
                    .replace("created_at)", "created_at, updated_at)")
                    .replace("CURRENT_TIMESTAMP)", "CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)")
                ),
                {"course": course},
            )
            newest = connection.execute(text("SELECT max(id) FROM assignments")).scalar_one()
        assert existing[1] and newest > existing[0]
    finally:
        engine.dispose()
