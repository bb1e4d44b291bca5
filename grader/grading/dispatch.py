"""Sending task messages: only ever a row id, and only after the row is committed."""

from __future__ import annotations

import logging
from typing import Any

from celery import Celery
from flask import current_app
from kombu.exceptions import OperationalError as BrokerUnavailable
from redis import RedisError

from grader.config import AMQP_SCHEMES
from grader.grading import redis_sends
from grader.models import LabRun, LtiContext, LtiScoreOutbox, RegradeJob, Submission

GRADE_TASK = "grader.grade_submission"
LAB_TASK = "grader.run_lab"
REGRADE_TASK = "grader.regrade_assignment"
LTI_SCORE_TASK = "grader.lti_send_score"
LTI_ROSTER_TASK = "grader.lti_sync_roster"
TASK_FOR_MODEL: dict[type, str] = {
    Submission: GRADE_TASK,
    LabRun: LAB_TASK,
    RegradeJob: REGRADE_TASK,
    LtiScoreOutbox: LTI_SCORE_TASK,
    LtiContext: LTI_ROSTER_TASK,  # an LMS course's roster sync
}

log = logging.getLogger(__name__)


def celery_app() -> Celery:
    """The Celery app bound to the current Flask app."""
    return current_app.extensions["celery"]


def send(model: type, row_id: int) -> bool:
    """Send the task for one committed row; False if the broker is unreachable (the sweeper re-sends later)."""
    broker_url, queue = current_app.config["CELERY_BROKER_URL"], current_app.config["GRADER_QUEUE"]
    task = TASK_FOR_MODEL[model]
    if redis_sends.handles(broker_url):
        try:
            redis_sends.send(broker_url, task, row_id, queue)
        except RedisError as exc:
            return _unsent(model, row_id, exc)
        return True
    try:
        celery_app().send_task(
            task,
            args=[row_id],
            # What Celery would write for monitors (its saferepr of the arguments), without its general repr.
            argsrepr=f"[{row_id}]",
            kwargsrepr="{}",
            queue=queue,
            **publish_options(broker_url),
        )
    except BrokerUnavailable as exc:
        return _unsent(model, row_id, exc)
    return True


def _unsent(model: type, row_id: int, exc: Exception) -> bool:
    """Log a send the broker refused; False."""
    # The row is already committed as queued, so nothing is lost: the sweeper sends it once the broker is back.
    log.warning("broker unavailable, %s %s left for the sweeper: %s", model.__name__, row_id, exc)
    return False


def publish_options(broker_url: str) -> dict[str, Any]:
    """Options every task message sent through kombu is sent with, by broker (a new list each time: kombu may
    append to it). A Redis broker's messages are sent by ``redis_sends`` instead."""
    if broker_url.startswith(AMQP_SCHEMES):
        # Declared on every send (kombu remembers it per connection): a queue a wiped broker lost is made again
        # before the message is routed to it, instead of the message being dropped.
        return {}
    # Redis and the file broker: a message for the default exchange goes straight into the queue's list or
    # folder, so declaring the queue (a binding for exchanges nothing routes through) changes nothing here, and
    # copying the queue to declare it was a seventh of a send's CPU.
    return {"declare": []}


def waiting_messages(queue: str) -> int | None:
    """How many messages wait in ``queue`` on the broker, not yet taken by a worker; 0 if the queue does not exist
    (a broker wiped or restarted without it), None if the broker cannot be asked now."""
    with celery_app().connection_for_write() as connection:
        try:
            return int(connection.default_channel.queue_declare(queue=queue, passive=True).message_count)
        except connection.channel_errors:  # the queue does not exist (RabbitMQ: 404; Redis: no list)
            return 0
        except (BrokerUnavailable, OSError, *connection.connection_errors) as exc:
            log.warning("broker unavailable, cannot count the messages of %s: %s", queue, exc)
            return None
