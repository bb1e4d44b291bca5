"""Waits that hold no thread: N clients (1,000 by default) each hold ``GET /api/v1/submissions/<id>?wait=10`` on
one web host (gunicorn, our worker class, 2 × 8 threads) while no grading worker runs, so every wait runs its
full length and is asked again at once. Meanwhile ``/healthz`` and a student's exercise page are fetched one after
the other; prints their p50/p99 with and without the waits, the waits' answers by status, and every 5xx. First it
prints the page's own cost in-process: CPU per request and SQL statements, which the machine's load distorts far
less. Asserts nothing (issue 18's goal: both pages under 100 ms p99, no 5xx).

    .venv/bin/python bench/bench_waits.py                      # the embedded default: SQLite, no Redis
    .venv/bin/python bench/bench_waits.py --postgres --redis   # scratch PostgreSQL database + Redis (notices, cap)
    .venv/bin/python bench/bench_waits.py --page-cpu-only --history 3   # the page's CPU only, after 3 attempts
"""

from __future__ import annotations

import argparse
import os
import re
import selectors
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import requests
from sqlalchemy import event, select

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.load_stack import free_port, group_cpu_seconds
from exercises import api as engine
from grader import create_app, gunicorn_worker
from grader.demo import COURSE_CODE
from grader.extensions import get_db
from grader.grading import pipeline
from grader.grading.variant_seeds import seed_for
from grader.models import Course, Submission, SubmissionStatus, User
from grader.security import issue_token
from grader.serve import prepare
from tests.factories import BOOK_ANSWER, BOOK_SEED, EXERCISE, shared_password_hash
from tests.support import own_redis_url, postgres_database

HOST = "127.0.0.6"
WAIT_SECONDS = 10
PAGE_STUDENT, PAGE_PASSWORD = "student1", "demo-student1"  # a demo login: the browser whose page is measured


@contextmanager
def _stores(use_postgres: bool, use_redis: bool, data_dir: str) -> Iterator[dict[str, str]]:
    """Settings for a scratch deployment: SQLite in ``data_dir`` or a scratch PostgreSQL database; Redis or not."""
    config = {"GRADER_ENV": "testing", "SECRET_KEY": "s" * 40, "GRADER_DATA_DIR": data_dir}
    config["GRADER_QUEUE"] = f"bench-waits-{uuid.uuid4().hex[:8]}"  # a queue no worker reads: workers stopped
    with ExitStack() as stack:
        if use_postgres:
            config["DATABASE_URL"] = stack.enter_context(postgres_database(f"bench_waits_{os.getpid()}"))
        if use_redis:
            config["CELERY_BROKER_URL"] = config["RATELIMIT_STORAGE_URI"] = own_redis_url()
        yield config


def _waiting_students(config: dict[str, str], count: int) -> list[tuple[str, int]]:
    """The demo course, plus ``count`` students with a token and a queued submission each: (token, row id)."""
    app = create_app(config)
    prepare(app)
    with app.app_context(), get_db(app).session() as session:
        users = [
            User(username=f"waiter-{n}", display_name="Waiter", role="student", password_hash=shared_password_hash())
            for n in range(count)
        ]
        session.add_all(users)
        session.flush()
        rows = [
            Submission(
                user_id=user.id,
                exercise_id=EXERCISE,
                seed=BOOK_SEED,
                lang="en",
                raw_answer=BOOK_ANSWER,
                status=SubmissionStatus.QUEUED,
            )
            for user in users
        ]
        session.add_all(rows)
        tokens = [issue_token(session, user, name="bench") for user in users]
        session.commit()
        return [(token, row.id) for token, row in zip(tokens, rows, strict=True)]


def _exercise_page(config: dict[str, str], history: int) -> str:
    """The path of a student exercise page of the demo course, where student1 has made ``history`` earlier
    attempts, graded (the last one wrong, so that its result names what went wrong)."""
    app = create_app(config)
    with app.app_context(), get_db(app).session() as session:
        course = session.scalars(select(Course).where(Course.code == COURSE_CODE)).one()
        assignment = min(course.assignments, key=lambda a: a.id)
        exercise = assignment.exercise_ids[0]
        student = session.scalars(select(User).where(User.username == PAGE_STUDENT)).one()
        seed = seed_for(session, student.id, exercise, assignment)
        right = engine.answer_key_text(exercise, seed, "en")
        wrong = {**right, list(right)[-1]: "0"}
        rows = [
            Submission(
                user_id=student.id,
                assignment_id=assignment.id,
                exercise_id=exercise,
                seed=seed,
                lang="en",
                raw_answer=wrong if (history - n) % 2 else right,
                status=SubmissionStatus.QUEUED,
            )
            for n in range(history)
        ]
        session.add_all(rows)
        session.commit()
        for row in rows:  # no grading worker runs: graded here, as one would
            pipeline.grade_submission(get_db(app), row.id, worker="bench-waits", lease_seconds=30)
        return f"/assignments/{assignment.id}/exercises/{exercise}"


