"""The HTTP headers of API v1, each declared once: the request headers a route reads (a ``HeaderModel``, validated
like a query model and documented as its ``in: header`` parameters) and the response headers it may send
(``ResponseHeader``, the document's ``components.headers``).

A view reads its request headers only through ``@header_model(Model)``; ``tests/api/test_openapi.py`` fails on a
``request.headers`` read anywhere else in ``grader/api/``, since the document would not know of it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import wraps
from typing import Annotated, Any, Concatenate, ParamSpec, TypeVar

from flask import request
from pydantic import Field

from grader.api import body
from grader.api.schemas_base import Checked, QueryModel, refusal, validated
from grader.api.schemas_submissions import MAX_WAIT_SECONDS

P = ParamSpec("P")
R = TypeVar("R")
H = TypeVar("H", bound="HeaderModel")


class HeaderModel(QueryModel):
    """The request headers one route reads, by their HTTP names (field aliases); every value arrives as text and a
    refusal is a 400. A header left out is the field's default."""


def header_model(model: type[H]) -> Callable[[Callable[Concatenate[H, P], R]], Callable[P, R]]:
    """View decorator: the route's request headers validated as ``model``, handed to the view as its first argument
    (after the query model's checks, which a decorator above this one runs first). The model is kept on the view as
    ``header_model``, which the OpenAPI document reads."""

    def decorate(view: Callable[Concatenate[H, P], R]) -> Callable[P, R]:
        @wraps(view)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            names = [declared.alias or name for name, declared in model.model_fields.items()]
            sent = {name: request.headers[name] for name in names if name in request.headers}
            return view(validated(model, sent), *args, **kwargs)

        wrapper.header_model = model  # type: ignore[attr-defined]
        return wrapper

    return decorate


# Printable ASCII, no space at either end (HTTP strips those, so a key must not depend on them).
_KEY_PATTERN, _KEY_MAX = "^[!-~]([ -~]*[!-~])?$", 128
IDEMPOTENCY_KEY = {"type": "string", "minLength": 1, "maxLength": _KEY_MAX, "pattern": _KEY_PATTERN}


def _idempotency_key(raw: Any, name: str) -> Any:
    """The Idempotency-Key as the document's schema allows it, or its 400."""
    # fullmatch: the pattern's "$" alone would also let a key end in a newline.
    if len(raw) > _KEY_MAX or re.fullmatch(_KEY_PATTERN, raw) is None:
        raise refusal(
            "invalid_header",
            "Idempotency-Key must be 1 to 128 printable ASCII characters, with no space at either end.",
        )
    return raw


def _prefer_wait(raw: Any, name: str) -> Any:
    """The seconds ``Prefer: wait=N`` asks for (``body.prefer_wait``, which raises its own 400)."""
    return body.prefer_wait(raw, MAX_WAIT_SECONDS)


class SubmissionHeaders(HeaderModel):
    """What POST /submissions reads from its headers, in the order a refusal is chosen by."""

    idempotency_key: Annotated[
        str | None,
        Checked(_idempotency_key, IDEMPOTENCY_KEY),
        Field(
            alias="Idempotency-Key",
            description="Scoped per user: a key repeated by the same user returns that user's earlier submission "
            "(200, or 409 for another body); another user's same key is unrelated.",
        ),
    ] = None
    wait: Annotated[
        float | None,
        Checked(_prefer_wait, {"type": "string"}),
        Field(
            alias="Prefer",
            description="wait=N (RFC 7240): hold the reply up to N seconds (at most 10) until the grade is in, so "
            "one request submits and returns the grade. Other preferences are ignored; a non-integer N is a 400.",
        ),
    ] = None


@dataclass(frozen=True)
class ResponseHeader:
    """A response header: its name, and the schema and description the document shows for it."""

    name: str
    schema: Mapping[str, Any]
    description: str

    def component(self) -> dict[str, Any]:
        """Its entry in the document's ``components.headers``."""
        return {"schema": dict(self.schema), "description": self.description}


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


def submitted_headers(submission_id: int, replay: bool, wait: float) -> dict[str, str]:
    """The headers of POST /submissions' reply: where the submission is, whether it is a replay, and the wait the
    reply honoured."""
    headers = {LOCATION.name: f"/api/v1/submissions/{submission_id}"}
    if replay:
        headers[IDEMPOTENT_REPLAYED.name] = "true"
    if wait:
        headers[PREFERENCE_APPLIED.name] = f"wait={wait:g}"
    return headers
