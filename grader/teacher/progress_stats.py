"""The dashboards' figures from the progress rows (``grader.models.ProgressRow``): what counts for each student as
the gradebook counts it (late penalties and overrides applied), so a page costs what it shows, not what the course
holds. Only the course's enrolled students count; their tables are paged and searchable.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Float, Select, and_, case, cast, false, func, or_, select
from sqlalchemy.orm import Session

from grader.models import Assignment, AssignmentProgress, Enrolment, EnrolmentRole, ProgressRow, User
from grader.percent import FULL_MARKS
from grader.teacher.paging import Paging, page_of, students_matching

BIN_EDGES = (0.2, 0.4, 0.6, 0.8)  # histogram bins: 0–19 %, 20–39 %, 40–59 %, 60–79 %, 80–99 %, 100 %
BIN_COUNT = len(BIN_EDGES) + 2


@dataclass(frozen=True)
class ScoreSummary:
    """Counted scores of one exercise (or one assignment) over the students who have one."""

    key: str | int  # exercise id, or assignment id
    attempted: int
    mean_score: float | None
    first_try_share: float | None  # share of attempts whose first graded try was fully correct
    histogram: tuple[int, ...]  # students per score bin (see BIN_EDGES)


@dataclass(frozen=True)
class StudentProgress:
    """One enrolled student's standing over a set of assignments."""

    user_id: int
    username: str
    display_name: str
    attempted: int  # exercises with a counted score
    full_marks: int
    total: int  # exercises set
    score: float  # sum of counted scores / exercises set
    last_activity: datetime | None  # the latest graded attempt


@dataclass(frozen=True)
class StudentTable:
    """One page of a student table and where it is among the pages."""

    rows: tuple[StudentProgress, ...]
    paging: Paging


def _students(course_id: int) -> Select[int]:
    """SELECT of the user ids enrolled as students in the course."""
    return select(Enrolment.user_id).where(Enrolment.course_id == course_id, Enrolment.role == EnrolmentRole.STUDENT)


def _rows_of(assignments: Sequence[Assignment], course_id: int) -> ColumnElement[bool]:
    """SQL condition: a progress row of an enrolled student on an exercise one of ``assignments`` still sets."""
    sets = [
        and_(ProgressRow.assignment_id == a.id, ProgressRow.exercise_id.in_(a.exercise_ids))
        for a in assignments
        if a.exercise_ids
    ]
    return and_(or_(*sets) if sets else false(), ProgressRow.user_id.in_(_students(course_id)))


def score_bin(score: ColumnElement[Any]) -> ColumnElement[int]:
    """SQL: the histogram bin (0..BIN_COUNT-1) of a score; full marks get a bin of their own.

    The other edges compare the whole percentage the pages show (``percent.shown_percent``), not the raw value: a
    mean such as (1.0 + 0.2) / 3 is 0.39999999999999997 in floating point, shown as 40 %, and must count in 40–59 %.
    """
    shown = func.round(score * 100)
    whens = [(score >= FULL_MARKS, BIN_COUNT - 1)]
    whens += [(shown >= round(edge * 100), index + 1) for index, edge in reversed(list(enumerate(BIN_EDGES)))]
    return case(*whens, else_=0)


def _summaries(
    session: Session, keys: Sequence[str | int], key: Any, score: Any, first_share: ColumnElement[Any], source: Any
) -> list[ScoreSummary]:
    """ScoreSummary per key (in ``keys`` order; keys nobody has a score on get zeros) from one GROUP BY ``key``."""
    bins = source.c.bin if "bin" in source.c else score_bin(score)
    per_bin = [func.sum(case((bins == index, 1), else_=0)) for index in range(BIN_COUNT)]
    query = select(key, func.count(), func.avg(score), first_share, *per_bin).select_from(source).group_by(key)
    found = {row[0]: row for row in session.execute(query)}
    summaries = []
    for wanted in keys:
        row = found.get(wanted)
        summaries.append(
            ScoreSummary(
                key=wanted,
                attempted=int(row[1]) if row else 0,
                mean_score=float(row[2]) if row and row[2] is not None else None,
                first_try_share=float(row[3]) if row and row[3] is not None else None,
                histogram=tuple(int(n or 0) for n in row[4:]) if row else (0,) * BIN_COUNT,
            )
        )
    return summaries


