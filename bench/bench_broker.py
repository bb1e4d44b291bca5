"""Broker figures for docs/scaling.md: how fast one process publishes grading tasks to Redis and to RabbitMQ
(durable quorum queue, confirmed publishes), and how long the sweeper's queue-length question takes.

Prints figures and asserts nothing. Run from the repository root with both brokers up:

    .venv/bin/python bench/bench_broker.py --messages 2000
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
import uuid

from grader import create_app
from grader.grading import dispatch
from grader.grading.dispatch import GRADE_TASK

BROKERS = {"redis": "redis://127.0.0.1:6379/15", "rabbitmq": "amqp://guest:guest@127.0.0.1:5672//"}


def measure(name: str, url: str, messages: int, data_dir: str) -> None:
    """Publish ``messages`` tasks to a fresh queue on ``url``, count the queue, then delete it; print figures."""
    queue = f"bench-{uuid.uuid4().hex[:8]}"
    app = create_app(
        {
            "GRADER_ENV": "testing",
            "SECRET_KEY": "s" * 40,
            "GRADER_DATA_DIR": data_dir,
            "CELERY_BROKER_URL": url,
            "GRADER_QUEUE": queue,
            "RATELIMIT_STORAGE_URI": "memory://",
        }
    )
    with app.app_context():
        celery = dispatch.celery_app()
        celery.send_task(GRADE_TASK, args=[0], queue=queue)  # connect and declare outside the timing
        started, cpu = time.perf_counter(), time.process_time()
        for row_id in range(messages):
            celery.send_task(GRADE_TASK, args=[row_id], queue=queue)
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu
        counts = []
        for _ in range(20):
            asked = time.perf_counter()
            waiting = dispatch.waiting_messages(queue)
            counts.append(time.perf_counter() - asked)
        with celery.connection_for_write() as connection:
            connection.default_channel.queue_delete(queue)
    print(
        f"{name:9} publish {messages / wall:8.0f} msg/s  {1000 * cpu / messages:6.3f} ms CPU/msg  "
        f"queue length {waiting} asked in {1000 * statistics.median(counts):6.2f} ms (median)"
    )


def main() -> None:
    """Measure every broker given."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--messages", type=int, default=2000)
    parser.add_argument("--brokers", default=",".join(BROKERS))
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f}; {args.messages} messages per broker, one publishing process")
    with tempfile.TemporaryDirectory() as data_dir:
        for name in args.brokers.split(","):
            measure(name, BROKERS[name], args.messages, data_dir)


if __name__ == "__main__":
    main()
