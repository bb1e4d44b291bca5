"""Which workers are alive: each writes a beat row every GRADER_WORKER_BEAT_SECONDS (2 s); the sweeper reads who can
claim a queue."""

from __future__ import annotations

import logging
import threading
from datetime import timedelta
from typing import Any, cast

from sqlalchemy import CursorResult, delete, select, update
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from grader.extensions import Database
from grader.models import WorkerBeat, utcnow

# A worker that missed this many beats in a row is taken for dead (killed, frozen, cut off from the database).
MISSED_BEATS = 3
# Rows of workers gone this long are deleted, so restarts under new names do not grow the table without end.
FORGET_AFTER = timedelta(days=1)

log = logging.getLogger(__name__)


def beat(session: Session, name: str, queues: list[str], concurrency: int) -> None:
    """Record that worker ``name`` is alive now and reads ``queues``; commits."""
    values = {"queues": ",".join(queues), "concurrency": concurrency, "seen_at": utcnow()}
    updated = cast(
        "CursorResult[Any]", session.execute(update(WorkerBeat).where(WorkerBeat.name == name).values(**values))
    )
    if updated.rowcount == 0:
        session.add(WorkerBeat(name=name, **values))
    session.commit()


def forget(session: Session, name: str) -> None:
    """Remove worker ``name`` (it is shutting down cleanly); commits."""
    session.execute(delete(WorkerBeat).where(WorkerBeat.name == name))
    session.commit()


def live_capacity(session: Session, queue: str, beat_seconds: float) -> int:
    """How many jobs of ``queue`` the workers alive now can hold at once (0: no worker is alive to claim), for
    workers beating every ``beat_seconds``."""
    now = utcnow()
    session.execute(delete(WorkerBeat).where(WorkerBeat.seen_at < now - FORGET_AFTER))
    recent = now - timedelta(seconds=beat_seconds * MISSED_BEATS)
    rows = session.execute(select(WorkerBeat.queues, WorkerBeat.concurrency).where(WorkerBeat.seen_at >= recent))
    capacity = sum(concurrency for queues, concurrency in rows if queue in queues.split(","))
    session.commit()
    return capacity


class Beating:
    """A worker's beat thread: writes its row every ``beat_seconds`` until stopped, then removes it."""

    def __init__(self, database: Database, name: str, queues: list[str], concurrency: int, beat_seconds: float) -> None:
        self._database, self._every = database, beat_seconds
        self._who = (name, queues, concurrency)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="worker-beat", daemon=True)

    def start(self) -> None:
        """Write the first beat now (the sweeper may re-send at once), then keep beating in the background."""
        self._beat_once()
        self._thread.start()

    def stop(self) -> None:
        """Stop beating and remove the row, so the sweeper stops counting on this worker at once."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()
        try:
            with self._database.session() as session:
                forget(session, self._who[0])
        except DBAPIError as exc:  # OperationalError, InterfaceError: a connection the restart broke
            log.warning("could not remove worker beat %s (it expires by itself): %s", self._who[0], exc)

    def _run(self) -> None:
        """Beat until stopped."""
        while not self._stop.wait(self._every):
            self._beat_once()

    def _beat_once(self) -> None:
        """One beat; a database that is briefly down costs a beat, not the worker."""
        name, queues, concurrency = self._who
        try:
            with self._database.session() as session:
                beat(session, name, queues, concurrency)
        except DBAPIError as exc:  # OperationalError, InterfaceError: a connection the restart broke
            log.warning("worker beat %s not written: %s", name, exc)
