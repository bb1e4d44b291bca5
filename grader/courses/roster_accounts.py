"""A roster upload that creates accounts: which rows create an account, which enrol an existing one, which are
refused; creating and enrolling them in one commit; the students who still need a sign-in link."""

from __future__ import annotations

import re
from dataclasses import replace

from sqlalchemy import Select, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from grader.courses.roster import ENROL_TRIES, RosterRow, check_rows
from grader.courses.roster_files import RosterEntry
from grader.models import Course, Enrolment, EnrolmentRole, Role, User

# A new account's username: what a 学号, a login or an e-mail address holds, never spaces or control characters.
MAX_USERNAME = 64
USERNAME = re.compile(rf"[^\s\x00-\x1f\x7f]{{1,{MAX_USERNAME}}}")
MAX_DISPLAY_NAME = 128


def _new_account_error(entry: RosterEntry) -> str | None:
    """Why no account can be created for ``entry``, as a string key; None if one can."""
    if not USERNAME.fullmatch(entry.username):
        return "roster.err_bad_username"
    if len(entry.display_name) > MAX_DISPLAY_NAME or any(ord(c) < 32 for c in entry.display_name):
        return "roster.err_bad_name"
    return None


def check_entries(session: Session, course: Course, entries: list[RosterEntry]) -> list[RosterRow]:
    """Each row with what confirming it does: create the account and enrol it (``creates``), enrol an existing
    account, or nothing, with the reason (``error``). Nothing is written."""
    checked = check_rows(session, course, [(entry.line, entry.username) for entry in entries])
    rows = []
    for entry, row in zip(entries, checked):
        row = replace(row, display_name=entry.display_name)
        if row.error == "roster.err_unknown":
            error = _new_account_error(entry)
            row = replace(row, error=error, creates=error is None)
        rows.append(row)
    return rows


def enrol_entries(
    session: Session, course: Course, entries: list[RosterEntry]
) -> tuple[list[User], int, list[RosterRow]]:
    """Create the accounts check_entries says to (students, no password yet, named as in the file) and enrol every
    accepted row, in one commit. Returns (accounts created, students enrolled, rows refused)."""
    rows: list[RosterRow] = []
    for _attempt in range(ENROL_TRIES):
        rows = check_entries(session, course, entries)
        ready = [row for row in rows if row.error is None]
        if not ready:
            return [], 0, rows
        created = [
            User(username=row.username, display_name=row.display_name or row.username, role=Role.STUDENT)
            for row in ready
            if row.creates
        ]
        existing = session.scalars(select(User).where(User.username.in_([r.username for r in ready if not r.creates])))
        session.add_all(
            Enrolment(course=course, user=user, role=EnrolmentRole.STUDENT) for user in [*created, *existing]
        )
        try:
            session.commit()
        except IntegrityError:
            # Another request created or enrolled one of them after the check: nothing of this one was written;
            # check again, so that row says why and the others still go in.
            session.rollback()
            continue
        return created, len(ready), [row for row in rows if row.error is not None]
    return [], 0, [row if row.error else replace(row, error="roster.err_busy") for row in rows]


def confirmed_entries(rows: list[tuple[int, str]], names: list[str]) -> list[RosterEntry] | None:
    """The confirm form's rows with the names the preview carried (one per row, or none at all); None if the two
    lists do not pair up."""
    if names and len(names) != len(rows):
        return None
    return [RosterEntry(line, username, names[i].strip() if names else "") for i, (line, username) in enumerate(rows)]


def _waiting(course: Course) -> Select[User]:
    """The course's students who have never chosen a password, by username."""
    return (
        select(User)
        .join(Enrolment)
        .where(
            Enrolment.course_id == course.id,
            Enrolment.role == EnrolmentRole.STUDENT,
            User.role == Role.STUDENT,
            User.password_hash.is_(None),
        )
        .order_by(User.username)
    )


def without_password(session: Session, course: Course) -> list[User]:
    """The course's students who have never chosen a password (new accounts waiting for their sign-in link)."""
    return list(session.scalars(_waiting(course)))


def count_without_password(session: Session, course: Course) -> int:
    """How many of the course's students have never chosen a password (the roster page says so, in one count)."""
    return session.scalar(select(func.count()).select_from(_waiting(course).order_by(None).subquery())) or 0
