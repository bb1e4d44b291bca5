"""Wake-ups for readers waiting on a submission: the worker publishes on Redis after its final commit.

A notice wakes the readers; after a grading it also carries the columns the committed write returned
(``final_row``), which a reader sets on the row it holds instead of reading it again. Any other notice is only a
wake-up and the reader re-reads the row. A lost notice costs a reader at most SAFETY_RECHECK_SECONDS; without
Redis (the embedded file broker) readers poll instead.
"""

from __future__ import annotations

import functools
import logging
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import redis

from grader.config import REDIS_SCHEMES
from grader.redis_direct import direct

CHANNEL_PREFIX = "grader:submission-final:"
SAFETY_RECHECK_SECONDS = 1.0  # re-read this often even without a notice (covers notices lost in a Redis outage)
RECONNECT_PAUSE_SECONDS = 1.0
POLL_FIRST_SLEEP, POLL_MAX_SLEEP = 0.01, 0.05  # when nobody will notify: re-read every 10 ms, growing to 50 ms
# Ids announced final lately, with their notices' payloads, per process: a request that starts watching just after
# its submission's notice arrived (a fast worker) still wakes at once. A bounded few seconds' worth at a busy
# moment (a payload is a few kB at most).
RECENT_FINALS_KEPT = 4096
WAKE_ONLY = b"final"  # the payload of a notice that carries no row
NOTICE_TIMEOUT_SECONDS = 2.0  # to connect to Redis and to hear it took a notice: a hung Redis delays no grade long

log = logging.getLogger(__name__)


def redis_url(config: Mapping[str, Any]) -> str | None:
    """The Redis notices travel through: the broker if it is Redis, else the rate limits' Redis (a RabbitMQ
    deployment keeps one for those), else None (waiting requests poll)."""
    for name in ("CELERY_BROKER_URL", "RATELIMIT_STORAGE_URI"):
        url = str(config.get(name) or "")
        if url.startswith(REDIS_SCHEMES):
            return url
    return None


def channel_prefix(config: Mapping[str, Any]) -> str:
    """Channel names of one deployment: pub/sub ignores Redis db numbers, so the queue name keeps others apart."""
    return f"{CHANNEL_PREFIX}{config['GRADER_QUEUE']}:"


def announce_final(config: Mapping[str, Any], submission_id: int, payload: bytes | None = None) -> None:
    """Publish that ``submission_id`` is final, with ``payload`` (``final_row.encode``) if given; best-effort
    (waiting readers re-check on their own anyway)."""
    url = redis_url(config)
    if url is None:
        return
    try:
        direct(url, NOTICE_TIMEOUT_SECONDS).command(
            "PUBLISH", f"{channel_prefix(config)}{submission_id}", payload or WAKE_ONLY
        )
    except redis.RedisError as exc:
        log.warning("could not announce submission %s as final (readers will re-check): %s", submission_id, exc)


def kept_payload(config: Mapping[str, Any], submission_id: int) -> bytes | None:
    """The row the latest notice for ``submission_id`` carried, if this process heard it lately (None without
    Redis, or if it carried none)."""
    url = redis_url(config)
    return None if url is None else listener(url, channel_prefix(config)).payload(submission_id)


