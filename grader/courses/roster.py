"""Course membership for teachers: create a course, enrol students one by one or from a CSV, remove them."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from grader.courses.roster_files import MAX_ROSTER_ROWS
from grader.grading import course_staff
from grader.models import Course, Enrolment, EnrolmentRole, User
from grader.models.courses import DEFAULT_TIME_ZONE
from grader.whole_numbers import whole_number

COURSE_CODE = re.compile(r"[A-Za-z0-9._-]{2,64}")
MAX_TITLE = 200
# The roster file (and the confirm form listing its rows) may be this large: 2,000 rows with a display name and an
# e-mail address take about 150 KB, twice that in UTF-16. Every other request keeps the app's cap (the API's).
MAX_ROSTER_BYTES = 1024 * 1024
MAX_LINE_DIGITS = 7  # of a line number in the confirm form (a 1 MiB file has fewer than 10**7 lines)
# Checks and inserts of one enrolment request: a race lost to a concurrent request is checked again this often.
ENROL_TRIES = 3


@dataclass(frozen=True)
class RosterRow:
    """One line of an uploaded roster and whether it can be enrolled (``error`` is a string key, or None)."""

    line: int
    username: str
    error: str | None
    display_name: str = ""  # the name the file gives (kept for an account it creates)
    creates: bool = False  # no account has this username yet: confirming creates it


def course_form_errors(session: Session, code: str, title: str) -> list[str]:
    """String keys of what is wrong with a new course's code and title (empty when it can be created)."""
    errors = []
    if not COURSE_CODE.fullmatch(code):
        errors.append("course.bad_code")
    elif session.scalar(select(Course.id).where(Course.code == code)) is not None:
        errors.append("course.code_taken")
    if not title or len(title) > MAX_TITLE:
        errors.append("course.bad_title")
    return errors


def create_course(
    session: Session, teacher: User, code: str, title: str, time_zone: str = DEFAULT_TIME_ZONE
) -> Course | None:
    """A new course with ``teacher`` enrolled as its teacher; commits. Check course_form_errors first.

    None if the code was taken after that check (another request, e.g. a double click, created it meanwhile).
    """
    course = Course(code=code, title=title, time_zone=time_zone)
    course.enrolments.append(Enrolment(user=teacher, role=EnrolmentRole.TEACHER))
    session.add(course)
    try:
        session.commit()
    except IntegrityError:
        # The unique code is the only constraint a valid form can break; the database is the arbiter of the race.
        session.rollback()
        return None
    return course


def student_counts(session: Session, course_ids: list[int]) -> dict[int, int]:
    """Enrolled students per course, in one GROUP BY."""
    rows = session.execute(
        select(Enrolment.course_id, func.count())
        .where(Enrolment.course_id.in_(course_ids), Enrolment.role == EnrolmentRole.STUDENT)
        .group_by(Enrolment.course_id)
    )
    return {course_id: int(n) for course_id, n in rows}


def members(session: Session, course: Course, role: str) -> list[User]:
    """The course's members with ``role``, by username."""
    return list(
        session.scalars(
            select(User)
            .join(Enrolment)
            .where(Enrolment.course_id == course.id, Enrolment.role == role)
            .order_by(User.username)
        )
    )


def confirmed_rows(values: list[str]) -> list[tuple[int, str]] | None:
    """(line number, username) from the confirm form's ``line:username`` values; None if one is not that shape."""
    rows = []
    for value in values:
        line, colon, name = value.partition(":")  # a username may hold a colon; the line number never does
        number = whole_number(line, 10**MAX_LINE_DIGITS - 1)
        if not colon or number is None:
            return None
        rows.append((number, name))
    return rows if len(rows) <= MAX_ROSTER_ROWS else None


def check_rows(session: Session, course: Course, rows: list[tuple[int, str]]) -> list[RosterRow]:
    """Each row with the reason it cannot be enrolled, if any; two queries however long the file is."""
    names = {name for _line, name in rows if name}
    users = dict(session.execute(select(User.username, User.id).where(User.username.in_(names))).all()) if names else {}
    roles = (
        dict(
            session.execute(
                select(Enrolment.user_id, Enrolment.role).where(
                    Enrolment.course_id == course.id, Enrolment.user_id.in_(users.values())
                )
            ).all()
        )
        if users
        else {}
    )
    staff = course_staff.staff_user_ids(session, course, list(users.values()))
    seen: set[str] = set()
    checked = []
    for line, name in rows:
        user_id = users.get(name)
        if not name:
            error: str | None = "roster.err_empty"
        elif name in seen:
            error = "roster.err_duplicate"
        elif user_id is None:
            error = "roster.err_unknown"
        elif roles.get(user_id) == EnrolmentRole.TEACHER or user_id in staff:
            error = "roster.err_teacher"
        elif user_id in roles:
            error = "roster.err_enrolled"
        else:
            error = None
        seen.add(name)
        checked.append(RosterRow(line, name, error))
    return checked


def enrol(session: Session, course: Course, lines: list[tuple[int, str]]) -> tuple[int, list[RosterRow]]:
    """Enrol the (line number, username) rows that pass check_rows as students; commits. Returns (number enrolled,
    rows refused), the refused ones with the line numbers given."""
    for _attempt in range(ENROL_TRIES):
        rows = check_rows(session, course, lines)
        ready = [row.username for row in rows if row.error is None]
        if not ready:
            break
        users = session.scalars(select(User).where(User.username.in_(ready))).all()
        session.add_all(Enrolment(course_id=course.id, user_id=user.id, role=EnrolmentRole.STUDENT) for user in users)
        try:
            session.commit()
        except IntegrityError:
            # Another request enrolled one of them (or an account went) after the check: check the rows again, so
            # that row says why and the others are still enrolled.
            session.rollback()
            continue
        return len(ready), [row for row in rows if row.error is not None]
    return 0, [row if row.error else replace(row, error="roster.err_busy") for row in rows]


def student(session: Session, course: Course, user_id: int) -> User | None:
    """The user enrolled as a student of the course with ``user_id``; None if there is none."""
    return session.scalar(
        select(User)
        .join(Enrolment)
        .where(Enrolment.course_id == course.id, Enrolment.user_id == user_id, Enrolment.role == EnrolmentRole.STUDENT)
    )


def remove_student(session: Session, course: Course, user_id: int) -> User | None:
    """Remove a student from the course (their submissions stay); commits. None if they were not a student here."""
    enrolment = session.scalar(
        select(Enrolment).where(
            Enrolment.course_id == course.id, Enrolment.user_id == user_id, Enrolment.role == EnrolmentRole.STUDENT
        )
    )
    if enrolment is None:
        return None
    user = enrolment.user
    session.delete(enrolment)
    session.commit()
    return user
