"""Requests gunicorn refuses before our app sees them, answered in the API's error envelope.

A request line over gunicorn's limit (``limit_request_line``, 4094 bytes by default: a long query string) or
headers over theirs are refused by gunicorn itself with an HTML page, which an API client cannot read. The line
was too long to parse, so the path is unknown: every such refusal is answered as the API answers errors,
``{"error": {"code", "message", "field"}}``, which a browser shows readably too.
Our worker class (``grader.gunicorn_worker.ThreadWorker``) sends these.
"""

from __future__ import annotations

import json

from gunicorn.http.errors import LimitRequestHeaders, LimitRequestLine

from grader.api_errors import error_body

# gunicorn's refusal -> (status, reason, code, field, message)
REFUSALS: dict[type[Exception], tuple[int, str, str, str, str]] = {
    LimitRequestLine: (
        414,
        "URI Too Long",
        "uri_too_long",
        "query",
        "The request line (path and query string) is too long; send the data in a POST body or "
        "ask for fewer items at once.",
    ),
    LimitRequestHeaders: (
        431,
        "Request Header Fields Too Large",
        "headers_too_large",
        "headers",
        "The request's headers are too many or too large.",
    ),
}


def refusal_response(exc: Exception) -> bytes | None:
    """The whole HTTP response for a request gunicorn refused with ``exc``, or None if we leave it to gunicorn."""
    for kind, (status, reason, code, field, message) in REFUSALS.items():
        if isinstance(exc, kind):
            body = json.dumps(error_body(code, message, field)).encode()
            head = (
                f"HTTP/1.1 {status} {reason}\r\nConnection: close\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\nX-Content-Type-Options: nosniff\r\n\r\n"
            )
            return head.encode("latin-1") + body
    return None