def _page_cpu(config: dict[str, str], page: str, batches: int = 5, requests: int = 40) -> tuple[float, int]:
    """Milliseconds of this process's CPU per GET of ``page`` (Flask's test client, signed in as student1; the best
    of ``batches``) and the SQL statements one GET runs: what the page itself costs the web server, which the
    machine's load distorts far less than the wall-clock times measured over HTTP."""
    app = create_app(config)
    client = app.test_client()
    login = client.get("/login").get_data(as_text=True)
    csrf = re.search(r'name="csrf-token" content="([^"]+)"', login).group(1)  # type: ignore[union-attr]
    client.post("/login", data={"username": PAGE_STUDENT, "password": PAGE_PASSWORD, "csrf_token": csrf})
    assert client.get(page).status_code == 200, page
    statements = [0]

    def count(*_args: object) -> None:
        statements[0] += 1

    engine_ = get_db(app).engine
    event.listen(engine_, "before_cursor_execute", count)
    client.get(page)
    event.remove(engine_, "before_cursor_execute", count)
    best = float("inf")
    for _ in range(batches):
        started = time.process_time()
        for _ in range(requests):
            client.get(page)
        best = min(best, (time.process_time() - started) / requests)
    get_db(app).dispose()
    return 1000 * best, statements[0]


class Waiters:
    """N connections, each holding a wait; a wait that ends is asked again at once until ``stop``."""

    def __init__(self, port: int, students: list[tuple[str, int]]) -> None:
        self.port = port
        self.students = students
        self.answers: Counter[str] = Counter()
        self.stop = threading.Event()
        self.open = 0
        self._selector = selectors.DefaultSelector()

    def _request(self, token: str, row: int) -> None:
        connection = socket.create_connection((HOST, self.port), timeout=30)
        connection.sendall(
            f"GET /api/v1/submissions/{row}?wait={WAIT_SECONDS} HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n"
            f"Authorization: Bearer {token}\r\n\r\n".encode()
        )
        connection.setblocking(False)
        self._selector.register(connection, selectors.EVENT_READ, (token, row, bytearray()))
        self.open += 1

    def run(self) -> None:
        """Open the connections spread over one wait's length (as clients that came at different moments; all at
        once, every later round would arrive in one burst too), then read answers and ask again until ``stop``."""
        started = time.monotonic()
        for n, (token, row) in enumerate(self.students):
            self._request(token, row)
            while time.monotonic() < started + WAIT_SECONDS * (n + 1) / len(self.students):
                for key, _ in self._selector.select(timeout=0.01):
                    self._readable(key)
        while not self.stop.is_set() or self.open:
            for key, _ in self._selector.select(timeout=0.5):
                self._readable(key)

    def _readable(self, key: selectors.SelectorKey) -> None:
        connection: socket.socket = key.fileobj  # type: ignore[assignment]
        token, row, received = key.data
        try:
            chunk = connection.recv(65536)
        except BlockingIOError:
            return
        except OSError as exc:
            chunk, self.answers[type(exc).__name__] = b"", self.answers[type(exc).__name__] + 1
        if chunk:
            received += chunk
            return
        self._selector.unregister(connection)
        connection.close()
        self.open -= 1
        status = received.split(b" ", 2)[1].decode() if received.startswith(b"HTTP/") else "no answer"
        self.answers[status] += 1
        if not self.stop.is_set():
            self._request(token, row)


def _measure(session: requests.Session, url: str, seconds: float, statuses: Counter[int]) -> list[float]:
    """Milliseconds of each GET of ``url`` for ``seconds``, one after the other; statuses counted."""
    timings, deadline = [], time.monotonic() + seconds
    while time.monotonic() < deadline:
        started = time.perf_counter()
        answer = session.get(url, timeout=60)
        timings.append(1000 * (time.perf_counter() - started))
        statuses[answer.status_code] += 1
    return timings


def _percentiles(timings: list[float]) -> str:
    if len(timings) < 2:
        return f"{timings[0]:6.1f} ms, the only request answered"
    cuts = statistics.quantiles(timings, n=100)
    return f"p50 {statistics.median(timings):6.1f} ms  p99 {cuts[98]:6.1f} ms  ({len(timings)} requests)"


