"""Where rate-limit counts live: the configured URI, else the broker's Redis, else process memory."""
from __future__ import annotations

from grader.ratelimit import storage_uri


def test_explicit_storage_wins() -> None:
    config = {"RATELIMIT_STORAGE_URI": "redis://r:6379/2", "CELERY_BROKER_URL": "redis://b:6379/0"}
    assert storage_uri(config) == "redis://r:6379/2"


def test_redis_broker_is_shared_by_default_and_embedded_setups_use_memory() -> None:
    assert storage_uri({"CELERY_BROKER_URL": "redis://b:6379/0"}) == "redis://b:6379/0"
    assert storage_uri({"CELERY_BROKER_URL": "filesystem://"}) == "memory://"
