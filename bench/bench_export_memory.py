"""Submissions-export benchmark: one assignment with a million submissions (PostgreSQL), its CSV streamed.

Prints figures and asserts nothing (tests/teacher/test_export_memory.py holds the flat-memory rule in the suite).
Run from the repository root: ``.venv/bin/python bench/bench_export_memory.py [--rows 1000000] [--students 5000]``.
Fills a scratch database on --admin-url with SQL (generate_series, through the kept-count triggers), then downloads
the readable and the machine-readable submissions.csv through the Flask test client chunk by chunk, as a browser
reads it, and reports time, size and the process's resident memory: its high-water mark is reset just before each
download (/proc/self/clear_refs), so the peak is the download's own. The database is dropped at the end.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from flask import Flask  # noqa: E402
from flask.testing import FlaskClient  # noqa: E402
from sqlalchemy import text  # noqa: E402

from bench.bench_dashboard import TEACHER_PASSWORD, signed_in_client  # noqa: E402
from grader import create_app, startup_objects  # noqa: E402
from grader.extensions import get_db  # noqa: E402
from grader.migrate import upgrade  # noqa: E402
from grader.models import Enrolment, EnrolmentRole, User  # noqa: E402
from grader.security import hash_password  # noqa: E402
from tests.support import postgres_database  # noqa: E402

ADMIN_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
EXERCISES = ["ch13.shift-pairs", "ch13.greedy-decode", "ch09.scaled-dot-attention"]
MiB = 2**20

FILL = [
    "INSERT INTO users (username, display_name, role, created_at, session_epoch) SELECT 'student' || n, "
    "'Student ' || n, 'student', now(), 0 FROM generate_series(1, :students) AS n",
    "INSERT INTO courses (code, title, created_at, time_zone) VALUES ('bench', 'Bench', now(), 'Asia/Shanghai')",
    "INSERT INTO enrolments (course_id, user_id, role, created_at) SELECT (SELECT id FROM courses), id, 'student', "
    "now() FROM users "
    "WHERE role = 'student'",
    "INSERT INTO assignments (course_id, title_zh, title_en, exercise_ids, attempts_allowed, score_policy, "
    "answer_key_policy, fresh_variants, created_at, updated_at) SELECT id, '作业', 'Assignment', "
    "CAST(:exercises AS JSON), NULL, 'best', 'never', true, now(), now() FROM courses",
    "INSERT INTO submissions (user_id, assignment_id, exercise_id, seed, lang, raw_answer, parsed_answer, status, "
    "score, parts, engine_version, created_at, queued_at, finished_at, attempts, max_attempts, resends) "
    "SELECT (SELECT min(id) FROM users) + n % :students, (SELECT id FROM assignments), "
    "(CAST(:exercises AS JSON) ->> (n % 3)), n, 'en', json_build_object('x', n || '.5', 'y', 'a few words'), "
    "json_build_object('x', n + 0.5), 'graded', CASE WHEN n % 5 = 0 THEN 0.5 ELSE 1.0 END, "
    "CAST(CASE WHEN n % 5 = 0 THEN '{\"x\": {\"score\": 0.5, \"tags\": [\"off-by-one\"]}}' "
    "ELSE '{\"x\": {\"score\": 1.0}}' END AS JSON), '1', now(), now(), now(), 1, 3, 0 "
    "FROM generate_series(CAST(:first AS integer), CAST(:last AS integer)) AS n",
]
CHUNK = 50_000  # submissions per statement


def resident_peak_reset() -> None:
    """Start a new high-water mark of this process's resident memory (Linux: write 5 to clear_refs)."""
    Path("/proc/self/clear_refs").write_text("5")


def resident_kib(field: str) -> int:
    """``VmRSS`` or ``VmHWM`` of this process, in KiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"no {field} in /proc/self/status")


def main() -> None:
    """Fill, then stream both forms of the file and print their figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--students", type=int, default=5_000)
    parser.add_argument("--admin-url", default=os.environ.get("GRADER_BENCH_PG_URL", ADMIN_URL))
    args = parser.parse_args()
    with postgres_database(f"bench_export_{os.getpid()}", args.admin_url) as url, tempfile.TemporaryDirectory() as data:
        upgrade(url)
        app = create_app({"GRADER_ENV": "testing", "DATABASE_URL": url, "GRADER_DATA_DIR": data,
                          "SECRET_KEY": "bench-secret-not-for-production"})
        started = time.perf_counter()
        values = {"students": args.students, "exercises": json.dumps(EXERCISES)}
        with get_db(app).engine.begin() as connection:
            for statement in FILL[:-1]:
                connection.execute(text(statement), values)
        for first in range(1, args.rows + 1, CHUNK):
            with get_db(app).engine.begin() as connection:
                connection.execute(text("SET LOCAL statement_timeout = 0"))  # a fill, not a request
                last = min(first + CHUNK - 1, args.rows)
                connection.execute(text(FILL[-1]), {**values, "first": first, "last": last})
        with get_db(app).engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
            connection.execute(text("VACUUM ANALYZE"))
        print(f"{args.rows} submissions of {args.students} students in one assignment, filled in "
              f"{time.perf_counter() - started:.0f} s", flush=True)
        teacher_client = signed_in(app)
        startup_objects.set_aside()
        print("| file | rows | MiB | seconds | rows/s | resident MiB before | peak during |\n|---|---|---|---|---|---|---|")
        for label, data_fields in (("readable", {}), ("machine-readable", {"ids": "1"})):
            client, token = teacher_client
            before = resident_kib("VmRSS")
            resident_peak_reset()
            started = time.perf_counter()
            response = client.post("/teach/assignments/1/export/submissions.csv", data={"csrf_token": token,
                                                                                      **data_fields})
            size = lines = 0
            for chunk in response.response:
                size += len(chunk)
                lines += chunk.count(b"\n")
            response.close()
            seconds = time.perf_counter() - started
            peak = resident_kib("VmHWM")
            print(f"| {label} | {lines - 1} | {size / MiB:.0f} | {seconds:.1f} | {(lines - 1) / seconds:,.0f} | "
                  f"{before / 1024:.0f} | {peak / 1024:.0f} |", flush=True)
        get_db(app).dispose()


def signed_in(app: Flask) -> tuple[FlaskClient, str]:
    """A test client signed in as a new teacher of the bench course, and its CSRF token (the dashboard benchmark's
    sign-in, as its teacher)."""
    with app.app_context(), get_db(app).session() as session:
        teacher = User(username="bench-teacher", display_name="Bench teacher", role="teacher",
                       password_hash=hash_password(TEACHER_PASSWORD))
        session.add(teacher)
        session.flush()
        session.add(Enrolment(course_id=1, user_id=teacher.id, role=EnrolmentRole.TEACHER))
        session.commit()
    client, csrf, _bearer = signed_in_client(app)
    return client, csrf


if __name__ == "__main__":
    main()
