"""Binding an LMS course (context) to one of our courses: on the first instructor launch the instructor picks one
of the courses they teach, or a new course is made for it; binding an LMS link to an assignment; and enrolment
following the LMS's roles."""

from __future__ import annotations

import hashlib
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from grader.models import (
    Assignment,
    Course,
    Enrolment,
    EnrolmentRole,
    LtiContext,
    LtiMember,
    LtiResourceLink,
    MemberStatus,
    User,
    utcnow,
)
from grader.teacher.access import taught_courses


class BindingRefused(ValueError):
    """The course chosen is not one the instructor may bind (``field`` names the form field)."""

    def __init__(self, field: str) -> None:
        super().__init__(field)
        self.field = field


def digest(*parts: str) -> str:
    """A short stable name part for LMS identifiers (which may be long or carry any character)."""
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:20]


def enrol(session: Session, course_id: int, user: User, staff: bool) -> None:
    """Enrolment follows the latest launch's (or roster's) roles."""
    role = EnrolmentRole.TEACHER if staff else EnrolmentRole.STUDENT
    enrolment = session.scalar(select(Enrolment).where(Enrolment.course_id == course_id, Enrolment.user_id == user.id))
    if enrolment is None:
        session.add(Enrolment(course_id=course_id, user_id=user.id, role=role))
    elif enrolment.role != role:
        enrolment.role = role


def mark_member(session: Session, context: LtiContext, user_id: int, staff: bool, status: str, now: datetime) -> None:
    """Record one person's standing in the LMS course (a launch or a roster line); left_at kept from the first time
    they were found gone."""
    row = session.scalar(select(LtiMember).where(LtiMember.context_id == context.id, LtiMember.user_id == user_id))
    if row is None:
        row = LtiMember(context_id=context.id, user_id=user_id, status=MemberStatus.ACTIVE, seen_at=now)
        session.add(row)
    row.staff = staff
    if status == MemberStatus.ACTIVE:
        row.status, row.left_at, row.seen_at = MemberStatus.ACTIVE, None, now
    elif row.status == MemberStatus.ACTIVE or row.left_at is None:
        row.status, row.left_at = status, now
    else:
        row.status = status
    session.flush()


def new_course(session: Session, context: LtiContext) -> Course:
    """A new course for an LMS context, named after it (flushed)."""
    course = Course(
        code=f"lti-{digest(str(context.platform_id), context.context_id)[:16]}",
        title=context.title or context.context_id,
    )
    session.add(course)
    session.flush()
    return course


def bindable_courses(session: Session, user: User) -> list[Course]:
    """The courses an instructor may bind an LMS course to: those they teach that are not archived."""
    return [course for course in taught_courses(session, user) if not course.archived]


def choose_course(session: Session, user: User, context_id: int, choice: str) -> Course:
    """Bind context ``context_id`` to the course ``choice`` names (one the instructor teaches) or, for "new", to a
    new course; the instructor is its teacher (committed). A context another instructor bound meanwhile keeps its
    course. Raises BindingRefused for a choice that is neither."""
    context = session.get(LtiContext, context_id)
    if context is None:
        raise BindingRefused("context")
    course = session.get(Course, context.course_id) if context.course_id is not None else None
    if course is None:
        if choice == "new":
            course = new_course(session, context)
        else:
            course = next((c for c in bindable_courses(session, user) if str(c.id) == choice.strip()), None)
            if course is None:
                raise BindingRefused("course_id")
        context.course_id = course.id
    enrol(session, course.id, user, staff=True)
    mark_member(session, context, user.id, True, MemberStatus.ACTIVE, utcnow())
    session.commit()
    return course


def bind_link(session: Session, link_id: int, course: Course, assignment_id: str) -> Assignment:
    """Bind an unbound resource link (an instructor's launch of a link the LMS made without our picker) to one of
    the course's assignments (committed). Raises BindingRefused: not an assignment of the course, or a link not of
    an LMS course bound to it."""
    link = session.get(LtiResourceLink, link_id)
    context = session.get(LtiContext, link.context_id) if link is not None else None
    if link is None or context is None or context.course_id != course.id:
        raise BindingRefused("link")
    chosen = next((a for a in course.assignments if str(a.id) == assignment_id.strip()), None)
    if chosen is None:
        raise BindingRefused("assignment_id")
    link.assignment_id = chosen.id
    session.commit()
    return chosen
