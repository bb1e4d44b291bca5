"""The Celery task that sends one score outbox row to the LMS (thin: it takes an id)."""

from __future__ import annotations

from celery import shared_task
from flask import current_app

from grader.extensions import get_db
from grader.grading.dispatch import LTI_SCORE_TASK
from grader.lti import outbox
from grader.models import utcnow


@shared_task(name=LTI_SCORE_TASK, acks_late=True, reject_on_worker_lost=True)  # type: ignore[untyped-decorator]
def send_score(outbox_id: int) -> str:
    """Send score outbox row ``outbox_id`` (another delivery of the same id changes nothing)."""
    scale = float(current_app.config["GRADER_LTI_BACKOFF_SCALE"])
    with get_db().session() as session:
        return outbox.send(session, outbox_id, utcnow(), scale).value
