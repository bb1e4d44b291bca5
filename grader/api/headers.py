"""The HTTP headers the API reads and answers, each declared once: the view parses a request header with its
declaration, and the OpenAPI document lists the same declaration (its schema and prose)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

from flask import request
from flask.typing import ResponseReturnValue
from pydantic import StringConstraints, TypeAdapter, ValidationError

from grader.api import body as parse
from grader.api.schemas_submissions import MAX_WAIT_SECONDS
from grader.api_errors import ApiError

JSONObject = dict[str, Any]


@dataclass(frozen=True)
class RequestHeader:
    """An optional request header: its name, the keyword argument its value is passed to the view as, its OpenAPI
    schema and prose, and how the server reads its value (``read(None)`` when it is absent)."""

    name: str
    argument: str
    schema: JSONObject
    description: str
    read: Callable[[str | None], Any]

    def parameter(self) -> JSONObject:
        """This header as an OpenAPI parameter."""
        return {
            "name": self.name,
            "in": "header",
            "required": False,
            "schema": self.schema,
            "description": self.description,
        }


@dataclass(frozen=True)
class ResponseHeader:
    """A header some responses carry: its name and its OpenAPI schema and prose (``components.headers``)."""

    name: str
    schema: JSONObject
    description: str


# Printable ASCII, no space at either end (HTTP strips those, so a key must not depend on them).
_KEY = TypeAdapter(Annotated[str, StringConstraints(min_length=1, max_length=128, pattern=r"^[!-~]([ -~]*[!-~])?$")])


def _idempotency_key(raw: str | None) -> str | None:
    """The Idempotency-Key header, validated by the schema the document gives it."""
    if raw is None:
        return None
    try:
        return _KEY.validate_python(raw)
    except ValidationError:
        raise ApiError(
            400,
            "invalid_header",
            "Idempotency-Key must be 1 to 128 printable ASCII characters, with no space at either end.",
            field="Idempotency-Key",
        ) from None


IDEMPOTENCY_KEY = RequestHeader(
    "Idempotency-Key",
    "key",
    _KEY.json_schema(),
    "Scoped per user: a key repeated by the same user returns that user's earlier submission (200, or 409 for "
    "another body); another user's same key is unrelated.",
    _idempotency_key,
)
PREFER = RequestHeader(
    "Prefer",
    "wait",
    {"type": "string"},
    "wait=N (RFC 7240): hold the reply up to N seconds (at most 10) until the grade is in, so one request submits "
    "and returns the grade. Other preferences are ignored; a non-integer N is a 400.",
    lambda raw: parse.prefer_wait(raw, MAX_WAIT_SECONDS),
)

LOCATION = ResponseHeader("Location", {"type": "string"}, "The submission's URL, /api/v1/submissions/{id}.")
IDEMPOTENT_REPLAYED = ResponseHeader(
    "Idempotent-Replayed",
    {"type": "string", "enum": ["true"]},
    "The Idempotency-Key was used before: this is that earlier submission.",
)
PREFERENCE_APPLIED = ResponseHeader(
    "Preference-Applied", {"type": "string"}, "wait=N: the Prefer: wait this reply honoured."
)
RETRY_AFTER = ResponseHeader("Retry-After", {"type": "integer"}, "Seconds to wait before trying again.")
WWW_AUTHENTICATE = ResponseHeader("WWW-Authenticate", {"type": "string"}, 'The challenge: Bearer realm="grader".')
RESPONSE_HEADERS = (LOCATION, IDEMPOTENT_REPLAYED, PREFERENCE_APPLIED, RETRY_AFTER, WWW_AUTHENTICATE)


def header_params(*headers: RequestHeader) -> Callable[[Callable[..., ResponseReturnValue]], Any]:
    """Decorate a view that reads ``headers``: each is read with its declaration and passed as a keyword argument
    (``argument``); the view keeps them as ``request_headers``, which its documented parameters are."""

    def decorate(view: Callable[..., ResponseReturnValue]) -> Any:
        @functools.wraps(view)
        def wrapper(*args: Any, **kwargs: Any) -> ResponseReturnValue:
            read = {header.argument: header.read(request.headers.get(header.name)) for header in headers}
            return view(*args, **kwargs, **read)

        wrapper.request_headers = headers  # type: ignore[attr-defined]
        return wrapper

    return decorate
