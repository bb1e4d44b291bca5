"""Engine benchmark: per-exercise generate/check times, batch grading throughput, capacity-lab time.

Prints figures and asserts nothing (goals: check < 1 ms, generate < 5 ms, full lab grid < 2 s).
Run from the repository root: ``.venv/bin/python bench/bench_engine.py [--answers 10000]``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

from exercises.checking import check_answer
from exercises.variant_generation import generate_variant

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from exercises import api  # noqa: E402  (after the path is set, so the bench runs from a checkout)
from exercises.checking import to_json  # noqa: E402
from exercises.readers import display  # noqa: E402
from exercises.registry import EXERCISES, get_exercise  # noqa: E402
from tests.engine.diagnosis_hunt import HUNT  # noqa: E402

JUNK_ANSWERS: tuple[Any, ...] = (
    "",
    "42",
    [1, 2],
    None,
    {"pairs": "→→"},
    {"x": 1},
    {"states": "[[1,2"},
    {"tokens": "a" * 500},
    3.5,
    {"head_dim": "1/0"},
)
JUNK_LINES = (
    "{not json",
    "[]",
    '{"exercise_id": "no.such", "seed": 1, "answer": {}}',
    '{"exercise_id": "ch13.shift-pairs", "seed": -3, "answer": {}}',
)


def median_microseconds(call: Callable[[], object], repeats: int) -> float:
    """The median wall time of ``call`` in microseconds."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e6


def per_exercise_times(seeds: int) -> list[tuple[str, float, float, float]]:
    """(id, generate µs, check µs, grade-through-API µs) medians over seeds 1..``seeds``."""
    rows = []
    for exercise in EXERCISES:
        generate, check, grade = [], [], []
        for seed in range(1, seeds + 1):
            generate.append(median_microseconds(lambda: generate_variant(exercise, seed), 3))
            variant = generate_variant(exercise, seed)
            reference = exercise.solve(variant)
            check.append(median_microseconds(lambda: check_answer(exercise, variant, reference, "en"), 3))
            typed = {f.name: display(f.kind, reference[f.name], "en") for f in exercise.fields}
            grade.append(median_microseconds(lambda: api.grade(exercise.id, seed, typed, "en"), 3))
        rows.append((exercise.id, statistics.median(generate), statistics.median(check), statistics.median(grade)))
    return rows


def hunt_check_times(seeds: int) -> list[tuple[str, float, float, float]]:
    """(id, first, median, warm) CPU µs of checking the hunt's wrong answers (tests/engine/diagnosis_hunt.py), each on
    its variant, seeds 1000..1000+``seeds``: the first check on a variant (it builds the search's table), every check
    in that first pass (the median answer), and every check again with the tables cached."""
    rows = []
    for exercise_id, procedures in HUNT.items():
        exercise = get_exercise(exercise_id)
        first, every, warm = [], [], []
        for seed in range(1000, 1000 + seeds):
            variant = generate_variant(exercise, seed)
            answers = []
            for procedure in procedures.values():
                with np.errstate(all="ignore"):
                    answer = procedure(variant)
                if _finite(list(answer.values())):
                    answers.append(answer)
            for times in (every, warm):
                for answer in answers:
                    start = time.process_time()
                    check_answer(exercise, variant, answer, "en")
                    times.append((time.process_time() - start) * 1e6)
            first.append(every[-len(answers)])
        rows.append((exercise_id, statistics.median(first), statistics.median(every), statistics.median(warm)))
    return rows


def _finite(value: object) -> bool:
    """Whether every number in ``value`` is finite (a procedure that overflows gives nobody's answer)."""
    if isinstance(value, (list, tuple)):
        return all(_finite(item) for item in value)
    return not isinstance(value, float) or math.isfinite(value)


