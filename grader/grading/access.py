"""Who may do what to a course: the one place that answers "may this user do ACTION in this course" and gives the
SQL condition for listings (the courses a user may see, teach, ...).

A user's part in a course (``CourseRole``) is one of: an administrator (every course), an owner (enrolled in it as
a teacher: whoever made it, or was enrolled so by the CLI or an LMS), a co-teacher or a teaching assistant (rows of
``course_staff``), a student (enrolled as one), or nothing. ``GRANTS`` says what each part may do:

- an owner may do everything;
- a co-teacher everything but deleting the course (the course is the owner's: a co-teacher may leave or be removed,
  but cannot take the course, its students and grades away from its owner);
- a TA sees the course's dashboards, students, submissions and exports, and gives extensions and overrides; a TA
  cannot edit or delete assignments, regrade, change the roster or the course's settings, manage staff, or delete
  the course;
- a student may view the course (its assignments, their own work) and submit.

Staff powers need a staff account acting as one: an owner or staff member acting through a student-role token, or
whose account was made a student's, is a student of the course (as a teacher's student-role token always was).
Every transport (API, student pages, teacher pages, LTI) asks here and turns a refusal into its own 403 or 404.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from sqlalchemy import ColumnElement, ScalarSelect, Select, false, literal, select, union
from sqlalchemy.orm import InstrumentedAttribute, Session

from grader.models import Course, CourseStaff, Enrolment, EnrolmentRole, Role, StaffRole, User


class CourseRole(StrEnum):
    """A user's part in one course, from the most to the least powerful."""

    ADMIN = "admin"
    OWNER = "owner"
    CO_TEACHER = "co_teacher"
    TA = "ta"
    STUDENT = "student"


class Action(StrEnum):
    """What a user may ask to do to a course (and to what it holds: assignments, students' work)."""

    VIEW_COURSE = "view_course"  # see its assignments, open its exercises, submit (members)
    SEE_STUDENTS = "see_students"  # dashboards, roster, students' submissions and seeds, answer keys, previews
    EXPORT = "export"  # CSV and .xlsx downloads of grades and submissions
    GIVE_EXTENSIONS = "give_extensions"  # give and clear a student's extension
    OVERRIDE = "override"  # set and clear a score override
    EDIT_ASSIGNMENTS = "edit_assignments"  # create and edit assignments
    DELETE_ASSIGNMENTS = "delete_assignments"  # delete an assignment (and its grades with it)
    REGRADE = "regrade"  # preview and run a regrade
    MANAGE_ROSTER = "manage_roster"  # enrol and remove students, issue sign-in links
    EDIT_COURSE = "edit_course"  # the course's settings, archiving it, linking it to an LMS
    MANAGE_STAFF = "manage_staff"  # add, change and remove co-teachers and TAs
    DELETE_COURSE = "delete_course"


_TA_ACTIONS = frozenset(
    {Action.VIEW_COURSE, Action.SEE_STUDENTS, Action.EXPORT, Action.GIVE_EXTENSIONS, Action.OVERRIDE}
)
GRANTS: dict[CourseRole, frozenset[Action]] = {
    CourseRole.ADMIN: frozenset(Action),
    CourseRole.OWNER: frozenset(Action),
    CourseRole.CO_TEACHER: frozenset(Action) - {Action.DELETE_COURSE},
    CourseRole.TA: _TA_ACTIONS,
    CourseRole.STUDENT: frozenset({Action.VIEW_COURSE}),
}
_STAFF_PARTS = {StaffRole.CO_TEACHER: CourseRole.CO_TEACHER, StaffRole.TA: CourseRole.TA}
# The account roles that may act as staff of a course (a course part gives staff powers only to these).
STAFF_ACCOUNT_ROLES = (Role.TEACHER, Role.ADMIN)


@dataclass(frozen=True)
class Actor:
    """Who asks: a user id and the account role they act with (an API token's role may be lower than the account's)."""

    user_id: int
    role: str

    @classmethod
    def of_user(cls, user: User) -> Actor:
        """A signed-in user acting with their account's role (the pages)."""
        return cls(user.id, user.role)

    @property
    def is_admin(self) -> bool:
        """True when acting as an administrator."""
        return self.role == Role.ADMIN

    @property
    def acts_as_staff(self) -> bool:
        """True when acting with a staff account (teacher or admin), which course staff parts need."""
        return self.role in STAFF_ACCOUNT_ROLES


def allows(role: CourseRole | None, action: Action) -> bool:
    """True if a user with ``role`` in a course may do ``action`` there (nobody: never)."""
    return role is not None and action in GRANTS[role]


def is_staff_role(role: CourseRole | None) -> bool:
    """True for the parts that see the course's students (admin, owner, co-teacher, TA)."""
    return allows(role, Action.SEE_STUDENTS)


def part_of(enrolment_role: str | None, staff_role: str | None, actor: Actor) -> CourseRole | None:
    """The course part given by an enrolment's role and a ``course_staff`` role (either may be missing)."""
    if actor.is_admin:
        return CourseRole.ADMIN
    if actor.acts_as_staff:
        if enrolment_role == EnrolmentRole.TEACHER:
            return CourseRole.OWNER
        if staff_role is not None:
            return _STAFF_PARTS[StaffRole(staff_role)]
    # Acting as a student (or enrolled as one): a member sees the course as a student would.
    return CourseRole.STUDENT if enrolment_role is not None or staff_role is not None else None


