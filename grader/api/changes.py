"""The grade-change feed: the append-only grade log, oldest first after a cursor, held back until it has settled.

A grade-log id is taken when its row is inserted, but the row appears when its transaction commits: a regrade
batch writes up to 200 rows in one transaction, so a row with a lower id can appear after a higher one was listed,
and a client's ``after_id`` would step over it. So the feed lists an entry only once it is S seconds old
(``GRADER_CHANGE_FEED_SETTLE_SECONDS``, read by ``grader.config``; its ``created_at`` is stamped just before its INSERT), and stops at the
first entry it can see that is younger. If every transaction that writes grade-log rows commits within S seconds of
stamping them, then when an entry is listed every entry with a lower id has committed (its stamp came before the
listed one's INSERT) and is listed too, in this page or an earlier one. Those transactions are a grading's final
write (one statement, committed at once) and a regrade batch (about a second of engine time); a worker that holds
either past its lease (GRADER_LEASE_SECONDS) has it taken over by the sweeper and its late commit refused. Hence the
default S: the lease plus 30 s, which also covers clock skew between the web and worker hosts.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from itertools import takewhile
from typing import Any

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from grader.api import queries
from grader.api_errors import ApiError
from grader.auth import Principal
from grader.config import CHANGE_FEED_SETTLE
from grader.grading.access import Action
from grader.models import Assignment, Course, GradeLogEntry, Submission

SETTLE_SETTING = CHANGE_FEED_SETTLE  # read by grader.config.load_config


@dataclass(frozen=True)
class ChangeFilters:
    """Optional filters of the feed."""

    course_id: int | None = None
    assignment_id: int | None = None


@dataclass(frozen=True)
class Change:
    """One grade-log entry with the submission it changed; ``staff``: the caller acts as staff in its assignment."""

    entry: GradeLogEntry
    student_id: int
    assignment_id: int | None
    exercise_id: str
    staff: bool


@dataclass(frozen=True)
class ChangePage:
    """Settled entries in id order, the cursor to go on from, and whether more settled entries follow now."""

    changes: list[Change]
    next_after_id: int
    has_more: bool


def list_changes(
    session: Session, principal: Principal, filters: ChangeFilters, after_id: int, limit: int, settled_before: datetime
) -> ChangePage:
    """Grade-log entries above ``after_id`` of the submissions the caller may read (``queries.visible_condition``),
    oldest first, up to the first one stamped after ``settled_before``."""
    assignment_ids = _filtered_assignments(session, principal, filters)
    if assignment_ids is not None and not assignment_ids:
        return ChangePage([], after_id, False)
    conditions = [GradeLogEntry.id > after_id, _visible(session, principal)]
    if assignment_ids is not None:
        conditions.append(Submission.assignment_id.in_(assignment_ids))
    # PostgreSQL reads a teacher's (or a filter's) submissions from index (assignment_id, id), a student's from
    # (user_id, exercise_id), and joins them to the entries above the cursor (a short primary-key range for a client
    # that keeps up); an admin's read walks grade_log's primary key. No other course's submissions are read.
    fetched = session.execute(
        select(GradeLogEntry, Submission.user_id, Submission.assignment_id, Submission.exercise_id)
        .join(Submission, Submission.id == GradeLogEntry.submission_id)
        .where(*conditions)
        .order_by(GradeLogEntry.id)
        .limit(limit + 1)
    ).all()
    settled = list(takewhile(lambda row: row[0].created_at <= settled_before, fetched))
    page = settled[:limit]
    staff = queries.staff_assignments(session, principal, {row.assignment_id for row in page})
    changes = [
        Change(entry, user_id, assignment_id, exercise_id, assignment_id in staff)
        for entry, user_id, assignment_id, exercise_id in page
    ]
    return ChangePage(changes, changes[-1].entry.id if changes else after_id, len(settled) > limit)


def _visible(session: Session, principal: Principal) -> Any:
    """SQL condition: ``queries.visible_condition``, with the assignments a teacher teaches read first as a list.

    Under the subquery PostgreSQL scanned every submission of every course to find a teacher's; with the ids it
    reads only theirs, from index (assignment_id, id).
    """
    if principal.is_admin or not principal.is_staff:
        return queries.visible_condition(principal)
    taught = list(
        session.scalars(select(Assignment.id).where(Assignment.course_id.in_(queries.taught_course_ids(principal))))
    )
    return or_(Submission.user_id == principal.user_id, Submission.assignment_id.in_(taught))


def _filtered_assignments(session: Session, principal: Principal, filters: ChangeFilters) -> list[int] | None:
    """The assignment ids the course and assignment filters leave (None: neither given); 404 naming the filter for
    a course or assignment the caller is not a member of (admins: one that does not exist)."""
    if filters.course_id is None and filters.assignment_id is None:
        return None
    if filters.course_id is not None:
        course = session.get(Course, filters.course_id)
        _member_of(session, principal, course.id if course else None, "course", filters.course_id)
    query = select(Assignment.id).order_by(Assignment.id)
    if filters.assignment_id is not None:
        assignment = session.get(Assignment, filters.assignment_id)
        _member_of(
            session, principal, assignment.course_id if assignment else None, "assignment", filters.assignment_id
        )
        query = query.where(Assignment.id == filters.assignment_id)
    if filters.course_id is not None:
        query = query.where(Assignment.course_id == filters.course_id)
    return list(session.scalars(query))


def _member_of(session: Session, principal: Principal, course_id: int | None, name: str, wanted: int) -> None:
    """404 naming the query parameter unless the course exists (``course_id``) and the caller is a member of it (or
    an admin)."""
    if course_id is None or not queries.teaches(session, principal, course_id, Action.VIEW_COURSE):
        raise ApiError(404, "not_found", f"No {name} {wanted}.", field=name)
