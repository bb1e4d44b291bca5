"""Configuration: every setting comes from the environment, with safe embedded defaults for development."""

from __future__ import annotations

import math
import os
import secrets
from collections.abc import Mapping
from datetime import timedelta
from pathlib import Path
from typing import Any

DEFAULT_SECRET = "dev-insecure-secret"
ENVIRONMENTS = ("development", "production", "testing")

# LTI 1.3 (grader.lti): numbers >= 0, as floats.
LTI_SETTINGS: dict[str, float] = {
    "GRADER_LTI_HTTP_TIMEOUT": 10.0,  # seconds, every call to an LMS (token, line items, scores, roster)
    "GRADER_LTI_JWKS_COOL_DOWN": 5.0,  # seconds before an unknown kid makes us fetch a platform's key set again
    # Each LMS course's roster is read again this many hours after the last sync (the "nightly" one); 0: never.
    "GRADER_LTI_ROSTER_SYNC_HOURS": 24.0,
    # Test hook: our own retry backoff (not an LMS's Retry-After) is multiplied by this.
    "GRADER_LTI_BACKOFF_SCALE": 1.0,
    # Seconds before the sweeper sends a score row's task again while the one it sent may still wait in the queue.
    "GRADER_LTI_DISPATCH_AGAIN_SECONDS": 30.0,
}
LTI_SETTINGS_NAMES = tuple(LTI_SETTINGS)

# What a worker the web app starts itself (grader.serve) must agree with it on: which site, database and queue.
SHARED_WITH_WORKER = (
    "GRADER_ENV",
    "SECRET_KEY",
    "VARIANT_SECRET",
    "DATABASE_URL",
    "CELERY_BROKER_URL",
    "GRADER_DATA_DIR",
    "GRADER_QUEUE",
)
INT_SETTINGS: dict[str, int] = {
    # Short, and renewed every GRADER_LEASE_RENEW_SECONDS while the job runs (grader.grading.heartbeat): a killed
    # worker's row is free again within seconds, and a live one keeps it however long the job takes.
    "GRADER_LEASE_SECONDS": 8,
    "GRADER_MAX_ATTEMPTS": 3,
    "GRADER_REQUEUE_AFTER": 20,  # seconds a queued row waits before the sweeper sends it again
    "GRADER_SWEEP_INTERVAL": 2,
    "GRADER_GRADE_TIME_LIMIT": 60,
    "GRADER_LAB_TIME_LIMIT": 600,
    "GRADER_VISIBILITY_TIMEOUT": 3600,  # above every hard time limit, or Redis redelivers running tasks
    # Reverse proxies in front of the web processes whose X-Forwarded-For/-Proto are believed (grader.app): behind
    # one, every request would otherwise come from the proxy's address, and the per-address login limit would let
    # anyone lock anyone out.
    "GRADER_TRUSTED_PROXIES": 0,
    # PostgreSQL cuts a web or worker statement after this many seconds (0: never); within the change feed's
    # settle margin (CHANGE_FEED_SETTLE_MARGIN), so no grade-log write commits later than the feed assumes.
    "GRADER_STATEMENT_TIMEOUT": 30,
    # How long a sign-in lasts without use (the cookie is renewed on every request); a shared lab computer wants it
    # short, a student's own laptop may have it long.
    "GRADER_SESSION_HOURS": 168,
}

# Names read from the environment; docker-compose.yml and tests/test_compose.py rely on this list.
ENV_VARS = (
    *SHARED_WITH_WORKER,
    *INT_SETTINGS,
    "GRADER_LEASE_RENEW_SECONDS",
    "GRADER_WORKER_BEAT_SECONDS",
    "GRADER_TEST_GRADE_DELAY",
    "RATELIMIT_STORAGE_URI",
    "SUBMISSION_RATE_LIMIT",
    "PREVIEW_RATE_LIMIT",
    "GRADER_FRAME_ANCESTORS",
    "GRADER_CHANGE_FEED_SETTLE_SECONDS",
    *LTI_SETTINGS_NAMES,
)


CHANGE_FEED_SETTLE = "GRADER_CHANGE_FEED_SETTLE_SECONDS"
# Beyond the worker lease: the longest a grade-log write can stay uncommitted, plus clock skew (grader.api.changes).
CHANGE_FEED_SETTLE_MARGIN = 30
# The default settle interval never drops below what it was with the old 90 s lease: leases became short and renewed
# (grader.grading.heartbeat), which makes the feed no less safe, but an LMS syncing it should not see it change.
CHANGE_FEED_SETTLE_FLOOR = 120.0


class ConfigError(RuntimeError):
    """Raised when the configuration is unsafe or inconsistent (e.g. production without a secret)."""


