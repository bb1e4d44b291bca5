"""The OpenAPI paths of running a course: students' own terms (extensions) and score overrides on an assignment."""

from __future__ import annotations

from grader.api.openapi_common import ID, JSONObject, json_body, json_reply, operation, path_param, query_params, ref
from grader.api.schemas_course import OverrideQuery

_ONE = [path_param("assignment_id", ID), path_param("student_id", ID)]
COURSE_PATHS: JSONObject = {
    "/api/v1/assignments/{assignment_id}/overrides": {
        "get": operation(
            "list_overrides",
            "The assignment's score overrides (its course's teachers and admins).",
            {"200": json_reply(ref("OverrideList"), "Overrides")},
            (400, 401, 403, 404),
            parameters=[path_param("assignment_id", ID)],
        )
    },
    "/api/v1/assignments/{assignment_id}/overrides/{student_id}": {
        "put": operation(
            "put_override",
            "Set a student's counted score on an exercise or the total, with a reason (logged; kept "
            "through regrades until cleared).",
            {"200": json_reply(ref("Override"), "The override as stored")},
            (400, 401, 403, 404, 415, 422),
            parameters=_ONE,
            requestBody=json_body("OverrideRequest"),
        ),
        "delete": operation(
            "delete_override",
            "Clear a student's override (logged).",
            {"204": {"description": "Cleared"}},
            (400, 401, 403, 404),
            parameters=[*_ONE, *query_params(OverrideQuery)],
        ),
    },
    "/api/v1/assignments/{assignment_id}/extensions": {
        "get": operation(
            "list_extensions",
            "The assignment's extensions (its course's teachers and admins).",
            {"200": json_reply(ref("ExtensionList"), "Extensions")},
            (400, 401, 403, 404),
            parameters=[path_param("assignment_id", ID)],
        )
    },
    "/api/v1/assignments/{assignment_id}/extensions/{student_id}": {
        "put": operation(
            "put_extension",
            "Give a student a later due date and/or extra attempts (replaces an earlier one).",
            {"200": json_reply(ref("Extension"), "The extension as stored")},
            (400, 401, 403, 404, 415, 422),
            parameters=_ONE,
            requestBody=json_body("ExtensionRequest"),
        ),
        "delete": operation(
            "delete_extension",
            "Remove a student's extension.",
            {"204": {"description": "Removed"}},
            (400, 401, 403, 404),
            parameters=_ONE,
        ),
    },
}
