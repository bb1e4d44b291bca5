"""Who is who after a valid launch: the LMS user (issuer, sub) as our user, the context as one of our courses,
the roles as an enrolment, the resource link as an assignment."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from grader.grading import access
from grader.grading.access import Action, Actor
from grader.lti import claims as c
from grader.lti.binding import bindable_courses, digest, enrol, mark_member, new_course
from grader.lti.launch import ValidatedLaunch
from grader.lti.refusals import Refusal
from grader.models import (
    Assignment,
    Course,
    LtiContext,
    LtiIdentity,
    LtiLineItem,
    LtiResourceLink,
    MemberStatus,
    Role,
    User,
    utcnow,
)
from grader.whole_numbers import whole_number


@dataclass(frozen=True)
class LaunchOutcome:
    """Where a launch leads: the user to sign in (None: anonymous), their course (None: the instructor chooses which
    course the LMS course is bound to first), assignment and resource link, and whether the launching person is
    staff there."""

    user: User | None
    context: LtiContext
    course: Course | None
    assignment: Assignment | None
    staff: bool
    link_id: int | None = None  # our row of the launch's resource link, if it has one


def _display_name(decoded: dict[str, Any]) -> str:
    """The name the launch carries, else the email, else a neutral one."""
    given = " ".join(str(decoded.get(k, "")).strip() for k in ("given_name", "family_name")).strip()
    name = str(decoded.get("name") or given or decoded.get("email") or "LTI user")
    return name[:128]


def identity_user(session: Session, issuer: str, sub: str, decoded: dict[str, Any], staff: bool) -> User:
    """Our user for (issuer, sub), created on first launch with the launch's name; staff get teacher pages."""
    user = session.scalar(
        select(User)
        .join(LtiIdentity, LtiIdentity.user_id == User.id)
        .where(LtiIdentity.issuer == issuer, LtiIdentity.sub == sub)
    )
    if user is None:
        user = User(
            username=f"lti-{digest(issuer, sub)}",
            display_name=_display_name(decoded),
            role=Role.TEACHER if staff else Role.STUDENT,
            password_hash=None,
        )
        session.add(user)
        session.flush()
        session.add(LtiIdentity(issuer=issuer, sub=sub, user_id=user.id))
    elif staff and user.role == Role.STUDENT:
        user.role = Role.TEACHER
    return user


def _custom_assignment(session: Session, decoded: dict[str, Any]) -> Assignment | Refusal | None:
    """The assignment named by the custom parameter ``assignment_id`` (None if absent)."""
    custom = decoded.get(c.CUSTOM)
    raw = custom.get("assignment_id") if isinstance(custom, dict) else None
    if raw is None or raw == "":
        return None
    number = whole_number(str(raw).strip(), 999_999_999)
    found = session.get(Assignment, number) if number is not None else None
    return found if found is not None else Refusal.UNKNOWN_ASSIGNMENT


def _context(session: Session, launch: ValidatedLaunch) -> LtiContext | None:
    """The context row of the launch (created on first sight), with the service URLs of its latest launch."""
    claim = launch.claims.get(c.CONTEXT)
    if not isinstance(claim, dict) or not claim.get("id"):
        return None
    context_id = str(claim["id"])
    row = session.scalar(
        select(LtiContext).where(LtiContext.platform_id == launch.platform.id, LtiContext.context_id == context_id)
    )
    if row is None:
        row = LtiContext(platform_id=launch.platform.id, context_id=context_id)
        session.add(row)
    row.title = str(claim.get("title") or claim.get("label") or row.title or context_id)[:255]
    nrps, ags = launch.claims.get(c.NRPS), launch.claims.get(c.AGS_ENDPOINT)
    if isinstance(nrps, dict) and nrps.get("context_memberships_url"):
        row.memberships_url = str(nrps["context_memberships_url"])
    if isinstance(ags, dict) and ags.get("lineitems"):
        row.lineitems_url = str(ags["lineitems"])
    session.flush()
    return row


