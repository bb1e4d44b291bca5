"""Rate limits on submissions and live previews (per user) and failed sign-ins (per username and address), with the
`limits` library; counts in Redis in production so all web processes agree.

The check is one call from the submission view rather than a decorator around it: it runs after
authentication (whose user it counts) and costs one Redis round trip.
"""

from __future__ import annotations

import functools
import logging
import math
import threading
import time
from collections.abc import Mapping
from typing import Any, cast

from flask import Flask, current_app, request
from limits import RateLimitItem, parse
from limits.errors import ConfigurationError
from limits.storage import MemoryStorage, Storage, storage_from_string
from limits.strategies import FixedWindowRateLimiter
from redis import RedisError

from grader.api_errors import ApiError
from grader.config import REDIS_SCHEMES

EXTENSION_KEY = "grader.limiter"
DEFAULT_SUBMISSION_LIMIT = "30/minute"
KEY_PREFIX = "grader"
SCOPE = "submissions"
PREVIEW_SCOPE = "previews"
# The page asks for a preview at most every 400 ms of typing (~150 a minute); reading an answer costs CPU, so a
# script cannot ask for more than twice that.
DEFAULT_PREVIEW_LIMIT = "300/minute"
LOGIN_SCOPE = "failed-logins"
FAILED_LOGIN_LIMIT = "10 per 5 minutes"  # per username and address
FAILED_LOGIN_NAME_LIMIT = "50 per 15 minutes"  # per username, from any address
FAILED_LOGIN_ADDRESS_LIMIT = "100 per 5 minutes"  # per address, over any usernames
# After a storage error, count in process memory for this long before trying the shared store again.
FALLBACK_SECONDS = 5.0

log = logging.getLogger(__name__)


def storage_uri(config: Mapping[str, Any]) -> str:
    """RATELIMIT_STORAGE_URI if set; else the broker's Redis (shared by every web process); else process memory."""
    configured = config.get("RATELIMIT_STORAGE_URI")
    if configured:
        return str(configured)
    broker = str(config.get("CELERY_BROKER_URL") or "")
    return broker if broker.startswith(REDIS_SCHEMES) else "memory://"


@functools.lru_cache(maxsize=32)
def parsed_limit(text: str) -> RateLimitItem:
    """``"30/minute"`` as a limit item (parsed once per distinct setting)."""
    return parse(text)


class SubmissionLimiter:
    """Counts submissions per user in a fixed window; falls back to memory while the shared store is down."""

    def __init__(self, uri: str, namespace: str = "") -> None:
        # Deployments sharing one Redis keep separate counts (user ids repeat across databases).
        self.namespace = namespace
        self._shared = FixedWindowRateLimiter(self._storage(uri))
        self._memory = FixedWindowRateLimiter(MemoryStorage())
        self._shared_down_until = 0.0
        self._lock = threading.Lock()

    @staticmethod
    def _storage(uri: str) -> Storage:
        """The storage behind ``uri`` (``redis://…`` or ``memory://``)."""
        try:
            return cast(Storage, storage_from_string(uri))  # a sync URI gives a sync storage
        except ConfigurationError as exc:
            raise ValueError(f"RATELIMIT_STORAGE_URI {uri!r}: {exc}") from exc

    def _strategy(self) -> FixedWindowRateLimiter:
        """The shared counter, unless it failed within the last FALLBACK_SECONDS."""
        return self._memory if time.monotonic() < self._shared_down_until else self._shared

    def hit(self, limit: RateLimitItem, key: str, scope: str = SCOPE) -> tuple[bool, int]:
        """Count one event for ``key``; returns (allowed, seconds until the window resets)."""
        return self._counted(limit, key, scope, count=True)

    def blocked_for(self, limit: RateLimitItem, key: str, scope: str) -> int:
        """Seconds until ``key`` is under ``limit`` again, without counting anything; 0 if it is now."""
        allowed, retry_after = self._counted(limit, key, scope, count=False)
        return 0 if allowed else retry_after

    def _counted(self, limit: RateLimitItem, key: str, scope: str, *, count: bool) -> tuple[bool, int]:
        """Hit (``count``) or test the window of ``key``; (allowed, seconds until the window resets)."""
        strategy = self._strategy()
        identifiers = (KEY_PREFIX, self.namespace, scope, key)
        try:
            allowed = strategy.hit(limit, *identifiers) if count else strategy.test(limit, *identifiers)
            reset_at = strategy.get_window_stats(limit, *identifiers).reset_time if not allowed else 0.0
        except RedisError as exc:
            # A briefly unreachable Redis must not turn every request into a 500: count in memory meanwhile.
            log.warning("rate-limit storage unavailable, counting in memory for %.0f s: %s", FALLBACK_SECONDS, exc)
            with self._lock:
                self._shared_down_until = time.monotonic() + FALLBACK_SECONDS
            return self._counted(limit, key, scope, count=count)  # now in memory, which raises no RedisError
        return allowed, max(1, math.ceil(reset_at - time.time())) if not allowed else 0

    def reset(self) -> None:
        """Forget every count (tests and admin tooling)."""
        for strategy in (self._shared, self._memory):
            strategy.storage.reset()