class FinalListener:
    """One background subscription per web process; waiting requests register an event per submission id."""

    def __init__(self, url: str, prefix: str) -> None:
        self.url = url
        self.prefix = prefix
        self.connected = threading.Event()
        self._waiters: dict[int, set[threading.Event]] = {}
        # Called from the listening thread with each announced id, or None when notices may have been lost: the
        # parking lot of a gunicorn worker (grader.api.parking_lot), which waits on many ids from one thread.
        self._observers: list[Callable[[int | None], None]] = []
        self._recent_finals: OrderedDict[int, bytes | None] = OrderedDict()
        # Counts (re)subscriptions and disconnects: equal at two moments means nothing was missed in between.
        self._subscription = 0
        self._lock = threading.Lock()
        self._started_in: int | None = None

    def _ensure_running(self) -> None:
        """Start the listening thread in this process (again after a fork, which does not copy threads)."""
        with self._lock:
            if self._started_in == os.getpid():
                return
            self._started_in = os.getpid()
            self.connected.clear()
            self._waiters.clear()
            self._observers.clear()
            self._recent_finals.clear()
        threading.Thread(target=self._listen_forever, name="grader-final-listener", daemon=True).start()

    def _listen_forever(self) -> None:
        """Subscribe to every submission's channel and wake its waiters; reconnect after Redis errors."""
        while True:
            pubsub = redis.Redis.from_url(self.url, socket_connect_timeout=2.0).pubsub()
            try:
                pubsub.psubscribe(self.prefix + "*")
                for message in pubsub.listen():  # type: ignore[no-untyped-call]  # untyped in types-redis
                    if message["type"] == "psubscribe":
                        # Also after redis-py reconnects by itself: notices sent meanwhile are lost, so wake all.
                        self._new_subscription(connected=True)
                        self._wake_everyone()
                    elif message["type"] == "pmessage":
                        self._wake(message["channel"], message["data"])
            except redis.RedisError as exc:
                log.warning("submission notices unavailable, waiting requests poll: %s", exc)
            finally:
                self._new_subscription(connected=False)
                self._wake_everyone()  # whoever waited may have missed a notice: let them re-read now
                pubsub.close()
            time.sleep(RECONNECT_PAUSE_SECONDS)

    def _new_subscription(self, *, connected: bool) -> None:
        """Mark a (re)subscription or a disconnect: notices around it may be lost."""
        with self._lock:
            self._subscription += 1
            if connected:
                self.connected.set()
            else:
                self.connected.clear()

    def subscription_mark(self) -> int | None:
        """The current subscription's mark, or None while not subscribed."""
        self._ensure_running()
        with self._lock:
            return self._subscription if self.connected.is_set() else None

    def heard_everything_since(self, mark: int | None) -> bool:
        """True if subscribed without a break since ``subscription_mark`` gave ``mark``."""
        with self._lock:
            return mark is not None and self.connected.is_set() and self._subscription == mark

    def _wake(self, raw_channel: bytes, payload: bytes) -> None:
        """Keep ``payload`` and set the events of everyone waiting on the submission named by ``raw_channel``."""
        suffix = raw_channel.decode("ascii", "replace").removeprefix(self.prefix)
        if not suffix.isdigit():
            return
        submission_id = int(suffix)
        with self._lock:
            # A later notice replaces an earlier one's payload: a wake-up only (e.g. after an error) voids it.
            self._recent_finals[submission_id] = None if payload == WAKE_ONLY else payload
            self._recent_finals.move_to_end(submission_id)
            if len(self._recent_finals) > RECENT_FINALS_KEPT:
                self._recent_finals.popitem(last=False)
            events = list(self._waiters.get(submission_id, ()))
            observers = list(self._observers)
        for event in events:
            event.set()
        for observer in observers:
            observer(submission_id)

    def payload(self, submission_id: int) -> bytes | None:
        """The payload of the latest notice for ``submission_id`` still kept, if it carried one."""
        with self._lock:
            return self._recent_finals.get(submission_id)

    def _wake_everyone(self) -> None:
        """Set every registered event."""
        with self._lock:
            events = [event for waiting in self._waiters.values() for event in waiting]
            observers = list(self._observers)
        for event in events:
            event.set()
        for observer in observers:
            observer(None)

    def observe(self, observer: Callable[[int | None], None]) -> None:
        """Call ``observer`` with each id announced final, and with None whenever notices may have been lost;
        starts listening in this process."""
        self._ensure_running()
        with self._lock:
            self._observers.append(observer)

    def announced_lately(self, submission_id: int) -> bool:
        """True if a notice for ``submission_id`` is among the RECENT_FINALS_KEPT last ones."""
        with self._lock:
            return submission_id in self._recent_finals

    @contextmanager
    def watching(self, submission_id: int) -> Iterator[threading.Event]:
        """An event set when ``submission_id`` is announced final (already set if it was, lately)."""
        self._ensure_running()
        event = threading.Event()
        with self._lock:
            self._waiters.setdefault(submission_id, set()).add(event)
            if submission_id in self._recent_finals:
                event.set()
        try:
            yield event
        finally:
            with self._lock:
                waiting = self._waiters.get(submission_id)
                if waiting is not None:
                    waiting.discard(event)
                    if not waiting:
                        del self._waiters[submission_id]


@functools.cache
def listener(url: str, prefix: str) -> FinalListener:
    """The process's listener for the channels under ``prefix`` on the Redis at ``url``."""
    return FinalListener(url, prefix)


class FinalWait:
    """How one request waits between re-reads of a submission: a Redis notice, or polling without one."""

    def __init__(
        self, submission_id: int, event: threading.Event | None, process_listener: FinalListener | None
    ) -> None:
        self._submission_id = submission_id
        self._event = event
        self._listener = process_listener
        self._pause = POLL_FIRST_SLEEP

    def heard_everything_since(self, mark: int | None) -> bool:
        """True if every notice since ``subscription_mark`` returned ``mark`` has reached this process."""
        return self._listener is not None and self._listener.heard_everything_since(mark)

    def final_payload(self) -> bytes | None:
        """The row a notice for this submission carried, if one did (``final_row.apply`` reads it)."""
        return None if self._listener is None else self._listener.payload(self._submission_id)

    def pause(self, seconds_left: float) -> None:
        """Block until a notice arrives, a safety re-check is due, or ``seconds_left`` is used up."""
        if self._event is not None and self._listener is not None and self._listener.connected.is_set():
            self._event.wait(min(seconds_left, SAFETY_RECHECK_SECONDS))
            self._event.clear()
            return
        time.sleep(min(self._pause, seconds_left))
        self._pause = min(self._pause * 2, POLL_MAX_SLEEP)


@contextmanager
def final_wait(config: Mapping[str, Any], submission_id: int) -> Iterator[FinalWait]:
    """Subscribe to ``submission_id``'s final notice (Redis) or prepare to poll; enter before the first read."""
    url = redis_url(config)
    if url is None:
        yield FinalWait(submission_id, None, None)
        return
    process_listener = listener(url, channel_prefix(config))
    with process_listener.watching(submission_id) as event:
        yield FinalWait(submission_id, event, process_listener)


def subscription_mark(config: Mapping[str, Any]) -> int | None:
    """Take before sending a task: ``FinalWait.heard_everything_since`` later tells whether its notice can have
    been missed. None without Redis, or while this process is not (yet) subscribed."""
    url = redis_url(config)
    return None if url is None else listener(url, channel_prefix(config)).subscription_mark()
