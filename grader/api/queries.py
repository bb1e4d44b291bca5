"""What each caller may see: visible courses, assignments and submissions, and progress (the submission listing is
``submission_listing``)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Select, bindparam, or_, select, true
from sqlalchemy.orm import Session

from grader.api_errors import ApiError
from grader.auth import Principal
from grader.grading import access
from grader.grading.access import Action
from grader.models import Assignment, Course, Enrolment, EnrolmentRole, Submission, User


def taught_course_ids(principal: Principal) -> Select[int]:
    """SQL: the ids of the courses whose students the caller sees (owns or staffs; grader.grading.access)."""
    return access.course_ids(principal.actor, Action.SEE_STUDENTS)


def teaches(session: Session, principal: Principal, course_id: int, action: Action = Action.SEE_STUDENTS) -> bool:
    """True if the caller may do ``action`` (by default: see the students) in the course (admins always may)."""
    return access.may(session, principal.actor, action, course_id)


def acts_as_staff_in(session: Session, principal: Principal, assignment_id: int | None) -> bool:
    """True if the caller has staff powers over what is tied to the assignment (seeds, answer keys, error texts).

    Admins always have them, and teachers for their own tries outside any assignment (None) and in the courses they
    own or staff; an account's role alone is not enough, since a teacher may be enrolled as a student in another
    course. An assignment that does not exist is taught by nobody, so a refusal tells no one whether it exists.
    """
    return assignment_id in staff_assignments(session, principal, {assignment_id})


def staff_row_ids(session: Session, principal: Principal, rows: list[Submission]) -> set[int]:
    """The ids of ``rows`` the caller sees as staff (``acts_as_staff_in`` their assignments), in one statement."""
    staff = staff_assignments(session, principal, {row.assignment_id for row in rows})
    return {row.id for row in rows if row.assignment_id in staff}


def staff_assignments(session: Session, principal: Principal, assignment_ids: set[int | None]) -> set[int | None]:
    """Those of ``assignment_ids`` (None: outside any assignment) the caller ``acts_as_staff_in``, in one statement."""
    if principal.is_admin:
        return set(assignment_ids)
    if not principal.is_staff:
        return set()
    wanted = {assignment_id for assignment_id in assignment_ids if assignment_id is not None}
    taught: set[int | None] = (
        set(
            session.scalars(
                select(Assignment.id).where(
                    Assignment.id.in_(wanted), Assignment.course_id.in_(taught_course_ids(principal))
                )
            )
        )
        if wanted
        else set()
    )
    return taught | ({None} & assignment_ids)


def visible_courses(session: Session, principal: Principal) -> list[tuple[Course, str]]:
    """The caller's courses with the caller's part in each: their enrolment's role, or their staff role
    (co_teacher, ta); admins: every course, as "admin"."""
    if principal.is_admin:
        return [(course, "admin") for course in session.scalars(select(Course).order_by(Course.id))]
    rows = access.course_parts(session, principal.user_id)
    # A teacher acting through a student-role token sees their courses as a student would.
    return [(course, role if principal.is_staff else EnrolmentRole.STUDENT) for course, role in rows]


def visible_assignment(session: Session, principal: Principal, assignment_id: int) -> Assignment:
    """The assignment if the caller is a member (student or staff) of its course; 404 otherwise."""
    assignment = session.get(Assignment, assignment_id)
    if assignment is None or not teaches(session, principal, assignment.course_id, Action.VIEW_COURSE):
        raise ApiError(404, "not_found", f"No assignment {assignment_id}.")
    return assignment


def _enrolled(session: Session, user_id: int, course_id: int) -> bool:
    """True if the user is a member of the course in any role."""
    return (
        session.scalar(select(Enrolment.id).where(Enrolment.user_id == user_id, Enrolment.course_id == course_id))
        is not None
    )


def visible_condition(principal: Principal) -> Any:
    """SQL condition: submissions the caller may read (own; plus their courses' for teachers; all for admins)."""
    if principal.is_admin:
        return true()
    own = Submission.user_id == principal.user_id
    if not principal.is_staff:
        return own
    taught = select(Assignment.id).where(Assignment.course_id.in_(taught_course_ids(principal)))
    return or_(own, Submission.assignment_id.in_(taught))


def _submission_by_id(*conditions: Any) -> Select[Submission]:
    """SQL: the submission with the bound ``submission_id`` under ``conditions``, re-read even if already loaded."""
    return (
        select(Submission)
        .where(Submission.id == bindparam("submission_id"), *conditions)
        .execution_options(populate_existing=True)
    )


# The same visibility rules as visible_condition, built once per kind of caller with the user id bound: this read
# runs on every GET of a submission (twice when it waits).
_OWN = Submission.user_id == bindparam("user_id")
_TAUGHT_BY_CALLER = select(Assignment.id).where(
    Assignment.course_id.in_(access.course_ids_of_user(bindparam("user_id"), Action.SEE_STUDENTS, staff=True))
)
_SUBMISSION_FOR_ADMIN = _submission_by_id()
_SUBMISSION_FOR_STAFF = _submission_by_id(or_(_OWN, Submission.assignment_id.in_(_TAUGHT_BY_CALLER)))
_SUBMISSION_FOR_STUDENT = _submission_by_id(_OWN)


def visible_submission(session: Session, principal: Principal, submission_id: int) -> Submission:
    """The submission if the caller may read it; 404 otherwise (existence is not revealed)."""
    query = (
        _SUBMISSION_FOR_ADMIN
        if principal.is_admin
        else _SUBMISSION_FOR_STAFF
        if principal.is_staff
        else _SUBMISSION_FOR_STUDENT
    )
    submission = session.scalar(query, {"submission_id": submission_id, "user_id": principal.user_id})
    if submission is None:
        raise ApiError(404, "not_found", f"No submission {submission_id}.")
    return submission


def own_submission(session: Session, principal: Principal, submission_id: int) -> Submission:
    """The caller's own submission; 404 if it is not theirs."""
    submission = session.scalar(_SUBMISSION_FOR_STUDENT, {"submission_id": submission_id, "user_id": principal.user_id})
    if submission is None:
        raise ApiError(404, "not_found", f"No submission {submission_id}.")
    return submission


def progress_subject(session: Session, principal: Principal, assignment: Assignment, student_id: int | None) -> User:
    """Whose progress to show: the caller's own, or (teachers of the course) the student asked for."""
    if student_id is None or student_id == principal.user_id:
        return principal.user
    if not teaches(session, principal, assignment.course_id):
        raise ApiError(
            403, "forbidden", "Only the course's teachers may see another student's progress.", field="student"
        )
    student = session.get(User, student_id)
    if student is None or not _enrolled(session, student.id, assignment.course_id):
        raise ApiError(404, "not_found", f"No student {student_id} in this course.", field="student")
    return student
