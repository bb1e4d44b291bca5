"""The OpenAPI description of a course's staff: its co-teachers and teaching assistants."""

from __future__ import annotations

from grader.api.openapi_common import (
    READ,
    WRITE,
    JSONObject,
    answer,
    model_schemas,
    no_content,
    operation,
    ref,
)
from grader.api.schemas_staff import STAFF_RESPONSES, StaffRequest

STAFF_SCHEMAS: JSONObject = model_schemas(StaffRequest, *STAFF_RESPONSES)

_LIST = {"type": "object", "properties": {"staff": {"type": "array", "items": ref("StaffMember")}}}

STAFF_OPERATIONS: tuple[JSONObject, ...] = (
    operation(
        "list_staff",
        "The course's co-teachers and teaching assistants (its staff and admins; non-members: 404).",
        answer(_LIST, "Staff"),
        READ,
    ),
    operation(
        "get_staff",
        "One staff member of the course (404 if the user is not on its staff).",
        answer("StaffMember", "The staff member"),
        READ,
    ),
    operation(
        "put_staff",
        "Make an existing, active teacher account a co-teacher or TA of the course, or change their role "
        "(the course's teachers, co-teachers and admins). A student account, or someone enrolled in the "
        "course, is refused (422 naming username).",
        answer("StaffMember", "The staff member as stored"),
        WRITE,
        body="StaffRequest",
    ),
    operation(
        "delete_staff",
        "Remove a staff member (their own submissions stay).",
        no_content("Removed"),
        READ,
    ),
)
