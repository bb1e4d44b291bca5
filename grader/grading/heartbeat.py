"""Lease heartbeats: a short lease renewed while the job runs, so a dead worker's row is free again in seconds.

A worker takes a row for ``GRADER_LEASE_SECONDS`` and a thread of its own pushes the deadline forward every
``GRADER_LEASE_RENEW_SECONDS`` while the engine runs. A killed worker stops renewing, so its lease runs out one
short lease later instead of after the longest a grade may take. The heartbeat stops before the job writes its
result: a write held up (a lock, a slow database) then loses the lease as before, and a late commit is refused.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy.exc import DBAPIError

from grader.extensions import Database
from grader.grading import leases
from grader.grading.leases import JobModel

log = logging.getLogger(__name__)


@contextmanager
def renewing(
    database: Database, model: JobModel, lease: leases.Lease, lease_seconds: float, every: float
) -> Iterator[threading.Event]:
    """Renew ``lease`` every ``every`` seconds (0: never) until the block ends; yields an event set once a
    renewal found the lease lost (another worker took the row over)."""
    stop, lost = threading.Event(), threading.Event()
    beat = threading.Thread(
        target=_renew_until,
        args=(database, model, lease, lease_seconds, every, stop, lost),
        name=f"lease-{model.__tablename__}-{lease.row_id}",
        daemon=True,
    )
    if every > 0:
        beat.start()
    try:
        yield lost
    finally:
        stop.set()
        if beat.is_alive():
            beat.join()


def _renew_until(
    database: Database,
    model: JobModel,
    lease: leases.Lease,
    lease_seconds: float,
    every: float,
    stop: threading.Event,
    lost: threading.Event,
) -> None:
    """The heartbeat thread: extend the lease each ``every`` seconds until ``stop`` is set or the lease is lost."""
    while not stop.wait(every):
        try:
            with database.session() as session:
                held = leases.extend(session, model, lease, lease_seconds)
        except DBAPIError as exc:  # OperationalError, InterfaceError: a connection the restart broke
            # The database is briefly unreachable: the lease may run out meanwhile; the job's write will tell.
            log.warning("could not renew the lease of %s %s: %s", model.__tablename__, lease.row_id, exc)
            continue
        if not held:
            lost.set()
            return
