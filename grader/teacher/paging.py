"""Pages of a course's students, found by name or username: the dashboards' student tables and the roster show one
page (``PER_PAGE``) at a time, so a page of a MOOC-sized course stays as small as one of a seminar's."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from sqlalchemy import Select, func, select
from sqlalchemy.orm import Session

from grader.models import Enrolment, EnrolmentRole, User

PER_PAGE = 50
SEARCH_MAX = 100


@dataclass(frozen=True)
class Paging:
    """Where a page is: the search it answers, its number, how many pages and matching rows, rows on it."""

    search: str
    page: int
    pages: int
    total: int
    shown: int

    @property
    def first(self) -> int:
        """The position of the page's first row (1-based; 0 when empty)."""
        return (self.page - 1) * PER_PAGE + 1 if self.shown else 0

    @property
    def last(self) -> int:
        """The position of the page's last row (0 when empty)."""
        return self.first + self.shown - 1 if self.shown else 0


def clean_search(text: str | None) -> str:
    """A search as typed, trimmed and cut to ``SEARCH_MAX`` characters."""
    return (text or "").strip()[:SEARCH_MAX]


def students_matching(course_id: int, search: str) -> Select[int, str, str]:
    """The course's enrolled students (id, username, display name) whose username or name contains ``search`` in
    any case; LIKE's wildcards in ``search`` are literal characters."""
    query = (
        select(User.id, User.username, User.display_name)
        .join(Enrolment, Enrolment.user_id == User.id)
        .where(Enrolment.course_id == course_id, Enrolment.role == EnrolmentRole.STUDENT)
    )
    if search:
        query = query.where(User.name_contains(search))
    return query


class StudentRow(NamedTuple):
    """One student of a page: id, username, display name."""

    id: int
    username: str
    display_name: str


def page_of(
    session: Session, query: Select[int, str, str], page: int, search: str, *order: Any
) -> tuple[list[StudentRow], Paging]:
    """The rows of page ``page`` of ``query`` in ``order`` (a page past the last is the last, below 1 the first),
    and where that page is."""
    if search:
        return _searched_page(session, query, max(page, 1), search, order)
    # Unsearched, the page comes in index order (no sort of the whole course) and the count is a plain count.
    total = _count(session, query)
    pages = max(1, math.ceil(total / PER_PAGE))
    page = min(max(page, 1), pages)
    rows = session.execute(query.order_by(*order).limit(PER_PAGE).offset((page - 1) * PER_PAGE)).all()
    shown = [StudentRow(user_id, username, display_name) for user_id, username, display_name in rows]
    return shown, Paging(search, page, pages, total, len(shown))


def _searched_page(
    session: Session, query: Select[int, str, str], page: int, search: str, order: Sequence[Any]
) -> tuple[list[StudentRow], Paging]:
    """``page_of`` for a search: the page's rows carry the count of every match (a window count), so the search
    runs once, not once to count and again for the page (a name search reads every student of the course either
    way); only a page with no rows (past the last, or nothing matches) counts apart."""
    counted = query.add_columns(func.count().over().label("matching")).order_by(*order).limit(PER_PAGE)
    rows = session.execute(counted.offset((page - 1) * PER_PAGE)).all()
    if rows:
        total = rows[0].matching
    else:
        total = _count(session, query)
        if total and page > 1:
            page = math.ceil(total / PER_PAGE)
            rows = session.execute(counted.offset((page - 1) * PER_PAGE)).all()
    shown = [StudentRow(user_id, username, display_name) for user_id, username, display_name, _ in rows]
    return shown, Paging(search, page, max(1, math.ceil(total / PER_PAGE)), total, len(shown))


def _count(session: Session, query: Select[int, str, str]) -> int:
    """How many rows ``query`` gives."""
    return session.scalar(select(func.count()).select_from(query.subquery())) or 0


def students_page(session: Session, course_id: int, page: int, search: str) -> tuple[list[StudentRow], Paging]:
    """One page of the course's students matching ``search``, by username, and where it is (the roster)."""
    return page_of(session, students_matching(course_id, search), page, search, User.username, User.id)
