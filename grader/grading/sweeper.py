"""The sweeper: re-send rows whose message was lost and rows whose worker died; give up on exhausted ones."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from flask import Flask
from sqlalchemy import ColumnElement, and_, case, or_, select, update
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session

from grader.extensions import get_db
from grader.grading import dispatch, leases
from grader.grading.leases import JobModel
from grader.models import LabRun, LabStatus, RegradeJob, RegradeStatus, Submission, SubmissionStatus, utcnow

ERROR_STATUS: dict[type, str] = {
    Submission: SubmissionStatus.ERROR,
    LabRun: LabStatus.ERROR,
    RegradeJob: RegradeStatus.ERROR,
}
BATCH_SIZE = 200
# A queued row (or one whose lease expired) is re-sent after GRADER_REQUEUE_AFTER, then after twice that, four
# times, ... up to 2**5 times (20 s → ~11 min by default): while no worker consumes, the queue gains a few copies
# per row, not hundreds.
MAX_BACKOFF_DOUBLINGS = 5

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SweepReport:
    """What one sweep did, per model name: ids re-sent and ids given up as error."""

    resent: dict[str, list[int]] = field(default_factory=dict)
    given_up: dict[str, list[int]] = field(default_factory=dict)


def stale(model: JobModel, now: datetime, requeue_after: float) -> ColumnElement[bool]:
    """SQL condition for rows that need their task sent again.

    Queued rows whose last message is older than ``requeue_after`` doubled for each re-send since the last
    claim (a lost message; backing off while nothing consumes), and working rows whose lease expired and that
    have not been re-sent since (killed worker) or, with the same back-off, were re-sent long ago: while no
    worker runs, a row its dead worker left must not gain a copy every ``requeue_after`` either.
    """
    backed_off = case(
        *((model.resends == doublings, now - timedelta(seconds=requeue_after * 2**doublings))
          for doublings in range(MAX_BACKOFF_DOUBLINGS)),
        else_=now - timedelta(seconds=requeue_after * 2**MAX_BACKOFF_DOUBLINGS),
    )
    not_recent = or_(model.dispatched_at.is_(None), model.dispatched_at < backed_off)
    return and_(
        model.attempts < model.max_attempts,
        or_(
            and_(model.status == model.QUEUED, not_recent),
            # The claim reset ``resends``: the first re-send after the lease expired goes at once, later ones back off.
            and_(
                model.status == model.WORKING,
                model.lease_until < now,
                or_(not_recent, model.dispatched_at < model.lease_until),
            ),
        ),
    )


def take_stale(session: Session, model: JobModel, requeue_after: float) -> list[int]:
    """Mark stale rows as dispatched now and return their ids; commits.

    Each row is taken by a compare-and-set on ``dispatched_at``, so two sweepers never both re-send it;
    on PostgreSQL the candidate rows are also locked with SKIP LOCKED so sweepers do not queue on each other.
    """
    now = utcnow()
    query = (
        select(model.id, model.dispatched_at)
        .where(stale(model, now, requeue_after))
        .order_by(model.id)
        .limit(BATCH_SIZE)
    )
    query = query.with_for_update(skip_locked=True)  # PostgreSQL: sweepers skip each other's rows; SQLite drops it
    taken = []
    for row_id, dispatched_at in session.execute(query).all():
        result = session.execute(
            update(model)
            .where(
                model.id == row_id,
                model.dispatched_at.is_not_distinct_from(dispatched_at),
                stale(model, now, requeue_after),
            )
            .values(dispatched_at=now, resends=model.resends + 1)
            .execution_options(synchronize_session=False)
        )
        if result.rowcount == 1:
            taken.append(row_id)
    session.commit()
    return taken


def sweep(app: Flask) -> SweepReport:
    """One pass over submissions, lab runs and regrade jobs; needs no app context of its own."""
    report = SweepReport()
    with app.app_context():
        database = get_db(app)
        requeue_after = app.config["GRADER_REQUEUE_AFTER"]
        for model, error_status in ERROR_STATUS.items():
            with database.session() as session:
                given_up = leases.give_up_exhausted(session, model, error_status)
                resend = take_stale(session, model, requeue_after)
            unsent = [row_id for row_id in resend if not dispatch.send(model, row_id)]
            if unsent:
                with database.session() as session:
                    _not_resent(session, model, unsent)
            report.given_up[model.__name__] = given_up
            report.resent[model.__name__] = [row_id for row_id in resend if row_id not in unsent]
    return report


def _not_resent(session: Session, model: JobModel, row_ids: list[int]) -> None:
    """Take back the re-send count of rows whose message never reached the broker; commits.

    The back-off is for copies piling up in a queue nobody consumes; a send the broker refused left no copy, so
    counting it would leave the row waiting up to ~11 min after a long broker outage ends. ``dispatched_at``
    stays: the next try comes one interval later, as before the outage.
    """
    session.execute(
        update(model)
        .where(model.id.in_(row_ids), model.resends > 0)
        .values(resends=model.resends - 1)
        .execution_options(synchronize_session=False)
    )
    session.commit()


def run_forever(app: Flask, stop: threading.Event | None = None) -> None:
    """Sweep every GRADER_SWEEP_INTERVAL seconds until ``stop`` is set."""
    stop = stop or threading.Event()
    interval = app.config["GRADER_SWEEP_INTERVAL"]
    while not stop.is_set():
        try:
            report = sweep(app)
        except OperationalError as exc:
            # The database is briefly unreachable (restart, failover): try again next round.
            log.warning("sweep skipped, database unavailable: %s", exc)
            stop.wait(interval)
            continue
        if any(report.resent.values()) or any(report.given_up.values()):
            log.info("sweep: re-sent %s, gave up %s", report.resent, report.given_up)
        stop.wait(interval)
