"""A small course with hand-chosen submissions (scores and misconception tags written directly via the models).

Expected statistics are computed by hand in the tests that use it; see the comments on each submission.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.orm import Session

from grader.models import Assignment, Course, Enrolment, EnrolmentRole, Role, Submission, SubmissionStatus, User, utcnow
from tests.factories import make_user, rebuild_progress, unique

LOSS, COST, GREEDY, SHIFT = "ch13.loss-average", "ch09.attention-cost", "ch13.greedy-decode", "ch13.shift-pairs"
BASE_TIME = utcnow() - timedelta(days=1)


def at(minute: int) -> datetime:
    """A fixed timestamp ``minute`` minutes after the fixture's base time."""
    return BASE_TIME + timedelta(minutes=minute)


def part(score: float, tags: tuple[str, ...] = (), read: str = "x", follow_through: bool = False) -> dict[str, Any]:
    """One graded part as the engine writes it."""
    return {
        "score": score,
        "correct": score >= 1 and not tags,
        "feedback": "…",
        "misconception": tags[0] if tags else None,
        "tags": list(tags),
        "follow_through": follow_through,
        "read": read,
    }


@dataclass(frozen=True)
class FixtureCourse:
    """Ids of the fixture's people and assignments."""

    course: Course
    best: Assignment  # exercises LOSS, COST; best attempt counts
    last: Assignment  # exercise GREEDY; last attempt counts
    teacher: User
    alice: User
    bob: User
    carol: User
    dave: User  # enrolled, never submits
    outsider: User  # not enrolled; submits anyway
    other_teacher: User  # teaches another course only
    other: Assignment  # in the other course


def add_submission(
    session: Session,
    user: User,
    assignment: Assignment,
    exercise_id: str,
    minute: int,
    score: float | None,
    parts: dict[str, Any] | None = None,
    status: str = SubmissionStatus.GRADED,
) -> Submission:
    """Insert one submission as if graded (or queued/invalid) at ``minute``."""
    submission = Submission(
        user_id=user.id,
        assignment_id=assignment.id,
        exercise_id=exercise_id,
        seed=minute,
        lang="en",
        raw_answer={"answer": f"typed at {minute}"},
        parsed_answer={"answer": minute} if status == "graded" else None,
        status=status,
        score=score,
        parts=parts if parts is not None else {},
        engine_version="1.0.0",
        created_at=at(minute),
        queued_at=at(minute),
        finished_at=None if status == "queued" else at(minute),
    )
    session.add(submission)
    return submission


def build(session: Session) -> FixtureCourse:
    """Create and commit the fixture course."""
    teacher = make_user(session, Role.TEACHER)
    other_teacher = make_user(session, Role.TEACHER)
    people = {
        name: make_user(session, Role.STUDENT, username=unique(name))
        for name in ("alice", "bob", "carol", "dave", "zed")
    }
    for name, user in people.items():
        user.display_name = name.capitalize()
    course = Course(code=unique("stats"), title="Statistics fixture")
    course.enrolments = [Enrolment(user=teacher, role=EnrolmentRole.TEACHER)] + [
        Enrolment(user=people[n], role=EnrolmentRole.STUDENT) for n in ("alice", "bob", "carol", "dave")
    ]
    best = Assignment(course=course, title_zh="最高分", title_en="Best", exercise_ids=[LOSS, COST], score_policy="best")
    last = Assignment(course=course, title_zh="最后一次", title_en="Last", exercise_ids=[GREEDY], score_policy="last")
    other_course = Course(code=unique("other"), title="Other course")
    other_course.enrolments = [
        Enrolment(user=other_teacher, role=EnrolmentRole.TEACHER),
        Enrolment(user=people["alice"], role=EnrolmentRole.STUDENT),
    ]
    other = Assignment(course=other_course, title_zh="别的", title_en="Other", exercise_ids=[LOSS])
    session.add_all([course, best, last, other_course, other])
    session.commit()
    alice, bob, carol, outsider = people["alice"], people["bob"], people["carol"], people["zed"]
    log10_parts = {
        "sequence_probability": part(1.0),
        "total_loss": part(0.0, ("log10",), read="0.5406"),
        "mean_loss_with_eos": part(1.0, ("log10",), read="0.135", follow_through=True),
    }
    rows = [
        (alice, best, LOSS, 1, 0.5, log10_parts, "graded"),  # first try wrong: log10 on two parts
        (bob, best, LOSS, 2, 1.0, {"total_loss": part(1.0)}, "graded"),  # right first time
        (carol, best, LOSS, 3, 0.25, {"total_loss": part(0.0, ("log2",), read="1.7958")}, "graded"),
        (alice, best, LOSS, 4, 1.0, {"total_loss": part(1.0)}, "graded"),  # best now 1.0
        (carol, best, LOSS, 5, None, {}, "invalid"),  # unreadable: never counted
        (bob, best, LOSS, 6, 0.0, {"total_loss": part(0.0, ("log10",), read="0.54")}, "graded"),  # best stays 1.0
        (teacher, best, LOSS, 7, 0.0, {"total_loss": part(0.0, ("log10",))}, "graded"),  # a teacher: not counted
        (alice, best, COST, 8, 0.0, {"growth": part(0.0, ("linear-growth",), read="2")}, "graded"),
        (carol, best, COST, 9, 2 / 3, {"causal_pairs": part(0.0, ("causal-half-square",), read="8")}, "graded"),
        (alice, best, SHIFT, 10, 1.0, {}, "graded"),  # exercise no longer in the assignment: not counted
        (alice, last, GREEDY, 11, 1.0, {"tokens": part(1.0)}, "graded"),  # first try right
        (bob, last, GREEDY, 12, 0.0, {"tokens": part(0.0, ("tie-to-later",), read="red key")}, "graded"),
        (
            alice,
            last,
            GREEDY,
            13,
            0.5,
            {"tokens": part(0.5, ("eos-omitted",), read="blue key .")},
            "graded",
        ),  # last: 0.5
        (carol, last, GREEDY, 14, None, None, "queued"),  # still queued: activity, but no score
        (outsider, best, LOSS, 15, 0.0, {"total_loss": part(0.0, ("log10",))}, "graded"),  # not enrolled
        (alice, other, LOSS, 16, 0.0, {"total_loss": part(0.0, ("log10",))}, "graded"),  # another course
    ]
    for user, assignment, exercise_id, minute, score, parts, status in rows:
        add_submission(session, user, assignment, exercise_id, minute, score, parts, status)
    rebuild_progress(session)  # commits
    return FixtureCourse(course, best, last, teacher, alice, bob, carol, people["dave"], outsider, other_teacher, other)
