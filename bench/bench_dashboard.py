"""Teacher-dashboard benchmark: a large course (400 students, 6 assignments, ~40,000 submissions), time and SQL per page.

Prints figures and asserts nothing. Run from the repository root:
``.venv/bin/python bench/bench_dashboard.py [--students 500,5000] [--repeat 3] [--backends postgresql,sqlite]``.
With several sizes it fills a database per size and ends with each page's time at the largest over the smallest
(the goal: at most 1.5, a page costs what it shows, not what the course holds). It creates (and afterwards drops, also on Ctrl-C or SIGTERM) a scratch database on the server given by --admin-url;
the SQLite database lives in a temporary directory.
"""
from __future__ import annotations

import argparse
import os
import random
import re
import signal
import statistics
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from flask import Flask  # noqa: E402  (after the path is set, so the bench runs from a checkout)
from flask.testing import FlaskClient  # noqa: E402
from sqlalchemy import event, insert, text  # noqa: E402

from exercises import api as engine  # noqa: E402
from grader import create_app, startup_objects  # noqa: E402
from grader.extensions import get_db  # noqa: E402
from grader.grading import progress  # noqa: E402
from grader.migrate import upgrade  # noqa: E402
from grader.models import (  # noqa: E402
    Assignment,
    Course,
    Enrolment,
    RegradeChange,
    RegradeJob,
    Submission,
    User,
    utcnow,
)
from grader.security import hash_password, issue_token  # noqa: E402
from tests.support import postgres_database  # noqa: E402

ADMIN_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
TEACHER_PASSWORD = "bench-teacher-password"
TAGS = ("off-by-one", "no-softmax", "unscaled", "log10", "tie-to-later", "no-relu", "transposed-weights")
STATUSES = ("graded",) * 16 + ("invalid",) * 3 + ("error",)  # 80 % graded, 15 % invalid, 5 % error
CSRF = re.compile(r'<meta name="csrf-token" content="([^"]+)">')
INSERT_CHUNK = 5000
REGRADE_CHANGES = 2000


@dataclass
class BenchCourse:
    """Ids of the benchmark course's rows that the pages are opened with."""

    course_id: int
    assignment_ids: list[int]
    busiest_student: int
    regrade_job: int
    submissions: int
    exercise_id: str


def fake_parts(fields: list[str], score: float, rng: random.Random) -> dict[str, Any]:
    """Engine-shaped parts: the first wrong part of a wrong answer usually carries one or two misconception tags."""
    parts = {}
    for index, field in enumerate(fields):
        wrong = score < 1 and index == 0
        tags = rng.sample(TAGS, rng.choice((0, 1, 1, 2))) if wrong else []
        parts[field] = {"score": 0.0 if wrong else 1.0, "correct": not wrong, "feedback": "…",
                        "misconception": tags[0] if tags else None, "tags": tags, "follow_through": False,
                        "read": f"answer {rng.randint(0, 99)}"}
    return parts


def submission_rows(rng: random.Random, students: list[int], assignments: list[Assignment],
                    fields: dict[str, list[str]]) -> Iterator[dict[str, Any]]:
    """1–5 submissions per student per exercise, scores improving with attempts, in time order."""
    start = utcnow() - timedelta(days=30)
    for assignment in assignments:
        for user_id in students:
            for exercise_id in assignment.exercise_ids:
                created = start + timedelta(seconds=rng.randint(0, 20 * 86400))
                for attempt in range(rng.randint(1, 5)):
                    created += timedelta(minutes=rng.randint(1, 600))
                    status = rng.choice(STATUSES)
                    score = min(1.0, rng.choice((0.0, 0.25, 0.5, 0.75, 1.0)) + 0.25 * attempt) if status == "graded" else None
                    yield {"user_id": user_id, "assignment_id": assignment.id, "exercise_id": exercise_id,
                           "seed": rng.randint(0, 2**40), "lang": "zh", "raw_answer": {"answer": f"… {attempt}"},
                           "parsed_answer": {"answer": score} if status != "invalid" else None, "status": status,
                           "score": score, "parts": fake_parts(fields[exercise_id], score, rng) if score is not None else None,
                           "errors": [{"field": "answer", "message": "unreadable"}] if status == "invalid" else [],
                           "engine_version": engine.ENGINE_VERSION, "created_at": created, "queued_at": created,
                           "finished_at": created, "error_message": "boom" if status == "error" else None}


