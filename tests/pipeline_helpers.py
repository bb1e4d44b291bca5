"""Helpers for the pipeline tests: submit the book answer, deliver a task again, wait for a final status."""

from __future__ import annotations

from typing import Any

from flask import Flask
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from grader.grading.dispatch import GRADE_TASK, celery_app
from grader.grading.submissions import accept
from grader.models import GradeLogEntry, Submission, User
from tests.factories import BOOK_ANSWER, BOOK_SEED, EXERCISE
from tests.support import wait_for


def submit(session: Session, **request: Any) -> Submission:
    """Accept a submission as the API and pages do (grader.grading.submissions.accept), keeping only the row."""
    return accept(session, **request)[0]


def get_result(session: Session, submission_id: int) -> Submission:
    """The submission freshly read from the database (what a worker wrote since shows)."""
    submission = session.get(Submission, submission_id, populate_existing=True)
    assert submission is not None, submission_id
    return submission


def send_duplicate(app: Flask, submission_id: int) -> str:
    """Deliver the grading task for ``submission_id`` once more, as a broker redelivery would; returns the task id."""
    with app.app_context():
        return celery_app().send_task(GRADE_TASK, args=[submission_id], queue=app.config["GRADER_QUEUE"]).id


def wait_final(session: Session, submission_id: int) -> Submission:
    """The submission once it has reached graded, invalid or error."""
    return wait_for(lambda: (s := get_result(session, submission_id)).is_final and s, f"submission {submission_id}")


def log_entries(session: Session, submission_id: int) -> int:
    """How many grade-log rows the submission has."""
    return session.scalar(select(func.count()).where(GradeLogEntry.submission_id == submission_id)) or 0


def submit_book_answer(session: Session, user: User, **extra: object) -> Submission:
    """Submit the correct answer to the book variant."""
    return submit(
        session,
        user_id=user.id,
        exercise_id=EXERCISE,
        seed=BOOK_SEED,
        raw_answer=BOOK_ANSWER,
        parsed_answer=None,
        lang="en",
        **extra,
    )
