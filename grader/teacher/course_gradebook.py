"""The course gradebook page's data: every student × assignment in points and percent, with the extension, late
and override marks, searchable, sortable and paged. Each assignment's numbers are its ``grade_table`` (the one
table the exports and the API gradebook write), so the page cannot disagree with the files."""

from __future__ import annotations

import math
from dataclasses import dataclass

from sqlalchemy import Select, func, select
from sqlalchemy.orm import Session

from grader.grading.points import Total, points_of
from grader.models import Assignment, Course, Enrolment, EnrolmentRole, User
from grader.teacher.grade_table import StudentGrades, grade_table

PAGE_SIZE = 50
MAX_QUERY = 100
NAME_SORT, TOTAL_SORT = "name", "total"
ASSIGNMENT_SORT = "a"  # + an assignment id: by that assignment's total


@dataclass(frozen=True)
class GradebookCell:
    """One student's total on one assignment, with the marks that apply to any of its exercises."""

    total: Total
    attempted: bool
    late: bool
    overridden: bool
    extended: bool


@dataclass(frozen=True)
class GradebookRow:
    """One student across the course: a cell per assignment and the course total."""

    user_id: int
    username: str
    display_name: str
    cells: list[GradebookCell]
    total: Total


@dataclass(frozen=True)
class GradebookPage:
    """One page of the gradebook, with what produced it (search, sort, page) for the links to the others."""

    assignments: list[Assignment]
    max_points: list[float]  # per assignment, in the same order
    rows: list[GradebookRow]
    query: str
    sort: str
    descending: bool
    page: int
    pages: int
    found: int  # students matching the search

    @property
    def course_max(self) -> float:
        """The points of the whole course."""
        return sum(self.max_points)


def _cell(row: StudentGrades | None, max_points: float) -> GradebookCell:
    """The cell of a student's row of one assignment's table (none: nothing to count, 0 of the maximum)."""
    if row is None:
        return GradebookCell(Total(0.0, max_points), False, False, False, False)
    return GradebookCell(
        row.total,
        row.attempted,
        any(cell.late for cell in row.cells),
        row.total_overridden or any(cell.overridden for cell in row.cells),
        row.terms.extended,
    )


def _students(course: Course, query: str) -> Select[int]:
    """SQL: the ids of the course's students whose username or name contains ``query``, by username."""
    statement = (
        select(User.id)
        .join(Enrolment, Enrolment.user_id == User.id)
        .where(Enrolment.course_id == course.id, Enrolment.role == EnrolmentRole.STUDENT)
        .order_by(User.username)
    )
    if query:
        statement = statement.where(User.name_contains(query))
    return statement


def _rows(session: Session, assignments: list[Assignment], user_ids: list[int]) -> list[GradebookRow]:
    """The gradebook rows of ``user_ids`` (by username), each assignment counted by its grade table."""
    tables = {a.id: {row.user_id: row for row in grade_table(session, a, user_ids)} for a in assignments}
    people = session.execute(
        select(User.id, User.username, User.display_name).where(User.id.in_(user_ids)).order_by(User.username)
    ).all()
    possible = {a.id: sum(points_of(a).values()) for a in assignments}
    rows = []
    for user_id, username, display_name in people:
        cells = [_cell(tables[a.id].get(user_id), possible[a.id]) for a in assignments]
        total = Total(sum(c.total.points for c in cells), sum(possible.values()))
        rows.append(GradebookRow(user_id, username, display_name, cells, total))
    return rows


def _sort_key(sort: str, assignments: list[Assignment]) -> int | None:
    """The column a score sort reads: the index of the assignment, -1 for the course total; None for by name."""
    if sort == TOTAL_SORT:
        return -1
    ids = [f"{ASSIGNMENT_SORT}{a.id}" for a in assignments]
    return ids.index(sort) if sort in ids else None


def course_gradebook(
    session: Session, course: Course, query: str = "", sort: str = NAME_SORT, descending: bool = False, page: int = 1
) -> GradebookPage:
    """One page of ``course``'s gradebook: its students matching ``query`` (username or name), sorted by name or by
    an assignment's or the course's percent (``sort``: "name", "total" or "a<assignment id>"; anything else is by
    name), PAGE_SIZE to a page (a page past the last shows the last)."""
    query = query.strip()[:MAX_QUERY]
    assignments = list(
        session.scalars(select(Assignment).where(Assignment.course_id == course.id).order_by(Assignment.id))
    )
    possible = [sum(points_of(a).values()) for a in assignments]
    column = _sort_key(sort, assignments)
    sort = NAME_SORT if column is None else sort
    matching = _students(course, query)
    found = session.scalar(select(func.count()).select_from(matching.order_by(None).subquery())) or 0
    pages = max(1, math.ceil(found / PAGE_SIZE))
    page = min(max(page, 1), pages)
    if column is None:
        # By name: only this page's students are counted (a large course is not read whole for one page).
        order = User.username.desc() if descending else User.username
        paged = matching.order_by(None).order_by(order).offset((page - 1) * PAGE_SIZE).limit(PAGE_SIZE)
        ids = list(session.scalars(paged))
        rows = _rows(session, assignments, ids)
        rows.sort(key=lambda row: row.username, reverse=descending)
        return GradebookPage(assignments, possible, rows, query, sort, descending, page, pages, found)
    rows = _rows(session, assignments, list(session.scalars(matching)))
    rows.sort(key=lambda row: _score(row, column), reverse=descending)
    start = (page - 1) * PAGE_SIZE
    shown = rows[start : start + PAGE_SIZE]
    return GradebookPage(assignments, possible, shown, query, sort, descending, page, pages, found)


def _score(row: GradebookRow, column: int) -> tuple[float, str]:
    """A row's sort key for a score column: the percent (nothing possible sorts as 0), then the username."""
    total = row.total if column < 0 else row.cells[column].total
    return (total.fraction or 0.0, row.username)
