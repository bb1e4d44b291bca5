"""Floor settings, read from the environment, and the floor's one table."""
from __future__ import annotations

import os
import threading
from typing import Any

import psycopg

TABLE = "floor_jobs"
CREATE_TABLE = f"""
CREATE TABLE IF NOT EXISTS {TABLE} (
    id bigserial PRIMARY KEY,
    payload jsonb NOT NULL,
    status text NOT NULL,
    result jsonb,
    created_at timestamptz NOT NULL DEFAULT now(),
    finished_at timestamptz
)"""
TASK_NAME = "floor.finish_job"


def database_url() -> str:
    """libpq URL of the floor's database (e.g. postgresql://postgres@127.0.0.1:5432/grader_bench_1)."""
    return os.environ["FLOOR_DATABASE_URL"]


def celery_settings() -> dict[str, Any]:
    """The same delivery settings as the grader's Celery app (acks late, prefetch 1, no result backend)."""
    return {
        "broker_url": os.environ["FLOOR_BROKER_URL"],
        "task_default_queue": os.environ.get("FLOOR_QUEUE", "floor"),
        "task_ignore_result": True,
        "task_acks_late": True,
        "task_reject_on_worker_lost": True,
        "worker_prefetch_multiplier": 1,
        "broker_connection_retry_on_startup": True,
        "broker_transport_options": {"visibility_timeout": 3600},
    }


def poll_seconds() -> float:
    """How long a waiting GET sleeps between reads of the row."""
    return float(os.environ.get("FLOOR_POLL_SECONDS", "0.01"))


def create_table(url: str) -> None:
    """Create the floor's table in ``url`` (idempotent)."""
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute(CREATE_TABLE)


class ThreadConnections(threading.local):
    """One autocommit database connection per thread (a server thread, or a worker's pool process)."""

    connection: psycopg.Connection | None = None

    def get(self) -> psycopg.Connection:
        """This thread's open connection."""
        if self.connection is None or self.connection.closed:
            self.connection = psycopg.connect(database_url(), autocommit=True)
        return self.connection
