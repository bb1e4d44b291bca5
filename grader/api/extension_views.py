"""API routes for a course's staff to give students their own terms on an assignment (extensions).

Each view parses, calls ``grader.grading.terms`` (where the rules are) and serialises; a refused extension is a 422
naming the field, and changes nothing.
"""

from __future__ import annotations

from typing import Any

from flask import jsonify
from flask.typing import ResponseReturnValue

from grader.api import gradebook
from grader.api.schemas_base import no_query, read_body
from grader.api.schemas_course import ExtensionRequest
from grader.api.views import blueprint
from grader.api_errors import ApiError
from grader.auth import require_principal, require_user
from grader.extensions import get_session
from grader.grading import terms
from grader.i18n import t
from grader.models import Extension, iso_timestamp, utcnow


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


@blueprint.get("/assignments/<int:assignment_id>/extensions")
@require_user
@no_query
def list_extensions(assignment_id: int) -> ResponseReturnValue:
    """Every extension of the assignment, for its course's staff."""
    session = get_session()
    assignment = gradebook.staff_assignment(session, require_principal(), assignment_id)
    return jsonify({"extensions": [extension_json(e) for e in terms.extensions_of(session, assignment)]})


@blueprint.put("/assignments/<int:assignment_id>/extensions/<int:student_id>")
@require_user
@no_query
def put_extension(assignment_id: int, student_id: int) -> ResponseReturnValue:
    """Give a student a later due date and/or extra attempts (replacing any earlier extension)."""
    principal = require_principal()
    session = get_session()
    assignment = gradebook.staff_assignment(session, principal, assignment_id)
    wanted = read_body(ExtensionRequest).wanted()
    try:
        extension = terms.grant_extension(session, assignment, student_id, wanted, principal.user_id, utcnow())
    except terms.ExtensionRefused as exc:
        raise ApiError(
            422, "invalid_value", t(exc.key, "en", due=iso_timestamp(assignment.due_at)), field=exc.field
        ) from None
    return jsonify(extension_json(extension))


@blueprint.delete("/assignments/<int:assignment_id>/extensions/<int:student_id>")
@require_user
@no_query
def delete_extension(assignment_id: int, student_id: int) -> ResponseReturnValue:
    """Remove a student's extension: the assignment's own terms hold for them again."""
    session = get_session()
    assignment = gradebook.staff_assignment(session, require_principal(), assignment_id)
    if not terms.clear_extension(session, assignment, student_id, utcnow()):
        raise ApiError(404, "not_found", f"Student {student_id} has no extension on assignment {assignment_id}.")
    return "", 204
