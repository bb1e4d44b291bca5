"""The late-work fields of the assignment form: the hard close (typed in the course's zone) and the penalty.

Read here and checked against the form's due date; the rule they set is ``grader.grading.terms.LatePolicy``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

PERCENT = re.compile(r"^\d{1,3}(?:\.\d{1,2})?$")  # 0 to 999.99 with at most two decimals: no NaN, inf, 1e2, -5


@dataclass(frozen=True)
class LateSettings:
    """Checked late-work settings, ready to store on an Assignment."""

    late_until: datetime | None = None
    late_penalty_per_day: float = 0.0
    late_cap: float | None = None


def percent(text: str) -> float | None:
    """A percent from 0 to 100 as typed ("10", "12.5"); None for anything else (NaN, 101, -1, 1e2)."""
    if not PERCENT.match(text):
        return None
    value = float(text)
    return value if value <= 100 else None


def check_late(
    texts: dict[str, str],
    due_at: datetime | None,
    read_time: Callable[[str], datetime | None],
    errors: dict[str, str],
) -> LateSettings:
    """The late settings from the form's ``late_until``, ``late_per_day`` and ``late_cap`` texts; each bad field gets
    an error key in ``errors``. ``read_time`` reads a form time (raising ValueError) as the form's other times are."""
    per_day_text, cap_text = texts.get("late_per_day", ""), texts.get("late_cap", "")
    per_day = percent(per_day_text) if per_day_text else 0.0
    cap = percent(cap_text) if cap_text else None
    if per_day is None:
        errors["late_per_day"] = "asg.err_percent"
    if cap_text and cap is None:
        errors["late_cap"] = "asg.err_percent"
    try:
        until = read_time(texts.get("late_until", ""))
    except ValueError:
        errors["late_until"] = "asg.err_date"
        return LateSettings()
    if until is None:
        if per_day or cap is not None:
            errors["late_until"] = "asg.err_late_needs_close"
        return LateSettings()
    if due_at is None:
        errors["late_until"] = "asg.err_late_needs_due"
    elif until <= due_at:
        errors["late_until"] = "asg.err_late_before_due"
    return LateSettings(until, per_day or 0.0, cap)
