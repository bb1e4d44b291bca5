"""Teacher-dashboard benchmark: a course of 500 students and 50,000 submissions on PostgreSQL, time per page.

Prints figures and asserts nothing. Run from the repository root:
``.venv/bin/python bench/bench_dashboard.py [--students 500] [--submissions 50000] [--repeat 3]``.
It creates (and afterwards drops) a scratch database on the server given by --admin-url.
"""
from __future__ import annotations

import argparse
import os
import random
import re
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from flask import Flask  # noqa: E402  (after the path is set, so the bench runs from a checkout)
from flask.testing import FlaskClient  # noqa: E402
from sqlalchemy import insert, text  # noqa: E402

from exercises import api as engine  # noqa: E402
from grader import create_app  # noqa: E402
from grader.extensions import get_db  # noqa: E402
from grader.migrate import upgrade  # noqa: E402
from grader.models import Assignment, Course, Enrolment, Submission, User, utcnow  # noqa: E402
from grader.security import hash_password  # noqa: E402
from bench.load_stack import scratch_database  # noqa: E402

ADMIN_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
TEACHER_PASSWORD = "bench-teacher-password"
SCORES = (0.0, 0.0, 0.25, 0.5, 0.5, 0.75, 1.0, 1.0, 1.0, 1.0)
TAGS = ("off-by-one", "no-softmax", "unscaled", "log10", "tie-to-later", "no-relu", "transposed-weights")
CSRF = re.compile(r'<meta name="csrf-token" content="([^"]+)">')
INSERT_CHUNK = 5000


def fake_parts(exercise_id: str, score: float, rng: random.Random) -> dict[str, Any]:
    """Engine-shaped parts for a submission: wrong ones usually carry one or two misconception tags."""
    fields = [f["name"] for f in next(e for e in engine.list_exercises() if e["id"] == exercise_id)["fields"]][:3]
    parts = {}
    for index, field in enumerate(fields):
        wrong = score < 1 and index == 0
        tags = rng.sample(TAGS, rng.choice((0, 1, 1, 2))) if wrong else []
        parts[field] = {"score": 0.0 if wrong else 1.0, "correct": not wrong, "feedback": "…",
                        "misconception": tags[0] if tags else None, "tags": tags, "follow_through": False,
                        "read": f"answer {rng.randint(0, 99)}"}
    return parts


def populate(app: Flask, students: int, submissions: int, seed: int = 7) -> tuple[int, list[int], int]:
    """Course, teacher, students, the demo's three assignments and ``submissions`` graded rows; returns ids."""
    rng = random.Random(seed)
    with app.app_context(), get_db(app).session() as session:
        teacher_user = User(username="bench-teacher", display_name="Bench teacher", role="teacher",
                            password_hash=hash_password(TEACHER_PASSWORD))
        course = Course(code="bench", title="Bench course")
        session.add_all([teacher_user, course])
        session.flush()
        user_ids = session.execute(insert(User).returning(User.id), [
            {"username": f"s{i:04d}", "display_name": f"Student {i:04d}", "role": "student"} for i in range(students)
        ]).scalars().all()
        session.execute(insert(Enrolment), [{"course_id": course.id, "user_id": u, "role": "student"} for u in user_ids]
                        + [{"course_id": course.id, "user_id": teacher_user.id, "role": "teacher"}])
        graded = engine.exercise_ids(graded_only=True)
        assignments = [Assignment(course_id=course.id, title_zh=p, title_en=p, exercise_ids=[e for e in graded if e.startswith(p)],
                                  score_policy=policy) for p, policy in (("ch13.", "best"), ("ch09.", "last"), ("l03.", "best"))]
        session.add_all(assignments)
        session.flush()
        start = utcnow() - timedelta(days=30)
        rows = []
        for _ in range(submissions):
            assignment = rng.choice(assignments)
            exercise_id = rng.choice(assignment.exercise_ids)
            score = rng.choice(SCORES)
            created = start + timedelta(seconds=rng.randint(0, 30 * 86400))
            rows.append({"user_id": rng.choice(user_ids), "assignment_id": assignment.id, "exercise_id": exercise_id,
                         "seed": rng.randint(0, 2**40), "lang": "zh", "raw_answer": {"answer": "…"},
                         "parsed_answer": {"answer": score}, "status": "graded", "score": score,
                         "parts": fake_parts(exercise_id, score, rng), "errors": [], "engine_version": engine.ENGINE_VERSION,
                         "created_at": created, "queued_at": created, "finished_at": created})
        for offset in range(0, len(rows), INSERT_CHUNK):
            session.execute(insert(Submission), rows[offset:offset + INSERT_CHUNK])
        session.commit()
        session.execute(text("ANALYZE"))  # what autovacuum would do soon after a real class's data arrived
        session.commit()
        return course.id, [a.id for a in assignments], user_ids[0]


def signed_in_client(app: Flask) -> tuple[FlaskClient, str]:
    """A test client logged in as the bench teacher, and its CSRF token."""
    client = app.test_client()
    token = CSRF.search(client.get("/login").get_data(as_text=True)).group(1)
    client.post("/login", data={"username": "bench-teacher", "password": TEACHER_PASSWORD, "csrf_token": token})
    return client, CSRF.search(client.get("/teach/").get_data(as_text=True)).group(1)


def time_page(name: str, request: Callable[[], Any], repeat: int) -> None:
    """Print the first and best wall time of a page request."""
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        response = request()
        body = response.get_data()
        times.append(time.perf_counter() - started)
        if response.status_code != 200:
            print(f"  {name}: HTTP {response.status_code}")
            return
    print(f"  {name:<44} first {times[0] * 1000:8.1f} ms   best {min(times) * 1000:8.1f} ms   {len(body) / 1024:8.1f} KiB")


def main() -> None:
    """Build the data set, then time every dashboard page and export."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=500)
    parser.add_argument("--submissions", type=int, default=50_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--admin-url", default=os.environ.get("GRADER_BENCH_PG_URL", ADMIN_URL))
    args = parser.parse_args()
    with scratch_database(args.admin_url, "bench_dashboard") as url, tempfile.TemporaryDirectory() as data_dir:
        upgrade(url)
        app = create_app({"GRADER_ENV": "testing", "DATABASE_URL": url, "GRADER_DATA_DIR": data_dir,
                          "SECRET_KEY": "bench-secret-not-for-production"})
        started = time.perf_counter()
        course_id, assignment_ids, first_student = populate(app, args.students, args.submissions)
        print(f"{args.students} students, {args.submissions} submissions on PostgreSQL "
              f"(inserted in {time.perf_counter() - started:.1f} s)")
        client, token = signed_in_client(app)
        time_page("course dashboard", lambda: client.get(f"/teach/courses/{course_id}"), args.repeat)
        for assignment_id in assignment_ids:
            time_page(f"assignment dashboard #{assignment_id}", lambda a=assignment_id: client.get(f"/teach/assignments/{a}"),
                      args.repeat)
        time_page("one student's submissions", lambda: client.get(f"/teach/courses/{course_id}/students/{first_student}"),
                  args.repeat)
        time_page("roster", lambda: client.get(f"/teach/courses/{course_id}/roster"), args.repeat)
        for kind in ("grades", "submissions", "misconceptions"):
            time_page(f"export {kind}.csv (assignment #{assignment_ids[0]})",
                      lambda k=kind: client.post(f"/teach/assignments/{assignment_ids[0]}/export/{k}.csv",
                                                 data={"csrf_token": token}), args.repeat)
        get_db(app).dispose()


if __name__ == "__main__":
    main()
