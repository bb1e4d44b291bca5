"""What the per-student pages of an assignment (extensions, overrides) share: the course's students to choose from,
reading the student chosen in a form, the page's frame and the message naming the student."""

from __future__ import annotations

from flask import flash
from flask.typing import ResponseReturnValue
from sqlalchemy import select
from sqlalchemy.orm import Session

from grader.extensions import get_session
from grader.grading.refusals import FieldRefused
from grader.i18n import t
from grader.models import Assignment, Enrolment, EnrolmentRole, User
from grader.ui.page_helpers import page_lang, render
from grader.whole_numbers import whole_number

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
    user_id = whole_number(text, 10**ID_DIGITS - 1)
    if user_id is None:
        raise StudentRefused(STUDENT_FIELD, refusal_key)
    return user_id


def student_page(
    template: str, assignment: Assignment, form: object, status: int, **extra: object
) -> ResponseReturnValue:
    """A per-student page of ``assignment``: its course's students to choose from (and by id, ``names``), the form
    as typed and what the page adds in ``extra``."""
    students = course_students(get_session(), assignment)
    return render(
        template,
        status,
        assignment=assignment,
        course=assignment.course,
        form=form,
        students=students,
        names={s.id: s for s in students},
        title=assignment.title(page_lang()),
        **extra,
    )


def flash_student(session: Session, key: str, student_id: int) -> None:
    """Flash the message ``key`` naming the student by name (by id if the account is gone)."""
    student = session.get(User, student_id)
    flash(t(key, page_lang(), name=student.display_name if student else student_id))
