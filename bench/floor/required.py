"""The required-work floor: the bare floor's plumbing plus the work the issue requires of every job, done the
cheapest way (psycopg and redis-py directly, SQL written by hand, no ORM, no Flask extensions).

Web (``gunicorn "bench.floor.required:create_app()"``): ``POST /jobs`` checks a hashed bearer token, counts the
caller's submissions in a Redis fixed window, reads the answer with the engine (422 if unreadable), inserts the
queued row and sends its id; ``GET /jobs/<id>?wait=S`` checks the token and re-reads the caller's row every
FLOOR_POLL_SECONDS, as the bare floor's does. Worker (``celery -A bench.floor.required worker``): claims the row
under a lease by a conditional UPDATE, grades it with the engine under a time limit, and writes the result and
its grade-log row only if the lease still holds. No wake-up notice, no sweeper, no assignment rules (the
benchmark's submissions are a teacher's, outside assignments), nothing the benchmark does not exercise.
"""
from __future__ import annotations

import os
import socket
import time
from typing import Any

import redis
from celery import Celery, Task
from flask import Flask, jsonify, request
from flask.typing import ResponseReturnValue
from psycopg.types.json import Json

from bench.floor import required_schema as sql
from bench.floor import settings
from exercises import api as engine

MAX_WAIT_SECONDS = 10.0
RATE_LIMIT_PER_MINUTE = 100_000  # the grader's benchmark setting: counted, never reached
GRADE_TIME_LIMIT = 30  # soft limit; hard limit 10 s later, as the grader's
FINAL_STATUSES = ("graded", "invalid", "error")
TASK_NAME = "floor.required.grade"

celery = Celery("floor_required", set_as_current=False)
celery.conf.update(settings.celery_settings())
celery.conf.task_annotations = {TASK_NAME: {"soft_time_limit": GRADE_TIME_LIMIT,
                                            "time_limit": GRADE_TIME_LIMIT + 10}}


_connections = settings.ThreadConnections()


class Refused(Exception):
    """A request refused with a JSON error naming the field, as the grader's."""

    def __init__(self, status: int, code: str, field: str | None = None) -> None:
        super().__init__(code)
        self.status, self.code, self.field = status, code, field


def _caller() -> tuple[int, bool]:
    """(user id, is staff) of the bearer token; 401 without a live one."""
    header = request.headers.get("Authorization", "")
    row = None
    if header.startswith("Bearer "):
        row = _connections.get().execute(sql.TOKEN, (sql.hash_token(header[7:]),)).fetchone()
    if row is None:
        raise Refused(401, "unauthorized")
    return int(row[0]), row[1] in ("teacher", "admin")


def _count_submission(limiter: redis.Redis, prefix: str, user_id: int) -> None:
    """Count one submission in the caller's current minute (one round trip); 429 past the limit."""
    key = f"{prefix}:{user_id}:{int(time.time() // 60)}"
    count, _ = limiter.pipeline().incr(key).expire(key, 60, nx=True).execute()
    if int(count) > RATE_LIMIT_PER_MINUTE:
        raise Refused(429, "rate_limited")


def _submission(body: Any) -> tuple[str, dict[str, Any], str, int]:
    """(exercise id, answer, lang, seed) of a well-formed body; a 4xx naming the wrong field otherwise."""
    if not isinstance(body, dict):
        raise Refused(400, "invalid_json")
    exercise_id, answer, lang, seed = (body.get("exercise_id"), body.get("answer"), body.get("lang", "zh"),
                                       body.get("seed"))
    if not isinstance(exercise_id, str) or exercise_id not in engine.exercise_ids():
        raise Refused(422, "unknown_exercise", "exercise_id")
    if not isinstance(answer, dict):
        raise Refused(422, "invalid_type", "answer")
    if lang not in ("zh", "en"):
        raise Refused(422, "invalid_value", "lang")
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**63:
        raise Refused(422, "invalid_type", "seed")
    return exercise_id, answer, lang, seed


def create_app() -> Flask:
    """The required-work floor's Flask app."""
    app = Flask(__name__)
    limiter = redis.Redis.from_url(settings.celery_settings()["broker_url"])
    poll = settings.poll_seconds()
    queue = settings.celery_settings()["task_default_queue"]
    limit_prefix = f"required-floor:{queue}"

    @app.errorhandler(Refused)
    def refused(exc: Refused) -> ResponseReturnValue:
        """The refusal as JSON."""
        return jsonify(error={"code": exc.code, "message": exc.code, "field": exc.field}), exc.status

    @app.get("/healthz")
    def healthz() -> ResponseReturnValue:
        """200 when the database answers."""
        _connections.get().execute("SELECT 1")
        return jsonify(status="ok")

    @app.post("/jobs")
    def create_job() -> ResponseReturnValue:
        """Authenticate, rate-limit, read the answer, insert the queued row (committed), then send its id."""
        user_id, _ = _caller()
        _count_submission(limiter, limit_prefix, user_id)
        exercise_id, answer, lang, seed = _submission(request.get_json(silent=True))
        reading = engine.validate(exercise_id, answer, lang, seed)
        if reading["status"] != "valid":
            raise Refused(422, "invalid_answer", "answer")
        job_id = _connections.get().execute(
            sql.INSERT, (user_id, exercise_id, seed, lang, Json(answer), Json(reading["parsed"]))
        ).fetchall()[0][0]
        celery.send_task(TASK_NAME, args=[job_id], queue=queue)
        return jsonify(id=job_id, status="queued"), 202

    @app.get("/jobs/<int:job_id>")
    def read_job(job_id: int) -> ResponseReturnValue:
        """The caller's row (staff: any); ``?wait=S`` re-reads it every FLOOR_POLL_SECONDS until final."""
        user_id, staff = _caller()
        deadline = time.monotonic() + min(float(request.args.get("wait", 0)), MAX_WAIT_SECONDS)
        while True:
            row = _connections.get().execute(sql.READ, (job_id, user_id, staff)).fetchone()
            if row is None:
                raise Refused(404, "not_found")
            if row[0] in FINAL_STATUSES or time.monotonic() >= deadline:
                status, score, parts, errors, version, created, started, finished = row
                return jsonify(id=job_id, status=status, score=score, parts=parts, errors=errors,
                               engine_version=version, created_at=created.isoformat(),
                               started_at=started and started.isoformat(), finished_at=finished and finished.isoformat())
            time.sleep(poll)

    return app


@celery.task(name=TASK_NAME, bind=True, acks_late=True, reject_on_worker_lost=True)
def grade(task: Task, job_id: int) -> str:
    """Claim job ``job_id`` under a lease, grade it, write the result if the lease still holds."""
    owner = f"{socket.gethostname()}:{os.getpid()}:{task.request.id}"
    connection = _connections.get()
    claimed = connection.execute(sql.CLAIM, {"id": job_id, "owner": owner}).fetchone()
    if claimed is None:
        return "skipped"
    attempt, exercise_id, seed, answer, lang = claimed
    result = engine.grade(exercise_id, seed, answer, lang)
    connection.execute(sql.WRITE, {
        "id": job_id, "owner": owner, "attempt": attempt,
        "status": "graded" if result["status"] == "graded" else "invalid", "score": result.get("score"),
        "parts": Json(result.get("parts") or {}), "errors": Json(result.get("errors") or []),
        "parsed": Json(result.get("parsed")), "engine_version": result["engine_version"],
    })
    return str(result["status"])
