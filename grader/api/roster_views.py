"""API routes for accounts and rosters: a course's staff enrol students (creating the accounts that do not exist yet)
and issue one-time sign-in links; an administrator finds users, changes a role or deactivates an account.

The rules are ``grader.courses`` (rosters), ``grader.sign_in_links`` and ``grader.accounts``; these views read the
body, call them and serialise. A refused row of a roster is reported in the answer, never a failure of the whole
request; a body that is not a roster is a 422 naming the field, and changes nothing.
"""

from __future__ import annotations

from typing import Any

from flask import jsonify, url_for
from flask.typing import ResponseReturnValue

from grader import accounts, sign_in_links
from grader.api import gradebook
from grader.api.schemas_base import no_query, query_model, read_body
from grader.api.schemas_roster import AccountChange, RosterRequest, SignInLinksRequest, UsersQuery
from grader.api.views import blueprint
from grader.api_errors import ApiError
from grader.auth import require_principal, require_role, require_user
from grader.courses import roster, roster_accounts
from grader.courses.roster import RosterRow
from grader.extensions import get_session
from grader.grading.access import Action
from grader.i18n import t
from grader.models import Course, EnrolmentRole, Role, User, iso_timestamp
from grader.sign_in_links import IssuedLink

REASON_PREFIX = "roster.err_"


def _row_json(row: RosterRow) -> dict[str, Any]:
    """One roster row: what confirming it does (create, enrol) or why it is refused (a stable code and words)."""
    outcome = "refused" if row.error is not None else "create" if row.creates else "enrol"
    return {
        "line": row.line,
        "username": row.username,
        "name": row.display_name,
        "outcome": outcome,
        "reason": None if row.error is None else row.error.removeprefix(REASON_PREFIX),
        "message": None if row.error is None else t(row.error, "en"),
    }


@blueprint.post("/courses/<int:course_id>/roster")
@require_user
@no_query
def post_roster(course_id: int) -> ResponseReturnValue:
    """Enrol the listed students as the roster upload does (creating missing accounts), or only check them."""
    session = get_session()
    course = gradebook.staff_course(session, require_principal(), course_id, Action.MANAGE_ROSTER)
    wanted = read_body(RosterRequest)
    entries = wanted.entries()
    if wanted.dry_run:
        rows = roster_accounts.check_entries(session, course, entries)
        return jsonify({"dry_run": True, "created": 0, "enrolled": 0, "rows": [_row_json(row) for row in rows]})
    created, enrolled, refused = roster_accounts.enrol_entries(session, course, entries)
    return jsonify(
        {
            "dry_run": False,
            "created": len(created),
            "enrolled": enrolled,
            "rows": [_row_json(row) for row in refused],
        }
    )


def _link_json(course: Course, issued: IssuedLink) -> dict[str, Any]:
    """A sign-in link just issued (its token is in the URL, and is shown this once)."""
    return {
        "username": issued.user.username,
        "name": issued.user.display_name,
        "url": url_for("web.sign_in_link", token=issued.token, _external=True),
        "expires_at": iso_timestamp(issued.link.expires_at),
    }


def _students_named(course: Course, names: list[str] | None) -> list[User]:
    """The course's students named in ``usernames`` (absent: those who have never chosen a password)."""
    session = get_session()
    if names is None:
        return roster_accounts.without_password(session, course)
    students = {user.username: user for user in roster.members(session, course, EnrolmentRole.STUDENT)}
    unknown = next((name for name in names if name not in students), None)
    if unknown is not None:
        message = f"'{unknown}' is not a student of this course."
        raise ApiError(422, "invalid_value", message, field="usernames")
    return [students[name] for name in dict.fromkeys(names)]


@blueprint.post("/courses/<int:course_id>/sign-in-links")
@require_user
@no_query
def post_sign_in_links(course_id: int) -> ResponseReturnValue:
    """New one-time sign-in links for students of the course (their earlier unused links stop working)."""
    session = get_session()
    principal = require_principal()
    course = gradebook.staff_course(session, principal, course_id, Action.MANAGE_ROSTER)
    users = _students_named(course, read_body(SignInLinksRequest).usernames)
    issued = sign_in_links.issue_links(session, users, principal.user)
    return jsonify({"links": [_link_json(course, one) for one in issued]})


def _account_json(user: User) -> dict[str, Any]:
    """A user as an administrator sees them."""
    return {
        "id": user.id,
        "username": user.username,
        "display_name": user.display_name,
        "role": user.role,
        "active": user.deactivated_at is None,
        "has_password": user.password_hash is not None,
    }


@blueprint.get("/admin/users")
@require_role(Role.ADMIN)
@query_model(UsersQuery)
def admin_users(query: UsersQuery) -> ResponseReturnValue:
    """Up to 50 users whose username or name contains ``q`` (administrators)."""
    return jsonify({"users": [_account_json(user) for user in accounts.find_users(get_session(), query.q)]})


@blueprint.patch("/admin/users/<int:user_id>")
@require_role(Role.ADMIN)
@no_query
def patch_admin_user(user_id: int) -> ResponseReturnValue:
    """Change a user's role and/or deactivate (or activate) the account (administrators)."""
    session = get_session()
    admin = require_principal().user
    wanted = read_body(AccountChange)
    role, active = wanted.role, wanted.active
    try:
        user = session.get(User, user_id)
        if user is None:
            raise ApiError(404, "not_found", f"No user {user_id}.")
        if role is not None:
            user = accounts.change_role(session, admin, user_id, role)
        if active is not None:
            user = accounts.set_active(session, admin, user_id, active)
    except accounts.AccountRefused as exc:
        session.rollback()
        field = "role" if exc.key == "admin.err_role" else "user_id"
        raise ApiError(422, "invalid_value", t(exc.key, "en"), field=field) from None
    return jsonify(_account_json(user))
