"""The worker's CPU per job, the grader's beside the required-work floor's: Celery's consumer apart from the tasks.

bench/bench_job_cpu.py measures a grade's task body in one process; bench/bench_service.py measures whole stacks
under load, where the worker's share cannot be told apart from the web's competition for the two cores. This one
queues the same jobs for each system with no worker running (the POSTs through the Flask test client, as
bench_job_cpu does), then starts that system's Celery worker with the service benchmark's command (prefork,
``--worker-concurrency`` pool processes) and measures, from its first final row to its last, the CPU of

- the worker's main process: Celery's consumer (receiving, handing to the pool, acknowledging), and
- its pool processes: the tasks (claim, grade, write, announce) and the pool's own handling.

Only the worker runs meanwhile, so the figures are steadier than the service's. Rounds alternate the two systems
(the floor first every other round); medians are printed with the grader's over the floor's.

    .venv/bin/python bench/bench_worker_cpu.py                    # 3 rounds of 1,500 jobs each
    .venv/bin/python bench/bench_worker_cpu.py --rounds 5 --jobs 3000
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import psycopg

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.bench_job_cpu import System, grader_system, required_floor_system  # noqa: E402
from bench.bench_service import book_bodies  # noqa: E402
from bench.load_stack import (  # noqa: E402
    Processes,
    add_server_arguments,
    group_cpu_seconds,
    process_cpu_seconds,
    redis_keys_cleaned,
    scratch_database,
)
from bench.load_targets import worker_command  # noqa: E402

FINAL = "('graded', 'invalid', 'error')"
DEADLINE_SECONDS = 600.0  # a round that does not finish in this long stops the run (a dead worker, say)


@dataclass
class Queued:
    """One system as this benchmark drives it: how to queue a job, its worker app and queue, its table."""

    system: System
    celery_app: str
    queue: str
    table: str


@dataclass
class Figures:
    """One round of one system: CPU ms per job of the worker's main process and of its pool processes."""

    main_ms: float
    pool_ms: float
    jobs_per_second: float


def _final_rows(connection: psycopg.Connection, table: str) -> int:
    """How many rows of ``table`` are final."""
    row = connection.execute(f"SELECT count(*) FROM {table} WHERE status IN {FINAL}").fetchone()
    return int(row[0]) if row else 0


def _round(queued: Queued, bodies: list[dict], url: str, processes: Processes, args: argparse.Namespace) -> Figures:
    """Queue every body, start the worker, measure it from its first final row to the last, stop it."""
    with psycopg.connect(url, autocommit=True) as connection:
        done_before = _final_rows(connection, queued.table)
        for body in bodies:
            queued.system.post(body)
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        command = worker_command(queued.celery_app, queued.queue, args)
        group = processes.start(f"{queued.system.name}-worker", command, env)
        deadline = time.monotonic() + DEADLINE_SECONDS
        while (first := _final_rows(connection, queued.table)) == done_before:  # the worker's start is not counted
            if time.monotonic() > deadline:
                raise SystemExit(f"{queued.system.name}: no job finished; see {processes.log_dir}")
            time.sleep(0.005)
        started, main_before, all_before = time.monotonic(), process_cpu_seconds(group), group_cpu_seconds(group)
        while (last := _final_rows(connection, queued.table)) < done_before + len(bodies):
            if time.monotonic() > deadline:
                raise SystemExit(f"{queued.system.name}: {last - done_before} of {len(bodies)} jobs finished")
            time.sleep(0.02)
        elapsed, main_cpu = time.monotonic() - started, process_cpu_seconds(group) - main_before
        all_cpu = group_cpu_seconds(group) - all_before
    processes.stop_all()
    jobs = last - first
    if jobs <= 0:
        raise SystemExit(f"{queued.system.name}: every job was done before the first look; queue more (--jobs)")
    return Figures(main_cpu * 1000 / jobs, (all_cpu - main_cpu) * 1000 / jobs, jobs / elapsed)


def main() -> None:
    """Set both systems up, alternate measured rounds, print each round and the medians."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=1500, help="jobs queued per system and round")
    parser.add_argument("--worker-concurrency", type=int, default=2)
    add_server_arguments(parser)
    args = parser.parse_args()
    tag = f"benchworker{os.getpid()}"
    book = book_bodies()
    bodies = [book[n % len(book)] for n in range(args.jobs)]
    print(f"{datetime.now():%Y-%m-%d %H:%M}  {args.rounds} rounds × {args.jobs} jobs, worker prefork "
          f"{args.worker_concurrency}, CPU ms per job: main process (Celery's consumer) + pool processes", flush=True)
    with ExitStack() as stack:
        database_url = stack.enter_context(scratch_database(args.admin_url, prefix="grader_bench_worker"))
        stack.enter_context(redis_keys_cleaned(args.redis_url, tag))
        data_dir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix=f"{tag}-")))
        processes = Processes(data_dir)
        stack.callback(processes.stop_all)
        url = database_url.replace("postgresql+psycopg://", "postgresql://")
        grader = grader_system(database_url, args.redis_url, tag, str(data_dir))  # sets the grader's environment
        floor = required_floor_system(database_url, args.redis_url, tag)  # adds the floor's
        systems = [
            Queued(grader, "grader.worker", os.environ["GRADER_QUEUE"], "submissions"),
            Queued(floor, "bench.floor.required", os.environ["FLOOR_QUEUE"], "required_submissions"),
        ]
        figures: dict[str, list[Figures]] = {queued.system.name: [] for queued in systems}
        for number in range(args.rounds):
            for queued in systems if number % 2 == 0 else systems[::-1]:
                result = _round(queued, bodies, url, processes, args)
                figures[queued.system.name].append(result)
                print(f"  round {number + 1}  {queued.system.name:<15} main {result.main_ms:5.2f}  pool "
                      f"{result.pool_ms:5.2f}  sum {result.main_ms + result.pool_ms:5.2f}  "
                      f"({result.jobs_per_second:.0f} jobs/s)", flush=True)
    medians = {
        name: (statistics.median(f.main_ms for f in rounds), statistics.median(f.pool_ms for f in rounds))
        for name, rounds in figures.items()
    }
    for name, (main_ms, pool_ms) in medians.items():
        print(f"  {name:<15} median  main {main_ms:5.2f}  pool {pool_ms:5.2f}  sum {main_ms + pool_ms:5.2f}")
    (ours_main, ours_pool), (floor_main, floor_pool) = medians["grader"], medians["required floor"]
    print(f"  grader over floor: main ×{ours_main / floor_main:.2f}  pool ×{ours_pool / floor_pool:.2f}  "
          f"sum ×{(ours_main + ours_pool) / (floor_main + floor_pool):.2f}  "
          f"(+{ours_main + ours_pool - floor_main - floor_pool:.2f} ms)")


if __name__ == "__main__":
    main()
