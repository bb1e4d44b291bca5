"""gunicorn's threaded worker, answering requests it refuses before our app sees them in the API's error envelope.

A request line over gunicorn's limit (``limit_request_line``, 4094 bytes by default: a long query string) or
headers over theirs are refused by gunicorn itself with an HTML page, which an API client cannot read. The line
was too long to parse, so the path is unknown: every such refusal is answered as the API answers errors,
``{"error": {"code", "message", "field"}}``, which a browser shows readably too.

Run gunicorn with ``--worker-class grader.gunicorn_worker.ThreadWorker`` (Dockerfile, docker-compose.yml).
"""

from __future__ import annotations

import json
import socket
import sys
from typing import Any

from gunicorn import util
from gunicorn.http.errors import LimitRequestHeaders, LimitRequestLine
from gunicorn.workers import gthread

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


class ThreadWorker(gthread.ThreadWorker):  # type: ignore[misc]  # gunicorn has no type hints
    """gunicorn's gthread worker with JSON refusals (see the module docstring)."""

    def handle_error(self, req: Any, client: socket.socket, addr: Any, exc: Exception) -> None:
        """Answer a too-long request line or too-large headers in our envelope; anything else as gunicorn does."""
        response = refusal_response(exc)
        if response is None:
            super().handle_error(req, client, addr, exc)
            return
        self.log.warning("Invalid request from ip=%s: %s", (addr or ("",))[0], exc)
        try:
            util.write_nonblock(client, response)
        except OSError:
            self.log.debug("Failed to send error message.")


def command(bind: str, workers: int = 2, threads: int = 8) -> list[str]:
    """The gunicorn command line of the web app with this worker class, run with this interpreter."""
    return [
        sys.executable,
        "-m",
        "gunicorn",
        "--bind",
        bind,
        "--workers",
        str(workers),
        "--threads",
        str(threads),
        "--worker-class",
        f"{__name__}.ThreadWorker",
        "grader:create_app()",
    ]
