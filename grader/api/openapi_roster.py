"""The OpenAPI description of accounts and rosters: enrolling students (new accounts too), sign-in links, and an
administrator's users."""

from __future__ import annotations

from grader.api.openapi_common import COURSE, ID, READ, WRITE, JSONObject, answer, model_schemas, operation, path_param
from grader.api.schemas_responses_roster import ROSTER_RESPONSES
from grader.api.schemas_roster import AccountChange, RosterRequest, SignInLinksRequest, UsersQuery

ROSTER_SCHEMAS: JSONObject = model_schemas(RosterRequest, SignInLinksRequest, AccountChange, *ROSTER_RESPONSES)


ROSTER_PATHS: JSONObject = {
    "/api/v1/courses/{course_id}/roster": {
        "post": operation(
            "post_roster",
            "Enrol students as the roster upload does, creating the accounts that do not exist yet (its teachers "
            "and admins); with dry_run, only say what each row would do.",
            answer("RosterResult", "What was done, and the refused rows"),
            (*READ, 413, 415, 422),
            path=COURSE,
            body="RosterRequest",
        )
    },
    "/api/v1/courses/{course_id}/sign-in-links": {
        "post": operation(
            "post_sign_in_links",
            "New one-time sign-in links (14 days) for students of the course; their earlier unused links stop working.",
            answer("SignInLinkList", "The links, shown this once"),
            WRITE,
            path=COURSE,
            body="SignInLinksRequest",
        )
    },
    "/api/v1/admin/users": {
        "get": operation(
            "admin_users",
            "Up to 50 users whose username or name contains q, by username (administrators).",
            answer("AccountList", "Users"),
            (400, 401, 403),
            query=UsersQuery,
        )
    },
    "/api/v1/admin/users/{user_id}": {
        "patch": operation(
            "patch_admin_user",
            "Change a user's role and/or deactivate or activate the account (administrators; not one's own).",
            answer("Account", "The account as it is now"),
            WRITE,
            path=(path_param("user_id", ID),),
            body="AccountChange",
        )
    },
}
