"""The API contract's building blocks: request models (pydantic), their field types and how a refusal becomes an
``ApiError``.

A field type is declared once, with the check that reads it and the JSON schema the OpenAPI document shows for
it (``Checked``), so the bounds in an error message and in the document cannot drift apart. Every check raises a
``PydanticCustomError`` whose type is our error code and whose message is ours; ``api_error`` turns the first
one into the error envelope, naming the field by its location. ``grader/api/body.py``'s hardening (media type,
body size, duplicate keys, NaN, surrogates, unknown or repeated query parameters) runs before any model.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from functools import wraps
from typing import Any, ClassVar, Concatenate, ParamSpec, TypeVar

from flask import request
from pydantic import BaseModel, ConfigDict, GetCoreSchemaHandler, GetJsonSchemaHandler, ValidationError
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import PydanticCustomError, core_schema

from grader.api import body
from grader.api_errors import ApiError

P = ParamSpec("P")
R = TypeVar("R")
M = TypeVar("M", bound="ApiModel")
Check = Callable[[Any, str], Any]


def refusal(code: str, message: str, field: str | None = None) -> PydanticCustomError:
    """A check's refusal: ``code`` and ``message`` go to the error envelope as they are (the message is passed as
    context, so braces in it are not read as a template); ``field`` names another field than the one checked."""
    context: dict[str, Any] = {"message": message}
    if field is not None:
        context["field"] = field
    return PydanticCustomError(code, "{message}", context)


@dataclass(frozen=True)
class Checked:
    """Annotated metadata: ``check(value, field name)`` reads the raw value (or raises a ``refusal``) before the
    declared type is validated, and ``schema`` is what the document shows for the field. ``if_missing`` is the
    (code, message) for a required field left out, when it is not the usual "Field 'x' is required."."""

    check: Check
    schema: Mapping[str, Any]
    if_missing: tuple[str, str] | None = field(default=None)

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
        """The declared type's schema behind this field's check."""
        return core_schema.with_info_before_validator_function(
            lambda value, info: self.check(value, info.field_name or ""), handler(source)
        )

    def __get_pydantic_json_schema__(
        self, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        """The schema the document shows (the field's description and default are added by pydantic)."""
        return dict(self.schema)


class ApiModel(BaseModel):
    """A request of API v1: unknown fields are refused, nothing is coerced but by the fields' own checks."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    refusal_status: ClassVar[int] = 422


class QueryModel(ApiModel):
    """The query parameters one route reads (every value arrives as text; a refusal is a 400)."""

    refusal_status: ClassVar[int] = 400


# ---- body fields (JSON values) ----


def text(max_length: int) -> Checked:
    """A required non-empty string of at most ``max_length`` characters (null is absent)."""

    def check(value: Any, name: str) -> Any:
        if value is None:
            raise refusal("missing_field", f"Field '{name}' is required.")
        if not isinstance(value, str):
            raise refusal("invalid_type", f"Field '{name}' must be a string.")
        if not value or len(value) > max_length:
            raise refusal("invalid_value", f"Field '{name}' must have 1 to {max_length} characters.")
        return value

    return Checked(check, {"type": "string", "minLength": 1, "maxLength": max_length})


def optional_text(max_length: int) -> Checked:
    """An optional non-empty string of at most ``max_length`` characters (absent or null gives None)."""
    required = text(max_length)

    def check(value: Any, name: str) -> Any:
        return None if value is None else required.check(value, name)

    return Checked(check, {"type": ["string", "null"], "minLength": 1, "maxLength": max_length})


def json_object() -> Checked:
    """A required JSON object (null is absent)."""

    def check(value: Any, name: str) -> Any:
        if value is None:
            raise refusal("missing_field", f"Field '{name}' is required.")
        if not isinstance(value, dict):
            raise refusal("invalid_type", f"Field '{name}' must be a JSON object {{field: value}}.")
        return value

    return Checked(check, {"type": "object"})


def optional_integer(minimum: int, limit: int) -> Checked:
    """An optional integer in [minimum, limit); null is absent. A number with no fraction (``1.0``) is an integer,
    as JSON Schema says, if a float holds it exactly; booleans, other floats and strings are refused."""

    def check(value: Any, name: str) -> Any:
        if value is None:
            return None
        if isinstance(value, float) and value.is_integer() and abs(value) <= body.FLOAT_EXACT_LIMIT:
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            raise refusal("invalid_type", f"Field '{name}' must be an integer.")
        if not minimum <= value < limit:
            raise refusal("invalid_value", f"Field '{name}' must be in [{minimum}, {limit}).")
        return value

    return Checked(check, {"type": ["integer", "null"], "minimum": minimum, "maximum": limit - 1})


def language() -> Checked:
    """A supported language code; absent or null is Chinese."""

    def check(value: Any, name: str) -> Any:
        if value is None:
            return "zh"
        if value not in body.LANGS:
            raise refusal("invalid_value", f"Field '{name}' must be one of {', '.join(body.LANGS)}.")
        return value

    return Checked(check, {"type": "string", "enum": list(body.LANGS)})


# ---- query parameters (text; an empty or repeated one never gets here) ----


def query_integer(minimum: int, maximum: int) -> Checked:
    """An integer query parameter within [minimum, maximum]."""

    def check(raw: Any, name: str) -> Any:
        if not isinstance(raw, str):
            return raw  # the default
        # One minus sign at most: int() refuses "--5", which would otherwise escape as a 500.
        if not raw.isascii() or not raw.removeprefix("-").isdigit() or len(raw) > 20:
            raise refusal("invalid_parameter", f"Query parameter '{name}' must be an integer.")
        value = int(raw)
        if not minimum <= value <= maximum:
            raise refusal("invalid_parameter", f"Query parameter '{name}' must be in [{minimum}, {maximum}].")
        return value

    return Checked(check, {"type": "integer", "minimum": minimum, "maximum": maximum})


def query_number(minimum: float, maximum: float) -> Checked:
    """A finite number query parameter within [minimum, maximum]."""

    def check(raw: Any, name: str) -> Any:
        if not isinstance(raw, str):
            return raw
        try:
            value = float(raw)
        except ValueError:
            value = math.nan
        if not math.isfinite(value) or not minimum <= value <= maximum:
            raise refusal(
                "invalid_parameter", f"Query parameter '{name}' must be a number in [{minimum:g}, {maximum:g}]."
            )
        return value

    return Checked(check, {"type": "number", "minimum": minimum, "maximum": maximum})


def query_choice(choices: Collection[str]) -> Checked:
    """A query parameter restricted to ``choices``."""

    def check(raw: Any, name: str) -> Any:
        if isinstance(raw, str) and raw not in choices:
            raise refusal("invalid_parameter", f"Query parameter '{name}' must be one of {', '.join(choices)}.")
        return raw

    return Checked(check, {"type": "string", "enum": list(choices)})


def query_text(max_length: int) -> Checked:
    """A short text query parameter."""

    def check(raw: Any, name: str) -> Any:
        if isinstance(raw, str) and (len(raw) > max_length or "\x00" in raw):
            raise refusal("invalid_parameter", f"Query parameter '{name}' is not acceptable.")
        return raw

    return Checked(check, {"type": "string", "minLength": 1, "maxLength": max_length})


# ---- reading a request with a model ----


def read_body(model: type[M], first: Callable[[Mapping[str, Any]], None] | None = None) -> M:
    """The JSON body as ``model``: hardened by ``body.read_json_object`` (which also refuses fields the model does
    not declare), then validated; the first refusal is the ``ApiError``. ``first`` sees the raw body in between,
    for a refusal that outranks every field's (a student's seed)."""
    payload = body.read_json_object(model.model_fields)
    if first is not None:
        first(payload)
    return validated(model, payload)


def validated(model: type[M], values: Mapping[str, Any]) -> M:
    """``values`` validated as ``model``, or the ``ApiError`` for its first refusal."""
    try:
        return model.model_validate(values)
    except ValidationError as exc:
        raise api_error(model, exc) from None


def api_error(model: type[ApiModel], exc: ValidationError) -> ApiError:
    """The error envelope for the first of a model's refusals (fields are checked in their declared order)."""
    # Unknown fields never get here: read_json_object and body.check_query answer them first.
    first = exc.errors(include_url=False)[0]
    context = first.get("ctx") or {}
    name = str(context.get("field") or ".".join(map(str, first["loc"])))
    if first["type"] == "missing":
        code, message = _missing(model, name)
        return ApiError(model.refusal_status, code, message, field=name)
    if "message" in context:
        return ApiError(model.refusal_status, first["type"], str(context["message"]), field=name)
    # A value a field's check let through and its declared type refused: the checks make this unreachable.
    code = "invalid_parameter" if model.refusal_status == 400 else "invalid_value"
    return ApiError(model.refusal_status, code, f"Field '{name}' is not acceptable: {first['msg']}.", field=name)


