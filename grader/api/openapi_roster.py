"""The OpenAPI description of accounts and rosters: enrolling students (new accounts too), sign-in links, and an
administrator's users."""

from __future__ import annotations

from grader.api.openapi_common import (
    ID,
    JSONObject,
    json_body,
    json_reply,
    model_schemas,
    operation,
    path_param,
    query_params,
    ref,
)
from grader.api.schemas_responses_roster import ROSTER_RESPONSES
from grader.api.schemas_roster import AccountChange, RosterRequest, SignInLinksRequest, UsersQuery

ROSTER_SCHEMAS: JSONObject = model_schemas(RosterRequest, SignInLinksRequest, AccountChange, *ROSTER_RESPONSES)


ROSTER_PATHS: JSONObject = {
    "/api/v1/courses/{course_id}/roster": {
        "post": operation(
            "post_roster",
            "Enrol students as the roster upload does, creating the accounts that do not exist yet (its teachers "
            "and admins); with dry_run, only say what each row would do.",
            {"200": json_reply(ref("RosterResult"), "What was done, and the refused rows")},
            (400, 401, 403, 404, 413, 415, 422),
            parameters=[path_param("course_id", ID)],
            requestBody=json_body("RosterRequest"),
        )
    },
    "/api/v1/courses/{course_id}/sign-in-links": {
        "post": operation(
            "post_sign_in_links",
            "New one-time sign-in links (14 days) for students of the course; their earlier unused links stop working.",
            {"200": json_reply(ref("SignInLinkList"), "The links, shown this once")},
            (400, 401, 403, 404, 415, 422),
            parameters=[path_param("course_id", ID)],
            requestBody=json_body("SignInLinksRequest"),
        )
    },
    "/api/v1/admin/users": {
        "get": operation(
            "admin_users",
            "Up to 50 users whose username or name contains q, by username (administrators).",
            {"200": json_reply(ref("AccountList"), "Users")},
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
            requestBody=json_body("AccountChange"),
        )
    },
}