def _signed_in(base: str) -> requests.Session:
    """A browser-like session signed in as the demo's student1."""
    browser = requests.Session()
    page = browser.get(f"{base}/login", timeout=30).text
    csrf = re.search(r'name="csrf-token" content="([^"]+)"', page).group(1)  # type: ignore[union-attr]
    answer = browser.post(
        f"{base}/login", data={"username": PAGE_STUDENT, "password": PAGE_PASSWORD, "csrf_token": csrf}, timeout=30
    )
    answer.raise_for_status()
    return browser


def _report(base: str, page: str, seconds: float, label: str, statuses: Counter[int]) -> None:
    browser = _signed_in(base)
    health = _measure(browser, f"{base}/healthz", seconds / 2, statuses)
    pages = _measure(browser, f"{base}{page}", seconds / 2, statuses)
    print(f"{label}: /healthz {_percentiles(health)}")
    print(f"{label}: exercise page {_percentiles(pages)}")


def main() -> None:
    """Start gunicorn without workers, measure quiet, then with the clients holding waits."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=30.0, help="of measuring while the waits are held")
    parser.add_argument("--postgres", action="store_true", help="a scratch PostgreSQL database instead of SQLite")
    parser.add_argument("--redis", action="store_true", help="Redis for notices, rate limits and the wait cap")
    parser.add_argument(
        "--stock-worker", action="store_true", help="gunicorn's own gthread worker (a thread per wait), to compare"
    )
    parser.add_argument(
        "--history", type=int, default=0, help="earlier graded attempts of the measured student at the page"
    )
    parser.add_argument(
        "--page-cpu-only", action="store_true", help="print the page's in-process CPU per request, then stop"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data_dir, _stores(args.postgres, args.redis, data_dir) as config:
        students = _waiting_students(config, 0 if args.page_cpu_only else args.clients)
        page = _exercise_page(config, args.history)
        cpu_ms, statements = _page_cpu(config, page)
        print(
            f"exercise page in-process ({args.history} earlier attempts): {cpu_ms:.2f} ms of CPU per request "
            f"(best of 5 × 40), {statements} SQL statements, load average {os.getloadavg()[0]:.1f}"
        )
        if args.page_cpu_only:
            return
        port = free_port(HOST)
        log = Path(data_dir) / "gunicorn.log"
        command = gunicorn_worker.command(f"{HOST}:{port}")
        if args.stock_worker:
            command[command.index("--worker-class") + 1] = "gthread"
        with log.open("wb") as out:
            server = subprocess.Popen(
                command,
                env={**os.environ, **config},
                stdout=out,
                stderr=out,
                start_new_session=True,  # its own process group, whose CPU is counted
            )
        base = f"http://{HOST}:{port}"
        try:
            for _ in range(120):
                try:
                    requests.get(f"{base}/healthz", timeout=10)
                    break
                except requests.RequestException:
                    time.sleep(0.5)
            stores = ("PostgreSQL" if args.postgres else "SQLite") + (" + Redis" if args.redis else ", no Redis")
            worker = "gunicorn's gthread worker" if args.stock_worker else "our worker"
            print(f"{time.strftime('%Y-%m-%d')}, {stores}, {worker}, load average {os.getloadavg()[0]:.1f}")
            statuses: Counter[int] = Counter()
            cpu_before, clock_before = group_cpu_seconds(server.pid), time.monotonic()
            _report(base, page, 10, "quiet", statuses)
            cpu = (group_cpu_seconds(server.pid) - cpu_before) / (time.monotonic() - clock_before)
            print(f"web server CPU, quiet (the pages measured): {100 * cpu:.0f}% of a core")
            waiters = Waiters(port, students)
            holding = threading.Thread(target=waiters.run, daemon=True)
            holding.start()
            time.sleep(WAIT_SECONDS + 1)  # every client has sent its wait
            cpu_before, clock_before = group_cpu_seconds(server.pid), time.monotonic()
            _report(base, page, args.seconds, f"{args.clients} waits held", statuses)
            cpu = (group_cpu_seconds(server.pid) - cpu_before) / (time.monotonic() - clock_before)
            print(f"web server CPU while the waits are held (with the pages measured): {100 * cpu:.0f}% of a core")
            print(f"connections holding a wait at the end: {waiters.open}")
            waiters.stop.set()
            holding.join(WAIT_SECONDS + 30)
            print(f"wait answers by status: {dict(waiters.answers)}")
            print(f"page and health answers by status: {dict(statuses)}")
            failures = sum(n for status, n in statuses.items() if status >= 500)
            failures += sum(n for status, n in waiters.answers.items() if not status.startswith(("2", "3", "4")))
            print(f"5xx or no answer: {failures}")
        finally:
            server.terminate()
            server.wait(60)
            complaints = [line for line in log.read_text().splitlines() if "WARNING" in line or "ERROR" in line]
            print(f"server log: {len(complaints)} warnings and errors", *complaints[-5:], sep="\n  ")


if __name__ == "__main__":
    main()
