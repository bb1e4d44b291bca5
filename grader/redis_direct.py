"""Redis commands on a connection the calling thread keeps: the hot paths' round trips without the client's pool.

Through a ``redis.Redis`` client each command checks a connection out of the client's pool and back in (locks, a
fork check, observability events) inside its retry wrapper: ~30 µs of CPU here, most of what a round trip costs
on top of its socket calls (~40 µs; bench/README.md, 2026-12-06). Every submission sends three commands this way
(its task message, its wait slot taken and given back) and its grading one more (the worker's notice), so they go
on a connection each thread keeps instead, made by redis-py from the same URL (password, database, TLS, a unix
socket: whatever the URL says), used one command at a time.

A broken connection is dropped and the command sent once more on a new one (a Redis restart), as the task send's
client did with its one retry; a second failure is raised as redis-py's ``ConnectionError`` or ``TimeoutError``.
(The notice's and the wait slots' clients had redis-py's default of ten tries with back-off, so a hung Redis held
a wait or a grade's notice for ~25 s; now for two timeouts at most.) An error reply (``ResponseError``) leaves the
connection in use. A forked child never uses its parent's connection.
"""

from __future__ import annotations

import functools
import hashlib
import os
import threading
from typing import Any

import redis
from redis.connection import AbstractConnection
from redis.exceptions import NoScriptError


class _Kept(threading.local):
    """This thread's connection and the process that made it."""

    pid: int = 0
    connection: AbstractConnection | None = None


class DirectRedis:
    """Commands to one Redis, each on the calling thread's own connection."""

    def __init__(self, url: str, timeout: float) -> None:
        # Only a factory here: it turns the URL into redis-py's connection class and options, as a client's would.
        factory = redis.ConnectionPool.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout)
        self._connection_class = factory.connection_class
        self._connection_options = dict(factory.connection_kwargs)
        self._kept = _Kept()

    def command(self, *args: str | bytes | int | float) -> Any:
        """Send one command and return its reply; once more on a new connection if the kept one is broken."""
        try:
            return self._round_trip(args)
        except (redis.ConnectionError, redis.TimeoutError):
            return self._round_trip(args)

    def script(self, source: str, keys: list[str], args: list[str | bytes | int | float]) -> Any:
        """Run the Lua ``source`` by its digest (EVALSHA); sent whole (EVAL, which caches it) if Redis lacks it,
        e.g. after a restart or a SCRIPT FLUSH."""
        try:
            return self.command("EVALSHA", _digest(source), len(keys), *keys, *args)
        except NoScriptError:
            return self.command("EVAL", source, len(keys), *keys, *args)

    def _round_trip(self, args: tuple[str | bytes | int | float, ...]) -> Any:
        """One command on this thread's connection; a connection that failed is dropped (the next call makes one)."""
        connection = self._connection()
        try:
            connection.send_command(*args, check_health=False)
            return connection.read_response()
        except (redis.ConnectionError, redis.TimeoutError):
            # A timeout may leave a reply unread on the socket: the connection cannot be used again either way.
            self._kept.connection = None
            connection.disconnect()
            raise

    def _connection(self) -> AbstractConnection:
        """This thread's connection, made in this process (a child's inherited one belongs to its parent)."""
        kept = self._kept
        if kept.connection is None or kept.pid != os.getpid():
            kept.connection = self._connection_class(**self._connection_options)
            kept.pid = os.getpid()
        return kept.connection


@functools.cache
def _digest(source: str) -> str:
    """The SHA1 by which Redis knows a script."""
    return hashlib.sha1(source.encode(), usedforsecurity=False).hexdigest()


@functools.cache
def direct(url: str, timeout: float) -> DirectRedis:
    """The commands to ``url`` with ``timeout`` (seconds, to connect and to wait for a reply), one per process."""
    return DirectRedis(url, timeout)
