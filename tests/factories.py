"""Factories for test data, and answers the engine grades as fully correct."""

from __future__ import annotations

import functools
import uuid
from datetime import timedelta
from typing import Any

from argon2 import PasswordHasher
from sqlalchemy.orm import Session

from grader.grading import progress
from grader.models import Assignment, Course, Enrolment, EnrolmentRole, Role, Submission, User, utcnow

TEST_PASSWORD = "correct horse battery staple"
EXERCISE = "ch13.shift-pairs"
BOOK_SEED = 0
# The book answer of ch13.shift-pairs (seed 0), typed as a student would.
BOOK_ANSWER = {
    "pairs": "BOS→blue, blue→door, door→., .→EOS",
    "bos_scored": "no",
    "eos_scored": "yes",
    "scored_count": "4",
}
UNREADABLE_ANSWER = {"pairs": "BOS", "bos_scored": "maybe", "eos_scored": "yes", "scored_count": "four"}


def unique(prefix: str) -> str:
    """A name no other test uses."""
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


# argon2id with the lightest work factor: a stored hash names its own parameters, so signing in checks it through
# the same verify_password as any other, in about 1 ms instead of ~0.1 s (hundreds of tests sign in by form).
LIGHT_HASHER = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)


@functools.cache
def shared_password_hash() -> str:
    """TEST_PASSWORD hashed once per test process: argon2 is slow on purpose, and thousands of factory users need
    no salt of their own (tests of the hashing itself call hash_password, with the service's parameters)."""
    return LIGHT_HASHER.hash(TEST_PASSWORD)


def make_user(session: Session, role: str = Role.STUDENT, username: str | None = None) -> User:
    """A committed user with password TEST_PASSWORD."""
    user = User(
        username=username or unique(role),
        display_name="Test person",
        role=role,
        password_hash=shared_password_hash(),
    )
    session.add(user)
    session.commit()
    return user


def make_assignment(session: Session, students: list[User], **settings: Any) -> Assignment:
    """A committed course with ``students`` enrolled and one open assignment (settings override defaults)."""
    course = Course(code=unique("course"), title="Test course")
    course.enrolments = [Enrolment(user=s, role=EnrolmentRole.STUDENT) for s in students]
    now = utcnow()
    defaults: dict[str, Any] = {
        "title_zh": "测试作业",
        "title_en": "Test assignment",
        "exercise_ids": ["ch13.shift-pairs"],
        "opens_at": now - timedelta(days=1),
        "due_at": now + timedelta(days=1),
    }
    assignment = Assignment(course=course, **{**defaults, **settings})
    session.add_all([course, assignment])
    session.commit()
    return assignment


def make_course_teacher(session: Session, course_id: int) -> User:
    """A new committed teacher account, enrolled as a teacher of course ``course_id``."""
    teacher = make_user(session, Role.TEACHER)
    session.add(Enrolment(course_id=course_id, user_id=teacher.id, role=EnrolmentRole.TEACHER))
    session.commit()
    return teacher


def make_taught_assignment(session: Session) -> tuple[Assignment, User, User]:
    """A committed open assignment in a course with one teacher and one student: (assignment, teacher, student)."""
    student = make_user(session)
    assignment = make_assignment(session, [student])
    return assignment, make_course_teacher(session, assignment.course_id), student


def stand_in_submission(
    assignment_id: int, user_id: int, exercise_id: str, score: float = 1.0, status: str = "graded"
) -> Submission:
    """An unsaved submission with a stand-in answer, scoring ``score`` when graded (none otherwise)."""
    return Submission(
        user_id=user_id,
        assignment_id=assignment_id,
        exercise_id=exercise_id,
        seed=0,
        lang="en",
        raw_answer={"x": "1"},
        status=status,
        score=score if status == "graded" else None,
        engine_version="1" if status == "graded" else None,
    )


def make_graded(
    session: Session, assignment_id: int, user_id: int, exercise_id: str, score: float = 1.0, status: str = "graded"
) -> Submission:
    """A committed graded submission (a stand-in answer, as if graded by an older engine) scoring ``score``; with
    another ``status`` (queued, invalid, ...), one without a score."""
    submission = stand_in_submission(assignment_id, user_id, exercise_id, score, status)
    session.add(submission)
    session.flush()
    # As the pipeline's graded write would: the student's progress rows move in the same transaction.
    progress.rebuild(session, assignment_id, [user_id])
    session.commit()
    return submission


def rebuild_progress(session: Session) -> None:
    """Recompute every assignment's progress rows and commit: for tests that write submissions directly (as if an
    older service had graded them), so the pages that read the rows see them as the pipeline would have kept them."""
    for assignment in progress.assignments_with_rows(session):
        progress.rebuild(session, assignment.id, None)
    session.commit()
