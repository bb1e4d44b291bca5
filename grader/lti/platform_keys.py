"""The platforms' public keys: each JWKS fetched once and cached, fetched again when a launch names a kid we do
not hold (the platform rotated its key), at most once per cool-down so that junk kids cannot make us hammer it."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

import jwt
import requests

FETCH_TIMEOUT = 5.0  # seconds; a launch waits for this at most


class KeySetUnavailable(Exception):
    """The platform's JWKS could not be fetched or read."""


@dataclass
class _CachedSet:
    keys: dict[str, jwt.PyJWK] = field(default_factory=dict)
    fetched_at: float = 0.0


_cache: dict[str, _CachedSet] = {}
_lock = threading.Lock()


def _fetch(url: str) -> dict[str, jwt.PyJWK]:
    """The RSA signing keys of the key set at ``url``, by kid."""
    try:
        response = requests.get(url, timeout=FETCH_TIMEOUT)
        response.raise_for_status()
        key_set = jwt.PyJWKSet.from_dict(response.json())
    except (requests.RequestException, ValueError, jwt.PyJWKSetError) as exc:
        raise KeySetUnavailable(f"{url}: {exc}") from exc
    return {key.key_id: key for key in key_set.keys if key.key_id and key.key_type == "RSA"}


def signing_key(url: str, kid: str, cool_down: float) -> jwt.PyJWK | None:
    """The key ``kid`` of the key set at ``url``, or None if the platform does not publish it (after a refetch,
    unless one was made less than ``cool_down`` seconds ago)."""
    with _lock:
        cached = _cache.get(url)
        if cached is not None and kid in cached.keys:
            return cached.keys[kid]
        if cached is not None and time.monotonic() - cached.fetched_at < cool_down:
            return None
    keys = _fetch(url)
    with _lock:
        _cache[url] = _CachedSet(keys, time.monotonic())
    return keys.get(kid)


def forget(url: str | None = None) -> None:
    """Drop the cached key set of ``url`` (every one with None): after a registration changes."""
    with _lock:
        if url is None:
            _cache.clear()
        else:
            _cache.pop(url, None)
