"""Test helpers: backends (SQLite + file broker, PostgreSQL + Redis), real worker processes, polling."""

from __future__ import annotations

import atexit
import functools
import os
import re
import signal
import socket
import subprocess
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar, cast

import kombu
import redis
from flask import Flask
from sqlalchemy import create_engine, event, text
from werkzeug.routing import Rule

from grader.extensions import get_db
from grader.grading import notify
from grader.serve import terminate_with_parent, worker_command

PG_ADMIN_URL = os.environ.get("GRADER_TEST_PG_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres")
REDIS_URL = os.environ.get("GRADER_TEST_REDIS_URL", "redis://127.0.0.1:6379")
RABBITMQ_URL = os.environ.get("GRADER_TEST_RABBITMQ_URL", "amqp://guest:guest@127.0.0.1:5672//")
REDIS_TEST_DATABASES = range(1, 16)  # database 0 holds only the claims below
REDIS_CLAIM_SECONDS = 6 * 3600  # a claim left by a killed run lapses at the latest after this
WAIT_SECONDS = 60.0  # generous upper bound for anything a worker does; tests never assert durations
T = TypeVar("T")


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port on ``host`` that nobody listens on right now."""
    with socket.socket() as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


def cache_url_builders() -> None:
    """Build each URL rule's builder function once per test process instead of once per app.

    Every test builds its own app, and most of ``create_app``'s time (≈50 of 60 ms) goes to werkzeug compiling,
    from a generated syntax tree, two builder functions for each of the app's ~80 rules. Such a function depends
    only on the rule's parts (the rule is passed to it as ``self`` when it runs), so the one compiled for an equal
    rule is the same code; a rule with defaults bakes them in, so those are compiled as before.
    """
    original = Rule._compile_builder
    built: dict[tuple[str, tuple[tuple[bool, str], ...], bool], Callable[..., tuple[str, str]]] = {}

    @functools.wraps(original)
    def compile_once(self: Rule, append_unknown: bool = True) -> Callable[..., tuple[str, str]]:
        if self.defaults:
            return original(self, append_unknown)
        key = (self.rule, tuple(self._trace), append_unknown)
        if key not in built:
            built[key] = original(self, append_unknown)
        return built[key]

    Rule._compile_builder = compile_once  # type: ignore[method-assign]


def notices_subscribed(config: Mapping[str, Any]) -> None:
    """Start this process's grade-notice listener for ``config`` and wait until it has subscribed; nothing to do
    where notices do not travel through Redis (waits poll the database there)."""
    url = notify.redis_url(config)
    if url is None:
        return
    notify.subscription_mark(config)  # starts the listening thread
    assert notify.listener(url, notify.channel_prefix(config)).connected.wait(5), (
        "the notice listener did not subscribe"
    )


def wait_for(probe: Callable[[], T | None], what: str, timeout: float = WAIT_SECONDS, every: float = 0.05) -> T:
    """Poll ``probe`` (``every`` seconds) until it returns something truthy; fail with ``what`` if it never does."""
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(every)


def _process_alive(pid: int) -> bool:
    """Whether process ``pid`` still runs on this machine."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _release_redis_claim(key: str, me: str) -> None:
    """Give back a claimed Redis database (if the claim is still ours)."""
    try:
        client = redis.Redis.from_url(f"{REDIS_URL}/0")
        if client.get(key) == me.encode():
            client.delete(key)
    except redis.RedisError:
        pass  # the claim lapses by itself


@functools.cache
def own_redis_url() -> str:
    """The URL of a Redis database (1-15) that no other live test process uses, for this process's broker.

    Test processes run side by side (pytest-xdist workers, other runs on the machine) and some tests flush their
    database to lose messages on purpose, so each process claims one in database 0 (SET NX, released at exit); a
    claim whose process has died is taken over.
    """
    client = redis.Redis.from_url(f"{REDIS_URL}/0")
    me = str(os.getpid())
    for index in REDIS_TEST_DATABASES:
        key = f"grader-test-db:{index}"
        if client.set(key, me, nx=True, ex=REDIS_CLAIM_SECONDS) or _took_over_dead_claim(client, key, me):
            atexit.register(_release_redis_claim, key, me)
            return f"{REDIS_URL}/{index}"
    raise RuntimeError("every Redis test database (1-15) is claimed by a live test process")


