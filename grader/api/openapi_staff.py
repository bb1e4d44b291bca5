"""The OpenAPI description of a course's staff: its co-teachers and teaching assistants."""

from __future__ import annotations

from grader.api.openapi_common import ID, JSONObject, json_body, json_reply, model_schemas, operation, path_param, ref
from grader.api.schemas_staff import STAFF_RESPONSES, StaffRequest

STAFF_SCHEMAS: JSONObject = model_schemas(StaffRequest, *STAFF_RESPONSES)

_ONE = [path_param("course_id", ID), path_param("username", {"type": "string"})]

STAFF_PATHS: JSONObject = {
    "/api/v1/courses/{course_id}/staff": {
        "get": operation(
            "list_staff",
            "The course's co-teachers and teaching assistants (its staff and admins; non-members: 404).",
            {
                "200": json_reply(
                    {"type": "object", "properties": {"staff": {"type": "array", "items": ref("StaffMember")}}},
                    "Staff",
                )
            },
            (400, 401, 403, 404),
            parameters=[path_param("course_id", ID)],
        )
    },
    "/api/v1/courses/{course_id}/staff/{username}": {
        "get": operation(
            "get_staff",
            "One staff member of the course (404 if the user is not on its staff).",
            {"200": json_reply(ref("StaffMember"), "The staff member")},
            (400, 401, 403, 404),
            parameters=_ONE,
        ),
        "put": operation(
            "put_staff",
            "Make an existing, active teacher account a co-teacher or TA of the course, or change their role "
            "(the course's teachers, co-teachers and admins). A student account, or someone enrolled in the "
            "course, is refused (422 naming username).",
            {"200": json_reply(ref("StaffMember"), "The staff member as stored")},
            (400, 401, 403, 404, 415, 422),
            parameters=_ONE,
            requestBody=json_body("StaffRequest"),
        ),
        "delete": operation(
            "delete_staff",
            "Remove a staff member (their own submissions stay).",
            {"204": {"description": "Removed"}},
            (400, 401, 403, 404),
            parameters=_ONE,
        ),
    },
}
