"""CPU per job in one process, the grader beside the required-work floor: a steadier yardstick than the service run.

The service benchmark (bench/bench_service.py) compares throughput of whole stacks on this machine's two cores, and
its ratio swings by ±0.1 for the same code within minutes. This one runs both apps in one process against the same
scratch PostgreSQL database and Redis, with no server, client or second process in the way, and measures the CPU
(``time.process_time``) each spends:

- per POST (the Flask test client, no wait): authenticate, count, read the answer, insert the queued row, send;
- per grade (the task body as a Celery worker calls it, messages left unconsumed): claim, grade, write, announce.

Rounds alternate the two systems, and the median of each is printed with the grader's share over the floor's. What
the figures leave out (HTTP parsing, waits, the worker's message handling, PostgreSQL's own CPU) the service run
still measures.

    .venv/bin/python bench/bench_job_cpu.py                    # 5 rounds of 600 POSTs and 600 grades each
    .venv/bin/python bench/bench_job_cpu.py --rounds 3 --jobs 2000
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.bench_service import book_bodies  # noqa: E402
from bench.load_stack import add_server_arguments, redis_keys_cleaned, scratch_database  # noqa: E402
from bench.load_targets import grader_settings, migrated_with_teacher_tokens, required_floor_prepared  # noqa: E402

WARM_UP = 50


@dataclass
class System:
    """One app under measurement: how to POST a body, and its grading task as the worker calls it."""

    name: str
    post: Callable[[dict[str, Any]], int]
    grade: Callable[[int], Any]


def grader_system(database_url: str, broker_url: str, tag: str, data_dir: str) -> System:
    """The grader's app (production settings, a teacher's token) and its grading task."""
    os.environ.update(grader_settings(database_url, broker_url, tag, data_dir))  # create_app reads them here
    (token,) = migrated_with_teacher_tokens(dict(os.environ), ["bench-cpu"])
    from grader import create_app
    from grader.tasks import grade_submission

    client = create_app().test_client()
    headers = {"Authorization": f"Bearer {token}"}
    grade_submission.push_request(id=f"{tag}-grade", delivery_info={})
    return System(
        "grader",
        lambda body: _created(client.post("/api/v1/submissions", json=body, headers=headers)),
        grade_submission,
    )


def required_floor_system(database_url: str, broker_url: str, tag: str) -> System:
    """The required-work floor's app and task (bench/floor/required.py) on the same database and Redis."""
    settings, token = required_floor_prepared(database_url, broker_url, tag)
    os.environ.update(settings)  # the floor's Celery app reads them when imported, below
    from bench.floor import required

    client = required.create_app().test_client()
    headers = {"Authorization": f"Bearer {token}"}
    required.grade.push_request(id=f"{tag}-floor", delivery_info={})
    return System(
        "required floor", lambda body: _created(client.post("/jobs", json=body, headers=headers)), required.grade
    )


def _created(response: Any) -> int:
    """The id of the row a POST created (anything else stops the run)."""
    if response.status_code != 202:
        raise SystemExit(f"POST answered {response.status_code}: {response.get_data(as_text=True)[:300]}")
    return int(response.get_json()["id"])


def _cpu_ms_each(action: Callable[[Any], Any], items: list[Any]) -> float:
    """Process CPU milliseconds per item of ``action`` over ``items`` (a collection first, none during)."""
    gc.collect()
    gc.disable()
    try:
        started = time.process_time()
        for item in items:
            action(item)
        return (time.process_time() - started) * 1000 / len(items)
    finally:
        gc.enable()


def _round(system: System, bodies: list[dict[str, Any]]) -> tuple[float, float]:
    """(ms per POST, ms per grade) of one round: POST every body, then grade what was posted."""
    ids: list[int] = []
    post_ms = _cpu_ms_each(lambda body: ids.append(system.post(body)), bodies)
    grade_ms = _cpu_ms_each(system.grade, ids)
    return post_ms, grade_ms


def main() -> None:
    """Set both systems up, warm them, alternate measured rounds, print the medians."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=600, help="POSTs, then grades, per system and round")
    add_server_arguments(parser)
    args = parser.parse_args()
    tag = f"benchcpu{os.getpid()}"
    book = book_bodies()
    bodies = [book[n % len(book)] for n in range(args.jobs)]
    with ExitStack() as stack:
        database_url = stack.enter_context(scratch_database(args.admin_url, prefix="grader_bench_cpu"))
        stack.enter_context(redis_keys_cleaned(args.redis_url, tag))
        data_dir = stack.enter_context(tempfile.TemporaryDirectory(prefix=f"{tag}-"))
        systems = [
            grader_system(database_url, args.redis_url, tag, data_dir),
            required_floor_system(database_url, args.redis_url, tag),
        ]
        for system in systems:
            _round(system, bodies[:WARM_UP])
        figures: dict[str, list[tuple[float, float]]] = {system.name: [] for system in systems}
        for _ in range(args.rounds):
            for system in systems:
                figures[system.name].append(_round(system, bodies))
    print(
        f"{datetime.now():%Y-%m-%d %H:%M}  {args.rounds} rounds × {args.jobs} jobs, CPU ms per job (median of rounds)"
    )
    medians = {
        name: (statistics.median(p for p, _ in rounds), statistics.median(g for _, g in rounds))
        for name, rounds in figures.items()
    }
    for name, (post_ms, grade_ms) in medians.items():
        spread = ", ".join(f"{p:.2f}/{g:.2f}" for p, g in figures[name])
        print(
            f"  {name:<15} POST {post_ms:5.2f}  grade {grade_ms:5.2f}  sum {post_ms + grade_ms:5.2f}   rounds: {spread}"
        )
    (ours_post, ours_grade), (floor_post, floor_grade) = medians["grader"], medians["required floor"]
    print(
        f"  grader over floor: POST ×{ours_post / floor_post:.2f}  grade ×{ours_grade / floor_grade:.2f}  "
        f"sum ×{(ours_post + ours_grade) / (floor_post + floor_grade):.2f}  "
        f"(+{ours_post + ours_grade - floor_post - floor_grade:.2f} ms)"
    )


if __name__ == "__main__":
    main()