def submission_limit() -> RateLimitItem:
    """The configured submission limit, e.g. "30/minute" (config key SUBMISSION_RATE_LIMIT)."""
    return parsed_limit(str(current_app.config.get("SUBMISSION_RATE_LIMIT") or DEFAULT_SUBMISSION_LIMIT))


def submission_retry_after(user_id: int) -> int:
    """Count a submission by ``user_id`` (API and web pages share one budget); 0 if allowed, else seconds to wait."""
    allowed, retry_after = current_app.extensions[EXTENSION_KEY].hit(submission_limit(), f"user:{user_id}")
    return 0 if allowed else retry_after


def submission_limit_error(retry_after: int) -> ApiError:
    """The API's 429 for a submission over the limit (``retry_after`` from ``submission_retry_after``)."""
    return _over("submissions", submission_limit(), retry_after)


def check_preview(user_id: int) -> None:
    """Count a live preview (``POST /api/v1/validate``) by ``user_id``: a 429 with Retry-After when over the limit."""
    limit = parsed_limit(str(current_app.config.get("PREVIEW_RATE_LIMIT") or DEFAULT_PREVIEW_LIMIT))
    allowed, retry_after = current_app.extensions[EXTENSION_KEY].hit(limit, f"user:{user_id}", PREVIEW_SCOPE)
    _refuse_over("previews", limit, 0 if allowed else retry_after)


def _refuse_over(what: str, limit: RateLimitItem, retry_after: int) -> None:
    """Raise the API's 429 (``_over``) unless ``retry_after`` is 0."""
    if retry_after:
        raise _over(what, limit, retry_after)


def _over(what: str, limit: RateLimitItem, retry_after: int) -> ApiError:
    """The API's 429, naming ``what`` was counted and when to retry."""
    return ApiError(
        429,
        "rate_limited",
        f"Too many {what} (limit {limit}); retry in {retry_after} s.",
        details={"retry_after": retry_after},
        headers={"Retry-After": str(retry_after)},
    )


def _login_keys(username: str) -> list[tuple[str, str]]:
    """The counts a failed sign-in adds to, as (limit, key).

    Per username and client address: guessing one password is slowed down, and nobody at another address can lock
    a user out quickly (behind a reverse proxy, only once GRADER_TRUSTED_PROXIES lets the address be the client's
    rather than the proxy's; users behind one NAT address still share a count). Per username from anywhere, with a
    higher limit: guesses spread over many addresses are capped too; the lock ends with its window, so a user is
    never locked out for longer than FAILED_LOGIN_NAME_LIMIT's period after the guessing stops. Per address over
    any names: one client trying made-up names is stopped before it costs the server anything.
    """
    name, address = username.strip().lower(), request.remote_addr or "-"
    return [
        (FAILED_LOGIN_LIMIT, f"{name}|{address}"),
        (FAILED_LOGIN_NAME_LIMIT, f"name:{name}"),
        (FAILED_LOGIN_ADDRESS_LIMIT, f"address:{address}"),
    ]


def login_retry_after(username: str) -> int:
    """Seconds before another password may be tried for ``username`` from this address; 0 if it may be now."""
    limiter: SubmissionLimiter = current_app.extensions[EXTENSION_KEY]
    return max(limiter.blocked_for(parsed_limit(limit), key, LOGIN_SCOPE) for limit, key in _login_keys(username))


def count_failed_login(username: str) -> None:
    """Count a wrong password (or unknown username) for ``username`` from this address."""
    limiter = current_app.extensions[EXTENSION_KEY]
    for limit, key in _login_keys(username):
        limiter.hit(parsed_limit(limit), key, LOGIN_SCOPE)


def init_app(app: Flask) -> SubmissionLimiter:
    """Create this app's submission limiter on the storage ``storage_uri`` picks and check the configured limit."""
    app.config["RATELIMIT_STORAGE_URI"] = storage_uri(app.config)
    app.config.setdefault("SUBMISSION_RATE_LIMIT", DEFAULT_SUBMISSION_LIMIT)
    app.config.setdefault("PREVIEW_RATE_LIMIT", DEFAULT_PREVIEW_LIMIT)
    for name in ("SUBMISSION_RATE_LIMIT", "PREVIEW_RATE_LIMIT"):  # a malformed limit fails at start-up
        parsed_limit(str(app.config[name]))
    limiter = SubmissionLimiter(app.config["RATELIMIT_STORAGE_URI"], namespace=str(app.config["GRADER_QUEUE"]))
    app.extensions[EXTENSION_KEY] = limiter
    return limiter
