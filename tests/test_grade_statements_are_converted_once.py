"""On PostgreSQL a worker converts each statement's placeholders once per process, the ~10 KiB grade write
included: psycopg's own limit (4 KiB) would have it converted again for every job."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from psycopg import _queries
from sqlalchemy.orm import Session

from grader.extensions import get_db
from grader.grading import pipeline
from grader.models import SubmissionStatus, User
from tests.factories import EXERCISE, make_assignment
from tests.pipeline_helpers import get_result
from tests.support import sql_sent
from tests.test_pipeline_recovery import stranded_row


def grade_in_process(app: Flask, session: Session, student: User) -> list[str]:
    """Grade a fresh queued submission to an assignment here (the longest write: progress, sums and the LMS outbox
    move with it); the statements the grade sent."""
    assignment = make_assignment(session, [student], exercise_ids=[EXERCISE])
    row = stranded_row(session, student, status=SubmissionStatus.QUEUED, assignment_id=assignment.id)
    with sql_sent(app) as sent:
        outcome = pipeline.grade_submission(get_db(app), row.id, worker="host:1:test", lease_seconds=30)
    assert outcome == pipeline.Outcome.GRADED and get_result(session, row.id).score == 1.0
    return [statement for statement, _ in sent]


def test_a_repeated_grade_converts_no_statement_again(
    app: Flask, session: Session, student: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    if get_db(app).dialect != "postgresql":
        pytest.skip("psycopg converts placeholders on PostgreSQL only")
    with app.app_context():
        grade_in_process(app, session, student)  # the first grade of this process fills the cache
        # psycopg converts a statement it does not cache with this function, called afresh each time.
        uncached: list[bytes] = []
        convert = _queries._query2pg_nocache

        def counting(query: bytes, *args: Any) -> Any:
            uncached.append(query)
            return convert(query, *args)

        monkeypatch.setattr(_queries, "_query2pg_nocache", counting)
        sent = grade_in_process(app, session, student)
    assert max(len(statement) for statement in sent) > 4096  # the write is longer than psycopg's own limit
    assert uncached == []
