"""One assignment's grades as data: every enrolled student's counted score, marks and total. The machine-readable
CSV, the readable CSV and the .xlsx gradebook all write this one table, so they cannot disagree."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from grader.grading.overrides import overrides_of
from grader.grading.points import Total, points_of, total_of
from grader.grading.terms import StudentTerms, terms_of_students
from grader.models import Assignment, Enrolment, EnrolmentRole, ProgressRow, User
from grader.models.overrides import TOTAL

UNMARKED = (None, False, False)  # never attempted: no score, not late, not overridden


@dataclass(frozen=True)
class Cell:
    """One student's counted score on one exercise: a fraction (None: not attempted, kept apart from 0)."""

    exercise_id: str
    score: float | None
    points: float  # what the exercise is worth
    late: bool
    overridden: bool

    @property
    def earned(self) -> float | None:
        """The points earned; None if not attempted."""
        return None if self.score is None else self.score * self.points


@dataclass(frozen=True)
class StudentGrades:
    """A row of the gradebook."""

    user_id: int
    username: str
    display_name: str
    cells: list[Cell]
    total: Total
    total_overridden: bool
    terms: StudentTerms

    @property
    def attempted(self) -> bool:
        """Any counted score or an override of the total."""
        return self.total_overridden or any(cell.score is not None for cell in self.cells)


def _counted_cells(
    session: Session, assignment: Assignment, user_ids: Collection[int] | None
) -> dict[tuple[int, str], tuple[float | None, bool, bool]]:
    """The counted scores of ``user_ids`` (None: the whole course's) by (user id, exercise id), with whether each was
    late and overridden, from the assignment's progress rows: kept with the gradebook's own counting
    (grader.grading.progress; late penalties and overrides included), one indexed read. Rows of others (a teacher's
    tries, former students) may be among them."""
    query = select(
        ProgressRow.user_id, ProgressRow.exercise_id, ProgressRow.score, ProgressRow.late, ProgressRow.overridden
    ).where(ProgressRow.assignment_id == assignment.id)
    if user_ids is not None:
        query = query.where(ProgressRow.user_id.in_(list(user_ids)))
    # Plain tuples: a MOOC course's file holds tens of thousands of them.
    return {
        (user_id, exercise_id): (score, late, overridden)
        for user_id, exercise_id, score, late, overridden in session.execute(query)
    }


def grade_table(
    session: Session, assignment: Assignment, user_ids: Collection[int] | None = None
) -> list[StudentGrades]:
    """Every enrolled student of the assignment's course (or those of ``user_ids``: a page of the course
    gradebook), by username, with the gradebook's own counting (grader.grading.policy, late penalties and overrides
    included, as the progress rows keep them), so the files, the API and the pages agree."""
    statement = (
        select(User.id, User.username, User.display_name)
        .join(Enrolment, Enrolment.user_id == User.id)
        .where(Enrolment.course_id == assignment.course_id, Enrolment.role == EnrolmentRole.STUDENT)
        .order_by(User.username)
    )
    if user_ids is not None:
        statement = statement.where(User.id.in_(list(user_ids)))
    students = session.execute(statement).all()
    listed = [user_id for user_id, _, _ in students]
    own_terms = terms_of_students(session, assignment, listed)
    # The whole course: the assignment's rows are read whole rather than naming thousands of students.
    named = None if user_ids is None else listed
    results = _counted_cells(session, assignment, named)
    totals = {key: row for key, row in overrides_of(session, assignment, named).items() if key[1] == TOTAL}
    worth = points_of(assignment)
    table = []
    for user_id, username, display_name in students:
        cells = [
            Cell(exercise_id, score, worth[exercise_id], late, overridden)
            for exercise_id in assignment.exercise_ids
            for score, late, overridden in (results.get((user_id, exercise_id), UNMARKED),)
        ]
        total_override = totals.get((user_id, TOTAL))
        total = total_of(
            worth,
            [(cell.exercise_id, cell.score) for cell in cells],
            None if total_override is None else total_override.score,
        )
        table.append(
            StudentGrades(user_id, username, display_name, cells, total, total_override is not None, own_terms[user_id])
        )
    return table
