"""The kept score statistics (``grader.models.ExerciseScoreStats``, ``AssignmentScoreStats``, kept by triggers)
computed afresh from the progress rows and the students' assignment sums, by the dashboards' own rule: what
``grader check-progress`` compares the kept rows with, and what its ``--repair`` writes in their place."""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, fields
from typing import Any

from sqlalchemy import Float, Select, case, cast, delete, func, insert, literal, select
from sqlalchemy.orm import Session

from grader.grading.progress_sums import field_differences
from grader.models import (
    SHARDS,
    Assignment,
    AssignmentProgress,
    AssignmentScoreStats,
    Enrolment,
    EnrolmentRole,
    ExerciseScoreStats,
    ProgressRow,
)
from grader.percent import FULL_MARKS
from grader.score_bins import BIN_COUNT, score_bin


@dataclass(frozen=True)
class Figures:
    """One kept row's figures (its key aside)."""

    attempted: int = 0
    score_sum: float = 0.0
    pairs: int = 0
    firsts: int = 0
    bin_0: int = 0
    bin_1: int = 0
    bin_2: int = 0
    bin_3: int = 0
    bin_4: int = 0
    bin_5: int = 0
    exercises: int = 0  # the assignment rows' exercises set (0 on an exercise's rows)


FIGURES = tuple(field.name for field in fields(Figures) if field.name != "exercises")
Key = tuple[str, int]  # (exercise id, or "" for the assignment's own rows; shard)


def _students(assignment: Assignment) -> Select[int]:
    """SELECT of the user ids enrolled as students in the assignment's course."""
    return select(Enrolment.user_id).where(
        Enrolment.course_id == assignment.course_id, Enrolment.role == EnrolmentRole.STUDENT
    )


def _sums(score: Any, has_first: Any, first_right: Any) -> list[Any]:
    """SQL aggregates, in ``FIGURES`` order, over rows with ``score`` (``has_first``, ``first_right``: what a row
    adds to the first-try denominator and numerator)."""
    bins = score_bin(score)
    return [
        func.count(),
        func.sum(score),
        func.sum(has_first),
        func.sum(first_right),
        *(func.sum(case((bins == index, 1), else_=0)) for index in range(BIN_COUNT)),
    ]


def expected(session: Session, assignment: Assignment) -> dict[Key, Figures]:
    """The rows the assignment should have: per exercise set and shard, and (with exercises set) per shard."""
    exercises = sorted(set(assignment.exercise_ids))
    shard = ProgressRow.user_id % SHARDS
    first = ProgressRow.first_score
    per_exercise = (
        select(
            ProgressRow.exercise_id,
            shard,
            *_sums(
                ProgressRow.score,
                case((first.is_not(None), 1), else_=0),
                case((first >= FULL_MARKS, 1), else_=0),
            ),
        )
        .where(
            ProgressRow.assignment_id == assignment.id,
            ProgressRow.exercise_id.in_(exercises),
            ProgressRow.score.is_not(None),
            ProgressRow.user_id.in_(_students(assignment)),
        )
        .group_by(ProgressRow.exercise_id, shard)
    )
    rows = {(exercise, part): Figures() for exercise in exercises for part in range(SHARDS)}
    for exercise_id, part, *numbers in session.execute(per_exercise):
        rows[(exercise_id, part)] = _figures(numbers, 0)
    count = len(assignment.exercise_ids)
    if not count:
        return rows
    score = AssignmentProgress.points / cast(literal(count), Float)
    sums_shard = AssignmentProgress.user_id % SHARDS
    per_student = (
        select(sums_shard, *_sums(score, AssignmentProgress.pairs, AssignmentProgress.firsts))
        .where(
            AssignmentProgress.assignment_id == assignment.id,
            AssignmentProgress.user_id.in_(_students(assignment)),
        )
        .group_by(sums_shard)
    )
    rows |= {("", part): Figures(exercises=count) for part in range(SHARDS)}
    for part, *numbers in session.execute(per_student):
        rows[("", part)] = _figures(numbers, count)
    return rows


def _figures(numbers: list[Any], exercises: int) -> Figures:
    """Figures from a row of ``_sums`` (NULL sums are 0)."""
    attempted, score_sum, pairs, firsts, *bins = (number or 0 for number in numbers)
    counts = dict(zip(FIGURES[4:], (int(n) for n in bins), strict=True))
    return Figures(int(attempted), float(score_sum), int(pairs), int(firsts), **counts, exercises=exercises)


def kept(session: Session, assignment: Assignment) -> dict[Key, Figures]:
    """The assignment's kept rows as they are."""
    rows = {
        (row.exercise_id, row.shard): Figures(**{name: getattr(row, name) for name in FIGURES})
        for row in session.scalars(select(ExerciseScoreStats).where(ExerciseScoreStats.assignment_id == assignment.id))
    }
    for row in session.scalars(select(AssignmentScoreStats).where(AssignmentScoreStats.assignment_id == assignment.id)):
        values = {name: getattr(row, name) for name in FIGURES}
        rows[("", row.shard)] = Figures(**values, exercises=row.exercises)
    return rows


def _same(stored: Any, recomputed: Any) -> bool:
    """Counts exactly; a sum kept by adding differences to the last few bits."""
    if isinstance(stored, float) or isinstance(recomputed, float):
        return math.isclose(stored, recomputed, rel_tol=1e-9, abs_tol=1e-9)
    return bool(stored == recomputed)


def stat_differences(session: Session, assignment: Assignment) -> Iterator[str]:
    """Each way the assignment's kept score statistics differ from their recomputation, as a line of text."""
    yield from field_differences(
        lambda key: (
            f"assignment {assignment.id} score stats {'exercise ' + key[0] if key[0] else 'whole'} shard {key[1]}"
        ),
        expected(session, assignment),
        kept(session, assignment),
        (*FIGURES, "exercises"),
        _same,
    )


def restat(session: Session, assignment: Assignment) -> None:
    """Replace the assignment's kept score statistics by their recomputation, in ``session``'s transaction."""
    rows = expected(session, assignment)
    session.execute(delete(ExerciseScoreStats).where(ExerciseScoreStats.assignment_id == assignment.id))
    session.execute(delete(AssignmentScoreStats).where(AssignmentScoreStats.assignment_id == assignment.id))
    exercise_rows = [
        {"assignment_id": assignment.id, "exercise_id": exercise, "shard": part, **_values(figures)}
        for (exercise, part), figures in rows.items()
        if exercise
    ]
    assignment_rows = [
        {"assignment_id": assignment.id, "shard": part, "exercises": figures.exercises, **_values(figures)}
        for (exercise, part), figures in rows.items()
        if not exercise
    ]
    if exercise_rows:
        session.execute(insert(ExerciseScoreStats), exercise_rows)
    if assignment_rows:
        session.execute(insert(AssignmentScoreStats), assignment_rows)


def _values(figures: Figures) -> dict[str, Any]:
    """The kept columns of ``figures``."""
    return {name: getattr(figures, name) for name in FIGURES}
