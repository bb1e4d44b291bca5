"""The request and the answers of a course's staff routes, as models (the document's schemas are generated from them)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

import pydantic

from grader.api.schemas_base import ApiModel, Checked, refusal
from grader.api.schemas_responses import Reply
from grader.grading.course_staff import STAFF_ROLES

_ROLE_MESSAGE = "Field 'role' must be 'co_teacher' or 'ta'."
_ROLE_REQUIRED = "Field 'role' is required ('co_teacher' or 'ta')."
ROLE_DESCRIPTION = (
    "co_teacher: all a course's teacher may do but delete the course; ta: dashboards, students, submissions, "
    "exports, extensions and overrides only."
)


def _role(value: Any, name: str) -> Any:
    """A staff role: co_teacher or ta."""
    if not isinstance(value, str) or value not in STAFF_ROLES:
        raise refusal("invalid_value", _ROLE_MESSAGE)
    return value


class StaffRequest(ApiModel):
    """The body of PUT /courses/{course_id}/staff/{username}."""

    role: Annotated[
        str,
        Checked(_role, {"type": "string", "enum": list(STAFF_ROLES)}, if_missing=("missing_field", _ROLE_REQUIRED)),
        pydantic.Field(description=ROLE_DESCRIPTION),
    ]


class StaffMember(Reply):
    """A co-teacher or teaching assistant of a course."""

    course_id: int
    username: str
    display_name: str
    role: Literal["co_teacher", "ta"] = pydantic.Field(description=ROLE_DESCRIPTION)
    added_by: int | None = pydantic.Field(description="Who added them or last changed their role (null: removed).")
    updated_at: datetime


class StaffList(Reply):
    """A course's co-teachers and teaching assistants, by username."""

    staff: list[StaffMember]


STAFF_RESPONSES = (StaffMember, StaffList)
