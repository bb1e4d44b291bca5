"""The OpenAPI 3 description of API v1, served at /api/v1/openapi.json: the paths and their prose written here as
data, keyed by the view's name; each route's path and path parameters taken from its URL rule, its header and query
parameters and the component schemas generated from the models its view reads and answers (schemas_*.py)."""

from __future__ import annotations

from flask import Flask

from exercises import api as engine
from grader.api.openapi_common import (
    READ,
    JSONObject,
    answer,
    bind,
    json_reply,
    model_schemas,
    openapi_path,
    operation,
    ref,
)
from grader.api.openapi_course import COURSE_OPERATIONS
from grader.api.openapi_lms_sync import SYNC_OPERATIONS
from grader.api.openapi_roster import ROSTER_OPERATIONS, ROSTER_SCHEMAS
from grader.api.openapi_staff import STAFF_OPERATIONS, STAFF_SCHEMAS
from grader.api.schemas_course import ExtensionRequest, OverrideRequest
from grader.api.schemas_headers import (
    IDEMPOTENT_REPLAYED,
    LOCATION,
    PREFERENCE_APPLIED,
    RESPONSE_HEADERS,
    RETRY_AFTER,
    WWW_AUTHENTICATE,
)
from grader.api.schemas_pages import PAGES
from grader.api.schemas_responses import RESPONSES
from grader.api.schemas_responses_course import COURSE_RESPONSES
from grader.api.schemas_submissions import SubmissionRequest, ValidateRequest
from grader.api_errors import BLUEPRINT

ERROR_MEANINGS = {
    400: "Malformed request: bad JSON, NaN/Infinity, a bad header, or a query parameter that is bad, not one the "
    "operation reads (unknown_parameter) or sent twice (repeated_parameter); field names it.",
    401: "Not authenticated: no session and no live bearer token (unknown, revoked or expired; which is not said).",
    403: "Authenticated but not allowed (role, assignment not open or past due, a seed from someone who does not "
    "teach the assignment's course, a course's student asking for its roster or gradebook, csrf_failed for a "
    "session without X-CSRF-Token).",
    404: "No such resource, or not visible to the caller.",
    409: "Conflict: Idempotency-Key reused for another body, or attempts exhausted.",
    413: "Request body larger than MAX_CONTENT_LENGTH.",
    414: "Request line (path and query string) over the web server's limit of 4094 bytes (code uri_too_long, field "
    "query): answered by the server before the operation runs; send long inputs in a POST body.",
    415: "Body is not application/json (field: Content-Type).",
    422: "Well-formed but unacceptable: wrong types, unknown fields or exercises, an unreadable answer, a key given "
    "twice in one JSON object (field names it, e.g. answer.pairs).",
    429: "Rate limited; see the Retry-After header.",
    500: "Internal error (JSON body, no stack trace).",
    503: "The database is briefly unreachable; nothing was stored. Retry after the Retry-After header's seconds.",
}

# Generated from the models the routes read and answer (grader/api/schemas_*.py).
SCHEMAS: JSONObject = {
    **model_schemas(
        *RESPONSES, *COURSE_RESPONSES, *PAGES, SubmissionRequest, ValidateRequest, ExtensionRequest, OverrideRequest
    ),
    **ROSTER_SCHEMAS,
    **STAFF_SCHEMAS,
}


