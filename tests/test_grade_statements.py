"""What one grade sends to the database, run in-process: a submission without an assignment pays the claim and the
write of its result and grade log only (no read of an assignment it does not have, no progress, sums or LMS outbox
to move); one with an assignment reads it once, before the engine, for both its grading policy and its counted
value."""

from __future__ import annotations

import pytest
from flask import Flask
from sqlalchemy.orm import Session

from grader.extensions import get_db
from grader.grading import pipeline
from grader.models import ProgressRow, Submission, User
from tests.factories import BOOK_ANSWER, BOOK_SEED, EXERCISE, make_assignment
from tests.support import Backend, sql_sent

pytestmark = pytest.mark.integration


def _queued(session: Session, student: User, assignment_id: int | None) -> int:
    """A committed queued submission of the book answer, not sent to any worker."""
    row = Submission(
        user_id=student.id,
        assignment_id=assignment_id,
        exercise_id=EXERCISE,
        seed=BOOK_SEED,
        lang="en",
        raw_answer=BOOK_ANSWER,
        status="queued",
    )
    session.add(row)
    session.commit()
    return row.id


def _grade(app: Flask, submission_id: int) -> tuple[pipeline.Outcome, list[str]]:
    """Grade ``submission_id`` in this process; its outcome and the statements sent (transaction control aside)."""
    with sql_sent(app) as sent:
        outcome = pipeline.grade_submission(get_db(app), submission_id, worker="test:statements", lease_seconds=30)
    return outcome, [statement for statement, _ in sent]


@pytest.mark.parametrize("with_assignment", [False, True], ids=["no-assignment", "assignment"])
def test_a_grade_reads_its_assignment_once_and_only_when_it_has_one(
    app: Flask, session: Session, student: User, backend: Backend, with_assignment: bool
) -> None:
    assignment_id = make_assignment(session, [student], exercise_ids=[EXERCISE]).id if with_assignment else None
    submission_id = _queued(session, student, assignment_id)
    outcome, statements = _grade(app, submission_id)
    assert outcome == pipeline.Outcome.GRADED
    reads_of_assignments = [s for s in statements if s.lstrip().upper().startswith("SELECT") and "assignments" in s]
    assert len(reads_of_assignments) == (1 if with_assignment else 0)
    # One write statement on PostgreSQL (a data-modifying CTE); SQLite writes its parts one by one.
    expected = (2 if not with_assignment else 3) if backend.name == "postgresql" else None
    if expected is not None:
        assert len(statements) == expected, statements
    # Progress rows, assignment sums and the LMS outbox move only with an assignment's submission: outside any,
    # the write does not touch their tables at all.
    kept_tables = ("progress_rows", "assignment_progress", "lti_score_outbox")
    touching = [s for s in statements if any(table in s for table in kept_tables)]
    assert bool(touching) == with_assignment, touching
    session.expire_all()
    graded = session.get_one(Submission, submission_id)
    assert (graded.status, graded.score) == ("graded", 1.0)
    progress = session.query(ProgressRow).filter_by(user_id=student.id).all()
    assert [(row.assignment_id, row.score) for row in progress] == ([(assignment_id, 1.0)] if with_assignment else [])