LEASE_RENEW = "GRADER_LEASE_RENEW_SECONDS"
# Seconds between two liveness beats of a worker (grader.grading.liveness); the sweeper must be given the same.
WORKER_BEAT, WORKER_BEAT_DEFAULT = "GRADER_WORKER_BEAT_SECONDS", 2.0
# Seconds between the soft and the hard time limit of a task: time to record the failure (grader.celery_app).
GRACE_SECONDS = 10
# The integer settings for which 0 means something (no proxy, no statement timeout); the others count something or
# measure a time, and mean nothing at zero or below.
ZERO_ALLOWED = ("GRADER_TRUSTED_PROXIES", "GRADER_STATEMENT_TIMEOUT")
POSITIVE_SETTINGS = tuple(name for name in INT_SETTINGS if name not in ZERO_ALLOWED)


def seconds_setting(name: str, raw: Any) -> float:
    """Setting ``name`` given as ``raw``: a finite number of seconds >= 0, or a ConfigError naming it."""
    try:
        value = float(raw)
    except (TypeError, ValueError):
        value = math.nan
    if not math.isfinite(value) or value < 0:
        raise ConfigError(f"{name} must be a number of seconds >= 0, not {raw!r}")
    return value


def lease_renew_seconds(raw: Any, lease_seconds: int) -> float:
    """How often a running job renews its lease: ``raw`` seconds if given (0: never), else a quarter of the lease,
    so that two renewals may fail before the lease runs out."""
    if raw is None or raw == "":
        return lease_seconds / 4
    return seconds_setting(LEASE_RENEW, raw)


def hard_time_limits(config: Mapping[str, Any]) -> dict[str, int]:
    """The hard time limit of each task kind (its soft limit plus the grace to record a failure), by setting."""
    return {name: config[name] + GRACE_SECONDS for name in ("GRADER_GRADE_TIME_LIMIT", "GRADER_LAB_TIME_LIMIT")}


def check_timing(config: Mapping[str, Any]) -> None:
    """Refuse lease, attempt and time-limit settings that cannot work together, naming the settings.

    A lease that is not renewed must outlast the longest job, or a healthy worker loses its row mid-job and good
    submissions end as errors; a renewed one must be renewed at least twice per lease. The broker's visibility
    timeout must exceed every hard limit, or Redis hands a running task to a second worker.
    """
    for name in POSITIVE_SETTINGS:
        if config[name] <= 0:
            raise ConfigError(f"{name} must be a positive number, not {config[name]}")
    lease, renew, limits = config["GRADER_LEASE_SECONDS"], config[LEASE_RENEW], hard_time_limits(config)
    longest_name, longest = max(limits.items(), key=lambda item: item[1])
    if renew == 0 and lease <= longest:
        raise ConfigError(
            f"GRADER_LEASE_SECONDS ({lease} s) must exceed the hard time limit of {longest_name} "
            f"plus {GRACE_SECONDS} s ({longest} s) when {LEASE_RENEW} is 0 (leases not renewed)"
        )
    if renew > lease / 2:
        raise ConfigError(
            f"{LEASE_RENEW} ({renew:g} s) must be at most half of GRADER_LEASE_SECONDS ({lease} s), "
            "so that one late renewal does not lose a running job's lease"
        )
    if config["GRADER_VISIBILITY_TIMEOUT"] <= longest:
        raise ConfigError(
            f"GRADER_VISIBILITY_TIMEOUT ({config['GRADER_VISIBILITY_TIMEOUT']} s) must exceed every "
            f"task's hard time limit ({longest_name} plus {GRACE_SECONDS} s = {longest} s)"
        )


def change_feed_settle_seconds(raw: Any, lease_seconds: int) -> float:
    """The grade-change feed's settle interval: ``raw`` seconds if given, else the worker lease plus a margin (at
    least CHANGE_FEED_SETTLE_FLOOR)."""
    if raw is None or raw == "":
        return max(float(lease_seconds + CHANGE_FEED_SETTLE_MARGIN), CHANGE_FEED_SETTLE_FLOOR)
    return seconds_setting(CHANGE_FEED_SETTLE, raw)


def data_dir(environ: Mapping[str, str]) -> Path:
    """Directory for the embedded SQLite database, broker files and the development secret."""
    return Path(environ.get("GRADER_DATA_DIR") or Path.cwd() / "instance").resolve()


# kombu's file transport: needs no server; its folders live in GRADER_DATA_DIR/broker.
EMBEDDED_BROKER_URL = "filesystem://localhost/"
AMQP_SCHEMES = ("amqp://", "amqps://", "pyamqp://")  # RabbitMQ broker URLs
REDIS_SCHEMES = ("redis://", "rediss://")
BROKER_SOCKET_TIMEOUT = 5  # seconds a broker may take to answer before a publish or a read fails


def _development_secret(directory: Path) -> str:
    """A random secret kept in the data directory so web and worker processes agree across restarts."""
    path = directory / "secret_key"
    if not path.exists():
        directory.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_urlsafe(48))
        path.chmod(0o600)
    return path.read_text().strip()


