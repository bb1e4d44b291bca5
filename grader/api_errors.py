"""JSON error responses for the API: one body shape, ``{"error": {"code", "message", "field"}}``, for every 4xx/5xx."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from flask import Flask, Response, jsonify, request
from sqlalchemy.exc import OperationalError
from werkzeug.exceptions import HTTPException, InternalServerError

API_PREFIX = "/api/v1"
BLUEPRINT = "api_v1"  # the API blueprint's name, its endpoints' prefix
log = logging.getLogger(__name__)

# Stable codes for werkzeug's own exceptions (routing, body size, ...); API clients branch on these.
HTTP_CODES: dict[int, str] = {
    400: "bad_request",
    401: "unauthenticated",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "payload_too_large",
    415: "unsupported_media_type",
    422: "unprocessable",
    429: "rate_limited",
    500: "internal_error",
    503: "unavailable",
}

HTTP_MESSAGES: dict[int, str] = {
    400: "The request could not be understood.",
    401: "Sign in or send 'Authorization: Bearer <token>'.",
    403: "You may not do this.",
    404: "No such resource.",
    405: "This method is not allowed on this resource.",
    409: "The request conflicts with the current state.",
    413: "The request body is too large.",
    415: "Send the body as application/json.",
    422: "The request was understood but its content is not acceptable.",
    429: "Too many requests; retry later.",
    500: "Internal error; the request was not completed.",
    503: "The service is briefly unavailable; retry shortly.",
}
DATABASE_RETRY_AFTER_SECONDS = 1


class ApiError(Exception):
    """An error the API answers with a JSON body: HTTP status, stable code, message and the offending field."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        field: str | None = None,
        details: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.details = dict(details or {})
        self.headers = dict(headers or {})


def error_body(code: str, message: str, field: str | None = None, **details: Any) -> dict[str, Any]:
    """The JSON body of an error response."""
    return {"error": {"code": code, "message": message, "field": field, **details}}


def error_response(error: ApiError) -> Response:
    """A JSON response for ``error`` with its status and headers."""
    response = jsonify(error_body(error.code, error.message, error.field, **error.details))
    response.status_code = error.status
    for name, value in error.headers.items():
        response.headers[name] = value
    return response


def is_api_request() -> bool:
    """True when the current request's path is under the API prefix."""
    return request.path == API_PREFIX or request.path.startswith(API_PREFIX + "/")


def http_exception_response(exc: HTTPException) -> Response:
    """A werkzeug HTTPException as a JSON error, keeping its status and headers (Allow, Retry-After, ...)."""
    status = exc.code or 500
    message = (
        HTTP_MESSAGES.get(status, exc.name) if status >= 500 else (exc.description or HTTP_MESSAGES.get(status, ""))
    )
    response = jsonify(error_body(HTTP_CODES.get(status, f"http_{status}"), message))
    response.status_code = status
    for name, value in exc.get_headers():
        if name.lower() != "content-type":
            response.headers[name] = value
    return response


def _handle_api_error(error: ApiError) -> Response:
    """Flask handler for ApiError."""
    return error_response(error)


def _handle_http_exception(exc: HTTPException) -> HTTPException | Response:
    """JSON for API paths; anything else keeps Flask's default rendering (the web pages have their own)."""
    return http_exception_response(exc) if is_api_request() else exc


def _handle_internal_error(exc: InternalServerError) -> HTTPException | Response:
    """Unhandled exceptions (already logged by Flask) become a JSON 500 without a stack trace on API paths."""
    if not is_api_request():
        return exc
    response = jsonify(error_body("internal_error", HTTP_MESSAGES[500]))
    response.status_code = 500
    return response


def _handle_database_unavailable(exc: OperationalError) -> Response:
    """The database dropped or refused the connection: 503 with Retry-After (nothing was committed)."""
    log.warning("database unavailable during %s %s: %s", request.method, request.path, exc.orig)
    headers = {"Retry-After": str(DATABASE_RETRY_AFTER_SECONDS)}
    if is_api_request():
        return error_response(ApiError(503, "database_unavailable", HTTP_MESSAGES[503], headers=headers))
    return Response(HTTP_MESSAGES[503], status=503, headers=headers, mimetype="text/plain")


def init_app(app: Flask) -> None:
    """Register the JSON error handlers on ``app``."""
    app.register_error_handler(ApiError, _handle_api_error)
    app.register_error_handler(OperationalError, _handle_database_unavailable)
    app.register_error_handler(HTTPException, _handle_http_exception)
    app.register_error_handler(InternalServerError, _handle_internal_error)
