"""The dashboards' figures from the progress rows (``grader.models.ProgressRow``): what counts for each student as
the gradebook counts it (late penalties and overrides applied), so a page costs what it shows, not what the course
holds. Only the course's enrolled students count; their tables are paged and searchable.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Select, and_, case, false, func, or_, select
from sqlalchemy.orm import Session

from grader.models import (
    FIGURE_COLUMNS,
    Assignment,
    AssignmentScoreStats,
    Enrolment,
    EnrolmentRole,
    ExerciseScoreStats,
    ProgressRow,
    User,
)
from grader.percent import FULL_MARKS
from grader.score_bins import BIN_COUNT as BIN_COUNT  # read here by the pages' callers and tests
from grader.teacher.paging import Paging, page_of, students_matching


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


def _summaries(session: Session, keys: Sequence[str | int], key: Any, table: Any, *where: Any) -> list[ScoreSummary]:
    """ScoreSummary per key (in ``keys`` order; keys nobody has a score on get zeros), from the kept rows of
    ``table`` (ExerciseScoreStats or AssignmentScoreStats, a few per key) matching ``where``."""
    sums = [func.sum(getattr(table, name)) for name in FIGURE_COLUMNS]
    found = {row[0]: row[1:] for row in session.execute(select(key, *sums).where(*where).group_by(key))}
    summaries = []
    for wanted in keys:
        attempted, score_sum, pairs, firsts, *bins = (n or 0 for n in found.get(wanted, (0,) * len(sums)))
        summaries.append(
            ScoreSummary(
                key=wanted,
                attempted=int(attempted),
                mean_score=float(score_sum) / attempted if attempted else None,
                first_try_share=float(firsts) / pairs if pairs else None,
                histogram=tuple(int(n) for n in bins),
            )
        )
    return summaries


def exercise_stats(session: Session, assignment: Assignment) -> list[ScoreSummary]:
    """Per exercise of ``assignment``: students with a counted score, its mean, first-try share, histogram.

    Read from the kept statistics (``ExerciseScoreStats``, a few rows per exercise), not from the students'
    progress rows."""
    table = ExerciseScoreStats
    where = table.assignment_id == assignment.id
    return _summaries(session, assignment.exercise_ids, table.exercise_id, table, where)


def assignment_stats(session: Session, course_id: int, assignments: Sequence[Assignment]) -> list[ScoreSummary]:
    """Per assignment: students with a counted score, the mean assignment score (missing exercises count 0), the
    first-try share over their attempted exercises.

    Read from the kept statistics (``AssignmentScoreStats``, a few rows per assignment), not from one row per
    student. ``course_id`` is the assignments' course (the kept rows count its students)."""
    if not assignments:
        return []
    table = AssignmentScoreStats
    where = table.assignment_id.in_([a.id for a in assignments if a.exercise_ids])
    return _summaries(session, [a.id for a in assignments], table.assignment_id, table, where)


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
