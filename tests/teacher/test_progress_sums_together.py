"""Two grades of one student's exercise landing together (PostgreSQL, where a grade is one statement): each moves
the student's assignment sums by what it changed, so the sums still agree with a recomputation."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from flask import Flask
from sqlalchemy import Engine, select, text, update
from sqlalchemy.orm import Session

from grader.extensions import get_db
from grader.grading import leases, pipeline, progress, progress_write
from grader.models import AssignmentProgress, ProgressRow, Submission, utcnow
from tests.factories import EXERCISE, make_assignment, make_graded, make_user
from tests.support import Backend, wait_for

pytestmark = pytest.mark.integration
WAITING = text(
    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' "
    "AND pid <> pg_backend_pid()"
)


def waiting(engine: Engine) -> int:
    """Sessions of the test database waiting on a lock, read afresh (a transaction keeps its first view of
    pg_stat_activity)."""
    with engine.connect() as connection:
        return int(connection.scalar(WAITING) or 0)


def test_grades_landing_together_each_add_their_own_change(app: Flask, session: Session, backend: Backend) -> None:
    if backend.name != "postgresql":
        pytest.skip("SQLite has one writer at a time: nothing lands together there")
    student = make_user(session)
    assignment = make_assignment(session, [student], exercise_ids=[EXERCISE])
    make_graded(session, assignment.id, student.id, EXERCISE, 0.25)  # the row both grades will update
    held = [make_graded(session, assignment.id, student.id, EXERCISE, status="queued").id for _ in range(2)]
    until = utcnow() + timedelta(minutes=5)
    session.execute(
        update(Submission)
        .where(Submission.id.in_(held))
        .values(status="grading", lease_owner="together", attempts=1, lease_until=until)
    )
    session.commit()
    database = get_db(app)

    def write(submission_id: int, score: float) -> None:
        """Grade ``submission_id`` ``score`` with the worker's one-statement write, in a session of its own."""
        with app.app_context(), database.session() as own:
            lease = leases.Lease(submission_id, "together", 1, until)
            result = {"status": "graded", "score": score, "parts": {}, "errors": [], "engine_version": "1"}
            context = progress_write.attempt_context(own, submission_id, assignment.id)
            assert pipeline._write_result(own, lease, result, context, single_statement=True) is not None

    threads = [threading.Thread(target=write, args=pair) for pair in zip(held, (0.5, 1.0), strict=True)]
    # A third transaction holds the progress row, so both grades' statements start, then wait on it.
    with database.session() as blocker:
        blocker.execute(select(ProgressRow).where(ProgressRow.user_id == student.id).with_for_update())
        for thread in threads:
            thread.start()
        wait_for(lambda: waiting(database.engine) == 2, "both grades waiting on the progress row")
        blocker.rollback()
    for thread in threads:
        thread.join(timeout=30)
    session.expire_all()
    sums = session.get_one(AssignmentProgress, (assignment.id, student.id))
    assert (sums.points, sums.scored, sums.pairs, sums.firsts) == (1.0, 1, 1, 0)  # the best of 0.25, 0.5, 1.0
    assert list(progress.differences(session, assignment)) == []
