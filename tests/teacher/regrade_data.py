"""Submissions stored as if graded by an older engine, each with a known verdict under the current one."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session

from exercises import api as engine
from grader.models import Assignment, Course, Enrolment, EnrolmentRole, Role, Submission, SubmissionStatus, User
from tests.factories import make_user, rebuild_progress, unique
from tests.teacher.course_data import part

EXERCISE = "ch13.greedy-decode"
OLD_ENGINE = "0.9.0"
RIGHT = {"tokens": "blue key . EOS", "stopped_by": "EOS"}  # the book variant's answer: 1.0 now
PARTLY = {"tokens": "blue door . EOS", "stopped_by": "EOS"}  # 0.875 now (tokens 3 of 4)
UNREADABLE = {"tokens": "", "stopped_by": "maybe"}  # invalid now


@dataclass(frozen=True)
class RegradeFixture:
    """An assignment with four stale or current submissions and one still queued."""

    assignment: Assignment
    teacher: User
    raised: Submission  # stored 0.0 (old engine said tokens wrong, tie-to-later); now 1.0
    lowered: Submission  # stored 1.0 (old engine accepted it); now 0.875
    unchanged: Submission  # stored exactly as the current engine grades it
    now_invalid: Submission  # stored 0.5; the current engine cannot read it
    queued: Submission  # not final: a regrade leaves it to the grading pipeline


def _stored(
    session: Session,
    user: User,
    assignment: Assignment,
    answer: dict[str, Any],
    score: float | None,
    parts: dict[str, Any] | None,
    status: str = SubmissionStatus.GRADED,
    engine_version: str | None = OLD_ENGINE,
) -> Submission:
    submission = Submission(
        user_id=user.id,
        assignment_id=assignment.id,
        exercise_id=EXERCISE,
        seed=0,
        lang="en",
        raw_answer=answer,
        parsed_answer=None,
        status=status,
        score=score,
        parts=parts,
        engine_version=engine_version,
    )
    session.add(submission)
    return submission


def build(session: Session) -> RegradeFixture:
    """Create and commit the regrade fixture."""
    teacher = make_user(session, Role.TEACHER)
    students = [make_user(session) for _ in range(5)]
    course = Course(code=unique("regrade"), title="Regrade fixture")
    course.enrolments = [Enrolment(user=teacher, role=EnrolmentRole.TEACHER)] + [
        Enrolment(user=s, role=EnrolmentRole.STUDENT) for s in students
    ]
    assignment = Assignment(course=course, title_zh="重批", title_en="Regrade", exercise_ids=[EXERCISE])
    session.add_all([course, assignment])
    session.commit()
    current = engine.grade(EXERCISE, 0, PARTLY, "en")
    rows = RegradeFixture(
        assignment=assignment,
        teacher=teacher,
        raised=_stored(
            session,
            students[0],
            assignment,
            RIGHT,
            0.0,
            {"tokens": part(0.0, ("tie-to-later",)), "stopped_by": part(0.0)},
        ),
        lowered=_stored(session, students[1], assignment, PARTLY, 1.0, {"tokens": part(1.0), "stopped_by": part(1.0)}),
        unchanged=_stored(
            session,
            students[2],
            assignment,
            PARTLY,
            current["score"],
            current["parts"],
            engine_version=engine.ENGINE_VERSION,
        ),
        now_invalid=_stored(
            session, students[3], assignment, UNREADABLE, 0.5, {"tokens": part(0.0), "stopped_by": part(1.0)}
        ),
        queued=_stored(
            session, students[4], assignment, RIGHT, None, None, status=SubmissionStatus.QUEUED, engine_version=None
        ),
    )
    rebuild_progress(session)  # commits
    return rows
