"""The envelopes of the listing routes' answers (a list, a page and its cursor), as models: the document's
schemas for those answers are generated from them."""

from __future__ import annotations

from datetime import datetime

import pydantic

from grader.api.schemas_responses import Assignment, Course, Exercise, Reply, SubmissionSummary
from grader.api.schemas_responses_course import Extension, GradebookRow, GradeChange, Override, RosterStudent

NEXT_STUDENT = (
    "The last student's id when more follow (send it as after_id for the next page); null on the last page. "
    "Students enrolled meanwhile with a smaller id than the cursor show on the next full pass."
)


class CourseList(Reply):
    """GET /courses."""

    courses: list[Course] | None = None


class ExerciseList(Reply):
    """GET /exercises."""

    engine_version: str | None = None
    exercises: list[Exercise] | None = None


class SubmissionPage(Reply):
    """GET /submissions: a page of the listing."""

    submissions: list[SubmissionSummary] | None = None
    total: int | None = pydantic.Field(
        default=None, description="All the submissions the filters match, whatever the offset or cursor."
    )
    limit: int | None = None
    offset: int | None = None
    next_before_id: int | None = pydantic.Field(
        default=None,
        description="Newest first: the last row's id when older rows follow (send it as before_id for the next "
        "page); else null.",
    )
    next_after_id: int | None = pydantic.Field(
        default=None,
        description="With after_id: the id to send as after_id next (the last row's, or after_id itself when no row "
        "came); else null.",
    )


class RosterCourse(Reply):
    """The course a roster page is of."""

    id: int
    code: str
    title: str


class RosterPage(Reply):
    """GET /courses/{course_id}/students: a page of the roster."""

    course: RosterCourse
    students: list[RosterStudent]
    limit: int
    next_after_id: int | None = pydantic.Field(description=NEXT_STUDENT)


class GradebookPage(Reply):
    """GET /assignments/{assignment_id}/grades: a page of the gradebook."""

    assignment: Assignment
    students: list[GradebookRow]
    limit: int
    next_after_id: int | None = pydantic.Field(description=NEXT_STUDENT)


class ChangePage(Reply):
    """GET /grade-changes: a page of the feed."""

    changes: list[GradeChange]
    limit: int
    next_after_id: int = pydantic.Field(
        description="Send as after_id next: the last entry's id, or after_id itself when none came."
    )
    has_more: bool = pydantic.Field(
        description="More settled entries follow now; false: poll again later (entries settle settle_seconds after "
        "they are written)."
    )
    settle_seconds: float = pydantic.Field(ge=0, description="Entries younger than this are not listed yet.")
    settled_before: datetime = pydantic.Field(description="This page lists entries written up to this time.")


class OverrideList(Reply):
    """GET /assignments/{assignment_id}/overrides."""

    overrides: list[Override] | None = None


class ExtensionList(Reply):
    """GET /assignments/{assignment_id}/extensions."""

    extensions: list[Extension] | None = None


PAGES = (
    CourseList,
    ExerciseList,
    SubmissionPage,
    RosterPage,
    GradebookPage,
    ChangePage,
    OverrideList,
    ExtensionList,
)