def part_columns(
    actor: Actor, course_id: ColumnElement[Any] | InstrumentedAttribute[Any]
) -> tuple[ScalarSelect[Any], ScalarSelect[Any]]:
    """SQL: the actor's enrolment role and ``course_staff`` role in course ``course_id`` (a column of the statement
    they are selected in, or a bound value), each NULL if they have none; ``part_of`` makes their part of the two.
    A statement that reads a row of the course (an assignment's) reads the caller's part with it, in one round trip."""
    enrolled = select(Enrolment.role).where(Enrolment.course_id == course_id, Enrolment.user_id == actor.user_id)
    staffed = select(CourseStaff.role).where(CourseStaff.course_id == course_id, CourseStaff.user_id == actor.user_id)
    return enrolled.scalar_subquery(), staffed.scalar_subquery()


def course_role(session: Session, actor: Actor, course_id: int) -> CourseRole | None:
    """The actor's part in the course, or None if they have none (an outsider; a course that does not exist)."""
    if actor.is_admin:
        return CourseRole.ADMIN if session.get(Course, course_id) is not None else None
    enrolled, staffed = session.execute(select(*part_columns(actor, literal(course_id)))).one()
    return part_of(enrolled, staffed, actor)


def may(session: Session, actor: Actor, action: Action, course_id: int) -> bool:
    """True if the actor may do ``action`` in the course (a course that does not exist: nobody may)."""
    return allows(course_role(session, actor, course_id), action)


def course_ids(actor: Actor, action: Action) -> Select[Any]:
    """SQL: the ids of the courses in which the actor may do ``action`` (for listings and ``IN`` conditions)."""
    if actor.is_admin:
        return select(Course.id)
    return course_ids_of_user(literal(actor.user_id), action, staff=actor.acts_as_staff)


def course_ids_of_user(user_id: ColumnElement[Any], action: Action, *, staff: bool) -> Select[Any]:
    """SQL: the ids of the courses in which user ``user_id`` (a bound parameter, or a literal) may do ``action``,
    acting with a staff account (``staff``) or as a student. Not for admins (every course: see ``course_ids``)."""
    parts: list[Select[Any]] = []
    owner = CourseRole.OWNER if staff else CourseRole.STUDENT  # an owner acting as a student is a student
    enrolment_roles = [
        role
        for role, part in ((EnrolmentRole.STUDENT, CourseRole.STUDENT), (EnrolmentRole.TEACHER, owner))
        if allows(part, action)
    ]
    if enrolment_roles:
        parts.append(
            select(Enrolment.course_id).where(Enrolment.user_id == user_id, Enrolment.role.in_(enrolment_roles))
        )
    staff_roles = [role for role, part in _STAFF_PARTS.items() if allows(part if staff else CourseRole.STUDENT, action)]
    if staff_roles:
        parts.append(
            select(CourseStaff.course_id).where(CourseStaff.user_id == user_id, CourseStaff.role.in_(staff_roles))
        )
    if not parts:
        return select(Course.id).where(false())
    if len(parts) == 1:
        return parts[0]
    return select(union(*parts).subquery().c[0])


def member_course_ids(user_id: int) -> Select[Any]:
    """SQL: the ids of the courses user ``user_id`` is a member of, in any part (enrolled, or on the staff); what
    opening its exercises and submitting to it needs (an admin is a member of none)."""
    return course_ids_of_user(literal(user_id), Action.VIEW_COURSE, staff=False)


def is_member(session: Session, user_id: int, course_id: int) -> bool:
    """True if user ``user_id`` is a member of the course in any part (``member_course_ids``)."""
    return session.scalar(select(literal(True)).where(literal(course_id).in_(member_course_ids(user_id)))) is not None


def course_parts(session: Session, user_id: int) -> list[tuple[Course, str]]:
    """Every course user ``user_id`` is a member of, with the role that makes them one: their enrolment's (student,
    teacher) or their staff row's (co_teacher, ta), by course id."""
    enrolled = session.execute(
        select(Course, Enrolment.role)
        .join(Enrolment, Enrolment.course_id == Course.id)
        .where(Enrolment.user_id == user_id)
    ).all()
    staffed = session.execute(
        select(Course, CourseStaff.role)
        .join(CourseStaff, CourseStaff.course_id == Course.id)
        .where(CourseStaff.user_id == user_id)
    ).all()
    return sorted(((course, role) for course, role in [*enrolled, *staffed]), key=lambda row: row[0].id)


def courses(session: Session, actor: Actor, action: Action) -> list[Course]:
    """The courses in which the actor may do ``action`` (every course for an admin), by code."""
    return list(session.scalars(select(Course).where(Course.id.in_(course_ids(actor, action))).order_by(Course.code)))


def course_staff_user_ids(course_id: int) -> Select[Any]:
    """SQL: the ids of the users who act as the course's staff when they submit (its owners, co-teachers, TAs and
    every administrator): their tries are not students' work."""
    every = union(
        select(Enrolment.user_id).where(Enrolment.course_id == course_id, Enrolment.role == EnrolmentRole.TEACHER),
        select(CourseStaff.user_id).where(CourseStaff.course_id == course_id),
        select(User.id).where(User.role == Role.ADMIN),
    ).subquery()
    return select(every.c[0])
