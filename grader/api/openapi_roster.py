"""The OpenAPI description of accounts and rosters: enrolling students (new accounts too), sign-in links, and an
administrator's users."""

from __future__ import annotations

from grader.api.openapi_common import READ, WRITE, JSONObject, answer, model_schemas, operation
from grader.api.schemas_responses_roster import ROSTER_RESPONSES
from grader.api.schemas_roster import AccountChange, RosterRequest, SignInLinksRequest

ROSTER_SCHEMAS: JSONObject = model_schemas(RosterRequest, SignInLinksRequest, AccountChange, *ROSTER_RESPONSES)


ROSTER_OPERATIONS: tuple[JSONObject, ...] = (
    operation(
        "post_roster",
        "Enrol students as the roster upload does, creating the accounts that do not exist yet (its teachers "
        "and admins); with dry_run, only say what each row would do.",
        answer("RosterResult", "What was done, and the refused rows"),
        (*READ, 413, 415, 422),
        body="RosterRequest",
    ),
    operation(
        "post_sign_in_links",
        "New one-time sign-in links (14 days) for students of the course; their earlier unused links stop working.",
        answer("SignInLinkList", "The links, shown this once"),
        WRITE,
        body="SignInLinksRequest",
    ),
    operation(
        "admin_users",
        "Up to 50 users whose username or name contains q, by username (administrators).",
        answer("AccountList", "Users"),
        (400, 401, 403),
    ),
    operation(
        "patch_admin_user",
        "Change a user's role and/or deactivate or activate the account (administrators; not one's own).",
        answer("Account", "The account as it is now"),
        WRITE,
        body="AccountChange",
    ),
)
