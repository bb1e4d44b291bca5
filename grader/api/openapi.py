"""The OpenAPI 3 description of API v1, written as data and served at /api/v1/openapi.json."""

from __future__ import annotations

from exercises import api as engine
from grader.api.openapi_common import (
    BILINGUAL,
    ID,
    IDEMPOTENCY_KEY,
    LANG,
    NULLABLE,
    SEED,
    SEED_TEXT,
    TIME,
    JSONObject,
    json_reply,
    operation,
    path_param,
    query_param,
    ref,
)
from grader.api.openapi_course import COURSE_PATHS, COURSE_SCHEMAS
from grader.api.openapi_lms_sync import SYNC_PATHS, SYNC_SCHEMAS
from grader.routing import ROW_ID_MAX

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

# What a part's or an error's texts are made of: message ids with their arguments, the same in every language (the
# texts beside them are rendered from these in the language asked for). Absent on results graded before engine 1.11.
MEANING = {
    "type": "object",
    "description": "By text (feedback, read; message): the messages it is made of, ids with their arguments.",
    "additionalProperties": {
        "type": "array",
        "items": {
            "type": "object",
            "required": ["id"],
            "properties": {"id": {"type": "string"}, "args": {"type": "object"}},
        },
    },
}

ASSIGNMENT_FIELDS = [
    "id",
    "course_id",
    "title",
    "exercise_ids",
    "opens_at",
    "due_at",
    "attempts_allowed",
    "score_policy",
    "answer_key_policy",
    "fresh_variants",
    "updated_at",
]
SCHEMAS: JSONObject = {
    "Error": {
        "type": "object",
        "required": ["error"],
        "properties": {
            "error": {
                "type": "object",
                "required": ["code", "message", "field"],
                "properties": {
                    "code": {"type": "string", "description": "Stable machine-readable code."},
                    "message": {"type": "string"},
                    "field": {"type": ["string", "null"], "description": "Offending field, parameter or header."},
                    "errors": {"type": "array", "items": ref("AnswerError"), "description": "invalid_answer only."},
                    "interpreted": {"type": "object", "description": "invalid_answer only: what could be read."},
                    "retry_after": {"type": "integer", "description": "rate_limited only: seconds."},
                },
            }
        },
    },
    "AnswerError": {
        "type": "object",
        "properties": {
            "field": {"type": ["string", "null"]},
            "message": {"type": "string"},
            "position": {"type": ["integer", "null"]},
            "interpreted": {"type": ["string", "null"]},
            "meaning": MEANING,
        },
    },
    "Me": {
        "type": "object",
        "properties": {
            "id": {"type": "integer"},
            "username": {"type": "string"},
            "display_name": {"type": "string"},
            "role": {
                "type": "string",
                "enum": ["student", "teacher", "admin"],
                "description": "Role this request acts with.",
            },
            "account_role": {"type": "string"},
            "auth": {"type": "string", "enum": ["token", "session"]},
        },
    },
    "Assignment": {
        "type": "object",
        "required": ASSIGNMENT_FIELDS,
        "properties": {
            "id": {"type": "integer"},
            "course_id": {"type": "integer"},
            "title": {"type": "string"},
            "exercise_ids": {"type": "array", "items": {"type": "string"}},
            "opens_at": TIME,
            "due_at": TIME,
            "attempts_allowed": {"type": ["integer", "null"]},
            "score_policy": {"type": "string", "enum": ["best", "last"]},
            "answer_key_policy": {"type": "string", "enum": ["after_due", "after_attempts", "never", "always"]},
            "late_until": {**TIME, "description": "Late work is taken until then (null: nothing after the due date)."},
            "late_penalty_per_day": {
                "type": "number",
                "minimum": 0,
                "maximum": 100,
                "description": "Percent off the counted score per started day late.",
            },
            "late_cap": {
                "type": ["number", "null"],
                "minimum": 0,
                "maximum": 100,
                "description": "Percent: a late answer counts at most this much.",
            },
            "fresh_variants": {
                "type": "boolean",
                "description": "True: each student's variants are this assignment's own "
                "(GET /exercises/{exercise_id}/variant?assignment=<id>); false: shared with the other "
                "assignments that share.",
            },
            "updated_at": {
                "type": "string",
                "format": "date-time",
                "description": "When a setting last changed. A new "
                "score policy or exercise list changes students' counted totals without a grade-change "
                "entry: re-read the assignment's gradebook when this moves.",
            },
        },
    },
    "Course": {
        "type": "object",
        "required": ["id", "code", "title", "role", "time_zone", "archived_at", "assignments"],
        "properties": {
            "id": {"type": "integer"},
            "code": {"type": "string"},
            "title": {"type": "string"},
            "role": {"type": "string", "enum": ["student", "teacher", "admin"]},
            "time_zone": {
                "type": "string",
                "description": "IANA zone the course's pages show times in (times in this API are UTC).",
            },
            "archived_at": {
                "type": ["string", "null"],
                "format": "date-time",
                "description": "Set once archived: read-only, submissions get 403 course_archived.",
            },
            "assignments": {"type": "array", "items": ref("Assignment")},
        },
    },
    "Field": {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "kind": {"type": "string"},
            "weight": {"type": "number"},
            "label": BILINGUAL,
            "hint": BILINGUAL,
        },
    },
    "Exercise": {
        "type": "object",
        "properties": {
            "id": {"type": "string"},
            "chapter": {"type": "string"},
            "title": BILINGUAL,
            "graded": {"type": "boolean"},
            "fields": {"type": "array", "items": ref("Field")},
        },
    },
    "Variant": {
        "type": "object",
        "required": ["exercise_id", "engine_version", "data", "prompt", "fields"],
        "properties": {
            "exercise_id": {"type": "string"},
            "seed": {**SEED, "description": "Absent for students, and for teachers who study a course that sets it."},
            "engine_version": {"type": "string"},
            "lang": {"type": "string"},
            "data": {"type": "object"},
            "prompt": {"type": "string"},
            "fields": {"type": "array", "items": ref("Field")},
        },
    },
    "Validation": {
        "type": "object",
        "properties": {
            "status": {"type": "string", "enum": ["valid", "invalid"]},
            "parsed": {"type": "object"},
            "interpreted": {"type": "object", "additionalProperties": {"type": "string"}},
            "errors": {"type": "array", "items": ref("AnswerError")},
        },
    },
    "Part": {
        "type": "object",
        "properties": {
            "score": {"type": "number"},
            "correct": {"type": "boolean"},
            "feedback": {"type": "string"},
            "misconception": {"type": ["string", "null"]},
            "tags": {"type": "array", "items": {"type": "string"}},
            "follow_through": {"type": ["boolean", "null"]},
            "read": {},
            "meaning": MEANING,
        },
    },
    "Submission": {
        "type": "object",
        "required": ["id", "exercise_id", "status", "created_at"],
        "properties": {
            "id": {"type": "integer"},
            "exercise_id": {"type": "string"},
            "seed": {**SEED, "description": "Admins, and teachers of the assignment's course (own tries outside one)."},
            "seed_text": SEED_TEXT,
            "lang": {"type": "string", "description": "The language the answer was submitted in."},
            "feedback_lang": {
                "type": "string",
                "description": "The language of the feedback texts in parts and errors.",
            },
            "assignment_id": {"type": ["integer", "null"]},
            "user": {"type": "object", "properties": {"id": {"type": "integer"}, "username": {"type": "string"}}},
            "status": {"type": "string", "enum": ["queued", "grading", "graded", "invalid", "error"]},
            "score": {"type": ["number", "null"], "minimum": 0, "maximum": 1},
            "engine_version": {"type": ["string", "null"]},
            "parts": {"type": "object", "additionalProperties": ref("Part")},
            "errors": {"type": "array", "items": ref("AnswerError")},
            "parsed": {},
            "raw_answer": {"type": "object"},
            "error_message": {"type": ["string", "null"]},
            "attempts": {
                "type": "integer",
                "description": "How many times the workers have tried to grade it (a try "
                "lost or failed is retried). Not the student's attempt number: see attempts_used in Progress.",
            },
            "answer_key": {
                "type": "object",
                "description": "Only when the assignment's key rule allows (admins and the course's teachers: always).",
            },
            "created_at": TIME,
            "queued_at": TIME,
            "started_at": TIME,
            "finished_at": TIME,
        },
    },
    "SubmissionSummary": {
        "type": "object",
        "properties": {
            "id": {"type": "integer"},
            "exercise_id": {"type": "string"},
            "assignment_id": {"type": ["integer", "null"]},
            "user": {"type": "object"},
            "status": {"type": "string"},
            "score": {"type": ["number", "null"]},
            "engine_version": {"type": ["string", "null"]},
            "seed": {**SEED, "description": "As in Submission."},
            "seed_text": SEED_TEXT,
            "created_at": TIME,
            "finished_at": TIME,
        },
    },
    "SubmissionRequest": {
        "type": "object",
        "required": ["exercise_id", "answer"],
        "additionalProperties": False,
        "properties": {
            "exercise_id": {"type": "string"},
            "answer": {"type": "object"},
            "lang": {"type": "string", "enum": ["zh", "en"]},
            "assignment_id": {**ID, **NULLABLE, "description": "Required for students (422 without it)."},
            "seed": {
                **SEED,
                **NULLABLE,
                "description": "Admins; teachers outside any assignment or with an "
                "assignment of a course they teach (anyone else: 403 seed_not_allowed). A "
                "teacher enrolled as a student in a course that sets the exercise must send "
                "one there (422 without it), or submit to that course as a student.",
            },
        },
    },
    "ValidateRequest": {
        "type": "object",
        "required": ["exercise_id", "answer"],
        "additionalProperties": False,
        "description": "A submission's body also reads: assignment_id and seed are allowed.",
        "properties": {
            "exercise_id": {"type": "string"},
            "answer": {"type": "object"},
            "lang": {"type": "string", "enum": ["zh", "en"]},
            "assignment_id": {
                **ID,
                **NULLABLE,
                "description": "Checked; a teacher who does not teach its course reads as its students do.",
            },
            "seed": {
                **SEED,
                **NULLABLE,
                "description": "Teachers and admins: the variant to read "
                "the answer on. Ignored for students (their own variant).",
            },
        },
    },
    "Progress": {
        "type": "object",
        "properties": {
            "assignment": ref("Assignment"),
            "student": {"type": "object"},
            "exercises": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "exercise_id": {"type": "string"},
                        "attempts_used": {"type": "integer"},
                        "attempts_left": {"type": ["integer", "null"]},
                        "score": {"type": ["number", "null"]},
                        "best_score": {"type": ["number", "null"]},
                        "last_score": {"type": ["number", "null"]},
                        "last_status": {"type": ["string", "null"]},
                        "late": {
                            "type": ["object", "null"],
                            "description": "The counted attempt came late (its penalty is in "
                            "score; best_score and last_score are the engine's).",
                        },
                    },
                },
            },
            "terms": ref("Terms"),
        },
    },
    **SYNC_SCHEMAS,
    **COURSE_SCHEMAS,
}


