"""The fixture course with the marks the grade exports show: points, a due date in Shanghai, late work, overrides."""

from __future__ import annotations

from datetime import timedelta
from zoneinfo import ZoneInfo

from sqlalchemy.orm import Session

from grader.grading.overrides import OverrideRequest, set_override
from grader.models.base import utcnow
from grader.models.overrides import TOTAL
from tests.factories import rebuild_progress
from tests.teacher.course_data import COST, LOSS, FixtureCourse, at, build

ZONE = "Asia/Shanghai"


def build_marked(session: Session) -> FixtureCourse:
    """The fixture course in Shanghai time, LOSS worth 2 points and COST 3, due between minutes 7 and 8 (late work
    taken, no penalty: Alice's and Carol's COST answers are late), Bob's total overridden to 80 % and Dave's COST to
    full marks."""
    fixture = build(session)
    fixture.course.time_zone = ZONE
    fixture.best.exercise_points = {LOSS: 2.0, COST: 3.0}
    fixture.best.due_at = at(8) - timedelta(seconds=30)
    fixture.best.late_until = at(60)
    rebuild_progress(session)  # commits; set directly, not through the form that would have rebuilt them
    for student, exercise_id, score in ((fixture.bob, TOTAL, 0.8), (fixture.dave, COST, 1.0)):
        set_override(session, fixture.best, student.id, OverrideRequest(exercise_id, score, "oral exam"), "t", utcnow())
    return fixture


def shanghai(minutes: int, seconds: int = 0) -> str:
    """The fixture time as the files show it in Shanghai."""
    moment = at(minutes) + timedelta(seconds=seconds)
    return f"{moment.astimezone(ZoneInfo(ZONE)).strftime('%Y-%m-%d %H:%M')} (Asia/Shanghai, UTC+8)"
