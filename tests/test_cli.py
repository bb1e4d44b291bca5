"""The `grader` command: tokens, users, courses, migrations, the engine's subcommands, and `grader serve`'s refusals
(the running server: tests/test_serve_process.py)."""

from __future__ import annotations

import io
import socket
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from flask import Flask
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from exercises import api as engine
from grader import create_app
from grader.cli import main
from grader.demo import DEMO_LOGINS, seed_demo
from grader.extensions import get_db
from grader.models import Assignment, Course, Enrolment, Role, User, utcnow
from grader.security import authenticate_password, find_live_token
from tests.factories import EXERCISE
from tests.support import Backend


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
