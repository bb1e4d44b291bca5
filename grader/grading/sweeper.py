"""The sweeper: re-send rows whose message was lost and rows whose worker died; give up on exhausted ones.

While a worker is alive (grader.grading.liveness), only what is really lost is re-sent, at once: a row claimed
since its last message (its worker died, or the attempt failed), and, of the rows whose message should wait in
the broker, as many as the broker's queue is short of (oldest first). Rows merely waiting in a backlog are left
alone. While no worker is alive, or the broker cannot say how many messages it holds, the sweeper falls back to
re-sending by age with an exponential back-off, so a queue nobody reads does not fill with copies.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from flask import Flask
from sqlalchemy import ColumnElement, and_, case, func, not_, or_, select, update
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session

from grader.extensions import get_db, rows_matched
from grader.grading import dispatch, leases, liveness
from grader.grading.leases import JobModel
from grader.lti import outbox, roster_schedule
from grader.models import (
    LabRun,
    LabStatus,
    LtiContext,
    LtiScoreOutbox,
    RegradeJob,
    RegradeStatus,
    Submission,
    SubmissionStatus,
    utcnow,
)

ERROR_STATUS: dict[JobModel, str] = {
    Submission: SubmissionStatus.ERROR,
    LabRun: LabStatus.ERROR,
    RegradeJob: RegradeStatus.ERROR,
}
BATCH_SIZE = 200
# A queued row (or one whose lease expired) is re-sent after GRADER_REQUEUE_AFTER, then after twice that, four
# times, ... up to 2**5 times (20 s → ~11 min by default): while no worker consumes, the queue gains a few copies
# per row, not hundreds.
MAX_BACKOFF_DOUBLINGS = 5
# A message a worker has taken from the broker but whose row it has not claimed yet is counted neither in the queue
# nor as claimed; it is claimed within milliseconds, so rows are counted again this long after the queue was.
IN_TRANSIT_SECONDS = 0.25
# With a worker alive, a row counted as lost is re-sent once its last send is this old (or GRADER_REQUEUE_AFTER, if
# shorter): time for a send already under way (a slow broker) to land in the queue, not a wait for a backlog.
SEND_GRACE_SECONDS = 3

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
        *(
            (model.resends == doublings, now - timedelta(seconds=requeue_after * 2**doublings))
            for doublings in range(MAX_BACKOFF_DOUBLINGS)
        ),
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
    condition = stale(model, now, requeue_after)
    taken = _take(session, model, _candidates(session, model, condition, model.id, BATCH_SIZE), condition, now)
    session.commit()
    return taken


def waiting(model: JobModel, now: datetime) -> ColumnElement[bool]:
    """SQL condition: the row waits for a worker to claim it (queued, or its lease ran out) and has attempts left."""
    return and_(model.attempts < model.max_attempts, leases.claimable(model, now))


def unsent_since_claim(model: JobModel) -> ColumnElement[bool]:
    """SQL condition: no message was sent for the row since it was last claimed (or ever), so none can be waiting
    in the broker: its worker died, or the attempt failed and handed it back."""
    # Never NULL (a row never claimed has no started_at), so that its negation means what it says.
    return or_(
        model.dispatched_at.is_(None), and_(model.started_at.is_not(None), model.dispatched_at < model.started_at)
    )


def take_lost(
    session: Session, queued_messages: int, asked_at: float, requeue_after: float
) -> dict[JobModel, list[int]]:
    """With a worker alive: mark the rows whose message is lost as dispatched now and return their ids; commits.

    ``queued_messages`` is what the broker said its queue holds, asked at ``time.monotonic()`` ``asked_at``
    (before the rows are counted, so a message taken meanwhile makes the count smaller, never larger). Rows whose
    message should be in the queue beyond that number are lost, oldest first, if sent over ``requeue_after`` (at
    most SEND_GRACE_SECONDS) ago.
    """
    sent_before = timedelta(seconds=min(requeue_after, SEND_GRACE_SECONDS))
    excess = _rows_expecting_a_message(session) - queued_messages
    if excess > 0:
        session.commit()  # hold no transaction open while waiting
        time.sleep(max(0.0, asked_at + IN_TRANSIT_SECONDS - time.monotonic()))
        excess = _rows_expecting_a_message(session) - queued_messages
    now = utcnow()
    taken: dict[JobModel, list[int]] = {model: [] for model in ERROR_STATUS}
    if excess > 0:
        condition = {
            model: and_(waiting(model, now), not_(unsent_since_claim(model)), model.dispatched_at < now - sent_before)
            for model in ERROR_STATUS
        }
        limit = min(excess, BATCH_SIZE)
        oldest = sorted(
            (dispatched_at, index, model, row_id)
            for index, model in enumerate(ERROR_STATUS)
            for row_id, dispatched_at in _candidates(session, model, condition[model], model.dispatched_at, limit)
        )[:limit]
        for model in ERROR_STATUS:
            rows = [(row_id, dispatched_at) for dispatched_at, _, chosen, row_id in oldest if chosen is model]
            taken[model] += _take(session, model, rows, condition[model], now)
    for model in ERROR_STATUS:
        condition_unsent = and_(waiting(model, now), unsent_since_claim(model))
        taken[model] += _take(
            session, model, _candidates(session, model, condition_unsent, model.id, BATCH_SIZE), condition_unsent, now
        )
    session.commit()
    return taken


def _rows_expecting_a_message(session: Session) -> int:
    """How many waiting rows of every kind should have a message in the queue (sent since their last claim)."""
    now = utcnow()
    return sum(
        session.scalar(
            select(func.count()).select_from(model).where(waiting(model, now), not_(unsent_since_claim(model)))
        )
        or 0
        for model in ERROR_STATUS
    )


def _candidates(
    session: Session, model: JobModel, condition: ColumnElement[bool], order: ColumnElement[object], limit: int
) -> list[tuple[int, datetime | None]]:
    """Up to ``limit`` (id, dispatched_at) of rows matching ``condition`` in ``order``; on PostgreSQL locked with
    SKIP LOCKED, so that sweepers do not queue on each other."""
    query = select(model.id, model.dispatched_at).where(condition).order_by(order).limit(limit)
    query = query.with_for_update(skip_locked=True)  # PostgreSQL: sweepers skip each other's rows; SQLite drops it
    return [(row_id, dispatched_at) for row_id, dispatched_at in session.execute(query).all()]


def _take(
    session: Session,
    model: JobModel,
    rows: list[tuple[int, datetime | None]],
    condition: ColumnElement[bool],
    now: datetime,
) -> list[int]:
    """Mark each of ``rows`` dispatched now by a compare-and-set on ``dispatched_at`` (two sweepers never both take
    one) while it still meets ``condition``; the ids taken. The caller commits."""
    taken = []
    for row_id, dispatched_at in rows:
        result = session.execute(
            update(model)
            .where(model.id == row_id, model.dispatched_at.is_not_distinct_from(dispatched_at), condition)
            .values(dispatched_at=now, resends=model.resends + 1)
            .execution_options(synchronize_session=False)
        )
        if rows_matched(result) == 1:
            taken.append(row_id)
    return taken


def sweep(app: Flask) -> SweepReport:
    """One pass over submissions, lab runs and regrade jobs; needs no app context of its own."""
    report = SweepReport()
    with app.app_context():
        database = get_db(app)
        requeue_after, queue = app.config["GRADER_REQUEUE_AFTER"], app.config["GRADER_QUEUE"]
        with database.session() as session:
            given_up = {
                model: leases.give_up_exhausted(session, model, status) for model, status in ERROR_STATUS.items()
            }
            # Asked before the rows are counted (see take_lost); only worth asking while someone can claim.
            asked_at = time.monotonic()
            alive = liveness.live_capacity(session, queue, app.config["GRADER_WORKER_BEAT_SECONDS"])
            queued_messages = dispatch.waiting_messages(queue) if alive else None
            if queued_messages is None:
                to_send = {model: take_stale(session, model, requeue_after) for model in ERROR_STATUS}
            else:
                to_send = take_lost(session, queued_messages, asked_at, requeue_after)
        for model, resend in to_send.items():
            unsent = [row_id for row_id in resend if not dispatch.send(model, row_id)]
            if unsent:
                with database.session() as session:
                    _not_resent(session, model, unsent)
            report.given_up[model.__name__] = given_up[model]
            report.resent[model.__name__] = [row_id for row_id in resend if row_id not in unsent]
        # LMS score outbox rows that are due (new, or their retry time has come); one not sent goes next round.
        with database.session() as session:
            due = outbox.due_for_dispatch(session, utcnow(), app.config["GRADER_LTI_DISPATCH_AGAIN_SECONDS"])
        report.resent[LtiScoreOutbox.__name__] = [row_id for row_id in due if dispatch.send(LtiScoreOutbox, row_id)]
        # LMS courses whose roster is due again (the nightly sync); one whose task is lost is asked for again later.
        with database.session() as session:
            rosters = roster_schedule.due_roster_syncs(session, utcnow(), app.config["GRADER_LTI_ROSTER_SYNC_HOURS"])
        report.resent[LtiContext.__name__] = [row_id for row_id in rosters if dispatch.send(LtiContext, row_id)]
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
