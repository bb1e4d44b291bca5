"""Waits that hold no thread, under a real gunicorn with our worker class and real connections: a hundred held
waits leave two threads free for everyone else; a wait is answered when its grade lands; beyond the per-user cap
(shared by the web processes through Redis) a wait is answered at once with the current state; a client that
leaves gives its slot back; a stopping worker answers its parked requests at once."""

from __future__ import annotations

import json
import select
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from sqlalchemy.orm import Session

from grader import gunicorn_worker
from grader.api import wait_slots
from grader.extensions import get_db
from grader.grading import pipeline
from grader.models import Submission, SubmissionStatus, User, utcnow
from grader.security import issue_token
from tests.factories import BOOK_ANSWER, BOOK_SEED, EXERCISE, make_assignment, make_user
from tests.support import Backend, finish_at_exit, free_port, wait_for

HOST = "127.0.0.4"  # a loopback address of its own, away from anything else listening
THREADS = 2  # per gunicorn process: far fewer than the waits held
HELD = 100
WAIT = 10  # seconds each held wait asks for (the most allowed); what is checked "meanwhile" comes before they end


@dataclass
class Server:
    port: int
    process: subprocess.Popen[bytes]
    log: Path
    config: dict[str, Any]
    shared_cap: bool  # two processes counting one cap in Redis, or one process on its own


def _listening(port: int) -> bool | None:
    try:
        socket.create_connection((HOST, port), timeout=1).close()
    except OSError:
        return None
    return True


def _start(backend: Backend, log: Path, workers: int) -> Server:
    port = free_port(HOST)
    command = gunicorn_worker.command(f"{HOST}:{port}", workers=workers, threads=THREADS)
    with log.open("wb") as out:
        process = subprocess.Popen(command, env=backend.env(), stdout=out, stderr=subprocess.STDOUT)
    wait_for(lambda: _listening(port), f"gunicorn to listen (log: {log})")
    return Server(port, process, log, backend.config(), shared_cap=backend.broker_url.startswith("redis://"))


def _stop_soon(server: Server) -> None:
    """Ask gunicorn to stop and go on: its graceful shutdown takes seconds, which nothing here looks at (it is
    waited for when the test process exits)."""
    server.process.terminate()
    finish_at_exit(lambda: server.process.wait(timeout=30))