def _missing(model: type[ApiModel], name: str) -> tuple[str, str]:
    """The code and message for a required field left out."""
    declared = model.model_fields.get(name)
    for meta in declared.metadata if declared else ():
        if isinstance(meta, Checked) and meta.if_missing:
            return meta.if_missing
    return "missing_field", f"Field '{name}' is required."


def query_model(model: type[M]) -> Callable[[Callable[Concatenate[M, P], R]], Callable[P, R]]:
    """View decorator: the route reads the query parameters ``model`` declares, and gets them as its first
    argument; any other parameter, or one sent twice or empty, is a 400 (``body.check_query``). The model is kept
    on the view as ``query_model``, which the OpenAPI test compares with the document."""

    def decorate(view: Callable[Concatenate[M, P], R]) -> Callable[P, R]:
        @wraps(view)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            body.check_query(model.model_fields)
            return view(validated(model, request.args.to_dict()), *args, **kwargs)

        wrapper.query_model = model  # type: ignore[attr-defined]
        return wrapper

    return decorate


class NoQuery(QueryModel):
    """No query parameters: the POST routes, and the GET routes that read none."""


def no_query(view: Callable[P, R]) -> Callable[P, R]:
    """View decorator for a route that reads no query parameter: any one is a 400 (``body.check_query``)."""

    @wraps(view)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        body.check_query(())
        return view(*args, **kwargs)

    wrapper.query_model = NoQuery  # type: ignore[attr-defined]
    return wrapper