def _took_over_dead_claim(client: redis.Redis[bytes], key: str, me: str) -> bool:
    """Claim ``key`` if the process holding it is dead; atomic against another process doing the same."""
    with client.pipeline() as pipe:
        try:
            pipe.watch(key)
            holder = cast(bytes | None, pipe.get(key))  # a watching pipeline runs commands at once
            if holder is None or not holder.isdigit() or _process_alive(int(holder)):
                return False
            pipe.multi()
            pipe.set(key, me, ex=REDIS_CLAIM_SECONDS)
            pipe.execute()
        except redis.WatchError:
            return False
    return True


@contextmanager
def postgres_database(name: str, admin_url: str = PG_ADMIN_URL) -> Iterator[str]:
    """Create database ``name`` on the server of ``admin_url`` (the test server), yield its URL, drop it afterwards."""
    admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        connection.execute(text(f'CREATE DATABASE "{name}"'))
        # Every session on it (the tests', workers', CLI subprocesses') commits without waiting for the WAL flush:
        # ~5 ms less per commit on this machine's disk, more when it is busy. What a commit makes visible, and
        # when, is unchanged; only a crash of the server could lose the last commits, of a database dropped anyway.
        connection.execute(text(f'ALTER DATABASE "{name}" SET synchronous_commit = off'))
    try:
        yield admin_url.rsplit("/", 1)[0] + f"/{name}"
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@dataclass(frozen=True)
class Backend:
    """Where one test session's data and messages live, and how to lose the messages on purpose."""

    name: str
    database_url: str
    broker_url: str
    data_dir: Path
    queue: str
    settings: dict[str, str] = field(default_factory=dict)

    def config(self, **overrides: Any) -> dict[str, Any]:
        """Settings for create_app (and, as strings, for worker processes)."""
        base = {
            "GRADER_ENV": "testing",
            "SECRET_KEY": "test-secret-key-not-for-production",
            "DATABASE_URL": self.database_url,
            "CELERY_BROKER_URL": self.broker_url,
            "GRADER_DATA_DIR": str(self.data_dir),
            "GRADER_QUEUE": self.queue,
            "GRADER_REQUEUE_AFTER": "1",
            "GRADER_SWEEP_INTERVAL": "1",
            **self.settings,
        }
        return {**base, **overrides}

    def env(self, **overrides: Any) -> dict[str, str]:
        """The process environment for a worker or CLI subprocess using this backend."""
        return {**os.environ, **{k: str(v) for k, v in self.config(**overrides).items()}}

    def lose_messages(self, queue: str) -> None:
        """Make the broker forget every message: FLUSHDB on Redis, purge the queue on RabbitMQ, delete the queue's
        files on the file broker."""
        if self.broker_url.startswith("amqp://"):
            with kombu.Connection(self.broker_url) as connection:
                _amqp_queue(connection, queue, lambda q: q.purge())
            return
        if self.broker_url.startswith("redis://"):
            redis.Redis.from_url(self.broker_url).flushdb()
            return
        for message in (self.data_dir / "broker" / "queue").glob(f"*.{queue}.msg"):
            message.unlink()

    def drop_queue(self, queue: str) -> None:
        """Delete ``queue`` and the messages in it (a queue only one test used)."""
        if self.broker_url.startswith("amqp://"):
            with kombu.Connection(self.broker_url) as connection:
                _amqp_queue(connection, queue, lambda q: q.delete())
            return
        if self.broker_url.startswith("redis://"):
            redis.Redis.from_url(self.broker_url).delete(queue)
            return
        for message in (self.data_dir / "broker" / "queue").glob(f"*.{queue}.msg"):
            message.unlink()

    def pending_messages(self, queue: str) -> int:
        """How many messages wait in ``queue``."""
        if self.broker_url.startswith("amqp://"):
            with kombu.Connection(self.broker_url) as connection:
                return _amqp_queue(connection, queue, lambda q: q.queue_declare(passive=True).message_count)
        if self.broker_url.startswith("redis://"):
            return int(redis.Redis.from_url(self.broker_url).llen(queue))
        return len(list((self.data_dir / "broker" / "queue").glob(f"*.{queue}.msg")))