def load_config(overrides: Mapping[str, Any] | None = None, environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Build the app configuration from the environment, then ``overrides``; refuse unsafe production setups."""
    env = dict(os.environ if environ is None else environ)
    merged: dict[str, Any] = {**env, **(overrides or {})}
    grader_env = str(merged.get("GRADER_ENV") or "development")
    if grader_env not in ENVIRONMENTS:
        raise ConfigError(f"GRADER_ENV must be one of {ENVIRONMENTS}, not {grader_env!r}")
    directory = data_dir({k: str(v) for k, v in merged.items()})
    secret = merged.get("SECRET_KEY")
    if grader_env == "production":
        if not secret or secret == DEFAULT_SECRET or len(str(secret)) < 16:
            raise ConfigError("production needs SECRET_KEY set to a long random value")
        for name in ("DATABASE_URL", "CELERY_BROKER_URL"):
            if not merged.get(name):
                raise ConfigError(f"production needs {name}")
    elif not secret:
        secret = _development_secret(directory)
    config: dict[str, Any] = {
        "GRADER_ENV": grader_env,
        "SECRET_KEY": secret,
        "VARIANT_SECRET": merged.get("VARIANT_SECRET") or secret,
        "GRADER_DATA_DIR": str(directory),
        "DATABASE_URL": merged.get("DATABASE_URL") or f"sqlite:///{directory / 'grader.sqlite'}",
        "CELERY_BROKER_URL": merged.get("CELERY_BROKER_URL") or EMBEDDED_BROKER_URL,
        "GRADER_QUEUE": merged.get("GRADER_QUEUE") or "grading",
        "TESTING": grader_env == "testing",
        "SESSION_COOKIE_HTTPONLY": True,
        "SESSION_COOKIE_SAMESITE": "Lax",
        "SESSION_COOKIE_SECURE": grader_env == "production",
        # Origins besides our own that may show our pages in a frame (an LMS), space-separated.
        "GRADER_FRAME_ANCESTORS": merged.get("GRADER_FRAME_ANCESTORS") or "",
    }
    if config["GRADER_FRAME_ANCESTORS"]:
        # Inside an LMS's iframe the site is third-party: only a SameSite=None; Secure cookie is kept and sent
        # (browsers count http://127.0.0.1 and localhost as secure). Partitioned (CHIPS): kept per embedding site.
        # Every form and script post still carries the CSRF token, which Lax was only a second line for.
        config.update(SESSION_COOKIE_SAMESITE="None", SESSION_COOKIE_SECURE=True, SESSION_COOKIE_PARTITIONED=True)
    for name, default in INT_SETTINGS.items():
        config[name] = int(merged.get(name) or default)
    for name, fallback in LTI_SETTINGS.items():
        given = merged.get(name)
        config[name] = fallback if given is None or given == "" else seconds_setting(name, given)
    given_beat = merged.get(WORKER_BEAT)
    config[WORKER_BEAT] = WORKER_BEAT_DEFAULT if given_beat in (None, "") else seconds_setting(WORKER_BEAT, given_beat)
    for name in ("GRADER_LTI_HTTP_TIMEOUT", "GRADER_LTI_DISPATCH_AGAIN_SECONDS", WORKER_BEAT):
        if config[name] <= 0:
            raise ConfigError(f"{name} must be a positive number of seconds")
    config[CHANGE_FEED_SETTLE] = change_feed_settle_seconds(
        merged.get(CHANGE_FEED_SETTLE), config["GRADER_LEASE_SECONDS"]
    )
    # Test-only: seconds a worker sleeps while holding a lease, so tests can kill it mid-grade.
    config["GRADER_TEST_GRADE_DELAY"] = float(merged.get("GRADER_TEST_GRADE_DELAY") or 0)
    if grader_env == "production" and config["GRADER_TEST_GRADE_DELAY"]:
        raise ConfigError("GRADER_TEST_GRADE_DELAY is a test hook and must not be set in production")
    config["PERMANENT_SESSION_LIFETIME"] = timedelta(hours=config["GRADER_SESSION_HOURS"])
    config[LEASE_RENEW] = lease_renew_seconds(merged.get(LEASE_RENEW), config["GRADER_LEASE_SECONDS"])
    check_timing(config)
    # Rate-limit settings: read here so every web process of a deployment shares one Redis-backed count.
    for name in ("RATELIMIT_STORAGE_URI", "SUBMISSION_RATE_LIMIT", "PREVIEW_RATE_LIMIT"):
        if merged.get(name):
            config[name] = str(merged[name])
    # Anything else the caller passed (e.g. the API helper's settings) is kept as given.
    for key, value in (overrides or {}).items():
        config.setdefault(key, value)
    return config