def populate_course(session: Any, code: str, students: int, assignments: int, rng: random.Random) -> BenchCourse:
    """One course: a teacher, ``students`` students, ``assignments`` assignments of 3–6 exercises, their submissions."""
    teacher = session.scalar(text("SELECT id FROM users WHERE username = 'bench-teacher'"))
    course = Course(code=code, title=f"Bench course {code}")
    session.add(course)
    session.flush()
    user_ids = list(session.execute(insert(User).returning(User.id), [
        {"username": f"{code}-s{i:04d}", "display_name": f"Student {i:04d}", "role": "student"} for i in range(students)
    ]).scalars())
    session.execute(insert(Enrolment), [{"course_id": course.id, "user_id": u, "role": "student"} for u in user_ids]
                    + [{"course_id": course.id, "user_id": teacher, "role": "teacher"}])
    graded = engine.exercise_ids(graded_only=True)
    fields = {e["id"]: [f["name"] for f in e["fields"]][:3] for e in engine.list_exercises()}
    rows = [Assignment(course_id=course.id, title_zh=f"作业 {i + 1}", title_en=f"Assignment {i + 1}",
                       exercise_ids=rng.sample(graded, rng.randint(3, 6)), score_policy=("best", "last")[i % 2])
            for i in range(assignments)]
    session.add_all(rows)
    session.flush()
    batch: list[dict[str, Any]] = []
    count = 0
    for row in submission_rows(rng, user_ids, rows, fields):
        batch.append(row)
        if len(batch) == INSERT_CHUNK:
            session.execute(insert(Submission), batch)
            count, batch = count + len(batch), []
    if batch:
        session.execute(insert(Submission), batch)
        count += len(batch)
    job = RegradeJob(assignment_id=rows[0].id, requested_by="user:bench-teacher", status="done",
                     engine_version=engine.ENGINE_VERSION, total=count // assignments, processed=count // assignments,
                     changed=REGRADE_CHANGES)
    session.add(job)
    session.flush()
    changed = session.execute(text("SELECT id, user_id, exercise_id, score FROM submissions WHERE assignment_id = :a "
                                   "AND status = 'graded' ORDER BY id LIMIT :n"), {"a": rows[0].id, "n": REGRADE_CHANGES})
    session.execute(insert(RegradeChange), [
        {"job_id": job.id, "submission_id": sid, "user_id": uid, "exercise_id": eid, "old_status": "graded",
         "new_status": "graded", "old_score": score, "new_score": 1.0, "old_engine_version": "1.4.0",
         "new_engine_version": engine.ENGINE_VERSION, "reason": "engine change"} for sid, uid, eid, score in changed])
    for assignment in rows:  # the progress rows the pipeline keeps as it grades, here built in one pass
        progress.rebuild(session, assignment.id, None)
    busiest = session.scalar(text("SELECT user_id FROM submissions WHERE assignment_id IN (SELECT id FROM assignments "
                                  "WHERE course_id = :c) GROUP BY user_id ORDER BY count(*) DESC LIMIT 1"), {"c": course.id})
    return BenchCourse(course.id, [a.id for a in rows], busiest, job.id, count, rows[0].exercise_ids[0])


