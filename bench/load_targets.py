"""The systems bench/bench_service.py loads: the grader, the bare floor and the required-work floor, each
started with the same process model, and what a client needs to drive each (a Target)."""
from __future__ import annotations

import argparse
import os
import secrets
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.floor import required_schema
from bench.floor import settings as floor_settings
from bench.load_stack import ROOT, Processes, free_port, wait_healthy

BIN = Path(sys.executable).parent


@dataclass(frozen=True)
class Target:
    """One system under load: where to POST a job, where to read it back, and which bodies to send."""

    name: str
    base_url: str
    submit_path: str
    result_path: str  # with "{id}"
    headers: dict[str, str]
    bodies: tuple[dict[str, Any], ...]
    ok_status: str
    final_statuses: frozenset[str]
    process_groups: tuple[int, int]  # web server, worker: for CPU accounting
    server_commands: tuple[str, str]  # command-line fragments of its PostgreSQL backends and of redis-server
    submit_headers: dict[str, str] = field(default_factory=dict)  # e.g. Prefer: wait=10 (grader, one-request mode)
    # One set per client where the system has per-user rules (the grader caps each user's held waits, as a course of
    # many students would never meet): client i sends client_headers[i % len]; else every client sends ``headers``.
    client_headers: tuple[dict[str, str], ...] = ()

    def headers_of(self, client: int) -> dict[str, str]:
        """The headers client number ``client`` sends."""
        return self.client_headers[client % len(self.client_headers)] if self.client_headers else self.headers


def web_command(app: str, port: int, args: argparse.Namespace, worker_class: str = "gthread") -> list[str]:
    """gunicorn with the same process model for the grader and the floor (the grader's worker class may be ours)."""
    return [str(BIN / "gunicorn"), "-w", str(args.web_workers), "-k", worker_class, "--threads", str(args.web_threads),
            "-b", f"127.0.0.1:{port}", "--graceful-timeout", "2", app]


def worker_command(app: str, queue: str, args: argparse.Namespace) -> list[str]:
    """A Celery prefork worker with the same settings for the grader and the floor."""
    return [str(BIN / "celery"), "-A", app, "worker", "-P", "prefork", "-c", str(args.worker_concurrency), "-Q", queue,
            "--without-gossip", "--without-mingle", "--without-heartbeat"]


def server_commands(database_url: str) -> tuple[str, str]:
    """How to find the servers' processes: PostgreSQL backends carry their database's name in their title."""
    return f" {database_url.rsplit('/', 1)[1]} ", "redis-server"


def grader_settings(database_url: str, broker_url: str, tag: str, data_dir: str) -> dict[str, str]:
    """The grader's environment for a benchmark: production settings on the scratch database, its own queue, a rate
    limit never reached."""
    return {"GRADER_ENV": "production", "SECRET_KEY": secrets.token_urlsafe(48), "DATABASE_URL": database_url,
            "CELERY_BROKER_URL": broker_url, "GRADER_QUEUE": f"{tag}_grading",
            "SUBMISSION_RATE_LIMIT": "100000/minute", "GRADER_DATA_DIR": data_dir}


def migrated_with_teacher_tokens(env: dict[str, str], names: list[str]) -> list[str]:
    """Migrate the grader's database (``env``) and issue a teacher's token for each of ``names``."""
    subprocess.run([str(BIN / "grader"), "db", "upgrade"], cwd=ROOT, env=env, check=True, capture_output=True)
    return [subprocess.run([str(BIN / "grader"), "token", "create", "--role", "teacher", "--name", name],
                           cwd=ROOT, env=env, check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1]
            for name in names]


