"""The OpenAPI description of running a course: students' own terms (extensions) on an assignment."""

from __future__ import annotations

from grader.api.openapi_common import ID, TIME, JSONObject, json_reply, operation, path_param, query_param, ref

TERMS: JSONObject = {
    "type": "object",
    "required": ["due_at", "attempts_allowed", "extended_due", "extra_attempts"],
    "description": "The student's own due date and attempt limit per exercise, an extension applied.",
    "properties": {
        "due_at": TIME,
        "attempts_allowed": {"type": ["integer", "null"]},
        "extended_due": {"type": "boolean"},
        "extra_attempts": {"type": "integer", "minimum": 0},
    },
}

COURSE_SCHEMAS: JSONObject = {
    "Terms": TERMS,
    "Extension": {
        "type": "object",
        "properties": {
            "student_id": {"type": "integer"},
            "assignment_id": {"type": "integer"},
            "due_at": TIME,
            "extra_attempts": {"type": "integer", "minimum": 0},
            "reason": {"type": "string"},
            "granted_by": {"type": ["integer", "null"]},
            "updated_at": TIME,
        },
    },
    "ExtensionRequest": {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "due_at": {**TIME, "description": "Later than the assignment's due date; null: keep the assignment's."},
            "extra_attempts": {
                "type": "integer",
                "minimum": 0,
                "maximum": 1000,
                "default": 0,
                "description": "Added to the assignment's attempts per exercise (not if unlimited).",
            },
            "reason": {"type": "string", "maxLength": 500},
        },
    },
}

_ONE = [path_param("assignment_id", ID), path_param("student_id", ID)]
_OVERRIDE_SCHEMAS: JSONObject = {
    "Override": {
        "type": "object",
        "properties": {
            "student_id": {"type": "integer"},
            "exercise_id": {"type": "string", "description": '"": the total.'},
            "score": {"type": "number", "minimum": 0, "maximum": 1},
            "reason": {"type": "string"},
            "set_by": {"type": "string"},
            "updated_at": TIME,
        },
    },
    "OverrideRequest": {
        "type": "object",
        "additionalProperties": False,
        "required": ["score", "reason"],
        "properties": {
            "exercise_id": {
                "type": "string",
                "default": "",
                "description": 'An exercise of the assignment; "": the total.',
            },
            "score": {"type": "number", "minimum": 0, "maximum": 1},
            "reason": {"type": "string", "minLength": 1, "maxLength": 500},
        },
    },
}
COURSE_SCHEMAS.update(_OVERRIDE_SCHEMAS)

COURSE_PATHS: JSONObject = {
    "/api/v1/assignments/{assignment_id}/overrides": {
        "get": operation(
            "list_overrides",
            "The assignment's score overrides (its course's teachers and admins).",
            {
                "200": json_reply(
                    {"type": "object", "properties": {"overrides": {"type": "array", "items": ref("Override")}}},
                    "Overrides",
                )
            },
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
            requestBody={"required": True, "content": {"application/json": {"schema": ref("OverrideRequest")}}},
        ),
        "delete": operation(
            "delete_override",
            "Clear a student's override (logged).",
            {"204": {"description": "Cleared"}},
            (400, 401, 403, 404),
            parameters=[
                *_ONE,
                query_param("exercise_id", {"type": "string"}, "The exercise; absent: the total's override."),
            ],
        ),
    },
    "/api/v1/assignments/{assignment_id}/extensions": {
        "get": operation(
            "list_extensions",
            "The assignment's extensions (its course's teachers and admins).",
            {
                "200": json_reply(
                    {"type": "object", "properties": {"extensions": {"type": "array", "items": ref("Extension")}}},
                    "Extensions",
                )
            },
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
            requestBody={"required": True, "content": {"application/json": {"schema": ref("ExtensionRequest")}}},
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
