"""Celery tasks: thin wrappers that receive a row id and hand it to the grading service."""

from __future__ import annotations

import os
import socket
from typing import TypedDict

from celery import Task, shared_task
from flask import current_app
from sqlalchemy.exc import OperationalError

from grader.extensions import get_db
from grader.grading import labs, pipeline
from grader.grading.dispatch import GRADE_TASK, LAB_TASK

RETRY_OPTIONS = {
    "bind": True,
    "acks_late": True,
    "reject_on_worker_lost": True,
    # Transient database trouble (restart, failover, lock timeout): retry with exponential backoff.
    "autoretry_for": (OperationalError,),
    "retry_backoff": True,
    "retry_backoff_max": 60,
    "retry_jitter": True,
    "max_retries": 5,
}


def worker_id(task: Task) -> str:
    """Who holds a lease: host, process and task delivery, for the lease column and the grade log."""
    return f"{socket.gethostname()}:{os.getpid()}:{task.request.id}"


class LeaseTerms(TypedDict):
    """The keywords a job runner (grading, labs, regrades) takes for its lease."""

    worker: str
    lease_seconds: float
    renew_every: float


def lease_terms(task: Task) -> LeaseTerms:
    """This delivery's lease: who holds it, and the configured lease and renewal intervals."""
    config = current_app.config
    return LeaseTerms(
        worker=worker_id(task),
        lease_seconds=config["GRADER_LEASE_SECONDS"],
        renew_every=config["GRADER_LEASE_RENEW_SECONDS"],
    )


@shared_task(name=GRADE_TASK, **RETRY_OPTIONS)
def grade_submission(self: Task, submission_id: int) -> str:
    """Grade submission ``submission_id`` (a repeated delivery changes nothing)."""
    return pipeline.grade_submission(
        get_db(), submission_id, **lease_terms(self), test_delay=current_app.config["GRADER_TEST_GRADE_DELAY"]
    ).value


@shared_task(name=LAB_TASK, **RETRY_OPTIONS)
def run_lab(self: Task, lab_id: int) -> str:
    """Run capacity-lab run ``lab_id`` unless it is already done or taken."""
    return labs.run_lab(get_db(), lab_id, **lease_terms(self))