def _first_correct(first_score: Any) -> ColumnElement[Any]:
    """SQL: 1 if the first graded try was fully correct, 0 if not, NULL without one (an override alone)."""
    return case((first_score.is_(None), None), (first_score >= FULL_MARKS, 1.0), else_=0.0)


def exercise_stats(session: Session, assignment: Assignment) -> list[ScoreSummary]:
    """Per exercise of ``assignment``: students with a counted score, its mean, first-try share, histogram."""
    rows = (
        select(ProgressRow.exercise_id, ProgressRow.score, ProgressRow.first_score)
        .where(_rows_of([assignment], assignment.course_id), ProgressRow.score.is_not(None))
        .subquery("rows")
    )
    first = func.avg(_first_correct(rows.c.first_score))
    return _summaries(session, assignment.exercise_ids, rows.c.exercise_id, rows.c.score, first, rows)


def assignment_stats(session: Session, course_id: int, assignments: Sequence[Assignment]) -> list[ScoreSummary]:
    """Per assignment: students with a counted score, the mean assignment score (missing exercises count 0), the
    first-try share over their attempted exercises.

    Read from the students' kept sums (``AssignmentProgress``, one row per student and assignment), not by grouping
    their progress rows: a course's page reads as many rows as it has students with a score."""
    if not assignments:
        return []
    exercises_set = case({a.id: len(a.exercise_ids) or 1 for a in assignments}, value=AssignmentProgress.assignment_id)
    score = AssignmentProgress.points / cast(exercises_set, Float)
    per_student = (
        select(
            AssignmentProgress.assignment_id,
            score.label("score"),
            score_bin(score).label("bin"),
            AssignmentProgress.pairs,
            AssignmentProgress.firsts,
        )
        .where(
            AssignmentProgress.assignment_id.in_([a.id for a in assignments if a.exercise_ids]),
            AssignmentProgress.user_id.in_(_students(course_id)),
        )
        # Each row's bin once: PostgreSQL would otherwise fold the subquery in and work the bin out again in each of
        # the histogram's sums, the greater part of this statement's time.
        .cte("per_student")
        .prefix_with("MATERIALIZED")
    )
    share = func.sum(per_student.c.firsts) / cast(func.nullif(func.sum(per_student.c.pairs), 0), Float)
    keys = [a.id for a in assignments]
    return _summaries(session, keys, per_student.c.assignment_id, per_student.c.score, share, per_student)


def student_table(
    session: Session, course_id: int, assignments: Sequence[Assignment], page: int = 1, search: str = ""
) -> StudentTable:
    """One page (``paging.PER_PAGE``, by name) of the enrolled students matching ``search``, with their exercises
    attempted, full marks, score and last activity over ``assignments``; a page past the last shows the last."""
    shown, paging = page_of(
        session, students_matching(course_id, search), page, search, User.display_name, User.username, User.id
    )
    ids = [user_id for user_id, _, _ in shown]
    figures = (
        {
            user_id: (attempted, points, full, last_at)
            for user_id, attempted, points, full, last_at in session.execute(
                select(
                    ProgressRow.user_id,
                    func.count(ProgressRow.score),
                    func.sum(ProgressRow.score),
                    func.sum(case((ProgressRow.score >= FULL_MARKS, 1), else_=0)),
                    func.max(ProgressRow.last_activity),
                )
                .where(_rows_of(assignments, course_id), ProgressRow.user_id.in_(ids))
                .group_by(ProgressRow.user_id)
            )
        }
        if ids
        else {}
    )
    exercises = sum(len(a.exercise_ids) for a in assignments)
    rows = []
    for user_id, username, display_name in shown:
        attempted, points, full, last_at = figures.get(user_id, (0, 0.0, 0, None))
        score = float(points or 0.0) / exercises if exercises else 0.0
        rows.append(
            StudentProgress(user_id, username, display_name, int(attempted), int(full or 0), exercises, score, last_at)
        )
    return StudentTable(tuple(rows), paging)
