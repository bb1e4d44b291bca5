"""Who may see which teacher page: teachers of a course and admins; everyone else gets a 404."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import ParamSpec, TypeVar

from flask import abort
from sqlalchemy import select
from sqlalchemy.orm import Session
from werkzeug.wrappers import Response

from grader.models import Assignment, Course, Enrolment, EnrolmentRole, RegradeJob, Role, User
from grader.ui.page_helpers import login_required, signed_in

P = ParamSpec("P")
R = TypeVar("R")


def teacher_required(view: Callable[P, R]) -> Callable[P, R | Response]:
    """Signed in (else to the login page) and a teacher or admin account (else 404)."""

    @wraps(view)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R | Response:
        if not signed_in().is_teacher:
            abort(404)
        return view(*args, **kwargs)

    return login_required(wrapper)


def admin_required(view: Callable[P, R]) -> Callable[P, R | Response]:
    """Signed in (else to the login page) and an administrator (else 404: the page's existence is not shown)."""

    @wraps(view)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R | Response:
        if signed_in().role != Role.ADMIN:
            abort(404)
        return view(*args, **kwargs)

    return login_required(wrapper)


def teaches(session: Session, user: User, course_id: int) -> bool:
    """True if ``user`` is an admin or enrolled as a teacher of the course."""
    if user.role == Role.ADMIN:
        return True
    return (
        session.scalar(
            select(Enrolment.id).where(
                Enrolment.course_id == course_id, Enrolment.user_id == user.id, Enrolment.role == EnrolmentRole.TEACHER
            )
        )
        is not None
    )


def taught_courses(session: Session, user: User) -> list[Course]:
    """The courses ``user`` teaches (every course for an admin), by code."""
    query = select(Course).order_by(Course.code)
    if user.role != Role.ADMIN:
        query = query.join(Enrolment).where(Enrolment.user_id == user.id, Enrolment.role == EnrolmentRole.TEACHER)
    return list(session.scalars(query))


def course_or_404(session: Session, user: User, course_id: int) -> Course:
    """The course, if ``user`` teaches it; otherwise 404 (no hint that it exists)."""
    course = session.get(Course, course_id)
    if course is None or not teaches(session, user, course.id):
        abort(404)
    return course


def assignment_or_404(session: Session, user: User, assignment_id: int) -> Assignment:
    """The assignment, if ``user`` teaches its course; otherwise 404."""
    assignment = session.get(Assignment, assignment_id)
    if assignment is None or not teaches(session, user, assignment.course_id):
        abort(404)
    return assignment


def regrade_or_404(session: Session, user: User, job_id: int) -> RegradeJob:
    """The regrade job, if ``user`` teaches the course of its assignment; otherwise 404."""
    job = session.get(RegradeJob, job_id, populate_existing=True)
    if job is None or not teaches(session, user, job.assignment.course_id):
        abort(404)
    return job
