"""Service load benchmark: closed-loop clients against the real grader, next to a bare Flask+Celery floor.

Prints graded submissions per second and p50/p99 latency per client count, for the grader and for the floor
(bench/floor: insert row, send task, worker updates row, client reads it), and the grader's figures as a ratio
of the floor's. Grader clients wait in two ways (``--grader-modes``): two calls (POST, then GET ?wait=10, the shape
of the floor's client) and one POST with ``Prefer: wait=10``. Asserts nothing. Run from the repository root: ``.venv/bin/python bench/bench_service.py``
(``--levels 1,4,16 --duration 10``). Only localhost traffic; a scratch PostgreSQL database is created and dropped,
Redis keys it creates are deleted, and every process it starts is stopped at the end (also on Ctrl-C).
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import secrets
import signal
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any, NoReturn

import requests

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # before the bench imports below, so the script runs from a plain checkout

from bench.floor import settings as floor_settings
from bench.load_report import LevelResult, percentile, print_report
from bench.load_stack import (
    Processes,
    free_port,
    command_cpu_seconds,
    group_cpu_seconds,
    redis_keys_cleaned,
    scratch_database,
    wait_healthy,
)

BIN = Path(sys.executable).parent
ADMIN_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
# How the grader's clients wait for the grade: the extra headers of their POST.
GRADER_MODES: dict[str, dict[str, str]] = {"two-calls": {}, "prefer-wait": {"Prefer": "wait=10"}}
SUBMISSION_DEADLINE = 60.0  # a submission not final after this long counts as failed (e.g. a dead worker)
# A plausible wrong answer per exercise (one field changed), so the mix has partial scores as well as 1.0.
WRONG_FIELDS = {
    "ch13.shift-pairs": {"bos_scored": "是"},
    "ch13.exposure-divergence": {"first_wrong_step": "2"},
    "ch13.greedy-decode": {"stopped_by": "cap"},
    "ch13.encoder-states": {"states": "[a, -a], [0, a], [0, 0]"},
    "ch13.encoder-collision": {"collision_step": "3"},
    "ch13.loss-average": {"total_loss": "0.54"},
    "ch09.multihead-shapes": {"head_dim": "12288"},
}


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


def book_bodies() -> tuple[dict[str, Any], ...]:
    """Submission bodies: every book answer (seed 0, sent as teacher) and a one-field-wrong version of it."""
    path = ROOT / "tests" / "engine" / "test_book_answers.py"
    spec = importlib.util.spec_from_file_location("book_answers", path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    bodies = []
    for exercise_id, answer in sorted(module.BOOK_ANSWERS.items()):
        for variant in (answer, {**answer, **WRONG_FIELDS.get(exercise_id, {})}):
            bodies.append({"exercise_id": exercise_id, "seed": 0, "lang": "en", "answer": variant})
    return tuple(bodies)


def wall_time(iso: str | None) -> float:
    """Epoch seconds of an ISO timestamp from the API (0 if missing)."""
    return datetime.fromisoformat(iso).timestamp() if iso else 0.0


def client_loop(target: Target, offset: int, stop_at: float, out: list[tuple[float, tuple[float, ...] | None]],
                failures: list[str]) -> None:
    """Submit, wait for the final result, repeat until ``stop_at``; record jobs that finished inside the window."""
    session = requests.Session()
    index = offset
    while time.monotonic() < stop_at:
        body = target.bodies[index % len(target.bodies)]
        index += 1
        started, started_wall = time.monotonic(), time.time()
        response = session.post(target.base_url + target.submit_path, json=body,
                                headers=target.headers | target.submit_headers, timeout=30)
        if response.status_code not in (200, 202):
            failures.append(f"POST {response.status_code}: {response.text[:200]}")
            continue
        job = response.json()
        url = target.base_url + target.result_path.format(id=job["id"])
        while job["status"] not in target.final_statuses and time.monotonic() - started < SUBMISSION_DEADLINE:
            job = session.get(url, params={"wait": 10}, headers=target.headers, timeout=30).json()
        finished, finished_wall = time.monotonic(), time.time()
        if job["status"] != target.ok_status:
            failures.append(f"job {job['id']} ended {job['status']}: {str(job)[:200]}")
        elif finished <= stop_at:
            stages = None
            if "started_at" in job:
                created, begun, done = (wall_time(job[k]) for k in ("created_at", "started_at", "finished_at"))
                stages = (created - started_wall, begun - created, done - begun, finished_wall - done)
            out.append((finished - started, stages))
    session.close()


def cpu_seconds(target: Target) -> list[float]:
    """CPU seconds so far of the target's web server, worker, PostgreSQL backends and redis-server (the servers
    are shared, but only one system runs at a time)."""
    return ([group_cpu_seconds(group) for group in target.process_groups]
            + [command_cpu_seconds(fragment) for fragment in target.server_commands])


def run_level(target: Target, clients: int, seconds: float) -> LevelResult:
    """Run ``clients`` client threads for ``seconds`` and summarise what finished in that window."""
    samples: list[tuple[float, tuple[float, ...] | None]] = []
    failures: list[str] = []
    cpu_before = cpu_seconds(target)
    stop_at = time.monotonic() + seconds
    threads = [threading.Thread(target=client_loop, args=(target, i * 3, stop_at, samples, failures), daemon=True)
               for i in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    cpu_used = [after - before for after, before in zip(cpu_seconds(target), cpu_before, strict=True)]
    per_job = tuple(1000 * used / max(1, len(samples)) for used in cpu_used)
    latencies = sorted(latency for latency, _ in samples)
    stage_rows = [stages for _, stages in samples if stages is not None]
    stage_medians = tuple(percentile(sorted(column), 0.5) * 1000 for column in zip(*stage_rows, strict=True)) or None
    return LevelResult(clients, len(samples), len(failures), len(samples) / seconds, percentile(latencies, 0.5) * 1000,
                       percentile(latencies, 0.99) * 1000, stage_medians, per_job, tuple(failures[:3]))


def web_command(app: str, port: int, args: argparse.Namespace) -> list[str]:
    """gunicorn with the same process model for the grader and the floor."""
    return [str(BIN / "gunicorn"), "-w", str(args.web_workers), "-k", "gthread", "--threads", str(args.web_threads),
            "-b", f"127.0.0.1:{port}", "--graceful-timeout", "2", app]


def worker_command(app: str, queue: str, args: argparse.Namespace) -> list[str]:
    """A Celery prefork worker with the same settings for the grader and the floor."""
    return [str(BIN / "celery"), "-A", app, "worker", "-P", "prefork", "-c", str(args.worker_concurrency), "-Q", queue,
            "--without-gossip", "--without-mingle", "--without-heartbeat"]


def server_commands(database_url: str) -> tuple[str, str]:
    """How to find the servers' processes: PostgreSQL backends carry their database's name in their title."""
    return f" {database_url.rsplit('/', 1)[1]} ", "redis-server"


def start_grader(processes: Processes, database_url: str, broker_url: str, tag: str, args: argparse.Namespace,
                 bodies: tuple[dict[str, Any], ...]) -> Target:
    """Migrate the scratch database, issue a teacher token, start gunicorn and a worker for the grader."""
    env = {**os.environ, "GRADER_ENV": "production", "SECRET_KEY": secrets.token_urlsafe(48),
           "DATABASE_URL": database_url, "CELERY_BROKER_URL": broker_url, "GRADER_QUEUE": f"{tag}_grading",
           "SUBMISSION_RATE_LIMIT": "100000/minute", "GRADER_DATA_DIR": str(processes.log_dir / "grader-data")}
    subprocess.run([str(BIN / "grader"), "db", "upgrade"], cwd=ROOT, env=env, check=True, capture_output=True)
    token = subprocess.run([str(BIN / "grader"), "token", "create", "--role", "teacher", "--name", "bench"], cwd=ROOT,
                           env=env, check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1]
    port = free_port()
    web = processes.start("grader-web", web_command("grader:create_app()", port, args), env)
    worker = processes.start("grader-worker", worker_command("grader.worker", env["GRADER_QUEUE"], args), env)
    base = f"http://127.0.0.1:{port}"
    wait_healthy(base + "/healthz", processes, "grader-web")
    return Target("grader", base, "/api/v1/submissions", "/api/v1/submissions/{id}",
                  {"Authorization": f"Bearer {token}"}, bodies, "graded",
                  frozenset({"graded", "invalid", "error"}), (web, worker), server_commands(database_url))


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


def load_average() -> str:
    """The 1/5/15-minute load averages."""
    return "/".join(f"{value:.2f}" for value in os.getloadavg())


def parse_args() -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", default="1,4,16", help="client counts, comma-separated")
    parser.add_argument("--duration", type=float, default=10.0, help="seconds per level and system")
    parser.add_argument("--warmup", type=float, default=2.0, help="seconds of 4-client load before measuring")
    parser.add_argument("--admin-url", default=ADMIN_URL, help="PostgreSQL server (SQLAlchemy URL, any database)")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/0", help="broker and limiter (a quiet db)")
    parser.add_argument("--web-workers", type=int, default=2)
    parser.add_argument("--web-threads", type=int, default=8)
    parser.add_argument("--worker-concurrency", type=int, default=2)
    parser.add_argument("--floor-poll-ms", type=float, default=10.0, help="floor GET ?wait re-read interval")
    parser.add_argument("--grader-modes", default="two-calls,prefer-wait",
                        help="how grader clients wait: two-calls (POST, then GET ?wait=10) and/or prefer-wait "
                             "(one POST with Prefer: wait=10)")
    return parser.parse_args()


def raise_interrupt(_signum: int, _frame: object) -> NoReturn:
    """Turn SIGTERM into KeyboardInterrupt so the clean-up blocks run."""
    raise KeyboardInterrupt


def main() -> None:
    """Start both stacks, load them level by level (grader modes, then floor), print the table, clean up."""
    args = parse_args()
    signal.signal(signal.SIGTERM, raise_interrupt)
    levels = [int(level) for level in args.levels.split(",")]
    tag, bodies = f"bench{os.getpid()}", book_bodies()
    print(f"{datetime.now():%Y-%m-%d %H:%M}  cores {os.cpu_count()}  load avg {load_average()} (start)  "
          f"levels {levels} × {args.duration:g} s  web {args.web_workers}×{args.web_threads} threads  "
          f"worker prefork {args.worker_concurrency}  {len(bodies)} answer bodies", flush=True)
    modes = [mode for mode in args.grader_modes.split(",") if mode]
    unknown = set(modes) - set(GRADER_MODES)
    if unknown:
        sys.exit(f"unknown grader mode(s): {', '.join(sorted(unknown))}; known: {', '.join(GRADER_MODES)}")
    with ExitStack() as stack:
        log_dir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bench_service_")))
        database_url = stack.enter_context(scratch_database(args.admin_url))
        stack.enter_context(redis_keys_cleaned(args.redis_url, tag))
        processes = Processes(log_dir)
        stack.callback(processes.stop_all)
        grader = start_grader(processes, database_url, args.redis_url, tag, args, bodies)
        floor = start_floor(processes, database_url, args.redis_url, tag, args, bodies)
        graders = {mode: replace(grader, submit_headers=GRADER_MODES[mode]) for mode in modes}
        for target in (*graders.values(), floor):
            run_level(target, 4, args.warmup)
        rows = []
        for clients in levels:
            ours = {mode: run_level(target, clients, args.duration) for mode, target in graders.items()}
            theirs = run_level(floor, clients, args.duration)
            print(f"  {clients:>2} clients: " + " | ".join(
                f"grader {mode} {result.rate:6.1f}/s p50 {result.p50_ms:6.1f} ms" for mode, result in ours.items())
                + f" | floor {theirs.rate:6.1f}/s p50 {theirs.p50_ms:6.1f} ms", flush=True)
            rows.extend((result, theirs, mode) for mode, result in ours.items())
        print_report(rows)
        print(f"\nload avg {load_average()} (end)")


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit("interrupted: child processes stopped, scratch database dropped")