def populate(app: Flask, args: argparse.Namespace, students: int) -> BenchCourse:
    """The teacher, the measured course and ``--other-courses`` more of the same size (what an index must skip)."""
    rng = random.Random(args.seed)
    with app.app_context(), get_db(app).session() as session:
        session.add(User(username="bench-teacher", display_name="Bench teacher", role="teacher",
                         password_hash=hash_password(TEACHER_PASSWORD)))
        session.flush()
        measured = populate_course(session, "bench", students, args.assignments, rng)
        for index in range(args.other_courses):
            populate_course(session, f"other{index}", students, args.assignments, rng)
        session.commit()
    if get_db(app).dialect == "postgresql":
        # What autovacuum does soon after a real class's data arrived: statistics, and the visibility map that lets
        # an index answer alone.
        with get_db(app).engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
            connection.execute(text("VACUUM ANALYZE"))
    return measured


def signed_in_client(app: Flask) -> tuple[FlaskClient, str, str]:
    """A test client logged in as the bench teacher, its CSRF token, and an API bearer token of the teacher."""
    client = app.test_client()
    token = CSRF.search(client.get("/login").get_data(as_text=True)).group(1)
    client.post("/login", data={"username": "bench-teacher", "password": TEACHER_PASSWORD, "csrf_token": token})
    with app.app_context(), get_db(app).session() as session:
        teacher = session.query(User).filter_by(username="bench-teacher").one()
        bearer = issue_token(session, teacher, name="bench")
        session.commit()
    return client, CSRF.search(client.get("/teach/").get_data(as_text=True)).group(1), bearer


def pages(course: BenchCourse, csrf: str, bearer: str) -> list[tuple[str, str, str, dict[str, Any]]]:
    """(name, method, url, request keywords) of every page and export measured."""
    api = {"headers": {"Authorization": f"Bearer {bearer}"}}
    first = course.assignment_ids[0]
    found = [("course dashboard", "GET", f"/teach/courses/{course.course_id}", {}),
             ("course dashboard, page 3", "GET", f"/teach/courses/{course.course_id}?page=3", {}),
             ("course dashboard, search", "GET", f"/teach/courses/{course.course_id}?q=Student%20004", {})]
    found += [(f"assignment dashboard {n + 1}", "GET", f"/teach/assignments/{a}", {})
              for n, a in enumerate(course.assignment_ids)]
    found += [("student page (busiest)", "GET", f"/teach/courses/{course.course_id}/students/{course.busiest_student}", {}),
              ("roster", "GET", f"/teach/courses/{course.course_id}/roster", {}),
              (f"regrade report ({REGRADE_CHANGES} changes)", "GET", f"/teach/regrades/{course.regrade_job}", {})]
    found += [(f"export {kind}.csv (assignment 1)", "POST", f"/teach/assignments/{first}/export/{kind}.csv",
               {"data": {"csrf_token": csrf}}) for kind in ("grades", "submissions", "misconceptions")]
    listing = "/api/v1/submissions?limit=50"
    found += [("API course, page 1", "GET", f"{listing}&course={course.course_id}", api),
              ("API course, offset 5000", "GET", f"{listing}&course={course.course_id}&offset=5000", api),
              ("API assignment", "GET", f"{listing}&assignment={first}", api),
              ("API assignment+exercise", "GET", f"{listing}&assignment={first}&exercise={course.exercise_id}", api),
              ("API student", "GET", f"{listing}&student={course.busiest_student}", api),
              ("API course+status=error", "GET", f"{listing}&course={course.course_id}&status=error", api)]
    return found


@contextmanager
def counting(app: Flask) -> Iterator[list[int]]:
    """Count the SQL statements the app's engine sends while the block runs, and their execute time (read after)."""
    count: list[float] = [0, 0.0]  # statements, seconds spent in them
    started: list[float] = []

    def before(*_args: Any) -> None:
        count[0] += 1
        started.append(time.perf_counter())

    def after(*_args: Any) -> None:
        count[1] += time.perf_counter() - started.pop()

    engine = get_db(app).engine
    event.listen(engine, "before_cursor_execute", before)
    event.listen(engine, "after_cursor_execute", after)
    try:
        yield count
    finally:
        event.remove(engine, "before_cursor_execute", before)
        event.remove(engine, "after_cursor_execute", after)


