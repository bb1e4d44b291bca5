"""What the per-student pages of an assignment (extensions, overrides) share: the course's students to choose from,
and reading the student chosen in a form."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from grader.grading.refusals import FieldRefused
from grader.models import Assignment, Enrolment, EnrolmentRole, User

STUDENT_FIELD = "student"
ID_DIGITS = 10  # a user id as a form sends it; more digits cannot be one of ours


class StudentRefused(FieldRefused):
    """The form names no student (empty, or not an id)."""


def course_students(session: Session, assignment: Assignment) -> list[User]:
    """The students of the assignment's course, by username."""
    return list(
        session.scalars(
            select(User)
            .join(Enrolment, Enrolment.user_id == User.id)
            .where(Enrolment.course_id == assignment.course_id, Enrolment.role == EnrolmentRole.STUDENT)
            .order_by(User.username)
        )
    )


def chosen_student(text: str, refusal_key: str) -> int:
    """The user id typed in the form's student field; StudentRefused (saying ``refusal_key``) for anything else.
    Whether that user is a student of the course is the rule's to check (grader.grading.terms, overrides)."""
    if not (text.isascii() and text.isdigit() and len(text) <= ID_DIGITS):
        raise StudentRefused(STUDENT_FIELD, refusal_key)
    return int(text)
