"""A course's settings that its teachers change after creating it: the time zone, and archiving."""

from __future__ import annotations

from sqlalchemy.orm import Session

from grader.models import Course, utcnow


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
