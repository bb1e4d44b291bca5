"""Sending task messages: only ever a row id, and only after the row is committed."""

from __future__ import annotations

import logging

from celery import Celery
from flask import current_app
from kombu.exceptions import OperationalError as BrokerUnavailable

from grader.models import LabRun, LtiContext, LtiScoreOutbox, RegradeJob, Submission

GRADE_TASK = "grader.grade_submission"
LAB_TASK = "grader.run_lab"
REGRADE_TASK = "grader.regrade_assignment"
LTI_SCORE_TASK = "grader.lti_send_score"
LTI_ROSTER_TASK = "grader.lti_sync_roster"
PUBLISH_OPTIONS = "grader.publish_options"  # app.extensions key: grader.celery_app.publish_options of its broker
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
    try:
        celery_app().send_task(
            TASK_FOR_MODEL[model],
            args=[row_id],
            # What Celery would write for monitors (its saferepr of the arguments), without its general repr.
            argsrepr=f"[{row_id}]",
            kwargsrepr="{}",
            queue=current_app.config["GRADER_QUEUE"],
            **current_app.extensions[PUBLISH_OPTIONS],
        )
    except BrokerUnavailable as exc:
        # The row is already committed as queued, so nothing is lost: the sweeper sends it once the broker is back.
        log.warning("broker unavailable, %s %s left for the sweeper: %s", model.__name__, row_id, exc)
        return False
    return True


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
