"""The OpenAPI description of accounts and rosters: enrolling students (new accounts too), sign-in links, and an
administrator's users."""

from __future__ import annotations

from grader.api.openapi_common import (
    ID,
    TIME,
    JSONObject,
    json_reply,
    model_schemas,
    operation,
    path_param,
    query_params,
    ref,
)
from grader.api.schemas_roster import AccountChange, RosterRequest, SignInLinksRequest, UsersQuery

_ROSTER_ROW: JSONObject = {
    "type": "object",
    "properties": {
        "line": {"type": "integer", "description": "The row's place in 'students', from 1."},
        "username": {"type": "string"},
        "name": {"type": "string"},
        "outcome": {"type": "string", "enum": ["create", "enrol", "refused"]},
        "reason": {
            "type": ["string", "null"],
            "description": "Why a row is refused: empty, duplicate, enrolled, teacher, bad_username, bad_name, busy.",
        },
        "message": {"type": ["string", "null"]},
    },
}

ROSTER_SCHEMAS: JSONObject = {
    **model_schemas(RosterRequest, SignInLinksRequest, AccountChange),
    "RosterRow": _ROSTER_ROW,
    "RosterResult": {
        "type": "object",
        "properties": {
            "dry_run": {"type": "boolean"},
            "created": {"type": "integer", "description": "Accounts created (no password yet: send a sign-in link)."},
            "enrolled": {"type": "integer"},
            "rows": {
                "type": "array",
                "items": ref("RosterRow"),
                "description": "A dry run: every row with what it would do; otherwise the refused rows.",
            },
        },
    },
    "SignInLink": {
        "type": "object",
        "properties": {
            "username": {"type": "string"},
            "name": {"type": "string"},
            "url": {"type": "string", "description": "Usable once; shown only in this answer."},
            "expires_at": TIME,
        },
    },
    "Account": {
        "type": "object",
        "properties": {
            "id": {"type": "integer"},
            "username": {"type": "string"},
            "display_name": {"type": "string"},
            "role": {"type": "string", "enum": ["student", "teacher", "admin"]},
            "active": {"type": "boolean"},
            "has_password": {"type": "boolean"},
        },
    },
}


def _body(schema: str) -> JSONObject:
    """A required JSON request body."""
    return {"required": True, "content": {"application/json": {"schema": ref(schema)}}}


ROSTER_PATHS: JSONObject = {
    "/api/v1/courses/{course_id}/roster": {
        "post": operation(
            "post_roster",
            "Enrol students as the roster upload does, creating the accounts that do not exist yet (its teachers "
            "and admins); with dry_run, only say what each row would do.",
            {"200": json_reply(ref("RosterResult"), "What was done, and the refused rows")},
            (400, 401, 403, 404, 413, 415, 422),
            parameters=[path_param("course_id", ID)],
            requestBody=_body("RosterRequest"),
        )
    },
    "/api/v1/courses/{course_id}/sign-in-links": {
        "post": operation(
            "post_sign_in_links",
            "New one-time sign-in links (14 days) for students of the course; their earlier unused links stop working.",
            {
                "200": json_reply(
                    {"type": "object", "properties": {"links": {"type": "array", "items": ref("SignInLink")}}},
                    "The links, shown this once",
                )
            },
            (400, 401, 403, 404, 415, 422),
            parameters=[path_param("course_id", ID)],
            requestBody=_body("SignInLinksRequest"),
        )
    },
    "/api/v1/admin/users": {
        "get": operation(
            "admin_users",
            "Up to 50 users whose username or name contains q, by username (administrators).",
            {
                "200": json_reply(
                    {"type": "object", "properties": {"users": {"type": "array", "items": ref("Account")}}},
                    "Users",
                )
            },
            (400, 401, 403),
            parameters=query_params(UsersQuery),
        )
    },
    "/api/v1/admin/users/{user_id}": {
        "patch": operation(
            "patch_admin_user",
            "Change a user's role and/or deactivate or activate the account (administrators; not one's own).",
            {"200": json_reply(ref("Account"), "The account as it is now")},
            (400, 401, 403, 404, 415, 422),
            parameters=[path_param("user_id", ID)],
            requestBody=_body("AccountChange"),
        )
    },
}
