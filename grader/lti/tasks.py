"""The Celery tasks of LTI (thin: each takes an id): send one score outbox row, sync one LMS course's roster."""

from __future__ import annotations

from celery import shared_task
from flask import current_app

from grader.extensions import get_db
from grader.grading.dispatch import LTI_ROSTER_TASK, LTI_SCORE_TASK
from grader.lti import nrps, outbox
from grader.models import utcnow


@shared_task(name=LTI_SCORE_TASK, acks_late=True, reject_on_worker_lost=True)  # type: ignore[untyped-decorator]
def send_score(outbox_id: int) -> str:
    """Send score outbox row ``outbox_id`` (another delivery of the same id changes nothing)."""
    scale = float(current_app.config["GRADER_LTI_BACKOFF_SCALE"])
    with get_db().session() as session:
        return outbox.send(session, outbox_id, utcnow(), scale).value


@shared_task(name=LTI_ROSTER_TASK, acks_late=True, reject_on_worker_lost=True)  # type: ignore[untyped-decorator]
def sync_roster(context_id: int) -> str:
    """Read the roster of LMS course ``context_id`` (the nightly sync); a failure is recorded for the teacher."""
    with get_db().session() as session:
        done = nrps.sync_context(session, context_id, utcnow())
        return (
            done if isinstance(done, str) else f"enrolled {done.enrolled}, changed {done.updated}, ended {done.ended}"
        )
