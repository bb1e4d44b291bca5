"""Building blocks of the OpenAPI document: references, responses, parameters, operations and shared schemas."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

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


def json_body(schema: str) -> JSONObject:
    """A required JSON request body described by the component schema ``schema``."""
    return {"required": True, "content": {"application/json": {"schema": ref(schema)}}}


def error_refs(*statuses: int) -> JSONObject:
    """References to the shared error responses."""
    return {str(status): {"$ref": f"#/components/responses/E{status}"} for status in statuses}


def query_param(name: str, schema: JSONObject, description: str) -> JSONObject:
    """An optional query parameter."""
    return {"name": name, "in": "query", "required": False, "schema": schema, "description": description}


def model_schemas(*models: type[BaseModel]) -> JSONObject:
    """``components.schemas`` entries generated from request models (``grader/api/schemas_*.py``), named by their
    class, with the models they refer to; pydantic's titles are dropped (the component's name says it)."""
    _, generated = models_json_schema(
        [(model, "validation") for model in models], ref_template="#/components/schemas/{model}"
    )
    return {name: _untitled(schema) for name, schema in generated.get("$defs", {}).items()}


def query_params(model: type[BaseModel]) -> list[JSONObject]:
    """The query parameters a query model declares, in its order: each field's schema and description as the model
    gives them (a default of None, "absent", is not shown)."""
    parameters = []
    for name, schema in model.model_json_schema()["properties"].items():
        schema = _untitled(schema)
        description = schema.pop("description", "")
        parameters.append(query_param(name, schema, description))
    return parameters


def _untitled(schema: JSONObject) -> JSONObject:
    """``schema`` without pydantic's generated ``title`` keys (in it and in its properties)."""
    # A default of None is "may be left out", which "required" already says.
    schema = {key: value for key, value in schema.items() if key != "title" and (key, value) != ("default", None)}
    if "properties" in schema:
        schema["properties"] = {name: _untitled(value) for name, value in schema["properties"].items()}
    return schema


def path_param(name: str, schema: JSONObject) -> JSONObject:
    """A path parameter."""
    return {"name": name, "in": "path", "required": True, "schema": schema}


def answer(schema: str | JSONObject, description: str, status: int = 200, headers: tuple[str, ...] = ()) -> JSONObject:
    """A success response ``{status: ...}`` with a JSON body: the component schema named ``schema``, or an inline
    one."""
    return {str(status): json_reply(ref(schema) if isinstance(schema, str) else schema, description, headers)}


def no_content(description: str) -> JSONObject:
    """A 204 success response (no body)."""
    return {"204": {"description": description}}


def operation(
    operation_id: str,
    summary: str,
    ok: JSONObject,
    errors: tuple[int, ...],
    *,
    path: tuple[JSONObject, ...] = (),
    query: type[BaseModel] | None = None,
    body: str | None = None,
    description: str | None = None,
    **extra: Any,
) -> JSONObject:
    """One operation (its id is the view function's name) with its success and shared error responses: its
    parameters are the ``path`` parameters, then those of the ``query`` model; ``body`` names the component
    schema of a required JSON request body; ``description``, prose beyond the summary."""
    parameters = [*path, *(query_params(query) if query is not None else ())]
    return {
        "operationId": operation_id,
        "summary": summary,
        **({"description": description} if description is not None else {}),
        **({"parameters": parameters} if parameters else {}),
        **({"requestBody": json_body(body)} if body is not None else {}),
        **extra,
        "responses": {**ok, **error_refs(*errors, 414, 500, 503)},
    }  # 414: grader.gunicorn_worker, any route


ID = {"type": "integer", "minimum": 1, "maximum": ROW_ID_MAX}
SEED = {"type": "integer", "minimum": 0, "maximum": SEED_LIMIT - 1}
# Printable ASCII, no space at either end (HTTP strips those, so a key must not depend on them).
IDEMPOTENCY_KEY = {"type": "string", "minLength": 1, "maxLength": 128, "pattern": "^[!-~]([ -~]*[!-~])?$"}

# The errors of an operation on a course's resource: a bad request, not signed in, not allowed, not found; one with a
# JSON body adds a wrong media type and an unacceptable body.
READ = (400, 401, 403, 404)
WRITE = (*READ, 415, 422)
ASSIGNMENT = (path_param("assignment_id", ID),)
COURSE = (path_param("course_id", ID),)
