"""A course's staff: adding a co-teacher or TA by username, changing their part, removing them.

Who may manage staff, and what each part may then do, is ``grader.grading.access``; this module holds the rules of
the staff list itself. A staff member must have an active teacher (or admin) account: a course part never gives more
than the account could (a student account added as TA would otherwise reach the teacher pages and API by a back
door); an administrator can make a student's account a teacher's on the users page first. The course's owners (its
teacher enrolments) and its students are not staff rows: an owner already has every power, and a student of the
course cannot also grade it.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from grader.grading.access import STAFF_ACCOUNT_ROLES
from grader.grading.refusals import FieldRefused
from grader.models import Course, CourseStaff, Enrolment, StaffRole, User

STAFF_ROLES = tuple(role.value for role in StaffRole)
USERNAME_MAX = 64  # users.username's length


@dataclass(frozen=True)
class StaffChange:
    """What a put did: the row as it is now, and whether it was added (else its part changed or stayed)."""

    member: CourseStaff
    added: bool


def readable_username(value: str) -> bool:
    """True if ``value`` could be a username (1 to 64 characters, none a control character): anything else, as a
    URL path names it, is refused before it reaches the database (PostgreSQL refuses NUL in text)."""
    return 0 < len(value) <= USERNAME_MAX and all(ch.isprintable() for ch in value)


def staff_of(session: Session, course: Course) -> list[CourseStaff]:
    """The course's co-teachers and TAs (with their users), by username."""
    return list(
        session.scalars(
            select(CourseStaff)
            .join(User, User.id == CourseStaff.user_id)
            .where(CourseStaff.course_id == course.id)
            .order_by(User.username)
        )
    )


def staff_user_ids(session: Session, course: Course, user_ids: Collection[int]) -> set[int]:
    """Those of ``user_ids`` on the course's staff (who cannot also be enrolled in it as students)."""
    if not user_ids:
        return set()
    return set(
        session.scalars(
            select(CourseStaff.user_id).where(CourseStaff.course_id == course.id, CourseStaff.user_id.in_(user_ids))
        )
    )


def staff_member(session: Session, course: Course, username: str) -> CourseStaff | None:
    """The staff row of ``username`` in the course, if they are its staff."""
    return session.scalar(
        select(CourseStaff)
        .join(User, User.id == CourseStaff.user_id)
        .where(CourseStaff.course_id == course.id, User.username == username)
    )


def staff_role(value: object) -> StaffRole:
    """The staff part named by ``value``; FieldRefused("role") for anything else."""
    if not isinstance(value, str) or value not in STAFF_ROLES:
        raise FieldRefused("role", "staff.err_role")
    return StaffRole(value)


def put_staff(session: Session, course: Course, username: str, role: StaffRole, by: User) -> StaffChange:
    """Make ``username`` the course's ``role`` (added, or their part changed); commits. FieldRefused("username")
    with the reason if there is no such active account, it is not a teacher's, or its owner is enrolled in the
    course (an owner, or a student); nothing changes then."""
    user = session.scalar(select(User).where(User.username == username))
    if user is None or user.deactivated_at is not None:
        raise FieldRefused("username", "staff.err_unknown")
    if user.role not in STAFF_ACCOUNT_ROLES:
        raise FieldRefused("username", "staff.err_account")
    if session.scalar(select(Enrolment.role).where(Enrolment.course_id == course.id, Enrolment.user_id == user.id)):
        raise FieldRefused("username", "staff.err_enrolled")
    member = session.scalar(
        select(CourseStaff).where(CourseStaff.course_id == course.id, CourseStaff.user_id == user.id)
    )
    added = member is None
    if member is None:
        member = CourseStaff(course_id=course.id, user_id=user.id, role=role, added_by=by.id)
        session.add(member)
    elif member.role != role:
        member.role, member.added_by = role, by.id
    try:
        session.commit()
    except IntegrityError:  # added by another request since the read above: change that row instead
        session.rollback()
        return put_staff(session, course, username, role, by)
    return StaffChange(member, added)


def remove_staff(session: Session, course: Course, username: str) -> bool:
    """Remove ``username`` from the course's staff (their own submissions stay); commits. False if they were not."""
    member = staff_member(session, course, username)
    if member is None:
        return False
    session.delete(member)
    session.commit()
    return True
