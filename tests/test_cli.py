"""The `grader` command: tokens, users, courses, migrations, the engine's subcommands, and `grader serve`."""

from __future__ import annotations

import io
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
import requests
from flask import Flask
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from exercises import api as engine
from grader import create_app
from grader.cli import main
from grader.config import EMBEDDED_BROKER_URL
from grader.demo import DEMO_LOGINS, seed_demo
from grader.extensions import get_db
from grader.models import Assignment, Course, Enrolment, Role, SubmissionStatus, User, utcnow
from grader.security import authenticate_password, find_live_token
from grader.serve import prepare
from tests.factories import BOOK_ANSWER, BOOK_SEED, EXERCISE
from tests.pipeline_helpers import submit, wait_final
from tests.support import Backend, wait_for


@pytest.fixture
def cli_env(app: Flask, backend: Backend, monkeypatch: pytest.MonkeyPatch) -> Backend:
    """The CLI reads the same backend as ``app`` through the environment."""
    for name, value in backend.config().items():
        monkeypatch.setenv(name, str(value))
    return backend


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Run `grader argv...` in-process; returns (status, stdout, stderr)."""
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out.strip(), captured.err.strip()


def test_token_create_makes_the_owner_and_prints_a_working_token(
    cli_env: Backend, session: Session, capsys: pytest.CaptureFixture[str]
) -> None:
    status, token, _ = run(capsys, "token", "create", "--role", "teacher", "--name", "ms-lee")
    assert status == 0
    owner = find_live_token(session, token)
    session.commit()  # release SQLite's read snapshot before the next command writes
    assert owner is not None and owner.username == "ms-lee" and owner.user_role == Role.TEACHER
    status, second, _ = run(capsys, "token", "create", "--role", "teacher", "--name", "ms-lee")
    assert status == 0 and second != token
    assert session.scalar(select(func.count()).select_from(User)) == 1


def test_token_for_existing_user_with_another_role_is_refused(
    cli_env: Backend, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "token", "create", "--role", "student", "--name", "kim")[0] == 0
    status, out, err = run(capsys, "token", "create", "--role", "admin", "--name", "kim")
    assert status == 1 and out == "" and "role student" in err


def test_user_course_and_enrolment_commands(
    cli_env: Backend, session: Session, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("s3cret-pass\n"))
    assert run(capsys, "user", "create", "--username", "wei", "--password-stdin")[0] == 0
    assert authenticate_password(session, "wei", "s3cret-pass") is not None
    assert run(capsys, "course", "create", "--code", "NLP1", "--title", "NLP")[0] == 0
    assert run(capsys, "course", "create", "--code", "NLP1", "--title", "again")[0] == 1
    for _ in range(2):  # enrolling twice is harmless
        assert run(capsys, "course", "enrol", "--code", "NLP1", "--username", "wei")[0] == 0
    assert session.scalar(select(func.count()).select_from(Enrolment)) == 1
    assert run(capsys, "course", "enrol", "--code", "NOPE", "--username", "wei")[0] == 1


def test_sweeper_once_and_health(cli_env: Backend, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "sweeper", "--once")
    assert status == 0 and "resent" in out
    assert run(capsys, "health") == (0, "ok", "")


def test_db_upgrade_creates_the_schema(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GRADER_DATA_DIR", str(data_dir))
    monkeypatch.delenv("DATABASE_URL", raising=False)
    assert run(capsys, "db", "upgrade")[0] == 0
    app = create_app({"GRADER_ENV": "testing"})
    with get_db(app).session() as session:
        assert session.scalar(select(func.count()).select_from(User)) == 0


def test_exercises_subcommands_go_to_the_engine_cli(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "exercises", "list")
    assert status == 0
    assert EXERCISE in out


def test_demo_seed_is_idempotent(session: Session) -> None:
    for _ in range(2):
        course = seed_demo(session)
    assert {e.user.username for e in course.enrolments} == {login.username for login in DEMO_LOGINS}
    assignments = session.scalars(select(Assignment).where(Assignment.course_id == course.id)).all()
    assert len(assignments) == 3
    prefixes = {exercise_id.split(".")[0] for a in assignments for exercise_id in a.exercise_ids}
    assert prefixes <= {"ch13", "ch09", "l03"} and "ch13" in prefixes
    assert all(set(a.exercise_ids) <= set(engine.exercise_ids()) for a in assignments)
    assert session.scalar(select(func.count()).select_from(Course)) == 1
    for login in DEMO_LOGINS:
        assert authenticate_password(session, login.username, login.password) is not None


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


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


def test_serve_with_its_port_taken_says_so_before_anything_starts(
    monkeypatch: pytest.MonkeyPatch, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GRADER_DATA_DIR", str(data_dir))
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        status, out, err = run(capsys, "serve", "--port", str(taken.getsockname()[1]))
    assert status == 1 and "in use" in err and "--port" in err
    assert "Grader running" not in out  # no banner, no logins, no worker for a server that cannot start


def test_serve_prints_logins_answers_and_grades_with_its_worker(served: tuple[str, Path], data_dir: Path) -> None:
    base_url, log_path = served
    printed = log_path.read_text()
    assert base_url in printed
    for login in DEMO_LOGINS:
        assert f"{login.username:<10} {login.password}" in printed
    assert requests.get(f"{base_url}/healthz", timeout=10).json()["database"] is True

    # A second process with the same data directory shares the database and the embedded broker.
    app = create_app({"GRADER_DATA_DIR": str(data_dir)})
    with app.app_context(), get_db(app).session() as session:
        student = session.scalar(select(User).where(User.username == "student1"))
        submission = submit(
            session,
            user_id=student.id,
            exercise_id=EXERCISE,
            seed=BOOK_SEED,
            raw_answer=BOOK_ANSWER,
            parsed_answer=None,
            lang="zh",
        )
        graded = wait_final(session, submission.id)
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

        app = create_app({"GRADER_DATA_DIR": str(prepared_data_dir)})
        with app.app_context(), get_db(app).session() as session:
            student = session.scalar(select(User).where(User.username == "student1"))
            submission = submit(
                session,
                user_id=student.id,
                exercise_id=EXERCISE,
                seed=BOOK_SEED,
                raw_answer=BOOK_ANSWER,
                parsed_answer=None,
                lang="zh",
            )
            graded = wait_final(session, submission.id)
            assert graded.status == SubmissionStatus.GRADED and graded.score == 1.0
        get_db(app).dispose()
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


def test_serve_refuses_production(
    monkeypatch: pytest.MonkeyPatch, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name, value in {
        "GRADER_ENV": "production",
        "SECRET_KEY": "p" * 40,
        "GRADER_DATA_DIR": str(data_dir),
        "DATABASE_URL": f"sqlite:///{data_dir / 'x.sqlite'}",
        "CELERY_BROKER_URL": "filesystem://",
    }.items():
        monkeypatch.setenv(name, value)
    status, _, err = run(capsys, "serve", "--port", "1")
    assert status == 2 and "gunicorn" in err


def test_token_with_a_lifetime_is_listed_with_its_expiry(cli_env: Backend, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, _ = run(capsys, "token", "create", "--role", "teacher", "--name", "lms", "--expires-in-days", "30")
    assert status == 0
    listing = run(capsys, "token", "list", "--user", "lms")[1]
    assert (utcnow() + timedelta(days=30)).strftime("%Y-%m-%d") in listing.splitlines()[1]
    with pytest.raises(SystemExit):  # argparse refuses a lifetime that is not 1..3650 days
        main(["token", "create", "--role", "teacher", "--name", "x", "--expires-in-days", "0"])
    assert "1 to 3650" in capsys.readouterr().err


def test_token_list_and_revoke(cli_env: Backend, app: Flask, capsys: pytest.CaptureFixture[str]) -> None:
    status, moodle, _ = run(capsys, "token", "create", "--role", "teacher", "--name", "moodle", "--user", "ms-lee")
    assert status == 0
    assert run(capsys, "token", "create", "--role", "student", "--name", "kim")[0] == 0
    status, listing, _ = run(capsys, "token", "list", "--user", "ms-lee")
    rows = listing.splitlines()[1:]
    assert status == 0 and len(rows) == 1 and "moodle" in rows[0] and "ms-lee" in rows[0]
    assert moodle not in listing  # values are never shown (only hashes are stored anyway)
    token_id = rows[0].split()[0]
    headers = {"Authorization": f"Bearer {moodle}"}
    assert app.test_client().get("/api/v1/me", headers=headers).status_code == 200
    status, said, _ = run(capsys, "token", "revoke", token_id)
    assert status == 0 and "moodle" in said
    refused = app.test_client().get("/api/v1/me", headers=headers)
    assert refused.status_code == 401 and refused.get_json()["error"]["code"] == "invalid_token"
    assert run(capsys, "token", "list")[1].count("\n") == 2  # header + both tokens, the revoked one dated
    assert run(capsys, "token", "revoke", "999999")[0] == 1
