"""A regrade started from the dashboard runs on a real Celery worker process and its report appears."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select
from sqlalchemy.orm import Session

from grader.extensions import get_db
from grader.grading import sweeper
from grader.i18n import UI
from grader.models import GradeLogEntry, RegradeJob, RegradeStatus
from tests.support import WorkerProcess, wait_for
from tests.teacher.regrade_data import build

Login = Callable[[str], tuple[FlaskClient, str]]

pytestmark = pytest.mark.integration


def _verdict_cells(page: str, submission_id: int) -> tuple[str, str]:
    """The old and new verdict cells of one submission's row in a regrade report."""
    row = re.search(rf'data-submission="{submission_id}".*?</tr>', page, re.S)
    assert row is not None, submission_id
    old = re.search(r'<td class="old-score">(.*?)</td>', row.group(0), re.S)
    new = re.search(r'<td class="new-score">(.*?)</td>', row.group(0), re.S)
    assert old is not None and new is not None
    return old.group(1).strip(), new.group(1).strip()


def job_status(app: Flask, job_id: int) -> str:
    """The job's status read in a fresh session."""
    with get_db(app).session() as session:
        return session.get_one(RegradeJob, job_id).status


def test_dashboard_regrade_runs_on_worker(app: Flask, session: Session, login: Login, worker: WorkerProcess) -> None:
    """Start with never-lower from the dashboard; the worker raises one score, keeps two, and the page reports it."""
    fixture = build(session)
    client, token = login(fixture.teacher.username)
    response = client.post(
        f"/teach/assignments/{fixture.assignment.id}/regrade", data={"csrf_token": token, "never_lower": "on"}
    )
    assert response.status_code == 302
    job_id = int(response.headers["Location"].rstrip("/").rsplit("/", 1)[1])
    wait_for(lambda: job_status(app, job_id) == RegradeStatus.DONE, f"regrade job {job_id} done ({worker.log_path})")

    page = client.get(f"/teach/regrades/{job_id}").get_data(as_text=True)
    assert 'data-status="done"' in page
    assert f'data-submission="{fixture.raised.id}" data-applied="yes"' in page
    assert f'data-submission="{fixture.lowered.id}" data-applied="no"' in page
    assert 'http-equiv="refresh"' not in page  # finished pages stop refreshing
    # Verdicts read as on the other teacher pages: percentages, or the status in words; the course stays in the nav.
    assert _verdict_cells(page, fixture.raised.id) == ("0%", "100%")
    assert _verdict_cells(page, fixture.lowered.id) == ("100%", "88%")
    old, new = _verdict_cells(page, fixture.now_invalid.id)
    assert old == "50%" and new in (UI["substatus.invalid"].zh, UI["substatus.invalid"].en)
    assert f'href="/teach/courses/{fixture.assignment.course_id}"' in page
    with get_db(app).session() as fresh:
        job = fresh.get_one(RegradeJob, job_id)
        assert (job.changed, job.kept, job.never_lower) == (1, 2, True)
        assert job.lease_owner is None and job.finished_at is not None
        logged = fresh.scalars(
            select(GradeLogEntry.submission_id).where(GradeLogEntry.reason.startswith(f"regrade #{job_id}:"))
        )
        assert list(logged) == [fixture.raised.id]


def test_lost_regrade_message_is_resent_by_the_sweeper(app: Flask, session: Session, worker: WorkerProcess) -> None:
    """A job committed but never sent (the broker lost it) is re-sent by the sweeper and finished by the worker."""
    fixture = build(session)
    job = RegradeJob(
        assignment_id=fixture.assignment.id,
        requested_by_id=fixture.teacher.id,
        requested_by=f"user:{fixture.teacher.username}",
        never_lower=False,
    )
    session.add(job)
    session.commit()
    resent: set[int] = set()
    wait_for(
        lambda: resent.update(sweeper.sweep(app).resent["RegradeJob"]) or job.id in resent,
        "the sweeper to re-send the regrade job",
    )
    wait_for(lambda: job_status(app, job.id) == RegradeStatus.DONE, f"regrade job {job.id} done ({worker.log_path})")
    assert job.id not in sweeper.sweep(app).resent["RegradeJob"]  # a finished job is never sent again
