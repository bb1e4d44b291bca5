"""Lease heartbeats: a short lease renewed while the job runs, so a dead worker's row is free again in seconds.

A worker takes a row for ``GRADER_LEASE_SECONDS`` and pushes the deadline forward every
``GRADER_LEASE_RENEW_SECONDS`` while the engine runs. A killed worker stops renewing, so its lease runs out one
short lease later instead of after the longest a grade may take. The heartbeat stops before the job writes its
result: a write held up (a lock, a slow database) then loses the lease as before, and a late commit is refused.

One renewer thread per process serves every running job. Nearly every grade ends long before its first renewal
is due, and starting and joining a thread of its own for each job was a tenth of a worker's time.
"""

from __future__ import annotations

import logging
import math
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from sqlalchemy.exc import DBAPIError

from grader.extensions import Database
from grader.grading import leases
from grader.grading.leases import JobModel

log = logging.getLogger(__name__)

# How long the idle renewer sleeps before looking again: a job that starts meanwhile is due later than this
# (a renewal interval is seconds), so it is found without waking the thread, and short jobs cost it nothing.
IDLE_SECONDS = 1.0


@dataclass(eq=False)
class _Beat:
    """One job's lease and when it is next renewed; ``lock`` is held while it is renewed."""

    database: Database
    model: JobModel
    lease: leases.Lease
    lease_seconds: float
    every: float
    due: float
    lost: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)
    stopped: bool = False


class _Renewer:
    """The process's renewer: a daemon thread renewing each registered lease when it falls due."""

    def __init__(self) -> None:
        self._wakeup = threading.Condition()
        self._beats: set[_Beat] = set()
        self._wake_at = -math.inf  # when the thread will look again; -inf while it is renewing (it looks after)
        self._thread: threading.Thread | None = None

    def add(self, beat: _Beat) -> None:
        """Renew ``beat`` from its due time on, starting the thread on first use."""
        with self._wakeup:
            self._beats.add(beat)
            if self._thread is None or not self._thread.is_alive():
                # A renewal that raised something unforeseen ended the thread: the next job starts another.
                self._thread = threading.Thread(target=self._run, name="lease-renewer", daemon=True)
                self._thread.start()
            elif beat.due < self._wake_at:
                self._wakeup.notify()

    def remove(self, beat: _Beat) -> None:
        """Stop renewing ``beat``; once this returns, no renewal of it is running or will start."""
        with beat.lock:
            beat.stopped = True
        with self._wakeup:
            self._beats.discard(beat)

    def _run(self) -> None:
        while True:
            with self._wakeup:
                now = time.monotonic()
                due = [beat for beat in self._beats if beat.due <= now]
                if not due:
                    # Capped: a lost lease is never due again, and an idle thread still looks once in a while.
                    self._wake_at = min([beat.due for beat in self._beats], default=math.inf)
                    self._wake_at = min(self._wake_at, now + IDLE_SECONDS)
                    self._wakeup.wait(self._wake_at - now)
                    continue
                self._wake_at = -math.inf
            for beat in due:
                _renew(beat)


def _renew(beat: _Beat) -> None:
    """Extend ``beat``'s lease once, unless its job has ended; a lease found lost is signalled and not renewed."""
    with beat.lock:
        if beat.stopped:
            return
        try:
            with beat.database.session() as session:
                held = leases.extend(session, beat.model, beat.lease, beat.lease_seconds)
        except DBAPIError as exc:  # OperationalError, InterfaceError: a connection the restart broke
            # The database is briefly unreachable: the lease may run out meanwhile; the job's write will tell.
            log.warning("could not renew the lease of %s %s: %s", beat.model.__tablename__, beat.lease.row_id, exc)
            held = True
        if held:
            beat.due = time.monotonic() + beat.every
        else:
            beat.lost.set()
            beat.stopped = True
            beat.due = math.inf


_renewer: _Renewer | None = None
_renewer_lock = threading.Lock()


def _process_renewer() -> _Renewer:
    """This process's renewer, made on first use (a forked pool process makes its own: threads do not fork)."""
    global _renewer
    with _renewer_lock:
        if _renewer is None:
            _renewer = _Renewer()
        return _renewer


def _forget_after_fork() -> None:
    """In a forked child, drop the parent's renewer and lock: its thread did not come along, and the lock may have
    been held at the fork."""
    global _renewer, _renewer_lock
    _renewer, _renewer_lock = None, threading.Lock()


os.register_at_fork(after_in_child=_forget_after_fork)


@contextmanager
def renewing(
    database: Database, model: JobModel, lease: leases.Lease, lease_seconds: float, every: float
) -> Iterator[threading.Event]:
    """Renew ``lease`` every ``every`` seconds (0: never) until the block ends; yields an event set once a
    renewal found the lease lost (another worker took the row over). When the block has ended, no renewal of
    ``lease`` is in flight, so the job's own write is the last word on it."""
    beat = _Beat(database, model, lease, lease_seconds, every, due=time.monotonic() + every)
    if every <= 0:
        yield beat.lost
        return
    renewer = _process_renewer()
    renewer.add(beat)
    try:
        yield beat.lost
    finally:
        renewer.remove(beat)
