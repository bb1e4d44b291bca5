"""The OpenAPI description of a course's staff: its co-teachers and teaching assistants."""

from __future__ import annotations

from grader.api.openapi_common import (
    COURSE,
    READ,
    WRITE,
    JSONObject,
    answer,
    model_schemas,
    no_content,
    operation,
    path_param,
    ref,
)
from grader.api.schemas_staff import STAFF_RESPONSES, StaffRequest

STAFF_SCHEMAS: JSONObject = model_schemas(StaffRequest, *STAFF_RESPONSES)

_ONE = (*COURSE, path_param("username", {"type": "string"}))
_LIST = {"type": "object", "properties": {"staff": {"type": "array", "items": ref("StaffMember")}}}

STAFF_PATHS: JSONObject = {
    "/api/v1/courses/{course_id}/staff": {
        "get": operation(
            "list_staff",
            "The course's co-teachers and teaching assistants (its staff and admins; non-members: 404).",
            answer(_LIST, "Staff"),
            READ,
            path=COURSE,
        )
    },
    "/api/v1/courses/{course_id}/staff/{username}": {
        "get": operation(
            "get_staff",
            "One staff member of the course (404 if the user is not on its staff).",
            answer("StaffMember", "The staff member"),
            READ,
            path=_ONE,
        ),
        "put": operation(
            "put_staff",
            "Make an existing, active teacher account a co-teacher or TA of the course, or change their role "
            "(the course's teachers, co-teachers and admins). A student account, or someone enrolled in the "
            "course, is refused (422 naming username).",
            answer("StaffMember", "The staff member as stored"),
            WRITE,
            path=_ONE,
            body="StaffRequest",
        ),
        "delete": operation(
            "delete_staff",
            "Remove a staff member (their own submissions stay).",
            no_content("Removed"),
            READ,
            path=_ONE,
        ),
    },
}
