"""Floor web app: ``gunicorn "bench.floor.web:create_app()"``; POST /jobs inserts and sends, GET /jobs/<id> reads."""
from __future__ import annotations

import time

from flask import Flask, jsonify, request
from flask.typing import ResponseReturnValue
from psycopg.types.json import Jsonb

from bench.floor import settings
from bench.floor.worker import celery

MAX_WAIT_SECONDS = 10.0


def create_app() -> Flask:
    """The floor's Flask app."""
    app = Flask(__name__)
    connections = settings.ThreadConnections()
    poll = settings.poll_seconds()
    queue = settings.celery_settings()["task_default_queue"]

    @app.get("/healthz")
    def healthz() -> ResponseReturnValue:
        """200 when the database answers."""
        connections.get().execute("SELECT 1")
        return jsonify(status="ok")

    @app.post("/jobs")
    def create_job() -> ResponseReturnValue:
        """Insert a queued row (committed), then send its id to the worker."""
        job_id = connections.get().execute(
            f"INSERT INTO {settings.TABLE} (payload, status) VALUES (%s, 'queued') RETURNING id",
            (Jsonb(request.get_json()),),
        ).fetchall()[0][0]
        celery.send_task(settings.TASK_NAME, args=[job_id], queue=queue)
        return jsonify(id=job_id, status="queued"), 202

    @app.get("/jobs/<int:job_id>")
    def read_job(job_id: int) -> ResponseReturnValue:
        """The row; ``?wait=S`` re-reads it every FLOOR_POLL_SECONDS until done or S seconds pass."""
        deadline = time.monotonic() + min(float(request.args.get("wait", 0)), MAX_WAIT_SECONDS)
        while True:
            row = connections.get().execute(
                f"SELECT status, result FROM {settings.TABLE} WHERE id = %s", (job_id,)
            ).fetchone()
            if row is None:
                return jsonify(error="not_found"), 404
            if row[0] == "done" or time.monotonic() >= deadline:
                return jsonify(id=job_id, status=row[0], result=row[1])
            time.sleep(poll)

    return app
