"""The lease heartbeat: one renewer thread per process keeps each running job's lease, stops the moment the job's
block ends, signals a lease another worker took, and works again in a forked child."""

from __future__ import annotations

import os
import threading
import time
from datetime import datetime, timedelta

import pytest
from flask import Flask
from sqlalchemy import update
from sqlalchemy.orm import Session

from grader.extensions import Database, get_db
from grader.grading import heartbeat, leases
from grader.models import Submission, SubmissionStatus, User, utcnow
from tests.pipeline_helpers import get_result
from tests.support import wait_for
from tests.test_pipeline_recovery import stranded_row

# A renewer thread that raised would stop renewing every job of its process: make that a failure here.
pytestmark = pytest.mark.filterwarnings("error::pytest.PytestUnhandledThreadExceptionWarning")

LEASE_SECONDS = 1.0
EVERY = 0.05


def claimed_row(session: Session, student: User, owner: str = "host:1:first") -> leases.Lease:
    """A queued submission claimed by ``owner`` for ``LEASE_SECONDS``."""
    row = stranded_row(session, student, status=SubmissionStatus.QUEUED)
    lease = leases.claim(session, Submission, row.id, owner, LEASE_SECONDS)
    assert lease is not None
    return lease


def deadline(session: Session, lease: leases.Lease) -> datetime:
    """The row's lease deadline as stored now."""
    session.expire_all()
    until = get_result(session, lease.row_id).lease_until
    assert until is not None
    return until


def renewer_threads() -> list[threading.Thread]:
    """The renewer threads alive in this process."""
    return [thread for thread in threading.enumerate() if thread.name == "lease-renewer"]


def test_a_running_job_has_its_lease_renewed(app: Flask, session: Session, student: User) -> None:
    lease = claimed_row(session, student)
    first = deadline(session, lease)
    with heartbeat.renewing(get_db(app), Submission, lease, LEASE_SECONDS, EVERY) as lost:
        wait_for(lambda: deadline(session, lease) > first, "a renewal")
    assert not lost.is_set()


def test_every_job_of_a_process_shares_one_renewer_thread(app: Flask, session: Session, student: User) -> None:
    database = get_db(app)
    seen: set[int | None] = set()
    for _ in range(20):
        lease = claimed_row(session, student)
        with heartbeat.renewing(database, Submission, lease, LEASE_SECONDS, EVERY):
            threads = renewer_threads()
            assert len(threads) == 1
            seen.add(threads[0].ident)
    assert len(seen) == 1


def test_no_renewal_once_the_block_has_ended(app: Flask, session: Session, student: User) -> None:
    lease = claimed_row(session, student)
    with heartbeat.renewing(get_db(app), Submission, lease, LEASE_SECONDS, EVERY):
        first = deadline(session, lease)
        wait_for(lambda: deadline(session, lease) > first, "a renewal")
    ended = deadline(session, lease)
    time.sleep(EVERY * 6)  # six renewal intervals
    assert deadline(session, lease) == ended


def test_a_lease_taken_over_is_signalled_and_no_longer_renewed(app: Flask, session: Session, student: User) -> None:
    lease = claimed_row(session, student)
    with heartbeat.renewing(get_db(app), Submission, lease, LEASE_SECONDS, EVERY) as lost:
        # The lease runs out (as if renewals had failed) and another worker claims the row.
        session.execute(update(Submission).where(Submission.id == lease.row_id).values(lease_until=utcnow()))
        session.commit()
        wait_for(lambda: leases.claim(session, Submission, lease.row_id, "host:2:second", 60), "the takeover")
        wait_for(lost.is_set, "the lost lease signalled")
        taken = deadline(session, lease)
        time.sleep(EVERY * 4)
    row = get_result(session, lease.row_id)
    assert row.lease_owner == "host:2:second" and row.attempts == 2
    assert deadline(session, lease) == taken  # the first worker's heartbeat left the new lease alone
    # The thread goes on serving the process's next job.
    test_a_running_job_has_its_lease_renewed(app, session, student)


def test_a_lease_with_renewal_off_is_left_to_run_out(app: Flask, session: Session, student: User) -> None:
    lease = claimed_row(session, student)
    first = deadline(session, lease)
    with heartbeat.renewing(get_db(app), Submission, lease, LEASE_SECONDS, 0) as lost:
        time.sleep(EVERY * 6)
    assert deadline(session, lease) == first and not lost.is_set()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_child_renews_with_a_thread_of_its_own(app: Flask, session: Session, student: User) -> None:
    # The parent's renewer thread is alive when the child is forked; threads do not fork, so the child needs its own.
    with heartbeat.renewing(get_db(app), Submission, claimed_row(session, student), LEASE_SECONDS, EVERY):
        assert renewer_threads()
    lease = claimed_row(session, student)
    first = deadline(session, lease)
    pid = os.fork()
    if pid == 0:  # the child: its own connections, then one job held past a renewal
        code = 1
        try:
            database = Database(get_db(app).url)
            with heartbeat.renewing(database, Submission, lease, LEASE_SECONDS, EVERY):
                time.sleep(EVERY * 10)
            code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert deadline(session, lease) > first + timedelta(seconds=EVERY)
