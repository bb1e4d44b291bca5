"""`grader serve` as a real process: it starts with its worker, grades, restarts a dead worker, and stops with
everything it started, however it is signalled or killed."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
from sqlalchemy import select

from grader import create_app
from grader.config import EMBEDDED_BROKER_URL
from grader.demo import DEMO_LOGINS
from grader.extensions import get_db
from grader.models import Submission, SubmissionStatus, User
from grader.serve import prepare
from tests.factories import BOOK_ANSWER, BOOK_SEED, EXERCISE
from tests.pipeline_helpers import submit, wait_final
from tests.support import free_port, wait_for


def start_serve(
    data_dir: Path, log_path: Path, *, ignoring_sigint: bool = False
) -> tuple[subprocess.Popen[bytes], int]:
    """`grader serve` as a real process (its own process group) on a free port, once it says it is ready.

    ``ignoring_sigint`` starts it the way a shell starts a background job: with SIGINT ignored.
    """
    port = free_port()
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("GRADER_", "DATABASE_URL", "CELERY_", "SECRET_KEY"))
    }
    env["GRADER_DATA_DIR"] = str(data_dir)
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "grader.cli", "serve", "--port", str(port)],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=(lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)) if ignoring_sigint else None,
        )
    try:
        wait_for(
            lambda: (
                (process.poll() is None and "ready." in log_path.read_text(errors="replace"))
                or (process.poll() is not None and pytest.fail(log_path.read_text()))
            ),
            "grader serve to start",
        )
    except BaseException:
        os.killpg(process.pid, signal.SIGKILL)
        raise
    return process, port


def group_alive(group_id: int) -> bool:
    """True while any process of the process group still exists."""
    try:
        os.killpg(group_id, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.fixture(scope="session")
def _prepared_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data directory as `grader serve` leaves it after its first start (migrated, demo seeded, its secret),
    built once per test process: the migrations and the demo's password hashes cost seconds per start."""
    directory = tmp_path_factory.mktemp("serve-data")
    app = create_app(
        {
            "GRADER_DATA_DIR": str(directory),
            "DATABASE_URL": f"sqlite:///{directory / 'grader.sqlite'}",
            "CELERY_BROKER_URL": EMBEDDED_BROKER_URL,
        }
    )
    prepare(app)
    get_db(app).dispose()
    return directory


@pytest.fixture
def prepared_data_dir(data_dir: Path, _prepared_data: Path) -> Path:
    """``data_dir`` holding a copy of ``_prepared_data``: for `grader serve` tests about something other than a
    first start (``served`` starts on an empty directory)."""
    shutil.copytree(_prepared_data, data_dir, dirs_exist_ok=True)
    return data_dir