def start_grader(processes: Processes, database_url: str, broker_url: str, tag: str, args: argparse.Namespace,
                 bodies: tuple[dict[str, Any], ...], clients: int = 1) -> Target:
    """Migrate the scratch database, issue a teacher token per client, start gunicorn and a worker for the grader."""
    env = {**os.environ, **grader_settings(database_url, broker_url, tag, str(processes.log_dir / "grader-data"))}
    # A teacher (the bodies are seed 0, the book's variant) per client: one user shared by every client would hold
    # more waits than the per-user cap, and the clients beyond it would poll instead of waiting.
    tokens = migrated_with_teacher_tokens(env, [f"bench-{n}" for n in range(clients)])
    port = free_port()
    worker_class = "grader.gunicorn_worker.ThreadWorker" if args.grader_worker == "ours" else "gthread"
    web = processes.start("grader-web", web_command("grader:create_app()", port, args, worker_class), env)
    worker = processes.start("grader-worker", worker_command("grader.worker", env["GRADER_QUEUE"], args), env)
    base = f"http://127.0.0.1:{port}"
    wait_healthy(base + "/healthz", processes, "grader-web")
    headers = tuple({"Authorization": f"Bearer {token}"} for token in tokens)
    return Target("grader", base, "/api/v1/submissions", "/api/v1/submissions/{id}", headers[0], bodies, "graded",
                  frozenset({"graded", "invalid", "error"}), (web, worker), server_commands(database_url),
                  client_headers=headers)


def start_floor(processes: Processes, database_url: str, broker_url: str, tag: str, args: argparse.Namespace,
                bodies: tuple[dict[str, Any], ...]) -> Target:
    """Create the floor's table in the scratch database and start its gunicorn and worker."""
    libpq_url = database_url.replace("postgresql+psycopg://", "postgresql://")
    floor_settings.create_table(libpq_url)
    env = {**os.environ, "FLOOR_DATABASE_URL": libpq_url, "FLOOR_BROKER_URL": broker_url, "FLOOR_QUEUE": f"{tag}_floor",
           "FLOOR_POLL_SECONDS": str(args.floor_poll_ms / 1000), "PYTHONPATH": str(ROOT)}
    port = free_port()
    web = processes.start("floor-web", web_command("bench.floor.web:create_app()", port, args), env)
    worker = processes.start("floor-worker", worker_command("bench.floor.worker", env["FLOOR_QUEUE"], args), env)
    base = f"http://127.0.0.1:{port}"
    wait_healthy(base + "/healthz", processes, "floor-web")
    return Target("floor", base, "/jobs", "/jobs/{id}", {}, bodies, "done", frozenset({"done"}), (web, worker),
                  server_commands(database_url))


def required_floor_prepared(database_url: str, broker_url: str, tag: str) -> tuple[dict[str, str], str]:
    """Create the required-work floor's tables and a token in the scratch database: (its environment, the token)."""
    libpq_url = database_url.replace("postgresql+psycopg://", "postgresql://")
    token = secrets.token_urlsafe(32)
    required_schema.create_tables(libpq_url, token)
    return {"FLOOR_DATABASE_URL": libpq_url, "FLOOR_BROKER_URL": broker_url, "FLOOR_QUEUE": f"{tag}_required"}, token


def start_required_floor(processes: Processes, database_url: str, broker_url: str, tag: str,
                         args: argparse.Namespace, bodies: tuple[dict[str, Any], ...]) -> Target:
    """Create the required-work floor's tables and token, start its gunicorn and worker."""
    settings, token = required_floor_prepared(database_url, broker_url, tag)
    env = {**os.environ, **settings, "FLOOR_POLL_SECONDS": str(args.floor_poll_ms / 1000), "PYTHONPATH": str(ROOT)}
    port = free_port()
    web = processes.start("required-web", web_command("bench.floor.required:create_app()", port, args), env)
    worker = processes.start("required-worker", worker_command("bench.floor.required", env["FLOOR_QUEUE"], args),
                             env)
    base = f"http://127.0.0.1:{port}"
    wait_healthy(base + "/healthz", processes, "required-web")
    return Target("required floor", base, "/jobs", "/jobs/{id}", {"Authorization": f"Bearer {token}"}, bodies,
                  "graded", frozenset({"graded", "invalid", "error"}), (web, worker), server_commands(database_url))


# What the grader can be compared with (--floors): each starts its stack and returns its target.
FLOOR_STARTERS: dict[str, Callable[..., Target]] = {"floor": start_floor, "required": start_required_floor}
