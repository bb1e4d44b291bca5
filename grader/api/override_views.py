"""API routes for a course's staff to correct a student's counted score (an override), with a reason.

Each view parses, calls ``grader.grading.overrides`` (where the rules are) and serialises; a refused override is a
422 naming the field, and changes nothing.
"""

from __future__ import annotations

from flask import jsonify
from flask.typing import ResponseReturnValue

from grader.api import gradebook
from grader.api.schemas_base import no_query, query_model, read_body
from grader.api.schemas_course import OverrideQuery, OverrideRequest
from grader.api.serialise import override_json
from grader.api.views import blueprint
from grader.api_errors import ApiError
from grader.auth import require_principal, require_user
from grader.extensions import get_session
from grader.grading import overrides
from grader.i18n import t
from grader.models import utcnow


@blueprint.get("/assignments/<int:assignment_id>/overrides")
@require_user
@no_query
def list_overrides(assignment_id: int) -> ResponseReturnValue:
    """Every override of the assignment, for its course's staff."""
    session = get_session()
    assignment = gradebook.staff_assignment(session, require_principal(), assignment_id)
    return jsonify({"overrides": [override_json(o) for o in overrides.overrides_of(session, assignment).values()]})


@blueprint.put("/assignments/<int:assignment_id>/overrides/<int:student_id>")
@require_user
@no_query
def put_override(assignment_id: int, student_id: int) -> ResponseReturnValue:
    """Set a student's counted score on one exercise (or the total, exercise_id ""), with a reason."""
    principal = require_principal()
    session = get_session()
    assignment = gradebook.staff_assignment(session, principal, assignment_id)
    wanted = read_body(OverrideRequest).wanted()
    try:
        row = overrides.set_override(session, assignment, student_id, wanted, f"user:{principal.username}", utcnow())
    except overrides.OverrideRefused as exc:
        raise ApiError(422, "invalid_value", t(exc.key, "en"), field=exc.field) from None
    return jsonify(override_json(row))


@blueprint.delete("/assignments/<int:assignment_id>/overrides/<int:student_id>")
@require_user
@query_model(OverrideQuery)
def delete_override(query: OverrideQuery, assignment_id: int, student_id: int) -> ResponseReturnValue:
    """Clear a student's override (``?exercise_id=``; absent: the total's): what the engine counted counts again."""
    principal = require_principal()
    session = get_session()
    assignment = gradebook.staff_assignment(session, principal, assignment_id)
    exercise_id = query.exercise_id
    if not overrides.clear_override(
        session, assignment, student_id, exercise_id, f"user:{principal.username}", utcnow()
    ):
        raise ApiError(404, "not_found", f"Student {student_id} has no override of '{exercise_id}' here.")
    return "", 204
