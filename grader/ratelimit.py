"""Per-user rate limits on submissions (flask-limiter; counts in Redis in production so all web processes agree)."""
from __future__ import annotations

import math
import time
from collections.abc import Iterable, Mapping
from typing import Any

from flask import Flask, Response, current_app, request
from flask_limiter import Limiter, RateLimitExceeded

from grader.auth import current_principal
from grader.errors import ApiError, error_response, is_api_request

EXTENSION_KEY = "grader.limiter"
DEFAULT_SUBMISSION_LIMIT = "30/minute"


def rate_limit_key() -> str:
    """Count per user (token and cookie share one budget); anonymous callers are counted by address."""
    try:
        principal = current_principal()
    except ApiError:
        principal = None  # a bad token is refused by the view with a 401; count it by address meanwhile
    return f"user:{principal.user.id}" if principal is not None else f"addr:{request.remote_addr}"


def submission_limit() -> str:
    """The configured submission limit, e.g. "30/minute" (config key SUBMISSION_RATE_LIMIT)."""
    return str(current_app.config.get("SUBMISSION_RATE_LIMIT") or DEFAULT_SUBMISSION_LIMIT)


def _retry_after_seconds(limiter: Limiter) -> int:
    """Whole seconds until the breached window resets (at least 1)."""
    limit = limiter.current_limit
    if limit is None:
        return 1
    return max(1, math.ceil(limit.window.reset_time - time.time()))


def _handle_rate_limited(exc: RateLimitExceeded) -> Response | RateLimitExceeded:
    """429 as a JSON error with Retry-After."""
    if not is_api_request():
        return exc
    seconds = _retry_after_seconds(current_app.extensions[EXTENSION_KEY])
    return error_response(ApiError(
        429, "rate_limited", f"Too many submissions (limit {exc.description}); retry in {seconds} s.",
        details={"retry_after": seconds}, headers={"Retry-After": str(seconds)},
    ))


def storage_uri(config: Mapping[str, Any]) -> str:
    """RATELIMIT_STORAGE_URI if set; else the broker's Redis (shared by every web process); else process memory."""
    configured = config.get("RATELIMIT_STORAGE_URI")
    if configured:
        return str(configured)
    broker = str(config.get("CELERY_BROKER_URL") or "")
    return broker if broker.startswith(("redis://", "rediss://")) else "memory://"


def init_app(app: Flask, limited_endpoints: Iterable[str]) -> Limiter:
    """Create this app's limiter and apply the submission limit to ``limited_endpoints`` (already registered).

    Storage comes from RATELIMIT_STORAGE_URI (e.g. ``redis://127.0.0.1:6379/2`` in production), see storage_uri.
    """
    app.config["RATELIMIT_STORAGE_URI"] = storage_uri(app.config)
    # If Redis is briefly unreachable, count in memory rather than refuse every submission with a 500.
    app.config.setdefault("RATELIMIT_IN_MEMORY_FALLBACK_ENABLED", True)
    # The limiter's own headers would also stamp Retry-After on successful responses; the 429 handler sets it.
    app.config.setdefault("RATELIMIT_HEADERS_ENABLED", False)
    app.config.setdefault("RATELIMIT_KEY_PREFIX", "grader")
    app.config.setdefault("SUBMISSION_RATE_LIMIT", DEFAULT_SUBMISSION_LIMIT)
    limiter = Limiter(rate_limit_key, app=app, default_limits=[])
    app.extensions[EXTENSION_KEY] = limiter
    for endpoint in limited_endpoints:
        view = app.view_functions[endpoint]
        app.view_functions[endpoint] = limiter.limit(submission_limit, scope="submissions", methods=["POST"])(view)
    app.register_error_handler(RateLimitExceeded, _handle_rate_limited)
    return limiter
