"""A per-user cap on requests held waiting for a grade (``GET …?wait=``, ``Prefer: wait``), shared by every web
process through Redis where Redis is configured, counted per process otherwise.

One user (a script, a page opened in many tabs) holding hundreds of waits would cost every web process a parked
connection or a thread each. Beyond MAX_WAITS_PER_USER, a request is answered at once with the submission's
current state, as if it had asked for no wait: never refused, the client polls again as it would after any wait
ran out.

In Redis each user has a sorted set of the slots held, scored by when each must have been given back: a web
process killed while holding slots frees them when their wait would have ended anyway (plus SLOT_MARGIN_SECONDS),
with no sweeper. While Redis is unreachable the process counts alone (as without Redis) rather than fail a read.
"""

from __future__ import annotations

import functools
import logging
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any, Protocol

import redis

from grader.grading import notify
from grader.redis_direct import DirectRedis, direct

MAX_WAITS_PER_USER = 4
# A slot outlives its wait by this much in Redis: the answer after the wait (a re-read, a reply) takes a moment.
SLOT_MARGIN_SECONDS = 5.0
KEY_PREFIX = "grader:waits:"
FALLBACK_SECONDS = 5.0  # after a Redis error, count in this process for this long before trying Redis again
SLOTS_TIMEOUT_SECONDS = 2.0  # to connect to Redis and for each reply: a hung Redis holds up a wait no longer

# Atomically: forget slots whose time is up, then take one if fewer than the cap are held. KEYS[1] the user's set;
# ARGV: now, the new slot's expiry, its token, the cap, the set's own lifetime in ms.
_TAKE = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1
"""

log = logging.getLogger(__name__)


class Slot(Protocol):
    """One wait's share of its user's cap."""

    def give_back(self) -> None:
        """Free the slot (idempotent: a second call does nothing)."""


class Slots(Protocol):
    """Where slots are counted."""

    per_user: int

    def take(self, user_id: int, seconds: float) -> Slot | None:
        """One of ``user_id``'s slots for a wait of ``seconds``, or None if all are in use."""

    def held(self, user_id: int) -> int:
        """How many slots ``user_id`` holds now."""


class _ProcessSlot:
    def __init__(self, owner: WaitSlots, user_id: int) -> None:
        self._owner, self._user_id, self._held = owner, user_id, True

    def give_back(self) -> None:
        """Count the wait as ended (once)."""
        with self._owner._lock:
            if not self._held:
                return
            self._held = False
            self._owner._held[self._user_id] -= 1
            if not self._owner._held[self._user_id]:
                del self._owner._held[self._user_id]


class WaitSlots:
    """Counts the waits each user holds in this process."""

    def __init__(self, per_user: int = MAX_WAITS_PER_USER) -> None:
        self.per_user = per_user
        self._held: Counter[int] = Counter()
        self._lock = threading.Lock()

    def take(self, user_id: int, seconds: float) -> Slot | None:
        """One of ``user_id``'s slots (``seconds`` does not matter in one process), or None if all are in use."""
        with self._lock:
            if self._held[user_id] >= self.per_user:
                return None
            self._held[user_id] += 1
        return _ProcessSlot(self, user_id)

    def held(self, user_id: int) -> int:
        """How many waits ``user_id`` holds now."""
        with self._lock:
            return self._held[user_id]


class _SharedSlot:
    def __init__(self, owner: SharedWaitSlots, key: str, token: str) -> None:
        self._owner, self._key, self._token, self._held = owner, key, token, True

    def give_back(self) -> None:
        """Remove the slot from the user's set (once; if Redis is down it lapses at its expiry instead)."""
        if not self._held:
            return
        self._held = False
        try:
            self._owner.redis.command("ZREM", self._key, self._token)
        except redis.RedisError as exc:
            log.warning("could not give back a wait slot (it lapses by itself): %s", exc)


class SharedWaitSlots:
    """Counts every web process's waits per user in Redis; in this process alone while Redis is unreachable."""

    def __init__(self, connections: DirectRedis, namespace: str, per_user: int = MAX_WAITS_PER_USER) -> None:
        self.redis = connections
        self.namespace = namespace
        self.per_user = per_user
        self._fallback = WaitSlots(per_user)
        self._down_until = 0.0

    def _key(self, user_id: int) -> str:
        return f"{KEY_PREFIX}{self.namespace}:{user_id}"

    def take(self, user_id: int, seconds: float) -> Slot | None:
        """One of ``user_id``'s slots across all processes, or None if all are in use."""
        if time.monotonic() < self._down_until:
            return self._fallback.take(user_id, seconds)
        key, token, now = self._key(user_id), uuid.uuid4().hex, time.time()
        lifetime = seconds + SLOT_MARGIN_SECONDS
        try:
            granted = self.redis.script(_TAKE, [key], [now, now + lifetime, token, self.per_user, int(lifetime * 1000)])
        except redis.RedisError as exc:
            log.warning("wait slots unavailable, counting in this process for %.0f s: %s", FALLBACK_SECONDS, exc)
            self._down_until = time.monotonic() + FALLBACK_SECONDS
            return self._fallback.take(user_id, seconds)
        return _SharedSlot(self, key, token) if granted else None

    def held(self, user_id: int) -> int:
        """How many unexpired slots ``user_id`` holds in Redis."""
        return int(self.redis.command("ZCOUNT", self._key(user_id), time.time(), "+inf"))


PROCESS_SLOTS = WaitSlots()


@functools.cache
def _shared(url: str, namespace: str) -> SharedWaitSlots:
    """One counter per Redis and deployment in each process."""
    return SharedWaitSlots(direct(url, SLOTS_TIMEOUT_SECONDS), namespace)


def slots(config: Mapping[str, Any]) -> Slots:
    """The slots of this deployment: in the Redis notices travel through (``notify.redis_url``), else this
    process's. Deployments sharing one Redis count apart (user ids repeat across databases): keyed by queue."""
    url = notify.redis_url(config)
    return PROCESS_SLOTS if url is None else _shared(url, str(config["GRADER_QUEUE"]))


@contextmanager
def hold(config: Mapping[str, Any], user_id: int, seconds: float) -> Iterator[bool]:
    """Take one of ``user_id``'s slots for the block; yields False (nothing taken) if all are in use."""
    slot = slots(config).take(user_id, seconds)
    try:
        yield slot is not None
    finally:
        if slot is not None:
            slot.give_back()
