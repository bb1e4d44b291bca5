"""API routes for a course's staff to give students their own terms on an assignment (extensions).

Each view parses, calls ``grader.grading.terms`` (where the rules are) and serialises; a refused extension is a 422
naming the field, and changes nothing.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from flask import jsonify
from flask.typing import ResponseReturnValue

from grader.api import body as parse
from grader.api import gradebook
from grader.api.views import blueprint
from grader.api_errors import ApiError
from grader.auth import require_principal, require_user
from grader.extensions import get_session
from grader.grading import terms
from grader.i18n import t
from grader.models import Extension, iso_timestamp, utcnow
from grader.models.extensions import REASON_MAX

EXTENSION_FIELDS = ("due_at", "extra_attempts", "reason")


def extension_json(extension: Extension) -> dict[str, Any]:
    """An extension as the API shows it."""
    return {
        "student_id": extension.user_id,
        "assignment_id": extension.assignment_id,
        "due_at": iso_timestamp(extension.due_at),
        "extra_attempts": extension.extra_attempts,
        "reason": extension.reason,
        "granted_by": extension.granted_by,
        "updated_at": iso_timestamp(extension.updated_at),
    }


def _instant(payload: dict[str, Any], name: str) -> datetime | None:
    """An optional ISO 8601 timestamp field with an offset (null or absent: None)."""
    value = payload.get(name)
    if value is None:
        return None
    try:
        moment = datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        moment = None
    if moment is None or moment.tzinfo is None:
        raise ApiError(
            422,
            "invalid_value",
            f"Field '{name}' must be an ISO 8601 time with an offset, e.g. 2026-12-08T23:59:00+08:00.",
            field=name,
        )
    return moment.astimezone(UTC)


def extension_request(payload: dict[str, Any]) -> terms.ExtensionRequest:
    """The extension a PUT body asks for (types checked here, the rules in ``terms``)."""
    extra = parse.optional_int(payload, "extra_attempts", 0, terms.MAX_EXTRA_ATTEMPTS + 1)
    reason = payload.get("reason") or ""
    if not isinstance(reason, str) or len(reason) > REASON_MAX:
        raise ApiError(
            422, "invalid_value", f"Field 'reason' must be a string of at most {REASON_MAX} characters.", field="reason"
        )
    return terms.ExtensionRequest(_instant(payload, "due_at"), extra or 0, reason.strip())


@blueprint.get("/assignments/<int:assignment_id>/extensions")
@require_user
@parse.query_parameters()
def list_extensions(assignment_id: int) -> ResponseReturnValue:
    """Every extension of the assignment, for its course's staff."""
    session = get_session()
    assignment = gradebook.staff_assignment(session, require_principal(), assignment_id)
    return jsonify({"extensions": [extension_json(e) for e in terms.extensions_of(session, assignment)]})


@blueprint.put("/assignments/<int:assignment_id>/extensions/<int:student_id>")
@require_user
@parse.query_parameters()
def put_extension(assignment_id: int, student_id: int) -> ResponseReturnValue:
    """Give a student a later due date and/or extra attempts (replacing any earlier extension)."""
    principal = require_principal()
    session = get_session()
    assignment = gradebook.staff_assignment(session, principal, assignment_id)
    wanted = extension_request(parse.read_json_object(EXTENSION_FIELDS))
    try:
        extension = terms.grant_extension(session, assignment, student_id, wanted, principal.user_id, utcnow())
    except terms.ExtensionRefused as exc:
        raise ApiError(
            422, "invalid_value", t(exc.key, "en", due=iso_timestamp(assignment.due_at)), field=exc.field
        ) from None
    return jsonify(extension_json(extension))


@blueprint.delete("/assignments/<int:assignment_id>/extensions/<int:student_id>")
@require_user
@parse.query_parameters()
def delete_extension(assignment_id: int, student_id: int) -> ResponseReturnValue:
    """Remove a student's extension: the assignment's own terms hold for them again."""
    session = get_session()
    assignment = gradebook.staff_assignment(session, require_principal(), assignment_id)
    if not terms.clear_extension(session, assignment, student_id, utcnow()):
        raise ApiError(404, "not_found", f"Student {student_id} has no extension on assignment {assignment_id}.")
    return "", 204
