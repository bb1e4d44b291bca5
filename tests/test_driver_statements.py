"""Statements sent on the driver (grader.driver_statements) behave as through the session: the same rows with the
same Python types, SQLAlchemy's defaults and exceptions, a lost connection invalidated and the next one working.
On SQLite, and in a session that is not in autocommit, the statement goes through the session as before."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any, cast

import pytest
from flask import Flask
from sqlalchemy import Table, bindparam, create_engine, insert, text, update
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.orm import Session

from grader import driver_statements
from grader.extensions import Database, get_db
from grader.grading import pipeline
from grader.models import Submission, SubmissionStatus, User
from tests.factories import EXERCISE, make_assignment
from tests.support import Backend, cursor_listener
from tests.test_pipeline_recovery import stranded_row

pytestmark = pytest.mark.integration

_TABLE = cast(Table, Submission.__table__)
# An UPDATE … RETURNING over the column types a grade writes and reads back: JSON, timestamps, a float, text.
_GRADED = (
    update(_TABLE)
    .where(_TABLE.c.id == bindparam("row_id"))
    .values(
        status=bindparam("new_status", type_=_TABLE.c.status.type),
        score=bindparam("new_score", type_=_TABLE.c.score.type),
        parts=bindparam("new_parts", type_=_TABLE.c.parts.type),
        finished_at=bindparam("now", type_=_TABLE.c.finished_at.type),
    )
    .returning(_TABLE.c.id, _TABLE.c.status, _TABLE.c.score, _TABLE.c.parts, _TABLE.c.finished_at, _TABLE.c.resends)
)
# An INSERT given its columns as parameters, as submissions.accept sends it: ``resends`` comes from its default.
_INSERTED = insert(_TABLE).returning(_TABLE.c.id, _TABLE.c.resends, _TABLE.c.created_at)


def _graded(database: Database, row_id: int, *, autocommit: bool) -> tuple[Any, ...]:
    """``_GRADED`` run on ``row_id`` in a pinned session, in autocommit or not; the returned row as a tuple."""
    moment = datetime(2026, 12, 6, 3, 30, 15, 123456, tzinfo=UTC)
    parameters = {"row_id": row_id, "new_status": "graded", "new_score": 0.75, "new_parts": {"a": [1, "二"]}}
    with database.pinned_session(autocommit=autocommit) as pinned:
        row = driver_statements.first(pinned, _GRADED, {**parameters, "now": moment}, commit=True)
    assert row is not None
    assert dict(row._mapping) == dict(
        zip(("id", "status", "score", "parts", "finished_at", "resends"), row, strict=True)
    )
    return tuple(row)


def _insert_values(user: User, key: str | None) -> dict[str, Any]:
    """The columns of a queued submission, as submissions.accept gives them (``resends`` left to its default)."""
    now = datetime.now(UTC)
    return {
        "user_id": user.id,
        "exercise_id": "ch13.shift-pairs",
        "seed": 0,
        "lang": "en",
        "raw_answer": {"pairs": "x"},
        "idempotency_key": key,
        "status": SubmissionStatus.QUEUED,
        "attempts": 0,
        "max_attempts": 3,
        "created_at": now,
        "queued_at": now,
    }


def test_a_row_returned_on_the_driver_equals_the_sessions(app: Flask, session: Session, student: User) -> None:
    database = get_db(app)
    on_driver, through_session = (stranded_row(session, student, status="grading").id for _ in range(2))
    driven = _graded(database, on_driver, autocommit=True)
    sessioned = _graded(database, through_session, autocommit=False)
    assert driven[1:] == sessioned[1:]
    assert [type(value) for value in driven] == [type(value) for value in sessioned]
    assert driven[4].tzinfo is not None and driven[4].utcoffset().total_seconds() == 0
    session.expire_all()
    assert session.get_one(Submission, on_driver).parts == {"a": [1, "二"]}  # committed on its own


def test_an_insert_on_the_driver_takes_the_columns_default(app: Flask, session: Session, student: User) -> None:
    with get_db(app).pinned_session(autocommit=True) as pinned:
        row = driver_statements.first(pinned, _INSERTED, _insert_values(student, None), commit=True)
    assert row is not None and row[1] == 0
    assert session.get_one(Submission, row[0]).resends == 0


def test_a_unique_violation_on_the_driver_is_sqlalchemys_integrity_error(
    app: Flask, session: Session, student: User
) -> None:
    with get_db(app).pinned_session(autocommit=True) as pinned:
        first = driver_statements.first(pinned, _INSERTED, _insert_values(student, "same"), commit=True)
        with pytest.raises(IntegrityError):
            driver_statements.first(pinned, _INSERTED, _insert_values(student, "same"), commit=True)
        pinned.rollback()
        again = driver_statements.first(pinned, _INSERTED, _insert_values(student, "other"), commit=True)
    assert first is not None and again is not None
    assert session.query(Submission).filter_by(user_id=student.id).count() == 2


def test_a_connection_lost_on_the_driver_is_invalidated_and_the_next_one_works(
    app: Flask, backend: Backend, session: Session, student: User
) -> None:
    if backend.name != "postgresql":
        pytest.skip("only a server connection can be cut")
    database = get_db(app)
    row_id = stranded_row(session, student, status="grading").id
    with database.pinned_session(autocommit=True) as pinned:
        connection = pinned.connection()
        pid = connection.exec_driver_sql("SELECT pg_backend_pid()").scalar_one()
        cutter = create_engine(database.url)
        try:
            with cutter.connect() as other:
                other.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
        finally:
            cutter.dispose()
        with pytest.raises(OperationalError) as raised:
            driver_statements.first(
                pinned,
                _GRADED,
                {"row_id": row_id, "new_status": "graded", "new_score": 1.0, "new_parts": {}, "now": datetime.now(UTC)},
            )
        assert raised.value.connection_invalidated
        assert connection.invalidated
    assert _graded(database, row_id, autocommit=True)[1:3] == ("graded", 0.75)


@contextmanager
def _sent(app: Flask) -> Iterator[list[tuple[str, bool]]]:
    """(first word, sent on the driver) of each statement the app's engine sends while the block runs: SQLAlchemy
    hands its listeners an execution context, the driver path none."""
    sent: list[tuple[str, bool]] = []

    def record(_conn: Any, _cursor: Any, statement: str, _parameters: Any, context: Any, _many: bool) -> None:
        sent.append((statement.lstrip().split()[0].upper(), context is None))

    with cursor_listener(app, record):
        yield sent


@pytest.mark.parametrize("with_assignment", [False, True], ids=["no-assignment", "assignment"])
def test_a_grades_claim_and_write_go_on_the_driver_on_postgresql(
    app: Flask, backend: Backend, session: Session, student: User, with_assignment: bool
) -> None:
    assignment_id = make_assignment(session, [student], exercise_ids=[EXERCISE]).id if with_assignment else None
    row = stranded_row(session, student, status=SubmissionStatus.QUEUED, assignment_id=assignment_id)
    with app.app_context(), _sent(app) as sent:
        outcome = pipeline.grade_submission(get_db(app), row.id, worker="test:driver", lease_seconds=30)
    assert outcome == pipeline.Outcome.GRADED
    writes = [driven for verb, driven in sent if verb in ("UPDATE", "WITH", "INSERT")]
    assert writes and all(driven == (backend.name == "postgresql") for driven in writes), sent


def test_statements_outside_autocommit_go_through_the_session(app: Flask, session: Session, student: User) -> None:
    row_id = stranded_row(session, student, status="grading").id
    with _sent(app) as sent:
        _graded(get_db(app), row_id, autocommit=False)
    assert ("UPDATE", False) in sent and not any(driven for _, driven in sent)