@pytest.fixture(scope="module")
def server(backend: Backend, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """gunicorn on this session's backend, no grading worker: two processes sharing the cap where Redis is."""
    log = tmp_path_factory.mktemp("gunicorn") / "gunicorn.log"
    started = _start(backend, log, workers=2 if backend.broker_url.startswith("redis://") else 1)
    try:
        yield started
    finally:
        _stop_soon(started)


def _send(port: int, method: str, path: str, token: str, body: dict[str, Any] | None = None, **headers: str) -> Any:
    """Open a connection and send one request on it; the socket, to read the answer from later."""
    data = b"" if body is None else json.dumps(body).encode()
    lines = [f"{method} {path} HTTP/1.1", "Host: grader", "Connection: close", f"Authorization: Bearer {token}"]
    lines += [f"{name.replace('_', '-')}: {value}" for name, value in headers.items()]
    if body is not None:
        lines += ["Content-Type: application/json", f"Content-Length: {len(data)}"]
    connection = socket.create_connection((HOST, port), timeout=30)
    connection.sendall(("\r\n".join(lines) + "\r\n\r\n").encode() + data)
    return connection


def _answered(connection: socket.socket) -> bool:
    """True if the server has started answering (or closed) ``connection``."""
    readable, _, _ = select.select([connection], [], [], 0)
    return bool(readable)


def _answer(connection: socket.socket) -> tuple[int, dict[str, Any]]:
    """Status and JSON body of the answer on ``connection`` (read to its end)."""
    raw = b""
    with connection:
        while chunk := connection.recv(65536):
            raw += chunk
    head, _, body = raw.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(body)


def _quick(port: int, path: str, token: str | None = None) -> int:
    """The status of a request that must be answered now (while the waits are held)."""
    connection = _send(port, "GET", path, token or "none")
    connection.settimeout(2 * WAIT)  # generous for a loaded machine: callers check the held waits are still open
    status, _ = _answer(connection)
    return status


def _student(session: Session) -> tuple[User, str]:
    user = make_user(session)
    token = issue_token(session, user, name="test")
    session.commit()
    return user, token


def _stranded(session: Session, user: User) -> int:
    """A queued submission whose message nobody will deliver: every wait on it runs its full length."""
    row = Submission(
        user_id=user.id,
        exercise_id=EXERCISE,
        seed=BOOK_SEED,
        lang="en",
        raw_answer=BOOK_ANSWER,
        status=SubmissionStatus.QUEUED,
    )
    session.add(row)
    session.commit()
    return row.id


def _grade_now(app: Flask, submission_id: int) -> None:
    """Grade in this process as a worker would: the commit, then the notice (Redis) or nothing (readers poll).

    A POSTed submission is also sent to this session's queue, where the session's real worker (started by an
    earlier test of this process, if any) may have claimed it first: then it is that worker's grade the wait gets.
    """
    with app.app_context():
        outcome = pipeline.grade_submission(get_db(app), submission_id, worker="test", lease_seconds=30)
        assert outcome in (pipeline.Outcome.GRADED, pipeline.Outcome.SKIPPED)
        with get_db(app).session() as session:
            wait_for(
                lambda: session.get(Submission, submission_id, populate_existing=True).status == "graded",
                "the submission graded (here or by the session's worker)",
            )


def test_a_hundred_held_waits_leave_healthz_and_reads_answering(server: Server, session: Session) -> None:
    users = [_student(session) for _ in range(HELD // wait_slots.MAX_WAITS_PER_USER)]
    rows = {user.id: _stranded(session, user) for user, _ in users}
    held = [
        _send(server.port, "GET", f"/api/v1/submissions/{rows[user.id]}?wait={WAIT}", token)
        for user, token in users
        for _ in range(wait_slots.MAX_WAITS_PER_USER)
    ]
    reader_row = rows[users[0][0].id]
    for _ in range(5):  # more requests than the server has threads, each answered while all the waits are held
        assert _quick(server.port, "/healthz") == 200
        assert _quick(server.port, f"/api/v1/submissions/{reader_row}", users[0][1]) == 200
    assert not any(_answered(connection) for connection in held)
    answers = [_answer(connection) for connection in held]
    assert all(status == 200 and body["status"] == "queued" for status, body in answers)


def test_a_parked_wait_is_answered_when_the_grade_lands(server: Server, session: Session, app: Flask) -> None:
    user, token = _student(session)
    row = _stranded(session, user)
    waiting = _send(server.port, "GET", f"/api/v1/submissions/{row}?wait=10", token)
    assert _quick(server.port, "/healthz") == 200  # the wait is parked by now (a thread would still hold it)
    assert not _answered(waiting)
    _grade_now(app, row)
    status, body = _answer(waiting)
    assert status == 200 and body["status"] == "graded" and body["score"] == 1


def test_a_wait_that_runs_out_answers_the_state_the_submission_reached(
    server: Server, session: Session, app: Flask
) -> None:
    user, token = _student(session)
    row = _stranded(session, user)
    sent = time.monotonic()
    waiting = _send(server.port, "GET", f"/api/v1/submissions/{row}?wait=4", token)
    assert _quick(server.port, "/healthz") == 200
    # A worker takes the row and is still grading when the wait ends: the answer says so, not the parked "queued".
    submission = session.get(Submission, row)
    assert submission is not None
    submission.status, submission.lease_owner = SubmissionStatus.GRADING, "test"
    submission.lease_until = submission.started_at = utcnow()
    session.commit()
    status, body = _answer(waiting)
    assert status == 200 and body["status"] == "grading"
    assert time.monotonic() > sent + 3  # it did wait (a wake-up for "grading" would have ended it at once)


def test_a_parked_post_answers_its_own_graded_submission_once(server: Server, session: Session, app: Flask) -> None:
    user, token = _student(session)
    assignment = make_assignment(session, [user])
    answer = {"exercise_id": EXERCISE, "answer": BOOK_ANSWER, "lang": "en", "assignment_id": assignment.id}
    waiting = _send(server.port, "POST", "/api/v1/submissions", token, answer, Prefer="wait=10")
    row = wait_for(lambda: session.query(Submission.id).filter_by(user_id=user.id).scalar(), "the stored row")
    session.commit()
    assert _quick(server.port, "/healthz") == 200
    _grade_now(app, row)
    status, body = _answer(waiting)
    assert status == 200 and body["id"] == row and body["status"] == "graded"
    assert session.query(Submission).filter_by(user_id=user.id).count() == 1  # the re-run stored nothing again


def test_beyond_the_cap_a_wait_is_answered_at_once_with_the_current_state(server: Server, session: Session) -> None:
    user, token = _student(session)
    row = _stranded(session, user)
    path = f"/api/v1/submissions/{row}?wait={WAIT}"
    # With two processes, the connections land in either: the cap holds over both only if they share it.
    held = [_send(server.port, "GET", path, token) for _ in range(wait_slots.MAX_WAITS_PER_USER)]
    assert _quick(server.port, "/healthz") == 200  # every one of them has been parked
    beyond = _send(server.port, "GET", path, token)
    # Which of the cap + 1 is the one beyond depends on the order the server read them: exactly one is answered
    # at once (long before its wait would end), with the current state, and the others stay parked.
    everyone = [*held, beyond]
    answered, _, _ = select.select(everyone, [], [], WAIT / 2)
    assert len(answered) == 1
    status, body = _answer(answered[0])
    assert status == 200 and body["status"] == "queued"
    held = [connection for connection in everyone if connection is not answered[0]]
    assert not any(_answered(connection) for connection in held)
    other, other_token = _student(session)  # another user's wait is not capped by this one's
    others = _send(server.port, "GET", f"/api/v1/submissions/{_stranded(session, other)}?wait={WAIT}", other_token)
    assert _quick(server.port, "/healthz") == 200
    assert not _answered(others)
    for connection in held:
        connection.close()
    others.close()


def test_a_client_that_leaves_gives_its_slot_back(server: Server, session: Session) -> None:
    if not server.shared_cap:
        pytest.skip("a process's own counts are not visible from outside (Redis's are)")
    user, token = _student(session)
    row = _stranded(session, user)
    path = f"/api/v1/submissions/{row}?wait={WAIT}"
    leavers = [_send(server.port, "GET", path, token) for _ in range(wait_slots.MAX_WAITS_PER_USER)]
    counted = wait_slots.slots(server.config)
    # Every leaver parked first: one still unread when the slots look free would take a slot from the second round.
    wait_for(lambda: counted.held(user.id) == wait_slots.MAX_WAITS_PER_USER or None, "the leavers parked")
    for connection in leavers:
        connection.close()
    wait_for(lambda: counted.held(user.id) == 0 or None, "the slots to be given back")
    held = [_send(server.port, "GET", path, token) for _ in range(wait_slots.MAX_WAITS_PER_USER)]
    assert _quick(server.port, "/healthz") == 200
    assert not any(_answered(connection) for connection in held)  # parked again: the leavers' slots came back
    for connection in held:
        connection.close()


def test_a_stopping_server_answers_its_parked_waits_at_once(backend: Backend, session: Session, tmp_path: Path) -> None:
    own = _start(backend, tmp_path / "stopping.log", workers=1)
    try:
        user, token = _student(session)
        row = _stranded(session, user)
        sent = time.monotonic()
        held = [_send(own.port, "GET", f"/api/v1/submissions/{row}?wait={WAIT}", token) for _ in range(3)]
        assert _quick(own.port, "/healthz") == 200
        own.process.send_signal(signal.SIGTERM)
        for connection in held:
            status, body = _answer(connection)
            assert status == 200 and body["status"] == "queued"
        assert time.monotonic() < sent + WAIT  # answered before the waits would have ended
    finally:
        _stop_soon(own)