def measure(app: Flask, client: FlaskClient, method: str, url: str, keywords: dict[str, Any],
            repeat: int, memory: bool) -> tuple[float, float, int, int, float | None, int]:
    """Median ms and median SQL ms over ``repeat`` runs, statements, body bytes, peak traced MiB (one extra run), status.

    SQL ms is the time inside cursor.execute; a server-side cursor (the streamed export) fetches outside it.
    """
    times, sql_times, statements, size, status = [], [], 0, 0, 0
    for _ in range(repeat):
        with counting(app) as count:
            started = time.perf_counter()
            response = client.open(url, method=method, **keywords)
            size = sum(len(chunk) for chunk in response.response)  # drains a streamed body chunk by chunk
            times.append((time.perf_counter() - started) * 1000)
        statements, status = int(count[0]), response.status_code
        sql_times.append(count[1] * 1000)
        response.close()
    peak = None
    if memory:
        tracemalloc.start()
        response = client.open(url, method=method, **keywords)
        for _chunk in response.response:
            pass
        response.close()
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
    return statistics.median(times), statistics.median(sql_times), statements, size, peak, status


@contextmanager
def prepared(name: str, url: str, args: argparse.Namespace, students: int) -> Iterator[tuple[Flask, list[Any]]]:
    """Migrate and fill (``students`` students) one database; the app and its pages (label, method, url, keywords)."""
    upgrade(url)
    with tempfile.TemporaryDirectory() as data_dir:
        app = create_app({"GRADER_ENV": "testing", "DATABASE_URL": url, "GRADER_DATA_DIR": data_dir,
                          "SECRET_KEY": "bench-secret-not-for-production", "SUBMISSION_RATE_LIMIT": "100000/minute"})
        try:
            started = time.perf_counter()
            course = populate(app, args, students)
            print(f"\n{name}: {students} students, {len(course.assignment_ids)} assignments, {course.submissions} "
                  f"submissions in the measured course (+{args.other_courses} other courses of the same size), "
                  f"inserted in {time.perf_counter() - started:.1f} s; median of {args.repeat}", flush=True)
            client, csrf, bearer = signed_in_client(app)
            startup_objects.set_aside()  # as the web processes do once the app is loaded (grader.gunicorn_worker)
            chosen = [page for page in pages(course, csrf, bearer) if not args.only or re.search(args.only, page[0])]
            yield app, [(client, *page) for page in chosen]
        finally:
            get_db(app).dispose()


TABLE_HEAD = "| page | median ms | SQL ms | SQL statements | body KiB | peak MiB (tracemalloc) |\n|---|---|---|---|---|---|"


def measured_row(app: Flask, page: Any, args: argparse.Namespace) -> tuple[str, float]:
    """Measure one page; its table line and its median ms."""
    client, label, method, path, keywords = page
    ms, sql_ms, statements, size, peak, status = measure(app, client, method, path, keywords, args.repeat, args.memory)
    note = "" if status == 200 else f" (HTTP {status})"
    shown_peak = "—" if peak is None else f"{peak:.1f}"
    return f"| {label}{note} | {ms:.1f} | {sql_ms:.1f} | {statements} | {size / 1024:.1f} | {shown_peak} |", ms


def run_backend(name: str, url: str, args: argparse.Namespace, students: int) -> dict[str, float]:
    """Migrate, fill (``students`` students) and measure one database; print one table; the median ms per page."""
    with prepared(name, url, args, students) as (app, chosen):
        print(TABLE_HEAD)
        times: dict[str, float] = {}
        for page in chosen:
            line, times[page[1]] = measured_row(app, page, args)
            print(line, flush=True)
        return times


