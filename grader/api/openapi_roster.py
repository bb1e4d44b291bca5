"""The OpenAPI description of accounts and rosters: enrolling students (new accounts too), sign-in links, and an
administrator's users."""

from __future__ import annotations

from grader.accounts import MAX_QUERY
from grader.api.openapi_common import ID, TIME, JSONObject, json_reply, operation, path_param, query_param, ref
from grader.courses.roster_files import MAX_ROSTER_ROWS

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
    "RosterRequest": {
        "type": "object",
        "additionalProperties": False,
        "required": ["students"],
        "properties": {
            "students": {
                "type": "array",
                "minItems": 1,
                "maxItems": MAX_ROSTER_ROWS,
                "items": {
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["username"],
                    "properties": {"username": {"type": "string"}, "name": {"type": ["string", "null"]}},
                },
            },
            "dry_run": {"type": "boolean", "default": False, "description": "true: check the rows, change nothing."},
        },
    },
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
    "SignInLinksRequest": {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "usernames": {
                "type": "array",
                "maxItems": MAX_ROSTER_ROWS,
                "items": {"type": "string"},
                "description": "Students of the course; absent: every student who has never chosen a password.",
            }
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
    "AccountChange": {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "role": {"type": "string", "enum": ["student", "teacher", "admin"]},
            "active": {"type": "boolean", "description": "false ends the account's sessions, tokens and links now."},
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
            parameters=[query_param("q", {"type": "string", "maxLength": MAX_QUERY}, "Part of a username or name.")],
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
