"""The parked waits of one gunicorn worker process (``grader.api.parking``), watched from one thread.

A parked wait is ready when its submission is final or its time is up. With Redis, the worker's notice says so
(``notify.FinalListener``, the same subscription threaded waits use), and the database is read once a second
for all of them together in case a notice was lost. Without Redis (the embedded default: SQLite and the file
broker) the database is read every POLL_SECONDS, one query for every parked submission. Either way a thousand
parked requests cost one thread and at most a query per interval, not a thread and a query each.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Hashable, Iterable
from typing import Generic, TypeVar

from flask import Flask
from sqlalchemy import select
from sqlalchemy.exc import SQLAlchemyError

from grader.api.parking import ParkedWait
from grader.extensions import get_db
from grader.grading import notify
from grader.models import FINAL_STATUSES, Submission

POLL_SECONDS = 0.05  # without notices, as often as a threaded wait polls at its slowest
IDS_PER_QUERY = 500  # below SQLite's limit on bound parameters

log = logging.getLogger(__name__)

Ticket = TypeVar("Ticket", bound=Hashable)


class ParkingLot(Generic[Ticket]):
    """Parked waits by ticket (the worker's connection); ``on_ready(ticket, changed)`` is called, from the lot's
    thread, once for each wait that became ready and was not cancelled first: ``changed`` is False if its time ran
    out while its submission kept the status it was parked with (as last read, at most an interval ago)."""

    def __init__(self, app: Flask, on_ready: Callable[[Ticket, bool], None], capacity: int) -> None:
        self.capacity = capacity
        self._app = app
        self._on_ready = on_ready
        url = notify.redis_url(app.config)
        self._listener = None if url is None else notify.listener(url, notify.channel_prefix(app.config))
        self._parked: dict[Ticket, ParkedWait] = {}
        self._seen: dict[Ticket, str] = {}  # the status last read, where it differs from the one parked with
        self._arrived: list[Ticket] = []
        self._announced: set[int] = set()
        self._check_all = False
        self._changed = threading.Condition()
        self._running_in: int | None = None

    def has_room(self) -> bool:
        """True while fewer than ``capacity`` waits are parked."""
        with self._changed:
            return len(self._parked) < self.capacity

    def __len__(self) -> int:
        with self._changed:
            return len(self._parked)

    def park(self, ticket: Ticket, wait: ParkedWait) -> None:
        """Watch ``wait`` until it is ready (then ``on_ready(ticket)``) or cancelled."""
        self._start()
        with self._changed:
            self._parked[ticket] = wait
            self._arrived.append(ticket)
            self._changed.notify()

    def cancel(self, ticket: Ticket) -> ParkedWait | None:
        """Stop watching ``ticket`` (its client left); its wait, if it was still parked."""
        with self._changed:
            self._seen.pop(ticket, None)
            return self._parked.pop(ticket, None)

    def release_all(self) -> list[Ticket]:
        """Stop watching everything (the worker is stopping and answers them now); the tickets that were parked."""
        with self._changed:
            tickets = list(self._parked)
            self._parked.clear()
            self._seen.clear()
            return tickets

    def _start(self) -> None:
        """Start the watching thread in this process (the lot is made in the worker, after gunicorn's fork)."""
        with self._changed:
            if self._running_in == os.getpid():
                return
            self._running_in = os.getpid()
        if self._listener is not None:
            self._listener.observe(self._heard)
        threading.Thread(target=self._watch_forever, name="grader-parking-lot", daemon=True).start()

    def _heard(self, submission_id: int | None) -> None:
        """A notice (from the listener's thread): that id is final, or (None) notices may have been lost."""
        with self._changed:
            if submission_id is None:
                self._check_all = True
            elif any(wait.submission_id == submission_id for wait in self._parked.values()):
                self._announced.add(submission_id)
            else:
                return
            self._changed.notify()

    def _interval(self) -> float:
        """How often every parked submission is read: rarely while notices arrive, often without them."""
        listening = self._listener is not None and self._listener.connected.is_set()
        return notify.SAFETY_RECHECK_SECONDS if listening else POLL_SECONDS

    def _watch_forever(self) -> None:
        """Hand ready waits to ``on_ready``: announced, read final, or out of time."""
        next_read = time.monotonic()
        while True:
            with self._changed:
                self._sleep_until_due(next_read)
                now = time.monotonic()
                ready, to_read = self._sort_out(now)
                if self._check_all or now >= next_read:
                    to_read = [ticket for ticket in self._parked if ticket not in ready]
                    next_read, self._check_all = now + self._interval(), False
                for ticket in ready:
                    del self._parked[ticket]
                    self._seen.pop(ticket, None)
            self._answer(ready.items())
            if to_read:
                self._answer((ticket, True) for ticket in self._final_among(to_read))

    def _sleep_until_due(self, next_read: float) -> None:
        """Wait (holding the condition) for news, the next deadline, or the next read of everything."""
        if self._arrived or self._announced or self._check_all:
            return
        if not self._parked:
            self._changed.wait()
            return
        due = min(next_read, min(wait.deadline for wait in self._parked.values()))
        self._changed.wait(max(0.0, due - time.monotonic()))

    def _sort_out(self, now: float) -> tuple[dict[Ticket, bool], list[Ticket]]:
        """(ready now, with whether its submission changed; to read from the database) among the parked waits;
        called holding the condition."""
        announced, self._announced = self._announced, set()
        arrived, self._arrived = self._arrived, []
        ready: dict[Ticket, bool] = {}
        for ticket, wait in self._parked.items():
            if wait.submission_id in announced:
                ready[ticket] = True
            elif wait.deadline <= now:
                ready[ticket] = ticket in self._seen
        to_read = []
        for ticket in arrived:
            arrival = self._parked.get(ticket)
            if arrival is None or ticket in ready:
                continue
            if self._listener is not None and self._listener.heard_everything_since(arrival.notice_mark):
                # Every notice since the row was read reached us: one that came before it was parked is kept.
                if self._listener.announced_lately(arrival.submission_id):
                    ready[ticket] = True
            else:
                to_read.append(ticket)  # a grade committed after its read may have been missed: look
        return ready, to_read

    def _final_among(self, tickets: Iterable[Ticket]) -> list[Ticket]:
        """The tickets, still parked, whose submissions the database shows final, taken out of the lot; notes
        the others' statuses where they changed."""
        with self._changed:
            waiting = {ticket: self._parked[ticket].submission_id for ticket in tickets if ticket in self._parked}
        ids = sorted(set(waiting.values()))
        statuses: dict[int, str] = {}
        try:
            with self._app.app_context(), get_db(self._app).session() as session:
                for start in range(0, len(ids), IDS_PER_QUERY):
                    query = select(Submission.id, Submission.status).where(
                        Submission.id.in_(ids[start : start + IDS_PER_QUERY])
                    )
                    statuses.update((row_id, str(status)) for row_id, status in session.execute(query))
        except SQLAlchemyError as exc:
            # The database is away: the waits run out at their deadlines, and their re-runs answer what they can.
            log.warning("could not read parked submissions (retrying): %s", exc)
            return []
        final = {str(status) for status in FINAL_STATUSES}
        done = []
        with self._changed:
            for ticket, submission_id in waiting.items():
                wait, status = self._parked.get(ticket), statuses.get(submission_id)
                if wait is None or status is None:
                    continue
                if status in final:
                    done.append(ticket)
                    del self._parked[ticket]
                    self._seen.pop(ticket, None)
                elif status != wait.status:
                    self._seen[ticket] = status
        return done

    def _answer(self, ready: Iterable[tuple[Ticket, bool]]) -> None:
        """Hand each ready ticket to ``on_ready``."""
        for ticket, changed in ready:
            self._on_ready(ticket, changed)
