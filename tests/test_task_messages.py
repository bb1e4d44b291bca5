"""The task message a committed row's send puts on the broker: what a worker and a monitor read from it."""

from __future__ import annotations

import base64
import json
import logging
import uuid
from collections.abc import Iterator
from typing import Any, cast

import pytest
import redis
from celery.utils.saferepr import saferepr
from flask import Flask

from grader.grading import dispatch, redis_sends
from grader.models import RegradeJob, Submission
from tests.support import Backend, free_port


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


def _raw_redis_message(broker_url: str, queue: str) -> dict[str, Any]:
    """The one message on Redis list ``queue`` as kombu stored it, taken off the list."""
    raw = redis.Redis.from_url(broker_url).rpop(queue)
    assert raw is not None, f"no message on {queue}"
    return cast(dict[str, Any], json.loads(raw))


def _without_ids(message: dict[str, Any]) -> dict[str, Any]:
    """``message`` with the values that differ on every send (task id, delivery tag) replaced by their shape."""
    headers, properties = dict(message["headers"]), dict(message["properties"])
    task_id = headers["id"]
    assert uuid.UUID(task_id) and headers["root_id"] == properties["correlation_id"] == task_id
    uuid.UUID(properties["delivery_tag"])
    headers.update(id="<id>", root_id="<id>")
    properties.update(correlation_id="<id>", delivery_tag="<tag>")
    # Celery's reply address for results (the RPC backend) and its copy of the reprs in the properties: nothing
    # reads either for a task that stores no result.
    for name in ("reply_to", "argsrepr", "kwargsrepr"):
        properties.pop(name, None)
    return {**message, "headers": headers, "properties": properties}


def test_a_redis_send_is_the_message_celery_sends(app: Flask, own_queue: str, backend: Backend) -> None:
    if not redis_sends.handles(backend.broker_url):
        pytest.skip("a Redis broker only")
    with app.app_context():
        assert dispatch.send(Submission, 4242)
        ours = _raw_redis_message(backend.broker_url, own_queue)
        dispatch.celery_app().send_task(
            dispatch.GRADE_TASK, args=[4242], argsrepr="[4242]", kwargsrepr="{}", queue=own_queue
        )
        celerys = _raw_redis_message(backend.broker_url, own_queue)
    assert _without_ids(ours) == _without_ids(celerys)
    assert base64.b64decode(ours["body"]) == base64.b64decode(celerys["body"])


def test_each_redis_send_has_its_own_task_id_and_delivery_tag() -> None:
    first, second = (json.loads(redis_sends.envelope(dispatch.GRADE_TASK, 7, "q")) for _ in range(2))
    assert first["headers"]["id"] != second["headers"]["id"]
    assert first["properties"]["delivery_tag"] != second["properties"]["delivery_tag"]


@pytest.mark.parametrize(
    ("broker_url", "direct"),
    [
        ("redis://127.0.0.1:6379/0", True),
        ("rediss://127.0.0.1:6380/0", True),
        ("amqp://guest@127.0.0.1:5672//", False),
        ("filesystem://", False),
    ],
)
def test_only_redis_sends_skip_kombu(broker_url: str, direct: bool) -> None:
    assert redis_sends.handles(broker_url) is direct


def test_a_redis_that_refuses_leaves_the_row_for_the_sweeper(
    app: Flask, backend: Backend, caplog: pytest.LogCaptureFixture
) -> None:
    if not redis_sends.handles(backend.broker_url):
        pytest.skip("a Redis broker only")
    app.config["CELERY_BROKER_URL"] = f"redis://127.0.0.1:{free_port()}/0"
    with app.app_context(), caplog.at_level(logging.WARNING, logger=dispatch.__name__):
        assert dispatch.send(Submission, 4242) is False
    assert "Submission 4242 left for the sweeper" in caplog.text