def mixed_answer_lines(count: int, rng: random.Random) -> list[str]:
    """``count`` batch lines: references, misconception answers, typed text and junk, in random order."""
    lines = []
    while len(lines) < count:
        exercise = rng.choice(EXERCISES)
        seed = rng.randrange(0, 10**6)
        kind = rng.random()
        if kind < 0.05:
            lines.append(rng.choice(JUNK_LINES))
            continue
        variant = generate_variant(exercise, seed)
        reference = exercise.solve(variant)
        wrong = [m.solve(variant) for m in exercise.misconceptions]
        wrong = [w for w in wrong if w is not None]
        if kind < 0.35:
            answer: Any = {name: to_json(value) for name, value in reference.items()}
        elif kind < 0.65 and wrong:
            answer = {name: to_json(value) for name, value in {**reference, **rng.choice(wrong)}.items()}
        elif kind < 0.85:
            answer = {f.name: display(f.kind, reference[f.name], "zh") for f in exercise.fields}
        else:
            answer = rng.choice(JUNK_ANSWERS)
        lines.append(
            json.dumps(
                {"exercise_id": exercise.id, "seed": seed, "answer": answer, "lang": rng.choice(["zh", "en"])},
                ensure_ascii=False,
            )
        )
    return lines


def batch_throughput(count: int) -> tuple[int, float, dict[str, int]]:
    """Lines answered, seconds, and statuses for ``python -m exercises.cli grade --batch`` on ``count`` lines."""
    lines = mixed_answer_lines(count, random.Random(2024))
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "answers.jsonl"
        source.write_text("\n".join(lines) + "\n", encoding="utf-8")
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        with source.open("rb") as stdin:
            start = time.perf_counter()
            completed = subprocess.run(
                [sys.executable, "-m", "exercises.cli", "grade", "--batch"],
                stdin=stdin,
                capture_output=True,
                cwd=ROOT,
                env=env,
                check=False,
            )
            seconds = time.perf_counter() - start
    replies = [json.loads(line) for line in completed.stdout.decode().splitlines()]
    statuses: dict[str, int] = {}
    for reply in replies:
        statuses[reply["status"]] = statuses.get(reply["status"], 0) + 1
    return len(replies), seconds, statuses


def lab_seconds(repeats: int) -> float:
    """The median time of the full capacity-lab grid (4 d's x T 1..64, default trials)."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        api.run_capacity_lab([32, 64, 128, 256], 64)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    """Run every benchmark and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answers", type=int, default=10_000, help="lines in the batch-grading file")
    parser.add_argument("--seeds", type=int, default=100, help="seeds per exercise for the per-call times")
    parser.add_argument("--lab-repeats", type=int, default=3)
    args = parser.parse_args()
    print(f"engine {api.ENGINE_VERSION}, python {sys.version.split()[0]}, {os.cpu_count()} cpus")
    print(f"\nper call, median over seeds 1..{args.seeds} (goals: generate < 5000 us, check < 1000 us)")
    header = f"{'exercise':<28} {'generate us':>12} {'check us':>10} {'api.grade us':>13}"
    print(header + "\n" + "-" * len(header))
    for exercise_id, generate, check, grade in per_exercise_times(args.seeds):
        print(f"{exercise_id:<28} {generate:>12.1f} {check:>10.1f} {grade:>13.1f}")
    hunt_seeds = min(args.seeds, 20)
    print(f"\nhunt answers (wrong procedures), CPU us, seeds 1000..{999 + hunt_seeds} (goal: median < 1000 us)")
    header = f"{'exercise':<28} {'first':>8} {'median':>8} {'warm':>8}"
    print(header + "\n" + "-" * len(header))
    for exercise_id, first, every, warm in hunt_check_times(hunt_seeds):
        print(f"{exercise_id:<28} {first:>8.0f} {every:>8.0f} {warm:>8.0f}")
    answered, seconds, statuses = batch_throughput(args.answers)
    print(
        f"\ngrade --batch: {answered} lines in {seconds:.2f} s = {answered / seconds:,.0f} answers/s "
        f"(process start included); statuses {statuses}"
    )
    print(f"\ncapacity lab, full grid: {lab_seconds(args.lab_repeats):.2f} s median of {args.lab_repeats} (goal < 2 s)")


if __name__ == "__main__":
    main()