ERROR_HEADERS = {401: (WWW_AUTHENTICATE.name,), 429: (RETRY_AFTER.name,), 503: (RETRY_AFTER.name,)}
SUBMITTED = (LOCATION.name, PREFERENCE_APPLIED.name)
OPERATIONS: tuple[JSONObject, ...] = (
    operation(
        "openapi_json",
        "This document.",
        answer({"type": "object"}, "OpenAPI 3.1"),
        (400,),
        security=[],
    ),
    operation("me", "The caller.", answer("Me", "The caller"), (400, 401)),
    operation(
        "courses",
        "The caller's courses (admins: all).",
        answer("CourseList", "Courses"),
        (400, 401),
    ),
    operation(
        "exercises",
        "All exercises (public).",
        answer("ExerciseList", "Exercises"),
        (400,),
        security=[],
    ),
    operation(
        "own_variant",
        "The caller's own assigned variant (server-chosen seed, never the answer).",
        {
            **answer("Variant", "Variant"),
            **answer(
                "Error",
                "not_open: every assignment of the student's (or of a teacher's enrolled as a "
                "student) that sets the exercise is still to open (one open or past assignment "
                "is enough to see it)",
                403,
            ),
        },
        (400, 401, 404, 422),
    ),
    operation(
        "any_variant",
        "Any variant by seed (teachers and admins).",
        answer("Variant", "Variant"),
        READ,
    ),
    operation(
        "validate",
        "Read an answer without grading it (no attempt used), on the variant it would be graded on: a "
        "student's own, or the seed a teacher or token sends (without one, only what the text alone tells).",
        {
            **answer("Validation", "Reading"),
            **answer(
                "Error",
                "not_open: the answer would be read on the student's own variant, and every "
                "assignment of theirs that sets the exercise is still to open; csrf_failed: a "
                "session-authenticated request without the X-CSRF-Token header",
                403,
            ),
        },
        (400, 401, 404, 413, 415, 422, 429),
        body="ValidateRequest",
    ),
    operation(
        "create_submission",
        "Submit an answer; validated first (unreadable: 422, nothing stored), then queued for grading.",
        {
            **answer("Submission", "Queued (row committed); with Prefer: wait=N, not final within N s", 202, SUBMITTED),
            **answer(
                "Submission",
                "Repeated Idempotency-Key: the earlier submission; or, with "
                "Prefer: wait=N, the submission once final (graded, invalid or error)",
                200,
                (*SUBMITTED, IDEMPOTENT_REPLAYED.name),
            ),
        },
        (400, 401, 403, 404, 409, 413, 415, 422, 429),
        body="SubmissionRequest",
    ),
    operation(
        "list_submissions",
        "Submissions the caller may read: newest first (pages by offset, or by before_id, "
        "which new submissions cannot shift), or oldest first after after_id (incremental sync). before_id and "
        "after_id together, or either with a non-zero offset, is a 400 naming after_id or offset.",
        answer("SubmissionPage", "A page"),
        (400, 401),
    ),
    operation(
        "get_submission",
        "One submission, optionally waiting for its grade.",
        answer("Submission", "Submission"),
        (400, 401, 404),
    ),
    operation(
        "assignment_progress",
        "Progress per exercise (own; teachers of the course may pass ?student=).",
        answer("Progress", "Progress"),
        READ,
    ),
    *SYNC_OPERATIONS,
    *COURSE_OPERATIONS,
    *ROSTER_OPERATIONS,
    *STAFF_OPERATIONS,
)


def paths(app: Flask) -> JSONObject:
    """The document's paths: each route of the API blueprint, at its rule's path, bound to its described operation
    (by the view's name). A route without a description, or a description without a route, is a LookupError."""
    described = {operation["operationId"]: operation for operation in OPERATIONS}
    found: JSONObject = {}
    for rule in app.url_map.iter_rules():
        blueprint, _, name = rule.endpoint.rpartition(".")
        if blueprint != BLUEPRINT:
            continue
        if name not in described:
            raise LookupError(f"The route {rule.rule} ({name}) is not described in the OpenAPI document.")
        operation = bind(described.pop(name), rule, app.view_functions[rule.endpoint], app.url_map.converters)
        for method in sorted((rule.methods or set()) - {"HEAD", "OPTIONS"}):
            found.setdefault(openapi_path(rule), {})[method.lower()] = operation
    if described:
        raise LookupError(f"Described operations with no route: {', '.join(sorted(described))}.")
    return found


def document(app: Flask) -> JSONObject:
    """The OpenAPI document for API v1 as ``app`` serves it."""
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Seq2seq and attention grader API",
            "version": "1",
            "description": f'Engine {engine.ENGINE_VERSION}. Errors: {{"error": {{code, message, field}}}}. '
            "A method a path does not list answers 405 with that body and an Allow header; "
            "OPTIONS answers 200 with the Allow header and no body. No CORS headers are sent: "
            "the API is for servers (an LMS) and for the app's own pages.",
        },
        "servers": [{"url": "/"}],
        "security": [{"bearer": []}, {"session": []}],
        "paths": paths(app),
        "components": {
            "schemas": SCHEMAS,
            "responses": {
                f"E{status}": json_reply(ref("Error"), text, ERROR_HEADERS.get(status, ()))
                for status, text in ERROR_MEANINGS.items()
            },
            "headers": {header.name: header.component() for header in RESPONSE_HEADERS},
            "securitySchemes": {
                "bearer": {"type": "http", "scheme": "bearer", "description": "API token."},
                "session": {
                    "type": "apiKey",
                    "in": "cookie",
                    "name": "session",
                    "description": "Web session; unsafe methods also need the X-CSRF-Token header.",
                },
            },
        },
    }
