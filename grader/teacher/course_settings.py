"""A course's settings that its teachers change after creating it: the time zone, its members' sign-in length, and
archiving."""

from __future__ import annotations

from sqlalchemy.orm import Session

from grader.models import Course, utcnow
from grader.whole_numbers import whole_number


def set_time_zone(session: Session, course: Course, zone: str) -> None:
    """Show and enter the course's times in ``zone`` from now on; commits. Stored instants do not move."""
    course.time_zone = zone
    session.commit()


def set_archived(session: Session, course: Course, archived: bool) -> bool:
    """Archive the course (read-only for students) or bring it back; commits. False if it already was so."""
    if course.archived == archived:
        return False
    course.archived_at = utcnow() if archived else None
    session.commit()
    return True


SESSION_HOURS_MOST = 720  # 30 days: a cap is for shared computers and exams, not a way past the site's idle limit


def read_session_hours(typed: str) -> tuple[int | None, bool]:
    """The sign-in length a teacher typed: (hours, True) for a whole number from 1 to SESSION_HOURS_MOST, (None, True)
    for an empty field (no cap), (None, False) for anything else."""
    text = typed.strip()
    if not text:
        return None, True
    hours = whole_number(text, SESSION_HOURS_MOST)
    if hours is None or hours < 1:
        return None, False
    return hours, True


def set_session_hours(session: Session, course: Course, hours: int | None) -> None:
    """End every member's sign-in ``hours`` after it began (None: only the site's idle limit); commits. Applies from
    each member's next request, to sign-ins already made too."""
    course.session_hours = hours
    session.commit()
