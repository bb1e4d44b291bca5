"""The submission listing: a page of what the caller may read under the listing's filters, with the listing's total
(from the kept counts where they give it exactly, ``listing_totals``) and the cursors to go on from."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Select, select, union_all
from sqlalchemy.orm import Session, selectinload

from grader import sql_dialects
from grader.api import listing_totals
from grader.api.queries import staff_assignments, visible_condition
from grader.auth import Principal
from grader.models import Assignment, Submission


@dataclass(frozen=True)
class SubmissionFilters:
    """Optional filters of the submission listing."""

    course_id: int | None = None
    assignment_id: int | None = None
    student_id: int | None = None
    exercise_id: str | None = None
    status: str | None = None


@dataclass(frozen=True)
class PageRequest:
    """Which rows of the listing: ``limit`` of them after ``offset``, or after a cursor (at most one cursor)."""

    limit: int
    offset: int = 0
    before_id: int | None = None  # newest first, ids below it
    after_id: int | None = None  # oldest first, ids above it


@dataclass(frozen=True)
class SubmissionPage:
    """A page of the listing, the size of the whole listing, and the cursors to go on from."""

    rows: list[Submission]
    total: int
    next_before_id: int | None  # newest first: the last row's id when older rows follow
    next_after_id: int | None  # oldest first: the last row's id, or the after_id asked with when none came


# Beyond this many assignments a course's listing is not merged per assignment (SQLite allows 500 compound terms,
# and so long a statement would cost more to plan than the walk it saves).
MERGE_ASSIGNMENTS_MAX = 64


def list_submissions(
    session: Session, principal: Principal, filters: SubmissionFilters, page: PageRequest
) -> SubmissionPage:
    """A page of the submissions the caller may read (newest first, or oldest first after ``after_id``) and the
    count of all of them (``total`` ignores offset and cursors)."""
    conditions = [visible_condition(principal), *_filter_conditions(filters)]
    assignment_ids = _listed_assignments(session, filters)
    kept: dict[int, int] | None = None
    in_assignments: list[Any] = []
    if assignment_ids is not None:
        if assignment_ids and (filters.exercise_id is not None or filters.status is not None):
            # Only the assignments holding a match are searched: a branch over one without any would walk it whole.
            kept = listing_totals.kept_by_assignment(session, assignment_ids, filters.exercise_id, filters.status)
            assignment_ids = [assignment_id for assignment_id in assignment_ids if assignment_id in kept]
        if not assignment_ids:
            return SubmissionPage([], 0, None, page.after_id)
        # A literal list, not a subquery: the planner then reads only these entries of index (assignment_id, id).
        in_assignments.append(Submission.assignment_id.in_(assignment_ids))
    listed: set[int | None] = set(assignment_ids or ())
    sees_all = bool(listed) and staff_assignments(session, principal, listed) == listed
    if sees_all:
        # The caller may read every submission of these assignments: the visibility rule is then true of each row,
        # and leaving it out lets each assignment's rows come from index (assignment_id, id) alone.
        conditions = _filter_conditions(filters)
    total = _total(session, filters, assignment_ids, kept, [*conditions, *in_assignments], sees_all)
    newest_first = page.after_id is None
    if page.before_id is not None:
        conditions.append(Submission.id < page.before_id)
    elif page.after_id is not None:
        conditions.append(Submission.id > page.after_id)
    wanted = page.limit + 1  # one row more than the page tells whether more follow
    # A student's rows are few and come from index (user_id, exercise_id); merged per assignment they would be
    # looked for along every listed assignment's rows.
    merge = filters.student_id is None and assignment_ids is not None and len(assignment_ids) <= MERGE_ASSIGNMENTS_MAX
    if merge and assignment_ids is not None:
        dialect = sql_dialects.dialect_of(session)
        merged = _merged_by_assignment(assignment_ids, conditions, newest_first, page.offset + wanted, dialect)
        ids = merged.limit(wanted).offset(page.offset).subquery()
        query = select(Submission).join(ids, Submission.id == ids.c.id).order_by(_in_order(ids.c.id, newest_first))
    else:
        query = (
            select(Submission)
            .where(*conditions, *in_assignments)
            .order_by(_in_order(Submission.id, newest_first))
            .limit(wanted)
            .offset(page.offset)
        )
    # Each row names its student: loaded for the whole page in one statement, not one per row.
    rows = list(session.scalars(query.options(selectinload(Submission.user))).all())
    more = len(rows) > page.limit
    rows = rows[: page.limit]
    if not newest_first:
        return SubmissionPage(rows, total, None, rows[-1].id if rows else page.after_id)
    return SubmissionPage(rows, total, rows[-1].id if more else None, None)


def _total(
    session: Session,
    filters: SubmissionFilters,
    assignment_ids: list[int] | None,
    kept: dict[int, int] | None,
    conditions: list[Any],
    sees_all: bool,
) -> int:
    """How many submissions the listing holds in all: from the kept counts when they give it exactly (the caller
    ``sees_all`` of the listed assignments' submissions; ``kept`` if already read for these filters), else counted
    under ``conditions``."""
    if assignment_ids and sees_all and listing_totals.kept_total_applies(filters.student_id, filters.status):
        if kept is None:
            kept = listing_totals.kept_by_assignment(session, assignment_ids, filters.exercise_id, filters.status)
        return sum(kept.get(assignment_id, 0) for assignment_id in assignment_ids)
    return listing_totals.counted_total(session, conditions)


def _in_order(column: Any, newest_first: bool) -> Any:
    """``column`` descending for newest first, else ascending."""
    return column.desc() if newest_first else column.asc()


def _filter_conditions(filters: SubmissionFilters) -> list[Any]:
    """SQL conditions of the listing's filters other than course and assignment (see _listed_assignments)."""
    conditions = []
    if filters.student_id is not None:
        conditions.append(Submission.user_id == filters.student_id)
    if filters.exercise_id is not None:
        conditions.append(Submission.exercise_id == filters.exercise_id)
    if filters.status is not None:
        conditions.append(Submission.status == filters.status)
    return conditions


def _listed_assignments(session: Session, filters: SubmissionFilters) -> list[int] | None:
    """The assignment ids the course and assignment filters leave (None: neither filter was given)."""
    if filters.course_id is None:
        return None if filters.assignment_id is None else [filters.assignment_id]
    query = select(Assignment.id).where(Assignment.course_id == filters.course_id).order_by(Assignment.id)
    if filters.assignment_id is not None:
        query = query.where(Assignment.id == filters.assignment_id)
    return list(session.scalars(query))


def _merged_by_assignment(
    assignment_ids: list[int], conditions: list[Any], newest_first: bool, first: int, dialect: str
) -> Select[int]:
    """SQL: ids of the assignments' submissions under ``conditions``, merged from each one's first rows in order.

    With one ``ORDER BY id`` over a course PostgreSQL walks the primary key past every newer (or older) row of every
    other course; one assignment's rows come in id order from index (assignment_id, id), and the first ``first``
    rows of all the assignments are among the first ``first`` rows of each.
    """
    branches = []
    for assignment_id in assignment_ids:
        branch = (
            select(Submission.id)
            .where(_is_assignment(assignment_id, dialect), *conditions)
            .order_by(_in_order(Submission.assignment_id, newest_first), _in_order(Submission.id, newest_first))
            .limit(first)
        )
        branches.append(branch.subquery())
    merged = union_all(*(select(branch.c.id) for branch in branches)).subquery()
    return select(merged.c.id).order_by(_in_order(merged.c.id, newest_first))


def _is_assignment(assignment_id: int, dialect: str) -> Any:
    """SQL: the submission belongs to the assignment, said so that only index (assignment_id, id) gives its order."""
    return sql_dialects.equals_keeping_index_order(Submission.assignment_id, assignment_id, dialect)
