"""A regrade never gives a student more graded attempts than the assignment allows.

An answer stored ``invalid`` used no attempt, so the student may have used every attempt since; if a newer engine
can read it, grading it would be one attempt too many (and, under "last counts", a new counted score).
"""

from __future__ import annotations

import pytest
from flask import Flask
from sqlalchemy import select
from sqlalchemy.orm import Session

from grader.extensions import get_db
from grader.grading.regrade import run_regrade
from grader.models import (
    Assignment,
    Course,
    Enrolment,
    EnrolmentRole,
    RegradeChange,
    RegradeJob,
    RegradeStatus,
    Role,
    ScorePolicy,
    Submission,
    SubmissionStatus,
    User,
)
from tests.factories import make_user, unique
from tests.teacher.regrade_data import EXERCISE, OLD_ENGINE, PARTLY, RIGHT

NOW_READABLE = RIGHT  # stored invalid by an older engine; the current one reads it and grades it 1.0


def _assignment(session: Session, attempts_allowed: int | None) -> tuple[Assignment, User, User]:
    teacher, student = make_user(session, Role.TEACHER), make_user(session)
    course = Course(code=unique("limit"), title="Attempt limit")
    course.enrolments = [
        Enrolment(user=teacher, role=EnrolmentRole.TEACHER),
        Enrolment(user=student, role=EnrolmentRole.STUDENT),
    ]
    assignment = Assignment(
        course=course,
        title_zh="限次",
        title_en="Limited",
        exercise_ids=[EXERCISE],
        attempts_allowed=attempts_allowed,
        score_policy=ScorePolicy.LAST,
    )
    session.add_all([course, assignment])
    session.commit()
    return assignment, teacher, student


def _row(session: Session, student: User, assignment: Assignment, status: str, score: float | None) -> Submission:
    submission = Submission(
        user_id=student.id,
        assignment_id=assignment.id,
        exercise_id=EXERCISE,
        seed=0,
        lang="en",
        raw_answer=NOW_READABLE if status == SubmissionStatus.INVALID else PARTLY,
        parsed_answer=None,
        status=status,
        score=score,
        parts={} if score is None else None,
        engine_version=OLD_ENGINE,
    )
    session.add(submission)
    session.commit()
    return submission


def _regrade(app: Flask, session: Session, assignment: Assignment, teacher: User) -> RegradeJob:
    job = RegradeJob(
        assignment_id=assignment.id,
        requested_by_id=teacher.id,
        requested_by=f"user:{teacher.username}",
        never_lower=False,
    )
    session.add(job)
    session.commit()
    assert run_regrade(get_db(app), job.id, worker="test-worker", lease_seconds=60) == RegradeStatus.DONE
    return session.get_one(RegradeJob, job.id, populate_existing=True)


def _graded_count(session: Session, student: User) -> int:
    return len(
        session.scalars(
            select(Submission.id).where(Submission.user_id == student.id, Submission.status == SubmissionStatus.GRADED)
        ).all()
    )


@pytest.mark.parametrize("later_graded", [1, 2])
def test_an_invalid_answer_read_now_is_kept_when_the_attempts_are_used(
    app: Flask, session: Session, later_graded: int
) -> None:
    """Limit 1 or 2, invalid first and then as many graded attempts as allowed: the invalid one stays invalid."""
    assignment, teacher, student = _assignment(session, attempts_allowed=later_graded)
    unread = _row(session, student, assignment, SubmissionStatus.INVALID, None)
    for _ in range(later_graded):
        _row(session, student, assignment, SubmissionStatus.GRADED, 0.875)

    job = _regrade(app, session, assignment, teacher)

    stored = session.get_one(Submission, unread.id, populate_existing=True)
    assert (stored.status, stored.score) == (SubmissionStatus.INVALID, None)
    assert _graded_count(session, student) == later_graded
    change = session.scalars(select(RegradeChange).where(RegradeChange.submission_id == unread.id)).one()
    assert change.applied is False and change.new_status == SubmissionStatus.GRADED
    assert f"over the limit of {later_graded} attempts" in change.reason
    assert job.kept >= 1


def test_an_invalid_answer_read_now_is_graded_while_an_attempt_is_left(app: Flask, session: Session) -> None:
    """Limit 2 with one graded attempt: the unread answer becomes the second graded attempt."""
    assignment, teacher, student = _assignment(session, attempts_allowed=2)
    unread = _row(session, student, assignment, SubmissionStatus.INVALID, None)
    _row(session, student, assignment, SubmissionStatus.GRADED, 0.875)

    _regrade(app, session, assignment, teacher)

    stored = session.get_one(Submission, unread.id, populate_existing=True)
    assert (stored.status, stored.score) == (SubmissionStatus.GRADED, 1.0)
    assert _graded_count(session, student) == 2


def test_two_unread_answers_fill_only_the_attempts_left(app: Flask, session: Session) -> None:
    """Limit 1, two invalid answers and nothing graded: the first is graded, the second is kept back."""
    assignment, teacher, student = _assignment(session, attempts_allowed=1)
    first = _row(session, student, assignment, SubmissionStatus.INVALID, None)
    second = _row(session, student, assignment, SubmissionStatus.INVALID, None)

    _regrade(app, session, assignment, teacher)

    assert session.get_one(Submission, first.id, populate_existing=True).status == SubmissionStatus.GRADED
    assert session.get_one(Submission, second.id, populate_existing=True).status == SubmissionStatus.INVALID
    assert _graded_count(session, student) == 1


def test_without_a_limit_every_readable_answer_is_graded(app: Flask, session: Session) -> None:
    """No attempt limit: the rule never holds anything back."""
    assignment, teacher, student = _assignment(session, attempts_allowed=None)
    unread = [_row(session, student, assignment, SubmissionStatus.INVALID, None) for _ in range(3)]

    job = _regrade(app, session, assignment, teacher)

    assert all(
        session.get_one(Submission, row.id, populate_existing=True).status == SubmissionStatus.GRADED for row in unread
    )
    assert job.kept == 0