def _amqp_queue(connection: kombu.Connection, name: str, action: Callable[[Any], Any]) -> int:
    """Run ``action`` on RabbitMQ queue ``name`` bound to ``connection``; 0 if the queue does not exist."""
    try:
        return int(action(kombu.Queue(name, channel=connection.channel())) or 0)
    except connection.channel_errors:
        return 0


class WorkerProcess:
    """A real ``celery -A grader.worker worker`` process with its log in a file."""

    def __init__(self, env: dict[str, str], queue: str, log_path: Path, concurrency: int = 1) -> None:
        self.queue = queue
        self.log_path = log_path
        self.name = f"test-{uuid.uuid4().hex[:8]}@%h"
        # The same command line `grader serve` runs, so the tests exercise what users start.
        command = [*worker_command(queue, concurrency), "--hostname", self.name, "--without-gossip", "--without-mingle"]
        self._log = log_path.open("wb")
        # Own process group, so the test can kill the main process and its pool children together; it stops if
        # the test run is killed, instead of grading on for a queue nobody reads.
        self.process = subprocess.Popen(
            command,
            env=env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=terminate_with_parent,
        )

    def log(self) -> str:
        """Everything the worker has logged so far."""
        return self.log_path.read_text(errors="replace")

    def wait_ready(self) -> None:
        """Block until the worker says it is ready to consume."""
        wait_for(lambda: self._alive_and(" ready."), f"worker ready (log: {self.log_path})")

    def _alive_and(self, needle: str) -> bool:
        """True once ``needle`` is in the log; fails fast if the worker died."""
        if self.process.poll() is not None:
            raise AssertionError(f"worker exited with {self.process.returncode}:\n{self.log()[-3000:]}")
        return needle in self.log()

    def task_outcome(self, task_id: str) -> str:
        """Wait for the worker to finish task ``task_id`` and return the value it returned."""
        pattern = re.compile(rf"Task grader\.\w+\[{re.escape(task_id)}\] succeeded in [0-9.e-]+s: '([\w-]+)'")

        def probe() -> str | None:
            found = pattern.search(self.log())
            return found.group(1) if found else None

        return wait_for(probe, f"task {task_id} in {self.log_path}")

    def kill(self) -> None:
        """SIGKILL the worker and its children: no clean-up, no acknowledgements, leases left behind."""
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()

    def stop(self) -> None:
        """Warm shutdown (SIGTERM to the main process, which stops its pool), or SIGKILL if it hangs."""
        if self.process.poll() is None:
            self.process.terminate()
        self._reap()

    def stop_soon(self) -> None:
        """Ask for a warm shutdown (seconds: the file broker's 2 s poll, the pool, the interpreter) and go on; it is
        waited for when the test process exits. Only for a worker on a queue no later test reads."""
        if self.process.poll() is None:
            self.process.terminate()
        finish_at_exit(self._reap)

    def _reap(self) -> None:
        """Wait for a worker already asked to stop, SIGKILL it if it hangs; close its log."""
        try:
            self.process.wait(20)
        except subprocess.TimeoutExpired:
            self.kill()
        self._log.close()


_AT_EXIT: list[Callable[[], None]] = []  # waits for processes asked to stop, run when the test process exits
atexit.register(lambda: [finish() for finish in reversed(_AT_EXIT)])


def finish_at_exit(finish: Callable[[], None]) -> None:
    """Run ``finish`` (the wait for a process already asked to stop) when this test process exits, not now."""
    _AT_EXIT.append(finish)


@contextmanager
def cursor_listener(app: Flask, record: Callable[..., None]) -> Iterator[None]:
    """``record`` hears each statement the app's engine sends while the block runs (``before_cursor_execute``:
    connection, cursor, statement, parameters, execution context, executemany)."""
    engine = get_db(app).engine
    event.listen(engine, "before_cursor_execute", record)
    try:
        yield
    finally:
        event.remove(engine, "before_cursor_execute", record)


@contextmanager
def sql_sent(app: Flask) -> Iterator[list[tuple[str, Any]]]:
    """The (statement, parameters) pairs the app's engine sends while the block runs."""
    sent: list[tuple[str, Any]] = []

    def record(_conn: Any, _cursor: Any, statement: str, parameters: Any, *_rest: Any) -> None:
        sent.append((statement, parameters))

    with cursor_listener(app, record):
        yield sent
