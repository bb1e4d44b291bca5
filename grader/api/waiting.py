"""Waiting for a grade (``GET …?wait=``, ``Prefer: wait``): parked under our gunicorn worker, in the thread elsewhere.

Both ways take one of the user's wait slots (``wait_slots``) or answer at once with the current state.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from flask import current_app
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session

from grader.api import parking, queries, wait_slots
from grader.auth import Principal
from grader.grading import final_row, notify
from grader.models import Submission

# Under our gunicorn worker, a wait first holds its thread this long if one of the threads set aside for it is free
# (``parking.ThreadBudget``), then it is parked.
THREAD_WAIT_SECONDS = 1.0


def notice_mark() -> int | None:
    """Taken before a submission is sent: lets ``wait_for_own`` skip its first read when no notice can be missed."""
    return notify.subscription_mark(current_app.config)


def wait_for_own(
    session: Session, principal: Principal, submission: Submission, seconds: float, mark: int | None
) -> Submission:
    """The caller's own new ``submission``, once final or after ``seconds`` (``Prefer: wait`` on POST); ``mark``
    is ``notify.subscription_mark`` taken before it was sent."""
    try:
        return wait_until_final(
            session,
            lambda: queries.own_submission(session, principal, submission.id),
            submission.id,
            seconds,
            pending=(submission, mark),
            user_id=principal.user_id,
        )
    except OperationalError:
        # The row is committed: a connection lost while waiting must not answer 503, which says nothing was
        # stored (a client without an Idempotency-Key would submit again). Read it once more on a fresh
        # connection; only if the database is down as well does the 503 stand.
        session.rollback()
        return queries.own_submission(session, principal, submission.id)


def wait_until_final(
    session: Session,
    load: Callable[[], Submission],
    submission_id: int,
    seconds: float,
    pending: tuple[Submission, int | None] | None = None,
    user_id: int | None = None,
) -> Submission:
    """Read the submission (via ``load``), waiting until it is final or ``seconds`` pass; at once if ``user_id``
    already holds its share of waits (``wait_slots``).

    ``pending``: the row as the caller just stored it and the subscription mark taken before its task was sent;
    it may stand in for the first read (see ``_wait_in_thread``). Under our gunicorn worker the request waits at
    most THREAD_WAIT_SECONDS in its thread (if the worker's budget allows), then is parked (``parking``) without
    one, and this runs again when the grade lands or the time is up.
    """
    if seconds <= 0:
        return load()
    resumed = parking.resumed()
    if resumed is not None:
        return _resume(load, resumed, pending)
    offer = parking.offered()
    if user_id is None or offer is None:
        if user_id is None:
            return _wait_in_thread(session, load, submission_id, seconds, pending)
        with wait_slots.hold(current_app.config, user_id, seconds) as granted:
            return _wait_in_thread(session, load, submission_id, seconds if granted else 0, pending)
    slot = wait_slots.slots(current_app.config).take(user_id, seconds) if offer else None
    if slot is None:
        return pending[0] if pending is not None else load()
    deadline = time.monotonic() + seconds
    budget = parking.thread_budget()
    if budget is not None and budget.try_take():
        # Most grades land within a second while workers run: waiting for them here answers at once, with the
        # row the notice carried. Only what is still not final after that is parked.
        try:
            submission = _wait_in_thread(session, load, submission_id, min(seconds, THREAD_WAIT_SECONDS), pending)
        finally:
            budget.give_back()
        mark = None  # the lot reads the database once when it is parked: nothing since the last read is missed
    else:
        mark = pending[1] if pending is not None else notify.subscription_mark(current_app.config)
        # The lot looks for the grade from the mark on (the notices since, or the database), so the row as stored
        # stands in for a first read.
        submission = pending[0] if pending is not None else load()
    if submission.is_final or deadline <= time.monotonic():
        slot.give_back()
        return submission
    row = submission if pending is not None else None  # a POST's own new row: every column is loaded
    parking.park(parking.ParkedWait(submission_id, deadline, slot, mark, str(submission.status), row=row))
    return submission


def graded_from_notice(session: Session, wait: parking.ParkedWait) -> Submission | None:
    """The re-run of a parked POST: its row as the first run stored it, with the grade its notice carried set on
    it (``final_row``), as reading it again would give it; None unless a notice with the final row is at hand."""
    row = wait.row
    if row is None:
        return None
    payload = notify.kept_payload(current_app.config, wait.submission_id)
    if payload is None or not final_row.apply(row, payload):
        return None
    session.add(row)  # detached since the first run's session closed; this request's from now on
    return row


def _resume(
    load: Callable[[], Submission], wait: parking.ParkedWait, pending: tuple[Submission, int | None] | None
) -> Submission:
    """The re-run of a parked request: read the row; park again on a wake-up that came too early."""
    # A POST's re-run already holds its row (``services.create_submission``: graded from its notice, or read); a GET
    # reads it here.
    submission = pending[0] if pending is not None and wait.created is not None else load()
    if not submission.is_final and wait.seconds_left() > 0 and parking.offered():
        # Woken by a notice without a grade (or a database read racing the commit): wait out the rest.
        # No mark: the notice that woke it is still among the recent ones, so the lot reads the database instead.
        status = str(submission.status)
        row = submission if wait.row is not None else None
        parking.park(
            parking.ParkedWait(
                wait.submission_id, wait.deadline, wait.slot, None, status, created=wait.created, row=row
            )
        )
    return submission


def _wait_in_thread(
    session: Session,
    load: Callable[[], Submission],
    submission_id: int,
    seconds: float,
    pending: tuple[Submission, int | None] | None,
) -> Submission:
    """Wait in this thread: the worker's notice (Redis) says when to look again, and after a grading carries the
    columns the committed write returned: those are set on the row already held instead of reading it again
    (``final_row``); without them the row is re-read. Subscribing before the first read means a result committed
    after that read cannot slip past unnoticed. If every notice since ``pending``'s mark has reached this process,
    its row stands in for the first read (its notice, if already in, has set the event)."""
    if seconds <= 0:
        return load()
    deadline = time.monotonic() + seconds
    with notify.final_wait(current_app.config, submission_id) as waiter:
        if pending is not None and not pending[0].is_final and waiter.heard_everything_since(pending[1]):
            submission = pending[0]
        else:
            submission = load()
        while not submission.is_final:
            seconds_left = deadline - time.monotonic()
            if seconds_left <= 0:
                break
            # End the (read-only) transaction before waiting: the connection goes back to the pool instead of
            # being held for up to 10 s by every waiting request, and the next read sees new commits (SQLite
            # would otherwise keep reading its snapshot). Nothing is written here, and objects stay loaded.
            session.commit()
            waiter.pause(seconds_left)
            payload = waiter.final_payload()
            if payload is None or not final_row.apply(submission, payload):
                submission = load()
    return submission
