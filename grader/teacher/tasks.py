"""Celery task of the teacher dashboard: a thin wrapper that hands a regrade job id to grader.grading.regrade."""

from __future__ import annotations

from celery import Task, shared_task

from grader.extensions import get_db
from grader.grading.dispatch import REGRADE_TASK
from grader.grading.regrade import run_regrade
from grader.tasks import RETRY_OPTIONS, lease_terms


@shared_task(name=REGRADE_TASK, **RETRY_OPTIONS)
def regrade_assignment(self: Task, job_id: int) -> str:
    """Run regrade job ``job_id`` unless it is already done or taken by a live worker."""
    return run_regrade(get_db(), job_id, **lease_terms(self))
