"""Service load benchmark: closed-loop clients against the real grader, next to two floors.

Prints graded submissions per second and p50/p99 latency per client count, for the grader and for each floor
(``--floors``), and the grader's figures as a ratio of each floor's: the bare floor (bench/floor: insert row, send
task, worker updates row, client reads it) and the required-work floor (bench/floor/required.py: the same
plumbing plus the work the issue requires of every job, token check, rate limit, reading the answer, lease claim,
engine, lease-guarded write with its grade-log row, done with bare psycopg and redis-py). Grader clients wait in
two ways (``--grader-modes``): two calls (POST, then GET ?wait=10, the shape of the floors' clients) and one POST
with ``Prefer: wait=10``. Also prints CPU per job: each system's servers (web, worker, PostgreSQL, Redis), and
apart the benchmark's own client threads, which share the same cores. Asserts nothing. Run from the repository root: ``.venv/bin/python bench/bench_service.py``
(``--levels 1,4,16 --duration 10``). Only localhost traffic; a scratch PostgreSQL database is created and dropped,
Redis keys it creates are deleted, and every process it starts is stopped at the end (also on Ctrl-C).
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Iterable
from contextlib import ExitStack
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any, NoReturn

import requests

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # before the bench imports below, so the script runs from a plain checkout

from bench.load_report import LevelResult, percentile, print_report, print_round_medians
from bench.load_stack import (
    Processes,
    add_server_arguments,
    command_cpu_seconds,
    group_cpu_seconds,
    redis_keys_cleaned,
    scratch_database,
)
from bench.load_targets import FLOOR_STARTERS, Target, start_grader

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


def client_loop(target: Target, client: int, stop_at: float, out: list[tuple[float, tuple[float, ...] | None]],
                failures: list[str]) -> None:
    """Submit, wait for the final result, repeat until ``stop_at``; record jobs that finished inside the window."""
    session = requests.Session()
    index = client * 3  # clients start at different bodies
    headers = target.headers_of(client)
    while time.monotonic() < stop_at:
        body = target.bodies[index % len(target.bodies)]
        index += 1
        started, started_wall = time.monotonic(), time.time()
        response = session.post(target.base_url + target.submit_path, json=body,
                                headers=headers | target.submit_headers, timeout=30)
        if response.status_code not in (200, 202):
            failures.append(f"POST {response.status_code}: {response.text[:200]}")
            continue
        job = response.json()
        url = target.base_url + target.result_path.format(id=job["id"])
        while job["status"] not in target.final_statuses and time.monotonic() - started < SUBMISSION_DEADLINE:
            job = session.get(url, params={"wait": 10}, headers=headers, timeout=30).json()
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
    cpu_before, client_cpu_before = cpu_seconds(target), time.process_time()
    stop_at = time.monotonic() + seconds
    threads = [threading.Thread(target=client_loop, args=(target, i, stop_at, samples, failures), daemon=True)
               for i in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    cpu_used = [after - before for after, before in zip(cpu_seconds(target), cpu_before, strict=True)]
    per_job = tuple(1000 * used / max(1, len(samples)) for used in cpu_used)
    client_per_job = 1000 * (time.process_time() - client_cpu_before) / max(1, len(samples))
    latencies = sorted(latency for latency, _ in samples)
    stage_rows = [stages for _, stages in samples if stages is not None]
    stage_medians = tuple(percentile(sorted(column), 0.5) * 1000 for column in zip(*stage_rows, strict=True)) or None
    return LevelResult(clients, len(samples), len(failures), len(samples) / seconds, percentile(latencies, 0.5) * 1000,
                       percentile(latencies, 0.99) * 1000, stage_medians, per_job, tuple(failures[:3]),
                       client_per_job)


def _one_round(graders: dict[str, Target], floors: list[Target], clients: int, seconds: float, *,
               floors_first: bool) -> tuple[dict[str, LevelResult], dict[str, LevelResult]]:
    """One measurement of every grader mode and every floor at ``clients``; ``floors_first`` swaps the order, so
    that a machine getting busier or quieter during a run weighs on both sides alike over the rounds."""
    def measure_graders() -> dict[str, LevelResult]:
        return {mode: run_level(target, clients, seconds) for mode, target in graders.items()}

    def measure_floors() -> dict[str, LevelResult]:
        return {floor.name: run_level(floor, clients, seconds) for floor in floors}

    if floors_first:
        theirs = measure_floors()
        return measure_graders(), theirs
    ours = measure_graders()
    return ours, measure_floors()


def load_average() -> str:
    """The 1/5/15-minute load averages."""
    return "/".join(f"{value:.2f}" for value in os.getloadavg())


def parse_args() -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", default="1,4,16", help="client counts, comma-separated")
    parser.add_argument("--duration", type=float, default=10.0, help="seconds per level and system")
    parser.add_argument("--rounds", type=int, default=1,
                        help="measure each level this many times, the grader and the floors in turn (every other round "
                             "the floors first), and print each round's ratio and their median")
    parser.add_argument("--warmup", type=float, default=2.0, help="seconds of 4-client load before measuring")
    add_server_arguments(parser)
    parser.add_argument("--web-workers", type=int, default=2)
    parser.add_argument("--web-threads", type=int, default=8)
    parser.add_argument("--worker-concurrency", type=int, default=2)
    parser.add_argument("--floor-poll-ms", type=float, default=10.0, help="floor GET ?wait re-read interval")
    parser.add_argument("--floors", default="floor,required",
                        help="what the grader is compared with: floor (the bare pipeline) and/or required (the bare "
                             "pipeline plus the work the issue requires, without our frameworks)")
    parser.add_argument("--grader-modes", default="two-calls,prefer-wait",
                        help="how grader clients wait: two-calls (POST, then GET ?wait=10) and/or prefer-wait "
                             "(one POST with Prefer: wait=10)")
    parser.add_argument("--grader-worker", choices=("gthread", "ours"), default="gthread",
                        help="the grader's gunicorn worker class: gthread (as the floors) or ours (parked waits, "
                             "as the Dockerfile runs it)")
    args = parser.parse_args()
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    return args


def raise_interrupt(_signum: int, _frame: object) -> NoReturn:
    """Turn SIGTERM into KeyboardInterrupt so the clean-up blocks run."""
    raise KeyboardInterrupt


def _choices(raw: str, known: Iterable[str], what: str) -> list[str]:
    """The comma-separated names in ``raw``; exits naming any that is not in ``known``."""
    names = [name for name in raw.split(",") if name]
    unknown = set(names) - set(known)
    if unknown:
        sys.exit(f"unknown {what}: {', '.join(sorted(unknown))}; known: {', '.join(known)}")
    return names


def main() -> None:
    """Start the stacks, load them level by level (grader modes, then each floor), print the tables, clean up."""
    args = parse_args()
    signal.signal(signal.SIGTERM, raise_interrupt)
    levels = [int(level) for level in args.levels.split(",")]
    tag, bodies = f"bench{os.getpid()}", book_bodies()
    print(f"{datetime.now():%Y-%m-%d %H:%M}  cores {os.cpu_count()}  load avg {load_average()} (start)  "
          f"levels {levels} × {args.duration:g} s  web {args.web_workers}×{args.web_threads} threads  "
          f"worker prefork {args.worker_concurrency}  {len(bodies)} answer bodies", flush=True)
    modes = _choices(args.grader_modes, GRADER_MODES, "grader mode(s)")
    floor_names = _choices(args.floors, FLOOR_STARTERS, "floor(s)")
    with ExitStack() as stack:
        log_dir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bench_service_")))
        database_url = stack.enter_context(scratch_database(args.admin_url))
        stack.enter_context(redis_keys_cleaned(args.redis_url, tag))
        processes = Processes(log_dir)
        stack.callback(processes.stop_all)
        grader = start_grader(processes, database_url, args.redis_url, tag, args, bodies, clients=max(levels))
        floors = [FLOOR_STARTERS[name](processes, database_url, args.redis_url, tag, args, bodies)
                  for name in floor_names]
        graders = {mode: replace(grader, submit_headers=GRADER_MODES[mode]) for mode in modes}
        for target in (*graders.values(), *floors):
            run_level(target, 4, args.warmup)
        rows = []
        for clients in levels:
            for round_number in range(args.rounds):
                ours, theirs = _one_round(graders, floors, clients, args.duration, floors_first=round_number % 2 == 1)
                print(f"  {clients:>2} clients: " + " | ".join(
                    [f"grader {mode} {result.rate:6.1f}/s p50 {result.p50_ms:6.1f} ms" for mode, result in ours.items()]
                    + [f"{name} {result.rate:6.1f}/s p50 {result.p50_ms:6.1f} ms" for name, result in theirs.items()]),
                    flush=True)
                rows.extend((result, mode, theirs) for mode, result in ours.items())
        print_report(rows)
        if args.rounds > 1:
            print_round_medians(rows)
        print(f"\nload avg {load_average()} (end)")


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit("interrupted: child processes stopped, scratch database dropped")
