"""What running a course and the LMS sync routes answer, as models (the document's schemas are generated from
them): extensions, overrides, the roster, the gradebook and the grade-change feed."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

import pydantic

from grader.api.schemas_responses import Reply, Terms

Score = Annotated[float, pydantic.Field(ge=0, le=1)]


class Extension(Reply):
    """A student's own terms on an assignment."""

    student_id: int | None = None
    assignment_id: int | None = None
    due_at: datetime | None = None
    extra_attempts: Annotated[int, pydantic.Field(ge=0)] | None = None
    reason: str | None = None
    granted_by: int | None = None
    updated_at: datetime | None = None


class Override(Reply):
    """A teacher's correction of a student's counted score."""

    student_id: int | None = None
    exercise_id: str | None = pydantic.Field(default=None, description='"": the total.')
    score: Score | None = None
    reason: str | None = None
    set_by: str | None = None
    updated_at: datetime | None = None


class RosterStudent(Reply):
    """An enrolled student."""

    id: int = pydantic.Field(description="User id: the student_id of grade changes, the id of a gradebook row.")
    username: str
    display_name: str
    enrolled_at: datetime | None = pydantic.Field(description="When the student was enrolled in the course.")


class GradebookExercise(Reply):
    """A student's counted result on one exercise."""

    exercise_id: str
    attempts_used: int = pydantic.Field(ge=0, description="As in Progress: queued, grading and graded submissions.")
    score: Score | None = pydantic.Field(
        description="The counted score under the assignment's score_policy (best or last graded attempt), as "
        "Progress and the teacher dashboards count it; null before any graded attempt."
    )


class GradebookTotal(Reply):
    """A student's assignment total."""

    score: Score | None = pydantic.Field(
        description="Points earned over points possible (each exercise's counted score times its points, an exercise "
        "without one counting 0), or a teacher's override of the total; null if the assignment sets none. The "
        "fraction an LMS grade item out of 1 (or 100 %) wants."
    )
    points: float = pydantic.Field(
        ge=0, description="Points earned: what the teacher's grades CSV calls total (score = points / max_points)."
    )
    max_points: float | None = pydantic.Field(default=None, description="Points possible (each exercise 1 unless set).")
    override: dict[str, Any] | None = pydantic.Field(default=None, description="A teacher's override of the total.")
    graded: int = pydantic.Field(description="Exercises with a counted score.")
    exercises: int = pydantic.Field(description="Exercises the assignment sets.")


class GradebookRow(Reply):
    """One student's row of an assignment's gradebook."""

    id: int
    username: str
    display_name: str
    terms: Terms
    exercises: list[GradebookExercise] = pydantic.Field(description="Every exercise of the assignment, in its order.")
    total: GradebookTotal
    scores_changed_at: datetime | None = pydantic.Field(
        description="When a score of the student's in this assignment last changed (graded or regraded; from the "
        "grade log), or null if none has. The row has not changed since; it may not have changed then (a lower "
        "attempt under best). Read before the scores, so a change that lands meanwhile is in them or later than "
        "this time."
    )


class GradeChange(Reply):
    """One entry of the grade log."""

    id: int = pydantic.Field(description="Grade-log entry id: the feed's cursor.")
    submission_id: int
    student_id: int
    assignment_id: int | None
    exercise_id: str
    old_score: Score | None = pydantic.Field(description="null for a first grading, or a regrade of an invalid answer.")
    new_score: Score | None = pydantic.Field(description="null when a regrade found the answer unreadable.")
    old_engine_version: str | None
    new_engine_version: str | None
    reason: str = pydantic.Field(description='"graded", or "regrade #<job>: <what changed>".')
    actor: str | None = pydantic.Field(
        description="worker:<host>:<pid> or user:<username>; null on entries the caller does not see as staff (a "
        "student's own)."
    )
    created_at: datetime | None


COURSE_RESPONSES = (Extension, Override, RosterStudent, GradebookRow, GradeChange)
