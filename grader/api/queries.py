"""What each caller may see: visible courses, assignments and submissions, listings with filters, progress."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Select, bindparam, func, or_, select, true
from sqlalchemy.orm import Session, selectinload

from grader.auth import Principal
from grader.errors import ApiError
from grader.models import Assignment, Course, Enrolment, EnrolmentRole, Submission, User


@dataclass(frozen=True)
class SubmissionFilters:
    """Optional filters of the submission listing."""

    course_id: int | None = None
    assignment_id: int | None = None
    student_id: int | None = None
    exercise_id: str | None = None
    status: str | None = None


def taught_course_ids(principal: Principal) -> Select[tuple[int]]:
    """SQL: the ids of the courses the caller teaches."""
    return select(Enrolment.course_id).where(
        Enrolment.user_id == principal.user_id, Enrolment.role == EnrolmentRole.TEACHER
    )


def teaches(session: Session, principal: Principal, course_id: int) -> bool:
    """True if the caller may act as a teacher of the course (admins always may)."""
    if principal.is_admin:
        return True
    if not principal.is_staff:
        return False
    return session.scalar(taught_course_ids(principal).where(Enrolment.course_id == course_id)) is not None


def visible_courses(session: Session, principal: Principal) -> list[tuple[Course, str]]:
    """The caller's courses with the caller's part in each (admins: every course, as "admin")."""
    if principal.is_admin:
        return [(course, "admin") for course in session.scalars(select(Course).order_by(Course.id))]
    rows = session.execute(
        select(Course, Enrolment.role).join(Enrolment, Enrolment.course_id == Course.id)
        .where(Enrolment.user_id == principal.user_id).order_by(Course.id)
    ).all()
    # A teacher acting through a student-role token sees their courses as a student would.
    return [(course, role if principal.is_staff else EnrolmentRole.STUDENT) for course, role in rows]


def visible_assignment(session: Session, principal: Principal, assignment_id: int) -> Assignment:
    """The assignment if the caller is enrolled in (or teaches) its course; 404 otherwise."""
    assignment = session.get(Assignment, assignment_id)
    if assignment is None or not (principal.is_admin or _enrolled(session, principal.user_id, assignment.course_id)):
        raise ApiError(404, "not_found", f"No assignment {assignment_id}.")
    return assignment


def _enrolled(session: Session, user_id: int, course_id: int) -> bool:
    """True if the user is a member of the course in any role."""
    return session.scalar(
        select(Enrolment.id).where(Enrolment.user_id == user_id, Enrolment.course_id == course_id)
    ) is not None


def _visible_condition(principal: Principal) -> Any:
    """SQL condition: submissions the caller may read (own; plus their courses' for teachers; all for admins)."""
    if principal.is_admin:
        return true()
    own = Submission.user_id == principal.user_id
    if not principal.is_staff:
        return own
    taught = select(Assignment.id).where(Assignment.course_id.in_(taught_course_ids(principal)))
    return or_(own, Submission.assignment_id.in_(taught))


def _submission_by_id(*conditions: Any) -> Select[tuple[Submission]]:
    """SQL: the submission with the bound ``submission_id`` under ``conditions``, re-read even if already loaded."""
    return (select(Submission).where(Submission.id == bindparam("submission_id"), *conditions)
            .execution_options(populate_existing=True))


# The same visibility rules as _visible_condition, built once per kind of caller with the user id bound: this read
# runs on every GET of a submission (twice when it waits).
_OWN = Submission.user_id == bindparam("user_id")
_TAUGHT_BY_CALLER = select(Assignment.id).where(Assignment.course_id.in_(
    select(Enrolment.course_id).where(Enrolment.user_id == bindparam("user_id"),
                                      Enrolment.role == EnrolmentRole.TEACHER)))
_SUBMISSION_FOR_ADMIN = _submission_by_id()
_SUBMISSION_FOR_STAFF = _submission_by_id(or_(_OWN, Submission.assignment_id.in_(_TAUGHT_BY_CALLER)))
_SUBMISSION_FOR_STUDENT = _submission_by_id(_OWN)


def visible_submission(session: Session, principal: Principal, submission_id: int) -> Submission:
    """The submission if the caller may read it; 404 otherwise (existence is not revealed)."""
    query = (_SUBMISSION_FOR_ADMIN if principal.is_admin
             else _SUBMISSION_FOR_STAFF if principal.is_staff else _SUBMISSION_FOR_STUDENT)
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


def list_submissions(
    session: Session, principal: Principal, filters: SubmissionFilters, limit: int, offset: int
) -> tuple[list[Submission], int]:
    """A page of the submissions the caller may read, newest first, and the total matching count."""
    query = select(Submission).where(_visible_condition(principal))
    if filters.course_id is not None:
        query = query.where(Submission.assignment_id.in_(
            select(Assignment.id).where(Assignment.course_id == filters.course_id)))
    if filters.assignment_id is not None:
        query = query.where(Submission.assignment_id == filters.assignment_id)
    if filters.student_id is not None:
        query = query.where(Submission.user_id == filters.student_id)
    if filters.exercise_id is not None:
        query = query.where(Submission.exercise_id == filters.exercise_id)
    if filters.status is not None:
        query = query.where(Submission.status == filters.status)
    total = session.scalar(select(func.count()).select_from(query.subquery())) or 0
    # Each row names its student: loaded for the whole page in one statement, not one per row.
    page = query.order_by(Submission.id.desc()).limit(limit).offset(offset).options(selectinload(Submission.user))
    rows = session.scalars(page).all()
    return list(rows), total


def progress_subject(session: Session, principal: Principal, assignment: Assignment, student_id: int | None) -> User:
    """Whose progress to show: the caller's own, or (teachers of the course) the student asked for."""
    if student_id is None or student_id == principal.user_id:
        return principal.user
    if not teaches(session, principal, assignment.course_id):
        raise ApiError(403, "forbidden", "Only the course's teachers may see another student's progress.",
                       field="student")
    student = session.get(User, student_id)
    if student is None or not _enrolled(session, student.id, assignment.course_id):
        raise ApiError(404, "not_found", f"No student {student_id} in this course.", field="student")
    return student
