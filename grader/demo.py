"""The demo course: a teacher, three students and one assignment per chapter; safe to run repeatedly."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from exercises import api as engine
from grader.models import (
    AnswerKeyPolicy,
    Assignment,
    Course,
    Enrolment,
    EnrolmentRole,
    Role,
    ScorePolicy,
    utcnow,
)
from grader.security import ensure_user

COURSE_CODE = "demo-seq2seq"


@dataclass(frozen=True)
class DemoLogin:
    """A demo account as printed by ``grader serve``."""

    username: str
    password: str
    role: str


DEMO_LOGINS = (
    DemoLogin("teacher", "demo-teacher", Role.TEACHER),
    DemoLogin("student1", "demo-student1", Role.STUDENT),
    DemoLogin("student2", "demo-student2", Role.STUDENT),
    DemoLogin("student3", "demo-student3", Role.STUDENT),
)


@dataclass(frozen=True)
class DemoAssignment:
    """One demo assignment: the exercises whose id starts with ``prefix``."""

    prefix: str
    title_zh: str
    title_en: str
    attempts_allowed: int | None
    score_policy: str
    answer_key_policy: str


DEMO_ASSIGNMENTS = (
    DemoAssignment(
        "ch13.",
        "第 13 章：序列到序列",
        "Chapter 13: sequence to sequence",
        5,
        ScorePolicy.BEST,
        AnswerKeyPolicy.AFTER_DUE,
    ),
    DemoAssignment(
        "ch09.",
        "第 9 章：序列模型与注意力",
        "Chapter 9: sequence models and attention",
        3,
        ScorePolicy.LAST,
        AnswerKeyPolicy.AFTER_ATTEMPTS,
    ),
    DemoAssignment(
        "l03.",
        "第 3 课：定长瓶颈与加性注意力",
        "Lesson 3: the fixed-vector bottleneck and additive attention",
        None,
        ScorePolicy.BEST,
        AnswerKeyPolicy.ALWAYS,
    ),
)


def seed_demo(session: Session) -> Course:
    """Create (or complete) the demo course and commit; assignment exercise lists follow the current engine."""
    course = session.scalar(select(Course).where(Course.code == COURSE_CODE))
    if course is None:
        course = Course(code=COURSE_CODE, title="Seq2Seq 与注意力 · Seq2Seq and attention (demo)")
        session.add(course)
    enrolled = {e.user.username for e in course.enrolments}
    for login in DEMO_LOGINS:
        user = ensure_user(session, login.username, login.role, login.username.capitalize(), login.password)
        if login.username not in enrolled:
            role = EnrolmentRole.TEACHER if login.role == Role.TEACHER else EnrolmentRole.STUDENT
            course.enrolments.append(Enrolment(user=user, role=role))
    existing = {a.title_en: a for a in course.assignments}
    graded_ids = engine.exercise_ids(graded_only=True)
    for spec in DEMO_ASSIGNMENTS:
        exercise_ids = [e for e in graded_ids if e.startswith(spec.prefix)]
        assignment = existing.get(spec.title_en)
        if assignment is None:
            now = utcnow()
            course.assignments.append(
                Assignment(
                    title_zh=spec.title_zh,
                    title_en=spec.title_en,
                    exercise_ids=exercise_ids,
                    opens_at=now - timedelta(days=1),
                    due_at=now + timedelta(days=30),
                    attempts_allowed=spec.attempts_allowed,
                    score_policy=spec.score_policy,
                    answer_key_policy=spec.answer_key_policy,
                )
            )
        elif assignment.exercise_ids != exercise_ids:
            assignment.exercise_ids = exercise_ids
    session.commit()
    return course
