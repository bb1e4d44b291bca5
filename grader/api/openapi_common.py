"""Building blocks of the OpenAPI document: references, responses, parameters, operations and shared schemas."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema
from werkzeug.routing import BaseConverter, Rule, UnicodeConverter

from exercises.api import SEED_LIMIT
from grader.routing import ROW_ID_MAX, RowIdConverter, SeedConverter

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


def optional_param(name: str, where: str, schema: JSONObject, description: str) -> JSONObject:
    """An optional parameter ``where`` (query or header)."""
    return {"name": name, "in": where, "required": False, "schema": schema, "description": description}


def model_schemas(*models: type[BaseModel]) -> JSONObject:
    """``components.schemas`` entries generated from request models (``grader/api/schemas_*.py``), named by their
    class, with the models they refer to; pydantic's titles are dropped (the component's name says it)."""
    _, generated = models_json_schema(
        [(model, "validation") for model in models], ref_template="#/components/schemas/{model}"
    )
    return {name: _untitled(schema) for name, schema in generated.get("$defs", {}).items()}


def query_params(model: type[BaseModel], where: str = "query") -> list[JSONObject]:
    """The query parameters a query model declares (or, ``where="header"``, the headers a header model declares, by
    their HTTP names), in its order: each field's schema and description as the model gives them (a default of
    None, "absent", is not shown)."""
    parameters = []
    for name, schema in model.model_json_schema(by_alias=True)["properties"].items():
        schema = _untitled(schema)
        description = schema.pop("description", "")
        parameters.append(optional_param(name, where, schema, description))
    return parameters


def _untitled(schema: JSONObject) -> JSONObject:
    """``schema`` without pydantic's generated ``title`` keys (in it and in its properties)."""
    # A default of None is "may be left out", which "required" already says.
    schema = {key: value for key, value in schema.items() if key != "title" and (key, value) != ("default", None)}
    if "properties" in schema:
        schema["properties"] = {name: _untitled(value) for name, value in schema["properties"].items()}
    return schema


# <converter(arguments):name> or <name> in a Werkzeug rule.
_RULE_VARIABLE = re.compile(r"<(?:([A-Za-z_]\w*)(?:\([^)]*\))?:)?([A-Za-z_]\w*)>")


def openapi_path(rule: Rule) -> str:
    """A URL rule written as an OpenAPI path: ``<int:id>`` as ``{id}``."""
    return _RULE_VARIABLE.sub(r"{\2}", rule.rule)


def path_params(rule: Rule, converters: Mapping[str, type[BaseConverter]]) -> list[JSONObject]:
    """The path parameters of a URL rule, in its order, each with the schema of the converter that matches it (the
    app's ``url_map.converters``); a converter without one in ``CONVERTER_SCHEMAS`` is a KeyError, not a guess."""
    return [
        {"name": name, "in": "path", "required": True, "schema": CONVERTER_SCHEMAS[converters[converter or "default"]]}
        for converter, name in _RULE_VARIABLE.findall(rule.rule)
    ]


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
    body: str | None = None,
    description: str | None = None,
    **extra: Any,
) -> JSONObject:
    """One operation (its id is the view function's name) with its success and shared error responses; ``body``
    names the component schema of a required JSON request body; ``description``, prose beyond the summary. Its path
    and parameters are not written here: ``bind`` takes them from the route (its rule, and the header and query
    models of its view)."""
    return {
        "operationId": operation_id,
        "summary": summary,
        **({"description": description} if description is not None else {}),
        **({"requestBody": json_body(body)} if body is not None else {}),
        **extra,
        "responses": {**ok, **error_refs(*errors, 414, 500, 503)},
    }  # 414: grader.gunicorn_worker, any route


def bind(described: JSONObject, rule: Rule, view: Any, converters: Mapping[str, type[BaseConverter]]) -> JSONObject:
    """The operation ``described`` as the route serves it: its parameters are the rule's path parameters, then the
    headers of the view's header model (``@header_model``), then its query model's (``@query_model``)."""
    header_model = getattr(view, "header_model", None)
    parameters = [
        *path_params(rule, converters),
        *(query_params(header_model, "header") if header_model is not None else ()),
        *query_params(view.query_model),
    ]
    return {**described, **({"parameters": parameters} if parameters else {})}


ID = {"type": "integer", "minimum": 1, "maximum": ROW_ID_MAX}
SEED = {"type": "integer", "minimum": 0, "maximum": SEED_LIMIT - 1}
# What each URL converter matches (an id of 0 matches, and is never found: ids start at 1).
CONVERTER_SCHEMAS: dict[type[BaseConverter], JSONObject] = {
    UnicodeConverter: {"type": "string"},
    RowIdConverter: ID,
    SeedConverter: SEED,
}

# The errors of an operation on a course's resource: a bad request, not signed in, not allowed, not found; one with a
# JSON body adds a wrong media type and an unacceptable body.
READ = (400, 401, 403, 404)
WRITE = (*READ, 415, 422)
