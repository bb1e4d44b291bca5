"""The requests of running a course and syncing an LMS: extensions, overrides, roster, gradebook, grade changes.

The models only read the values (types, bounds); the rules (a due date after the assignment's, a score in [0, 1])
are ``grader.grading.terms`` and ``grader.grading.overrides``, which answer with the field at fault.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any

from pydantic import Field

from grader.api.schemas_base import (
    ApiModel,
    Checked,
    QueryModel,
    optional_integer,
    query_integer,
    query_text,
    refusal,
)
from grader.api.schemas_submissions import EXERCISE_ID_MAX, PAGE_LIMIT_MAX, Cursor, LangParam, RowId
from grader.grading import overrides, terms
from grader.models.extensions import REASON_MAX
from grader.models.overrides import OVERRIDE_REASON_MAX, TOTAL

SYNC_PAGE_LIMIT = 100  # default page of the roster, the gradebook and the grade-change feed


def _extension_reason(value: Any, name: str) -> Any:
    """An extension's reason: absent, null or empty is none; at most REASON_MAX characters, stripped."""
    value = value or ""
    if not isinstance(value, str) or len(value) > REASON_MAX:
        raise refusal("invalid_value", f"Field '{name}' must be a string of at most {REASON_MAX} characters.")
    return value.strip()


def _instant(value: Any, name: str) -> Any:
    """An optional ISO 8601 timestamp with an offset (null or absent: None), in UTC."""
    if value is None:
        return None
    try:
        moment = datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        moment = None
    if moment is None or moment.tzinfo is None:
        raise refusal(
            "invalid_value",
            f"Field '{name}' must be an ISO 8601 time with an offset, e.g. 2026-12-08T23:59:00+08:00.",
        )
    return moment.astimezone(UTC)


class ExtensionRequest(ApiModel):
    """The body of PUT /assignments/{assignment_id}/extensions/{student_id}."""

    extra_attempts: Annotated[
        int | None,
        optional_integer(0, terms.MAX_EXTRA_ATTEMPTS + 1),
        Field(description="Added to the assignment's attempts per exercise (not if unlimited)."),
    ] = None
    reason: Annotated[str, Checked(_extension_reason, {"type": "string", "maxLength": REASON_MAX})] = ""
    due_at: Annotated[
        datetime | None,
        Checked(_instant, {"type": ["string", "null"], "format": "date-time"}),
        Field(description="Later than the assignment's due date; null: keep the assignment's."),
    ] = None

    def wanted(self) -> terms.ExtensionRequest:
        """The extension asked for, as the rules read it."""
        return terms.ExtensionRequest(self.due_at, self.extra_attempts or 0, self.reason)


def _override_exercise(value: Any, name: str) -> Any:
    """An override's exercise: a string, "" for the total."""
    if not isinstance(value, str):
        raise refusal("invalid_type", f"Field '{name}' must be a string (\"\" for the total).")
    return value


def _score(value: Any, name: str) -> Any:
    """A number (its range is the rules')."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise refusal("invalid_type", f"Field '{name}' must be a number from 0 to 1.")
    return float(value)


def _override_reason(value: Any, name: str) -> Any:
    """A reason's type (its length is the rules')."""
    if not isinstance(value, str):
        raise refusal("missing_field", _REASON_REQUIRED)
    return value


_REASON_REQUIRED = f"Field 'reason' is required (1 to {OVERRIDE_REASON_MAX} characters)."


class OverrideRequest(ApiModel):
    """The body of PUT /assignments/{assignment_id}/overrides/{student_id}."""

    exercise_id: Annotated[
        str,
        Checked(_override_exercise, {"type": "string"}),
        Field(description='An exercise of the assignment; "": the total.'),
    ] = TOTAL
    score: Annotated[
        float,
        Checked(
            _score,
            {"type": "number", "minimum": 0, "maximum": 1},
            if_missing=("invalid_type", "Field 'score' must be a number from 0 to 1."),
        ),
    ]
    reason: Annotated[
        str,
        Checked(
            _override_reason,
            {"type": "string", "minLength": 1, "maxLength": OVERRIDE_REASON_MAX},
            if_missing=("missing_field", _REASON_REQUIRED),
        ),
    ]

    def wanted(self) -> overrides.OverrideRequest:
        """The override asked for, as the rules read it."""
        return overrides.OverrideRequest(self.exercise_id, self.score, self.reason)


class OverrideQuery(QueryModel):
    """DELETE /assignments/{assignment_id}/overrides/{student_id}."""

    exercise_id: Annotated[
        str,
        query_text(EXERCISE_ID_MAX),
        Field(description="The exercise; absent: the total's override."),
    ] = TOTAL


# ---- what an LMS reads ----

PageLimit = Annotated[int, query_integer(1, PAGE_LIMIT_MAX), Field(description="Page size.")]
StudentCursor = Annotated[
    int,
    Cursor,
    Field(
        description="Only students with a larger user id (0 or absent: from the first); send the page's next_after_id."
    ),
]


class StudentsQuery(QueryModel):
    """GET /courses/{course_id}/students."""

    limit: PageLimit = SYNC_PAGE_LIMIT
    after_id: StudentCursor = 0


class GradesQuery(QueryModel):
    """GET /assignments/{assignment_id}/grades."""

    lang: LangParam = "zh"
    limit: PageLimit = SYNC_PAGE_LIMIT
    after_id: StudentCursor = 0


class ChangesQuery(QueryModel):
    """GET /grade-changes."""

    course: Annotated[
        int | None, RowId, Field(description="Only this course's submissions (404 unless the caller is a member).")
    ] = None
    assignment: Annotated[
        int | None,
        RowId,
        Field(description="Only this assignment's (404 unless the caller is a member of its course)."),
    ] = None
    limit: PageLimit = SYNC_PAGE_LIMIT
    after_id: Annotated[
        int,
        Cursor,
        Field(
            description="Only entries with a larger id (0 or absent: from the first); send the page's next_after_id."
        ),
    ] = 0