@pytest.fixture
def served(data_dir: Path, tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """`grader serve` running as a real process on a free port; yields (base URL, its log file)."""
    log_path = tmp_path / "serve.log"
    process, port = start_serve(data_dir, log_path)
    try:
        yield f"http://127.0.0.1:{port}", log_path
    finally:
        process.terminate()  # SIGTERM: serve stops its worker and exits
        try:
            process.wait(30)
        finally:
            os.killpg(process.pid, signal.SIGKILL) if process.poll() is None else None


def assert_exits_cleanly(process: subprocess.Popen[bytes], log_path: Path) -> None:
    """``grader serve`` exits with 0, every process of its group with it, and without a traceback."""
    try:
        assert process.wait(40) == 0
        wait_for(lambda: not group_alive(process.pid), "every process of grader serve to exit", timeout=20)
    finally:
        if group_alive(process.pid):
            os.killpg(process.pid, signal.SIGKILL)
    assert "Traceback" not in log_path.read_text(errors="replace")


def test_serve_stops_its_worker_even_when_signalled_twice(prepared_data_dir: Path, tmp_path: Path) -> None:
    # A process-group kill under `timeout` delivers SIGTERM twice; the second used to cut the worker's shutdown
    # short and leave the worker running without its parent.
    log_path = tmp_path / "serve.log"
    process, _ = start_serve(prepared_data_dir, log_path)
    os.killpg(process.pid, signal.SIGTERM)
    time.sleep(0.3)
    os.killpg(process.pid, signal.SIGTERM)
    assert_exits_cleanly(process, log_path)


def test_ctrl_c_stops_serve_even_when_started_in_the_background(prepared_data_dir: Path, tmp_path: Path) -> None:
    # A shell starts background jobs with SIGINT ignored, and Python then keeps ignoring it: Ctrl-C (SIGINT to the
    # process group) stopped the worker but left the web app serving.
    log_path = tmp_path / "serve.log"
    process, _ = start_serve(prepared_data_dir, log_path, ignoring_sigint=True)
    os.killpg(process.pid, signal.SIGINT)
    assert_exits_cleanly(process, log_path)


def grade_book_answer_in(data_dir: Path) -> Submission:
    """Submit the demo student's book answer from a second process on ``data_dir`` (it shares the database and the
    embedded broker with the serve there) and wait until the serve's worker has graded it."""
    app = create_app({"GRADER_DATA_DIR": str(data_dir)})
    try:
        with app.app_context(), get_db(app).session() as session:
            student = session.scalar(select(User).where(User.username == "student1"))
            assert student is not None
            submission = submit(
                session,
                user_id=student.id,
                exercise_id=EXERCISE,
                seed=BOOK_SEED,
                raw_answer=BOOK_ANSWER,
                parsed_answer=None,
                lang="zh",
            )
            return wait_final(session, submission.id)
    finally:
        get_db(app).dispose()


def test_serve_prints_logins_answers_and_grades_with_its_worker(served: tuple[str, Path], data_dir: Path) -> None:
    base_url, log_path = served
    printed = log_path.read_text()
    assert base_url in printed
    for login in DEMO_LOGINS:
        assert f"{login.username:<10} {login.password}" in printed
    assert requests.get(f"{base_url}/healthz", timeout=10).json()["database"] is True

    graded = grade_book_answer_in(data_dir)
    assert graded.status == SubmissionStatus.GRADED and graded.score == 1.0


def celery_children(parent_pid: int) -> list[int]:
    """Pids of the direct children of ``parent_pid`` that run a Celery worker."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ")
        except (OSError, IndexError, ValueError):
            continue  # the process exited while we looked
        if ppid == parent_pid and b"celery" in command:
            found.append(int(entry.name))
    return found


def test_serve_starts_its_worker_again_when_it_dies(prepared_data_dir: Path, tmp_path: Path) -> None:
    """A worker killed under `grader serve` left the web app taking answers nobody graded; now serve starts a new
    worker, which grades what is submitted, and still stops everything cleanly."""
    log_path = tmp_path / "serve.log"
    process, _ = start_serve(prepared_data_dir, log_path)
    try:
        first = wait_for(lambda: celery_children(process.pid), "the worker under grader serve")
        os.kill(first[0], signal.SIGKILL)
        replaced = wait_for(
            lambda: [pid for pid in celery_children(process.pid) if pid not in first], "a new worker under grader serve"
        )
        assert replaced and "starting it again" in log_path.read_text(errors="replace")

        graded = grade_book_answer_in(prepared_data_dir)
        assert graded.status == SubmissionStatus.GRADED and graded.score == 1.0
    finally:
        process.terminate()
    assert_exits_cleanly(process, log_path)


def running(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie (an orphan's zombie waits for whoever reaps it)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


@pytest.mark.skipif(sys.platform != "linux", reason="the parent-death signal is Linux's")
def test_a_killed_serve_takes_its_worker_with_it(prepared_data_dir: Path, tmp_path: Path) -> None:
    """`grader serve` killed outright (kill -9, the OOM killer) used to leave its worker running, grading on
    beside the next serve's own worker."""
    log_path = tmp_path / "serve.log"
    process, _ = start_serve(prepared_data_dir, log_path)
    try:
        workers = wait_for(lambda: celery_children(process.pid), "the worker under grader serve")
        os.kill(process.pid, signal.SIGKILL)  # the main process only, not its group
        process.wait(10)
        wait_for(lambda: not any(running(pid) for pid in workers), "the orphaned worker to stop", timeout=30)
    finally:
        if group_alive(process.pid):
            os.killpg(process.pid, signal.SIGKILL)
