"""Building blocks of the OpenAPI document: references, responses, parameters, operations and shared schemas."""

from __future__ import annotations

from typing import Any

from exercises.api import SEED_LIMIT
from grader.routing import ROW_ID_MAX

JSONObject = dict[str, Any]


def ref(name: str) -> JSONObject:
    """A reference to a component schema."""
    return {"$ref": f"#/components/schemas/{name}"}


def json_reply(schema: JSONObject, description: str, headers: tuple[str, ...] = ()) -> JSONObject:
    """A response with a JSON body, and the response headers (components) it may carry."""
    response: JSONObject = {"description": description, "content": {"application/json": {"schema": schema}}}
    if headers:
        response["headers"] = {name: {"$ref": f"#/components/headers/{name}"} for name in headers}
    return response


def error_refs(*statuses: int) -> JSONObject:
    """References to the shared error responses."""
    return {str(status): {"$ref": f"#/components/responses/E{status}"} for status in statuses}


def query_param(name: str, schema: JSONObject, description: str) -> JSONObject:
    """An optional query parameter."""
    return {"name": name, "in": "query", "required": False, "schema": schema, "description": description}


def path_param(name: str, schema: JSONObject) -> JSONObject:
    """A path parameter."""
    return {"name": name, "in": "path", "required": True, "schema": schema}


def operation(operation_id: str, summary: str, ok: JSONObject, errors: tuple[int, ...], **extra: Any) -> JSONObject:
    """One operation (its id is the view function's name) with its success and shared error responses."""
    return {
        "operationId": operation_id,
        "summary": summary,
        **extra,
        "responses": {**ok, **error_refs(*errors, 414, 500, 503)},
    }  # 414: grader.gunicorn_worker, any route


LANG = query_param(
    "lang", {"type": "string", "enum": ["zh", "en"], "default": "zh"}, "Language of prompts and messages."
)
ID = {"type": "integer", "minimum": 1, "maximum": ROW_ID_MAX}
CURSOR = {"type": "integer", "minimum": 0, "maximum": ROW_ID_MAX}
SEED = {"type": "integer", "minimum": 0, "maximum": SEED_LIMIT - 1}
SEED_TEXT = {
    "type": "string",
    "pattern": "^[0-9]{1,19}$",
    "description": "The seed as decimal text, wherever seed is given: seeds go up to 2^63 − 1, past 2^53, "
    "where a JavaScript number stops being exact (JSON.parse would change the seed).",
}
TIME = {"type": ["string", "null"], "format": "date-time"}
# Optional body fields read null as absent ("no seed"); merged after ID or SEED.
NULLABLE = {"type": ["integer", "null"]}
# Printable ASCII, no space at either end (HTTP strips those, so a key must not depend on them).
IDEMPOTENCY_KEY = {"type": "string", "minLength": 1, "maxLength": 128, "pattern": "^[!-~]([ -~]*[!-~])?$"}
BILINGUAL = {"type": "object", "properties": {"zh": {"type": "string"}, "en": {"type": "string"}}}
