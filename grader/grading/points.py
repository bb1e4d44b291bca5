"""Points: what each exercise of an assignment is worth (1 unless the teacher says otherwise), and the totals in
points and percent that the pages, the API gradebook and the exports all show."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from grader.models import Assignment

DEFAULT_POINTS = 1.0
MAX_POINTS = 1000.0


def points_of(assignment: Assignment) -> dict[str, float]:
    """Every exercise of the assignment with its points, in assignment order."""
    stored = assignment.exercise_points or {}
    return {exercise_id: float(stored.get(exercise_id, DEFAULT_POINTS)) for exercise_id in assignment.exercise_ids}


@dataclass(frozen=True)
class Total:
    """An assignment total: points earned, points possible, and the fraction (None without exercises)."""

    points: float
    max_points: float

    @property
    def fraction(self) -> float | None:
        """Points earned over points possible."""
        return self.points / self.max_points if self.max_points else None


def total_of(
    points: Mapping[str, float], scores: Sequence[tuple[str, float | None]], override: float | None = None
) -> Total:
    """The total of counted ``scores`` (fractions per exercise id; None: not attempted, 0 points) worth ``points``;
    a teacher's ``override`` of the total (a fraction) replaces what they add up to."""
    possible = sum(points.values())
    if override is not None:
        return Total(override * possible, possible)
    return Total(
        sum((score or 0.0) * points.get(exercise_id, DEFAULT_POINTS) for exercise_id, score in scores), possible
    )