def _bind_course(
    session: Session, context: LtiContext, user: User | None, staff: bool, assignment: Assignment | None
) -> Course | Refusal | None:
    """The course of the context. An instructor's first launch binds it: to the course of the assignment the link
    names when they teach it (a copied LMS course), else, if they teach courses here, to the one they will choose
    (None: not bound yet), else to a new course of theirs."""
    if context.course_id is not None:
        course = session.get(Course, context.course_id)
        if course is not None:
            return course
    if not staff or user is None:
        return Refusal.NOT_SET_UP
    if assignment is not None and access.may(session, Actor.of_user(user), Action.EDIT_COURSE, assignment.course_id):
        course = assignment.course
    elif assignment is None and bindable_courses(session, user):
        return None
    else:
        course = new_course(session, context)
    context.course_id = course.id
    return course


def _bind_link(
    session: Session, context: LtiContext, decoded: dict[str, Any], assignment: Assignment | None
) -> tuple[int | None, Assignment | None]:
    """The resource link row of the launch (None for a launch without one) and its assignment; the custom
    parameter (re)binds it."""
    link_claim = decoded.get(c.RESOURCE_LINK)
    if not isinstance(link_claim, dict) or not link_claim.get("id"):
        return None, assignment
    link_id = str(link_claim["id"])
    link = session.scalar(
        select(LtiResourceLink).where(
            LtiResourceLink.context_id == context.id, LtiResourceLink.resource_link_id == link_id
        )
    )
    if link is None:
        link = LtiResourceLink(context_id=context.id, resource_link_id=link_id)
        session.add(link)
    if assignment is not None:
        link.assignment_id = assignment.id
    session.flush()
    return link.id, session.get(Assignment, link.assignment_id) if link.assignment_id is not None else None


def _record_line_item(session: Session, context: LtiContext, assignment: Assignment, decoded: dict[str, Any]) -> None:
    """Keep the line item the launch names for this assignment in this context (the claim wins over a search)."""
    ags = decoded.get(c.AGS_ENDPOINT)
    url = ags.get("lineitem") if isinstance(ags, dict) else None
    if not url:
        return
    row = session.scalar(
        select(LtiLineItem).where(LtiLineItem.context_id == context.id, LtiLineItem.assignment_id == assignment.id)
    )
    if row is None:
        session.add(LtiLineItem(context_id=context.id, assignment_id=assignment.id, url=str(url)))
    else:
        row.url = str(url)


def apply_launch(session: Session, launch: ValidatedLaunch) -> LaunchOutcome | Refusal:
    """Turn a validated launch into our user, course, enrolment and assignment (committed), or a refusal."""
    decoded = launch.claims
    staff = c.is_staff(decoded[c.ROLES])
    sub = c.user_id(decoded.get("sub"))  # checked by validate_launch: absent or empty means anonymous
    user = identity_user(session, launch.platform.issuer, sub, decoded, staff) if sub else None
    named = _custom_assignment(session, decoded)
    context = _context(session, launch)
    if isinstance(named, Refusal) or context is None:
        session.rollback()
        return Refusal.UNKNOWN_ASSIGNMENT if isinstance(named, Refusal) else Refusal.NOT_SET_UP
    course = _bind_course(session, context, user, staff, named)
    if isinstance(course, Refusal):
        session.rollback()
        return course
    if named is not None and (course is None or named.course_id != course.id):
        session.rollback()
        return Refusal.UNKNOWN_ASSIGNMENT
    if user is not None and course is not None:
        enrol(session, course.id, user, staff, c.is_teaching_assistant_only(decoded[c.ROLES]))
        mark_member(session, context, user.id, staff, MemberStatus.ACTIVE, utcnow())
    link_id, assignment = _bind_link(session, context, decoded, named)
    if assignment is not None:
        _record_line_item(session, context, assignment, decoded)
    session.commit()
    return LaunchOutcome(user, context, course, assignment, staff, link_id)
