"""The task message a committed row's send puts on the broker: what a worker and a monitor read from it."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from celery.utils.saferepr import saferepr
from flask import Flask

from grader.grading import dispatch
from grader.models import RegradeJob, Submission
from tests.support import Backend


@pytest.fixture
def own_queue(app: Flask, backend: Backend) -> Iterator[str]:
    """A queue only this test sends to (no worker reads it), dropped afterwards."""
    queue = f"messages-{uuid.uuid4().hex[:8]}"
    app.config["GRADER_QUEUE"] = queue
    yield queue
    backend.drop_queue(queue)


def _only_message(app: Flask, queue: str) -> Any:
    """The one message waiting in ``queue``, taken off it."""
    with app.extensions["celery"].connection_for_read() as connection:
        waiting = connection.SimpleQueue(queue, no_ack=True)
        try:
            return waiting.get(timeout=10)
        finally:
            waiting.close()


@pytest.mark.parametrize(("model", "row_id"), [(Submission, 4242), (RegradeJob, 7)])
def test_a_send_puts_the_row_id_and_the_reprs_celery_writes_on_the_queue(
    app: Flask, own_queue: str, model: type, row_id: int
) -> None:
    with app.app_context():
        assert dispatch.send(model, row_id)
        message = _only_message(app, own_queue)
    args, kwargs, _embedded = message.decode()
    assert (message.headers["task"], args, kwargs) == (dispatch.TASK_FOR_MODEL[model], [row_id], {})
    # Monitors (flower, `celery inspect`) show these; they are what Celery computes when it is not given them.
    assert message.headers["argsrepr"] == saferepr([row_id])
    assert message.headers["kwargsrepr"] == saferepr({})


@pytest.mark.parametrize(
    ("broker_url", "declares"),
    [
        ("amqp://guest@127.0.0.1:5672//", True),
        ("pyamqp://guest@127.0.0.1:5672//", True),
        ("redis://127.0.0.1:6379/0", False),
        ("filesystem://", False),
    ],
)
def test_only_rabbitmq_declares_the_queue_on_each_send(broker_url: str, declares: bool) -> None:
    # On RabbitMQ a message routed to a queue that is gone is dropped, so the send declares it (see the quorum
    # queue drill); Redis and the file broker put the message in the queue's list or folder whatever is declared.
    assert ("declare" not in dispatch.publish_options(broker_url)) is declares


def test_each_send_gets_a_list_of_its_own_to_declare() -> None:
    # kombu's publish may append the producer's exchange to ``declare``: a list shared by every send would grow.
    redis_url = "redis://127.0.0.1:6379/0"
    first, second = dispatch.publish_options(redis_url), dispatch.publish_options(redis_url)
    assert first["declare"] == second["declare"] == [] and first["declare"] is not second["declare"]
