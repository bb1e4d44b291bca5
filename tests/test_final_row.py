"""The grading columns a worker's final notice carries: set on the row a request holds, they make it equal to the
stored row, column by column; anything else in a notice is refused and leaves the held row alone."""

from __future__ import annotations

import json
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import select
from sqlalchemy.orm import Session

from grader.extensions import get_db
from grader.grading import final_row, notify
from grader.models import Submission, User
from tests.factories import BOOK_ANSWER, BOOK_SEED, EXERCISE, UNREADABLE_ANSWER
from tests.pipeline_helpers import submit, wait_final
from tests.support import WorkerProcess, notices_subscribed, wait_for


def columns(submission: Submission) -> dict[str, Any]:
    """Every column of ``submission`` as loaded."""
    return {column.key: getattr(submission, column.key) for column in Submission.__table__.columns}


def stored(app: Flask, submission_id: int) -> dict[str, Any]:
    """Every column of the stored row, read in a session of its own."""
    with get_db(app).session() as fresh:
        row = fresh.get(Submission, submission_id)
        assert row is not None
        return columns(row)


def hold_new_submission(session: Session, student: User, answer: dict[str, str]) -> Submission:
    """A submission as the request that stored it holds it: built from the INSERT, never read back."""
    return submit(
        session,
        user_id=student.id,
        exercise_id=EXERCISE,
        seed=BOOK_SEED,
        raw_answer=answer,
        parsed_answer=None,
        lang="en",
    )


def published_or_read_payload(app: Flask, submission_id: int) -> bytes:
    """The payload the worker published for the submission (Redis); without Redis, the same columns read from the
    stored row and encoded (the embedded broker carries no notices)."""
    url = notify.redis_url(app.config)
    if url is None:
        with get_db(app).session() as fresh:
            row = fresh.execute(select(*final_row.returned_columns()).where(Submission.id == submission_id)).one()
        return final_row.encode(row)
    process_listener = notify.listener(url, notify.channel_prefix(app.config))
    return wait_for(lambda: process_listener.payload(submission_id), f"the notice of submission {submission_id}")


@pytest.mark.parametrize("answer", [BOOK_ANSWER, UNREADABLE_ANSWER], ids=["graded", "invalid"])
def test_the_carried_columns_make_the_held_row_equal_to_the_stored_row(
    app: Flask, session: Session, student: User, worker: WorkerProcess, answer: dict[str, str]
) -> None:
    notices_subscribed(app.config)  # before the worker can publish
    held = hold_new_submission(session, student, answer)
    before = columns(held)
    with get_db(app).session() as other:
        wait_final(other, held.id)
    payload = published_or_read_payload(app, held.id)

    assert final_row.apply(held, payload) is True
    after = columns(held)
    assert after == stored(app, held.id)
    assert after != before  # the held row really was behind, and the payload brought it up to date
    assert not session.dirty  # committed state: nothing to write back


def _payload(submission_id: int, **changes: Any) -> bytes:
    """A well-formed payload for ``submission_id`` (a graded row), with top-level ``changes``."""
    row = {name: None for name in final_row.GRADING_COLUMNS} | {"status": "graded", "score": 1.0, "attempts": 1}
    return json.dumps({"v": final_row.PAYLOAD_VERSION, "id": submission_id, "row": row} | changes).encode()


@pytest.mark.parametrize(
    "payload",
    [
        _payload(8),  # another submission's row
        _payload(7, v=final_row.PAYLOAD_VERSION + 1),  # a form this code does not read
        _payload(7, row={"status": "graded"}),  # columns missing
        _payload(7, row={name: None for name in final_row.GRADING_COLUMNS} | {"status": "grading", "attempts": 1}),
        notify.WAKE_ONLY,
        b"\xff not json",
        b"[1, 2]",
    ],
    ids=["other-id", "other-version", "missing-columns", "not-final", "wake-only", "not-json", "not-an-object"],
)
def test_a_payload_that_is_not_this_rows_final_state_changes_nothing(payload: bytes) -> None:
    held = Submission(id=7, status="queued", score=None, attempts=0)
    before = columns(held)
    assert final_row.apply(held, payload) is False
    assert columns(held) == before


def test_a_well_formed_payload_sets_every_grading_column() -> None:
    held = Submission(id=7, status="queued", score=None, attempts=0)
    assert final_row.apply(
        held,
        _payload(
            7,
            row={name: None for name in final_row.GRADING_COLUMNS}
            | {"status": "graded", "score": 0.5, "attempts": 2, "finished_at": "2026-11-30T09:00:00.123456+00:00"},
        ),
    )
    assert (held.status, held.score, held.attempts) == ("graded", 0.5, 2)
    assert held.finished_at is not None and held.finished_at.isoformat() == "2026-11-30T09:00:00.123456+00:00"


def test_a_written_row_is_encoded_with_its_json_columns_as_stored() -> None:
    # The write returns the JSON columns as their stored text: the payload carries that text as JSON values (nested,
    # non-ASCII, SQL NULL as null), and applying it sets the objects, as reading the row would.
    returned = {name: None for name in final_row.GRADING_COLUMNS} | {
        "id": 7,
        "status": "graded",
        "score": 0.5,
        "attempts": 1,
        "parts": '{"注意力": {"score": 0.5, "read": ["a", "b"]}}',
        "errors": "[]",
        "parsed_answer": None,
    }
    payload = final_row.encode(returned)

    assert json.loads(payload)["row"]["parts"] == {"注意力": {"score": 0.5, "read": ["a", "b"]}}
    held = Submission(id=7, status="queued", score=None, attempts=0)
    assert final_row.apply(held, payload) is True
    assert (held.parts, held.errors, held.parsed_answer, held.score) == (
        {"注意力": {"score": 0.5, "read": ["a", "b"]}},
        [],
        None,
        0.5,
    )
