"""What the misconception triggers (migration 0024) add to a grade's final write: the same N grades (UPDATE of
status, score and parts, one commit each, as the worker writes them) timed on a database at 0023_listing_counts
(before) and at 0024_misconception_counts (after), on this checkout's code, in alternating rounds.

Prints figures and asserts nothing. Run from the repository root:
``.venv/bin/python bench/bench_tag_writes.py [--grades 2000] [--students 500] [--rounds 3] [--backends postgresql]``.
Every grade is a wrong answer with one or two tags (the triggers' whole path; a right answer is turned away by
their WHEN). Scratch databases are dropped afterwards; the SQLite ones live in a temporary directory.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sqlalchemy import Engine, text  # noqa: E402

from grader.extensions import make_engine  # noqa: E402
from grader.migrate import upgrade  # noqa: E402
from tests.support import postgres_database  # noqa: E402

TAGS = ("off-by-one", "no-softmax", "unscaled", "log10")
REVISIONS = ("0023_listing_counts", "0024_misconception_counts")


def fill(engine: Engine, students: int, grades: int) -> list[int]:
    """A course of ``students`` enrolled students, one assignment, ``grades`` submissions being graded: their ids."""
    with engine.begin() as connection:
        connection.execute(text("INSERT INTO courses (code, title, created_at) VALUES ('c', 'C', CURRENT_TIMESTAMP)"))
        connection.execute(
            text(
                "INSERT INTO assignments (course_id, title_zh, title_en, exercise_ids, score_policy, "
                "answer_key_policy, created_at, updated_at) SELECT max(id), 'a', 'a', '[\"e1\"]', 'best', 'never', "
                "CURRENT_TIMESTAMP, CURRENT_TIMESTAMP FROM courses"
            )
        )
        for i in range(students):
            connection.execute(
                text(
                    "INSERT INTO users (username, display_name, role, password_hash, created_at, session_epoch) "
                    "VALUES (:name, 'U', 'student', 'x', CURRENT_TIMESTAMP, 0)"
                ),
                {"name": f"s{i}"},
            )
        connection.execute(
            text(
                "INSERT INTO enrolments (course_id, user_id, role, created_at) SELECT (SELECT max(id) FROM courses), "
                "id, 'student', CURRENT_TIMESTAMP FROM users"
            )
        )
        users = list(connection.execute(text("SELECT id FROM users ORDER BY id")).scalars())
        for i in range(grades):
            connection.execute(
                text(
                    "INSERT INTO submissions (user_id, assignment_id, exercise_id, seed, lang, raw_answer, status, "
                    "created_at, attempts, max_attempts, resends, queued_at) SELECT :user, max(id), 'e1', 0, 'en', "
                    "'{}', 'grading', CURRENT_TIMESTAMP, 1, 3, 0, CURRENT_TIMESTAMP FROM assignments"
                ),
                {"user": users[i % len(users)]},
            )
        return list(connection.execute(text("SELECT id FROM submissions ORDER BY id")).scalars())


def time_grades(engine: Engine, ids: list[int], rng: random.Random) -> list[float]:
    """Each grade's final UPDATE and commit, in µs."""
    taken = []
    for submission_id in ids:
        parts = {
            "answer": {"score": 0.0, "read": "3", "tags": rng.sample(TAGS, rng.choice((1, 2))), "feedback": "…"},
            "unit": {"score": 1.0, "read": "cm", "tags": []},
        }
        start = time.perf_counter()
        with engine.begin() as connection:
            connection.execute(
                text("UPDATE submissions SET status = 'graded', score = 0.5, parts = :parts WHERE id = :id"),
                {"parts": json.dumps(parts), "id": submission_id},
            )
        taken.append((time.perf_counter() - start) * 1e6)
    return taken


def one_round(url: str, revision: str, args: argparse.Namespace, seed: int) -> list[float]:
    """A fresh database at ``revision``, filled and graded: the grades' times."""
    upgrade(url, revision)
    engine = make_engine(url)
    try:
        ids = fill(engine, args.students, args.grades)
        return time_grades(engine, ids, random.Random(seed))
    finally:
        engine.dispose()


def main() -> None:
    """Alternate the two revisions, print per-round and overall medians."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--grades", type=int, default=2000)
    parser.add_argument("--students", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--backends", default="postgresql")
    args = parser.parse_args()
    for backend in args.backends.split(","):
        overall: dict[str, list[float]] = {revision: [] for revision in REVISIONS}
        for index in range(args.rounds):
            for revision in REVISIONS:
                if backend == "sqlite":
                    with tempfile.TemporaryDirectory() as folder:
                        taken = one_round(f"sqlite:///{folder}/bench.sqlite", revision, args, index)
                else:
                    with postgres_database(f"bench_tag_writes_{os.getpid()}") as url:
                        taken = one_round(url, revision, args, index)
                overall[revision] += taken
                print(f"{backend} round {index + 1} {revision}: median {statistics.median(taken):.0f} µs", flush=True)
        for revision, taken in overall.items():
            cut = statistics.quantiles(taken, n=20)
            print(f"{backend} {revision}: median {statistics.median(taken):.0f} µs, p95 {cut[-1]:.0f} µs")
        print(f"load average {os.getloadavg()}")


if __name__ == "__main__":
    main()