HEADERS: JSONObject = {
    "Location": {"schema": {"type": "string"}, "description": "The submission's URL, /api/v1/submissions/{id}."},
    "Idempotent-Replayed": {
        "schema": {"type": "string", "enum": ["true"]},
        "description": "The Idempotency-Key was used before: this is that earlier submission.",
    },
    "Preference-Applied": {
        "schema": {"type": "string"},
        "description": "wait=N: the Prefer: wait this reply honoured.",
    },
    "Retry-After": {"schema": {"type": "integer"}, "description": "Seconds to wait before trying again."},
    "WWW-Authenticate": {"schema": {"type": "string"}, "description": 'The challenge: Bearer realm="grader".'},
}
ERROR_HEADERS = {401: ("WWW-Authenticate",), 429: ("Retry-After",), 503: ("Retry-After",)}


JSON_BODY = {"required": True, "content": {"application/json": {"schema": ref("SubmissionRequest")}}}
SUBMITTED = ("Location", "Preference-Applied")
PATHS: JSONObject = {
    "/api/v1/openapi.json": {
        "get": operation(
            "openapi_json",
            "This document.",
            {"200": json_reply({"type": "object"}, "OpenAPI 3.1")},
            (400,),
            security=[],
        )
    },
    "/api/v1/me": {"get": operation("me", "The caller.", {"200": json_reply(ref("Me"), "The caller")}, (400, 401))},
    "/api/v1/courses": {
        "get": operation(
            "courses",
            "The caller's courses (admins: all).",
            {
                "200": json_reply(
                    {"type": "object", "properties": {"courses": {"type": "array", "items": ref("Course")}}}, "Courses"
                )
            },
            (400, 401),
            parameters=[LANG],
        )
    },
    "/api/v1/exercises": {
        "get": operation(
            "exercises",
            "All exercises (public).",
            {
                "200": json_reply(
                    {
                        "type": "object",
                        "properties": {
                            "engine_version": {"type": "string"},
                            "exercises": {"type": "array", "items": ref("Exercise")},
                        },
                    },
                    "Exercises",
                )
            },
            (400,),
            security=[],
        )
    },
    "/api/v1/exercises/{exercise_id}/variant": {
        "get": operation(
            "own_variant",
            "The caller's own assigned variant (server-chosen seed, never the answer).",
            {
                "200": json_reply(ref("Variant"), "Variant"),
                "403": json_reply(
                    ref("Error"),
                    "not_open: every assignment of the student's (or of a teacher's enrolled as a "
                    "student) that sets the exercise is still to open (one open or past assignment "
                    "is enough to see it)",
                ),
            },
            (400, 401, 404),
            parameters=[
                path_param("exercise_id", {"type": "string"}),
                LANG,
                query_param(
                    "assignment",
                    ID,
                    "The variant in this assignment of the caller's (its own if it has fresh variants; "
                    "404 naming 'assignment' if it is not one of theirs that sets the exercise). "
                    "Without it, the variant the caller's assignments share.",
                ),
            ],
        )
    },
    "/api/v1/exercises/{exercise_id}/variants/{seed}": {
        "get": operation(
            "any_variant",
            "Any variant by seed (teachers and admins).",
            {"200": json_reply(ref("Variant"), "Variant")},
            (400, 401, 403, 404),
            parameters=[path_param("exercise_id", {"type": "string"}), path_param("seed", SEED), LANG],
        )
    },
    "/api/v1/validate": {
        "post": operation(
            "validate",
            "Read an answer without grading it (no attempt used), on the variant it would be graded on: a "
            "student's own, or the seed a teacher or token sends (without one, only what the text alone tells).",
            {
                "200": json_reply(ref("Validation"), "Reading"),
                "403": json_reply(
                    ref("Error"),
                    "not_open: the answer would be read on the student's own variant, and every "
                    "assignment of theirs that sets the exercise is still to open; csrf_failed: a "
                    "session-authenticated request without the X-CSRF-Token header",
                ),
            },
            (400, 401, 404, 413, 415, 422, 429),
            requestBody={"required": True, "content": {"application/json": {"schema": ref("ValidateRequest")}}},
        )
    },
    "/api/v1/submissions": {
        "post": operation(
            "create_submission",
            "Submit an answer; validated first (unreadable: 422, nothing stored), then queued for grading.",
            {
                "202": json_reply(
                    ref("Submission"), "Queued (row committed); with Prefer: wait=N, not final within N s", SUBMITTED
                ),
                "200": json_reply(
                    ref("Submission"),
                    "Repeated Idempotency-Key: the earlier submission; or, with "
                    "Prefer: wait=N, the submission once final (graded, invalid or error)",
                    (*SUBMITTED, "Idempotent-Replayed"),
                ),
            },
            (400, 401, 403, 404, 409, 413, 415, 422, 429),
            requestBody=JSON_BODY,
            parameters=[
                {
                    "name": "Idempotency-Key",
                    "in": "header",
                    "required": False,
                    "schema": IDEMPOTENCY_KEY,
                    "description": "Scoped per user: a key repeated by the same user returns that user's "
                    "earlier submission (200, or 409 for another body); another user's same "
                    "key is unrelated.",
                },
                {
                    "name": "Prefer",
                    "in": "header",
                    "required": False,
                    "schema": {"type": "string"},
                    "description": "wait=N (RFC 7240): hold the reply up to N seconds (at most 10) until the "
                    "grade is in, so one request submits and returns the grade. Other "
                    "preferences are ignored; a non-integer N is a 400.",
                },
            ],
        ),
        "get": operation(
            "list_submissions",
            "Submissions the caller may read: newest first (pages by offset, or by before_id, "
            "which new submissions cannot shift), or oldest first after after_id (incremental sync). before_id and "
            "after_id together, or either with a non-zero offset, is a 400 naming after_id or offset.",
            {
                "200": json_reply(
                    {
                        "type": "object",
                        "properties": {
                            "submissions": {"type": "array", "items": ref("SubmissionSummary")},
                            "total": {
                                "type": "integer",
                                "description": "All the submissions the filters match, whatever the offset or cursor.",
                            },
                            "limit": {"type": "integer"},
                            "offset": {"type": "integer"},
                            "next_before_id": {
                                "type": ["integer", "null"],
                                "description": "Newest first: the last row's id when "
                                "older rows follow (send it as before_id for the next page); else null.",
                            },
                            "next_after_id": {
                                "type": ["integer", "null"],
                                "description": "With after_id: the id to send as "
                                "after_id next (the last row's, or after_id itself when no row came); else null.",
                            },
                        },
                    },
                    "A page",
                )
            },
            (400, 401),
            parameters=[
                query_param("course", ID, "Course id."),
                query_param("assignment", ID, "Assignment id."),
                query_param("student", ID, "Student user id."),
                query_param("exercise", {"type": "string", "minLength": 1, "maxLength": 64}, "Exercise id."),
                query_param(
                    "status", {"type": "string", "enum": ["queued", "grading", "graded", "invalid", "error"]}, "Status."
                ),
                query_param("limit", {"type": "integer", "minimum": 1, "maximum": 200, "default": 50}, "Page size."),
                query_param(
                    "offset", {"type": "integer", "minimum": 0, "maximum": 2**62, "default": 0}, "Rows to skip."
                ),
                query_param("before_id", ID, "Only submissions with a smaller id, newest first."),
                query_param(
                    "after_id",
                    {"type": "integer", "minimum": 0, "maximum": ROW_ID_MAX},
                    "Only submissions with a larger id, oldest first (0: from the first). New rows, "
                    "not changes: a later grade or regrade of a row listed before comes through GET "
                    "/api/v1/grade-changes. Ids are taken when a row is inserted and rows appear when "
                    "it commits, so two submissions at the same moment can appear out of id order: a "
                    "client that must miss none asks again from an id it saw a few seconds before the "
                    "newest and skips the ids it has.",
                ),
            ],
        ),
    },
    "/api/v1/submissions/{submission_id}": {
        "get": operation(
            "get_submission",
            "One submission, optionally waiting for its grade.",
            {"200": json_reply(ref("Submission"), "Submission")},
            (400, 401, 404),
            parameters=[
                path_param("submission_id", ID),
                query_param(
                    "wait",
                    {"type": "number", "minimum": 0, "maximum": 10, "default": 0},
                    "Hold the request up to this many seconds until the submission is final.",
                ),
                query_param(
                    "lang",
                    {"type": "string", "enum": ["zh", "en"]},
                    "Feedback texts in this language (the verdict is the stored one); default: as submitted.",
                ),
            ],
        )
    },
    "/api/v1/assignments/{assignment_id}/progress": {
        "get": operation(
            "assignment_progress",
            "Progress per exercise (own; teachers of the course may pass ?student=).",
            {"200": json_reply(ref("Progress"), "Progress")},
            (400, 401, 403, 404),
            parameters=[
                path_param("assignment_id", ID),
                query_param("student", ID, "Student user id (teachers)."),
                LANG,
            ],
        )
    },
    **SYNC_PATHS,
    **COURSE_PATHS,
}


def document() -> JSONObject:
    """The OpenAPI document for API v1."""
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
        "paths": PATHS,
        "components": {
            "schemas": SCHEMAS,
            "responses": {
                f"E{status}": json_reply(ref("Error"), text, ERROR_HEADERS.get(status, ()))
                for status, text in ERROR_MEANINGS.items()
            },
            "headers": HEADERS,
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
