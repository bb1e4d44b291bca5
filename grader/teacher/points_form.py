"""The points fields of the assignment form: one per exercise (``points.<exercise id>``), 1 when left empty."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from grader.grading.points import DEFAULT_POINTS, MAX_POINTS

POINTS = re.compile(r"^\d{1,4}(?:\.\d{1,2})?$")  # no NaN, inf, exponents or signs
FIELD_PREFIX = "points."


def points_value(text: str) -> float | None:
    """Points as typed ("2", "0.5"; empty: the default); None unless above 0 and at most MAX_POINTS."""
    if not text:
        return DEFAULT_POINTS
    if not POINTS.match(text):
        return None
    value = float(text)
    return value if 0 < value <= MAX_POINTS else None


def check_points(typed: Mapping[str, str], chosen: Sequence[str], errors: dict[str, str]) -> dict[str, float]:
    """The points of each chosen exercise from the typed texts; each bad one gets an error under its field."""
    points: dict[str, float] = {}
    for exercise_id in chosen:
        value = points_value(typed.get(exercise_id, ""))
        if value is None:
            errors[FIELD_PREFIX + exercise_id] = "points.err"
        else:
            points[exercise_id] = value
    return points
