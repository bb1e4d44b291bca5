"""Scores as whole percentages for people: rounded, but never 100% unless full marks, never 0% unless nothing."""

from __future__ import annotations


def shown_percent(fraction: float) -> int:
    """``fraction`` (0..1) as a whole percentage; 99.6% shows as 99 and 0.4% as 1, so rounding never fakes a
    full score or hides a partial one."""
    percent = round(fraction * 100)
    if percent >= 100 and fraction < 1:
        return 99
    if percent <= 0 and fraction > 0:
        return 1
    return int(percent)


FULL_MARKS = 0.9995  # a score this high is full marks: "done" on the student pages, fully correct for teachers


def full_marks(score: float | None) -> bool:
    """True if ``score`` counts as full marks (what "done" means for an exercise)."""
    return score is not None and score >= FULL_MARKS
