"""Assignment rules in the service: enrolment, the open window, attempts, counted score and answer-key visibility."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from grader.grading import policy
from grader.grading.refusals import SubmissionRejected
from grader.models import AnswerKeyPolicy, Submission, SubmissionStatus, User, utcnow
from tests.factories import BOOK_ANSWER, EXERCISE, make_assignment, make_user
from tests.pipeline_helpers import submit


def record(session: Session, user: User, assignment_id: int, status: str, score: float | None = None) -> None:
    """A finished submission of EXERCISE in the assignment (no worker involved)."""
    session.add(
        Submission(
            user_id=user.id,
            assignment_id=assignment_id,
            exercise_id=EXERCISE,
            seed=0,
            lang="en",
            raw_answer=BOOK_ANSWER,
            status=status,
            score=score,
        )
    )
    session.commit()


def rejection(session: Session, user: User, assignment_id: int, exercise_id: str = EXERCISE) -> str:
    """The code submit() refuses with."""
    with pytest.raises(SubmissionRejected) as refused:
        submit(
            session,
            user_id=user.id,
            exercise_id=exercise_id,
            seed=0,
            raw_answer=BOOK_ANSWER,
            parsed_answer=None,
            lang="en",
            assignment_id=assignment_id,
        )
    return refused.value.code


def test_submit_enforces_enrolment_window_and_exercise(session: Session, student: User) -> None:
    now = utcnow()
    open_one = make_assignment(session, [student])
    outsider = make_user(session)
    assert rejection(session, outsider, open_one.id) == "no_such_assignment"  # like a missing one, not "not enrolled"
    assert rejection(session, outsider, open_one.id, "ch09.rnn-step") == "no_such_assignment"  # no hint of contents
    assert rejection(session, student, open_one.id, "ch09.rnn-step") == "exercise_not_in_assignment"
    assert rejection(session, student, 10**9) == "no_such_assignment"
    future = make_assignment(session, [student], opens_at=now + timedelta(days=1))
    assert rejection(session, student, future.id) == "not_open"
    past = make_assignment(session, [student], due_at=now - timedelta(minutes=1))
    assert rejection(session, student, past.id) == "past_due"
    assert session.scalar(select(func.count()).select_from(Submission)) == 0


def test_attempt_limit_counts_graded_but_not_invalid_or_error(session: Session, student: User) -> None:
    assignment = make_assignment(session, [student], attempts_allowed=2)
    record(session, student, assignment.id, SubmissionStatus.INVALID)
    record(session, student, assignment.id, SubmissionStatus.ERROR)
    record(session, student, assignment.id, SubmissionStatus.GRADED, 0.5)
    assert policy.attempts_used(session, student.id, assignment.id, EXERCISE) == 1
    record(session, student, assignment.id, SubmissionStatus.GRADED, 0.25)
    assert rejection(session, student, assignment.id) == "attempts_exhausted"


@pytest.mark.parametrize(("score_policy", "expected"), [("best", 0.75), ("last", 0.25)])
def test_progress_counts_best_or_last_graded_score(
    session: Session, student: User, score_policy: str, expected: float
) -> None:
    assignment = make_assignment(session, [student], attempts_allowed=5, score_policy=score_policy)
    for score in (0.5, 0.75, 0.25):
        record(session, student, assignment.id, SubmissionStatus.GRADED, score)
    record(session, student, assignment.id, SubmissionStatus.INVALID)
    [progress] = policy.assignment_progress(session, student, assignment)
    assert progress == policy.ExerciseProgress(
        EXERCISE, attempts_used=3, attempts_left=2, score=expected, last_status=SubmissionStatus.INVALID
    )


def test_answer_key_rules(session: Session) -> None:
    now = utcnow()

    def visible(**settings: object) -> bool:
        student = make_user(session)  # one assignment each: other assignments sharing the variant have a say
        assignment = make_assignment(session, [student], **settings)
        return policy.answer_key_visible(session, student.id, assignment, EXERCISE, now)

    assert visible(answer_key_policy=AnswerKeyPolicy.ALWAYS)
    assert not visible(answer_key_policy=AnswerKeyPolicy.NEVER)
    assert not visible(answer_key_policy=AnswerKeyPolicy.AFTER_DUE)
    assert visible(answer_key_policy=AnswerKeyPolicy.AFTER_DUE, due_at=now - timedelta(seconds=1))
    student = make_user(session)
    never = make_assignment(session, [student], answer_key_policy=AnswerKeyPolicy.NEVER)
    assert policy.answer_key_visible(session, student.id, never, EXERCISE, now, staff=True)


@pytest.mark.parametrize(
    ("last_status", "shown"),
    [
        (SubmissionStatus.GRADED, True),
        (SubmissionStatus.QUEUED, False),  # may still end as an error, which gives the attempt back
        (SubmissionStatus.GRADING, False),
        (SubmissionStatus.ERROR, False),  # the attempt was given back: the student may still answer
        (SubmissionStatus.INVALID, False),  # an unreadable answer uses no attempt
    ],
)
def test_key_after_attempts_shows_once_every_attempt_is_graded(
    session: Session, student: User, last_status: str, shown: bool
) -> None:
    used_up = make_assignment(session, [student], answer_key_policy=AnswerKeyPolicy.AFTER_ATTEMPTS, attempts_allowed=2)
    record(session, student, used_up.id, SubmissionStatus.GRADED, 0.0)
    assert not policy.answer_key_visible(session, student.id, used_up, EXERCISE, utcnow())
    record(session, student, used_up.id, last_status, 0.0 if last_status == SubmissionStatus.GRADED else None)
    assert policy.answer_key_visible(session, student.id, used_up, EXERCISE, utcnow()) is shown


@pytest.mark.parametrize(
    ("other_settings", "other_exercise", "shown"),
    [
        ({"answer_key_policy": AnswerKeyPolicy.NEVER}, EXERCISE, False),  # open, same variant: its answers are pending
        ({"answer_key_policy": AnswerKeyPolicy.NEVER, "opens_at": +3}, EXERCISE, False),  # will open: pending too
        ({"answer_key_policy": AnswerKeyPolicy.NEVER, "due_at": -1}, EXERCISE, True),  # past due: takes no answers
        ({"answer_key_policy": AnswerKeyPolicy.ALWAYS}, EXERCISE, True),  # shows the key itself
        ({"answer_key_policy": AnswerKeyPolicy.NEVER}, "ch13.loss-average", True),  # another exercise
        ({"answer_key_policy": AnswerKeyPolicy.NEVER, "attempts_allowed": 1, "graded": 1}, EXERCISE, True),  # used up
    ],
)
def test_a_key_shows_only_if_no_pending_assignment_shares_the_variant(
    session: Session, student: User, other_settings: dict, other_exercise: str, shown: bool
) -> None:
    # Variants are per student and exercise, so every assignment setting the exercise has the same key.
    now = utcnow()
    closed = make_assignment(
        session, [student], answer_key_policy=AnswerKeyPolicy.AFTER_DUE, due_at=now - timedelta(days=1)
    )
    settings = dict(other_settings)
    graded = settings.pop("graded", 0)
    for name in ("opens_at", "due_at"):
        if name in settings:
            settings[name] = now + timedelta(days=settings[name])
    other = make_assignment(session, [student], exercise_ids=[other_exercise], **settings)
    for _ in range(graded):
        record(session, student, other.id, SubmissionStatus.GRADED, 0.0)
    assert policy.answer_key_visible(session, student.id, closed, EXERCISE, now) is shown
