"""The OpenAPI paths of running a course: students' own terms (extensions) and score overrides on an assignment."""

from __future__ import annotations

from grader.api.openapi_common import ASSIGNMENT, ID, READ, WRITE, JSONObject, answer, no_content, operation, path_param
from grader.api.schemas_course import OverrideQuery

_ONE = (*ASSIGNMENT, path_param("student_id", ID))
COURSE_PATHS: JSONObject = {
    "/api/v1/assignments/{assignment_id}/overrides": {
        "get": operation(
            "list_overrides",
            "The assignment's score overrides (its course's teachers and admins).",
            answer("OverrideList", "Overrides"),
            READ,
            path=ASSIGNMENT,
        )
    },
    "/api/v1/assignments/{assignment_id}/overrides/{student_id}": {
        "put": operation(
            "put_override",
            "Set a student's counted score on an exercise or the total, with a reason (logged; kept "
            "through regrades until cleared).",
            answer("Override", "The override as stored"),
            WRITE,
            path=_ONE,
            body="OverrideRequest",
        ),
        "delete": operation(
            "delete_override",
            "Clear a student's override (logged).",
            no_content("Cleared"),
            READ,
            path=_ONE,
            query=OverrideQuery,
        ),
    },
    "/api/v1/assignments/{assignment_id}/extensions": {
        "get": operation(
            "list_extensions",
            "The assignment's extensions (its course's teachers and admins).",
            answer("ExtensionList", "Extensions"),
            READ,
            path=ASSIGNMENT,
        )
    },
    "/api/v1/assignments/{assignment_id}/extensions/{student_id}": {
        "put": operation(
            "put_extension",
            "Give a student a later due date and/or extra attempts (replaces an earlier one).",
            answer("Extension", "The extension as stored"),
            WRITE,
            path=_ONE,
            body="ExtensionRequest",
        ),
        "delete": operation(
            "delete_extension", "Remove a student's extension.", no_content("Removed"), READ, path=_ONE
        ),
    },
}
