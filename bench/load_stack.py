"""Process and server plumbing for bench/bench_service.py: child process groups, CPU accounting, scratch stores."""
from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

import redis
import requests

from tests.support import postgres_database

ROOT = Path(__file__).resolve().parents[1]
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
ADMIN_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
REDIS_URL = "redis://127.0.0.1:6379/0"


def add_server_arguments(parser: argparse.ArgumentParser) -> None:
    """``--admin-url`` and ``--redis-url``: the PostgreSQL server and the Redis database a benchmark runs on."""
    parser.add_argument("--admin-url", default=ADMIN_URL, help="PostgreSQL server (SQLAlchemy URL, any database)")
    parser.add_argument("--redis-url", default=REDIS_URL, help="broker and limiter (a quiet db)")


def _process_stats() -> Iterator[tuple[Path, list[str]]]:
    """Each live process's /proc directory and the fields of its stat line after the name."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:
            continue  # the process ended while we looked
        yield stat.parent, fields


def _cpu_ticks(fields: list[str]) -> int:
    """utime + stime of a stat line (fields after the name: state, ppid, pgrp, ..., utime (12), stime (13))."""
    return int(fields[11]) + int(fields[12])


def group_cpu_seconds(group_id: int) -> float:
    """User+system CPU seconds used so far by the live processes of process group ``group_id``."""
    return sum(_cpu_ticks(fields) for _, fields in _process_stats() if int(fields[2]) == group_id) / CLOCK_TICKS


def process_cpu_seconds(pid: int) -> float:
    """User+system CPU seconds used so far by process ``pid`` alone (0 if it has ended)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return 0.0
    return _cpu_ticks(fields) / CLOCK_TICKS


def command_cpu_seconds(fragment: str) -> float:
    """CPU seconds used so far by live processes whose command line contains ``fragment`` (PostgreSQL names a
    backend's database in its title; redis-server its own binary)."""
    total = 0
    for directory, fields in _process_stats():
        try:
            command = (directory / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if fragment in command:
            total += _cpu_ticks(fields)
    return total / CLOCK_TICKS


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port on ``host`` that is free right now."""
    with socket.socket() as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


class Processes:
    """Child processes, each in its own session so that stopping one stops its workers too."""

    def __init__(self, log_dir: Path) -> None:
        self.log_dir = log_dir
        self.children: list[tuple[str, subprocess.Popen[bytes]]] = []

    def start(self, name: str, command: list[str], env: dict[str, str]) -> int:
        """Start ``command`` with its output in ``log_dir/name.log``; returns its process group id."""
        with open(self.log_dir / f"{name}.log", "wb") as log:
            child = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        self.children.append((name, child))
        return child.pid

    def log_tail(self, name: str, lines: int = 15) -> str:
        """The last lines of a child's log."""
        return "\n".join((self.log_dir / f"{name}.log").read_text(errors="replace").splitlines()[-lines:])

    def stop_all(self) -> None:
        """SIGTERM each child's process group, then SIGKILL whatever is still there after 10 s."""
        for _, child in self.children:
            if child.poll() is None:
                os.killpg(child.pid, signal.SIGTERM)
        deadline = time.monotonic() + 10
        for _, child in self.children:
            try:
                child.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                os.killpg(child.pid, signal.SIGKILL)
                child.wait()


def wait_healthy(url: str, processes: Processes, name: str) -> None:
    """Poll ``url`` until it answers 200 (60 s cap; a loaded machine imports slowly)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if requests.get(url, timeout=10).status_code == 200:
                return
        except (requests.ConnectionError, requests.Timeout):
            pass
        time.sleep(0.2)
    raise RuntimeError(f"{name} did not come up at {url}:\n{processes.log_tail(name)}")


def scratch_database(admin_url: str, prefix: str = "grader_bench") -> AbstractContextManager[str]:
    """A new PostgreSQL database for this run (SQLAlchemy URL), dropped at the end (the tests' helper)."""
    return postgres_database(f"{prefix}_{os.getpid()}", admin_url)


@contextmanager
def redis_keys_cleaned(url: str, tag: str) -> Iterator[None]:
    """Delete, at the end, the Redis keys this run created: its queues and the Celery/limiter keys that were new."""
    client = redis.Redis.from_url(url)
    before = set(client.keys("*"))
    try:
        yield
    finally:
        shared = (b"_kombu", b"unacked", b"LIMITS:LIMITER/grader/")
        created = [key for key in client.keys("*")
                   if tag.encode() in key or (key not in before and key.startswith(shared))]
        if created:
            client.delete(*created)
        client.close()
