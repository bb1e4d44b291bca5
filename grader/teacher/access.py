"""Who may see which teacher page: the course's staff (grader.grading.access decides what each part may do); an
outsider gets a 404, a staff member whose part does not allow the action a 403."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import ParamSpec, TypeVar

from flask import abort
from sqlalchemy.orm import Session
from werkzeug.wrappers import Response

from grader.extensions import get_session
from grader.grading import access
from grader.grading.access import Action, Actor
from grader.models import Assignment, Course, RegradeJob, User
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
        if not Actor.of_user(signed_in()).is_admin:
            abort(404)
        return view(*args, **kwargs)

    return login_required(wrapper)


def teaches(session: Session, user: User, course_id: int, action: Action = Action.SEE_STUDENTS) -> bool:
    """True if ``user`` may do ``action`` (by default: see the students) in the course (grader.grading.access)."""
    return access.may(session, Actor.of_user(user), action, course_id)


def may_in_course(course: Course, action: str) -> bool:
    """For templates: True if the signed-in user may do ``action`` (an ``Action`` value) in ``course``, so a page
    offers only the links and forms its reader may use."""
    return teaches(get_session(), signed_in(), course.id, Action(action))


def taught_courses(session: Session, user: User) -> list[Course]:
    """The courses ``user`` owns or staffs (every course for an admin), by code."""
    return access.courses(session, Actor.of_user(user), Action.SEE_STUDENTS)


def course_or_404(session: Session, user: User, course_id: int, action: Action = Action.SEE_STUDENTS) -> Course:
    """The course, if ``user`` may do ``action`` in it. 404 if they are not its staff (no hint that it exists);
    403 if they are but their part does not allow ``action`` (a TA editing an assignment)."""
    course = session.get(Course, course_id)
    role = None if course is None else access.course_role(session, Actor.of_user(user), course.id)
    if course is None or not access.is_staff_role(role):
        abort(404)
    if not access.allows(role, action):
        abort(403)
    return course


def assignment_or_404(
    session: Session, user: User, assignment_id: int, action: Action = Action.SEE_STUDENTS
) -> Assignment:
    """The assignment, if ``user`` may do ``action`` in its course; otherwise 404 or 403 (as ``course_or_404``)."""
    assignment = session.get(Assignment, assignment_id)
    if assignment is None:
        abort(404)
    course_or_404(session, user, assignment.course_id, action)
    return assignment


def regrade_or_404(session: Session, user: User, job_id: int) -> RegradeJob:
    """The regrade job, if ``user`` may regrade in the course of its assignment; otherwise 404 or 403."""
    job = session.get(RegradeJob, job_id, populate_existing=True)
    if job is None:
        abort(404)
    course_or_404(session, user, job.assignment.course_id, Action.REGRADE)
    return job