def run_interleaved(name: str, urls: list[str], args: argparse.Namespace) -> list[dict[str, float]]:
    """Fill one database per size, then measure each page at every size in turn, so that a change of the machine's
    load during the run (other users of a shared machine) falls on every size alike; one table per size."""
    with ExitStack() as stack:
        setups = [stack.enter_context(prepared(name, url, args, n)) for url, n in zip(urls, args.students, strict=True)]
        lines: list[list[str]] = [[] for _ in setups]
        runs: list[dict[str, float]] = [{} for _ in setups]
        for index in range(len(setups[0][1])):
            for size, (app, chosen) in enumerate(setups):
                line, runs[size][chosen[index][1]] = measured_row(app, chosen[index], args)
                lines[size].append(line)
        for size, students in enumerate(args.students):
            print(f"\n{name}, {students} students (measured in turn with the other sizes)\n{TABLE_HEAD}")
            print("\n".join(lines[size]), flush=True)
        return runs


def print_ratios(name: str, sizes: list[int], runs: list[dict[str, float]]) -> None:
    """Each page's median time at the largest size over the smallest (goal: at most 1.5)."""
    small, large = sizes[0], sizes[-1]
    print(f"\n{name}: time at {large} students / time at {small}\n| page | ms at {small} | ms at {large} | ratio |\n"
          "|---|---|---|---|")
    for label, fast in runs[0].items():
        slow = runs[-1].get(label)
        if slow is not None:
            print(f"| {label} | {fast:.1f} | {slow:.1f} | {slow / fast:.2f} |", flush=True)


def student_counts(text: str) -> list[int]:
    """``--students``: one size or a comma-separated list, smallest first (argparse type)."""
    try:
        sizes = sorted(int(part) for part in text.split(","))
    except ValueError as exc:
        raise argparse.ArgumentTypeError("give whole numbers of students, e.g. 500,5000") from exc
    if not sizes or sizes[0] < 1:
        raise argparse.ArgumentTypeError("give at least one student")
    return sizes


def stop_on_sigterm() -> None:
    """Turn SIGTERM into KeyboardInterrupt, so the scratch database is dropped on either signal."""

    def interrupt(_signum: int, _frame: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupt)


def main() -> None:
    """Build the data set on each backend, then time every teacher page, export and API listing."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=student_counts, default=[400], help="e.g. 500,5000: the ratio of each")
    parser.add_argument("--assignments", type=int, default=6)
    parser.add_argument("--other-courses", type=int, default=1, help="more courses of the same size, not measured")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--backends", default="postgresql", help="comma-separated: postgresql, sqlite")
    parser.add_argument("--no-memory", dest="memory", action="store_false", help="skip the tracemalloc run")
    parser.add_argument("--only", default="", help="regular expression: measure only the pages it matches")
    parser.add_argument("--interleave", action="store_true",
                        help="with several sizes: fill every database first, then measure each page at each size in turn")
    parser.add_argument("--admin-url", default=os.environ.get("GRADER_BENCH_PG_URL", ADMIN_URL))
    args = parser.parse_args()
    stop_on_sigterm()
    try:
        for name in args.backends.split(","):
            if name not in ("postgresql", "sqlite"):
                parser.error(f"unknown backend {name!r}")
            with ExitStack() as stack:
                urls = [
                    stack.enter_context(postgres_database(f"bench_dashboard_{os.getpid()}_{n}", args.admin_url))
                    if name == "postgresql"
                    else f"sqlite:///{stack.enter_context(tempfile.TemporaryDirectory())}/bench.sqlite3"
                    for n in args.students
                ]
                if args.interleave and len(urls) > 1:
                    runs = run_interleaved(name, urls, args)
                else:
                    runs = [run_backend(name, url, args, n) for url, n in zip(urls, args.students, strict=True)]
            if len(runs) > 1:
                print_ratios(name, args.students, runs)
    except KeyboardInterrupt:
        print("\ninterrupted; scratch database dropped", file=sys.stderr)
        sys.exit(130)


if __name__ == "__main__":
    main()
