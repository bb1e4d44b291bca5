"""Regrading with the current engine: the report, the grade log, never-lower, and repeat deliveries."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select
from sqlalchemy.orm import Session

from exercises import api as engine
from grader.courses.roster import remove_student
from grader.extensions import get_db
from grader.grading import leases
from grader.grading.regrade import explain, run_regrade
from grader.models import (
    Assignment,
    Course,
    Enrolment,
    EnrolmentRole,
    GradeLogEntry,
    RegradeChange,
    RegradeJob,
    RegradeStatus,
    Role,
    Submission,
)
from grader.teacher import dashboard_data
from tests.factories import make_user, unique
from tests.teacher.regrade_data import EXERCISE, OLD_ENGINE, PARTLY, RIGHT, RegradeFixture, build

Login = Callable[[str], tuple[FlaskClient, str]]


@pytest.fixture
def fixture(session: Session) -> RegradeFixture:
    """Stale submissions with known verdicts under the current engine."""
    return build(session)


def new_job(session: Session, fixture: RegradeFixture, never_lower: bool) -> RegradeJob:
    """A queued job, as the dashboard creates it (the task message is not needed here)."""
    job = RegradeJob(
        assignment_id=fixture.assignment.id,
        requested_by_id=fixture.teacher.id,
        requested_by=f"user:{fixture.teacher.username}",
        never_lower=never_lower,
    )
    session.add(job)
    session.commit()
    return job


def run(app: Flask, session: Session, job: RegradeJob) -> RegradeJob:
    """Run the job in this process (the service function the Celery task wraps) and read it back."""
    assert run_regrade(get_db(app), job.id, worker="test-worker", lease_seconds=60) == RegradeStatus.DONE
    return session.get_one(RegradeJob, job.id, populate_existing=True)


def changes(session: Session, job: RegradeJob) -> dict[int, RegradeChange]:
    """The job's report rows by submission id."""
    return {c.submission_id: c for c in session.scalars(select(RegradeChange).where(RegradeChange.job_id == job.id))}


def log_of(session: Session, submission: Submission) -> list[GradeLogEntry]:
    """The submission's grade log."""
    return list(session.scalars(select(GradeLogEntry).where(GradeLogEntry.submission_id == submission.id)))


def fresh(session: Session, submission: Submission) -> Submission:
    """The submission as stored now."""
    return session.get_one(Submission, submission.id, populate_existing=True)


def test_regrade_reports_and_logs_every_change(app: Flask, session: Session, fixture: RegradeFixture) -> None:
    """Raised, lowered and now-invalid verdicts are applied, reported with a reason and logged; others untouched."""
    job = run(app, session, new_job(session, fixture, never_lower=False))
    assert (job.total, job.processed, job.changed, job.kept) == (4, 4, 3, 0)
    assert job.engine_version == engine.ENGINE_VERSION
    report = changes(session, job)
    assert set(report) == {fixture.raised.id, fixture.lowered.id, fixture.now_invalid.id}
    raised = report[fixture.raised.id]
    assert (raised.old_score, raised.new_score, raised.applied) == (0.0, 1.0, True)
    assert (raised.old_engine_version, raised.new_engine_version) == (OLD_ENGINE, engine.ENGINE_VERSION)
    assert "tokens: ✗ 0.00 [tie-to-later] → ✓" in raised.reason
    assert "stopped_by: ✗ 0.00 → ✓" in raised.reason
    assert (report[fixture.lowered.id].old_score, report[fixture.lowered.id].new_score) == (1.0, 0.875)
    assert "tokens: ✓ → ✗ 0.75" in report[fixture.lowered.id].reason
    invalid = report[fixture.now_invalid.id]
    assert (invalid.new_status, invalid.new_score) == ("invalid", None)
    assert invalid.reason.startswith("graded → invalid")

    assert (fresh(session, fixture.raised).score, fresh(session, fixture.raised).engine_version) == (
        1.0,
        engine.ENGINE_VERSION,
    )
    assert fresh(session, fixture.raised).parts["tokens"]["correct"] is True
    assert fresh(session, fixture.lowered).score == 0.875
    assert fresh(session, fixture.now_invalid).status == "invalid"
    assert fresh(session, fixture.queued).status == "queued"  # not final: left to the pipeline
    (entry,) = log_of(session, fixture.raised)
    assert (entry.old_score, entry.new_score) == (0.0, 1.0)
    assert (entry.old_engine_version, entry.new_engine_version) == (OLD_ENGINE, engine.ENGINE_VERSION)
    assert entry.actor == f"user:{fixture.teacher.username}"
    assert entry.reason.startswith(f"regrade #{job.id}: ")
    assert len(log_of(session, fixture.lowered)) == 1
    assert log_of(session, fixture.unchanged) == []


def test_never_lower_keeps_old_scores(app: Flask, session: Session, fixture: RegradeFixture) -> None:
    """Under never-lower only the raise is applied; lower verdicts are reported as kept and not logged."""
    job = run(app, session, new_job(session, fixture, never_lower=True))
    assert (job.changed, job.kept) == (1, 2)
    report = changes(session, job)
    assert report[fixture.raised.id].applied is True
    for kept in (fixture.lowered, fixture.now_invalid):
        assert report[kept.id].applied is False
        assert "never lower" in report[kept.id].reason
        assert log_of(session, kept) == []
    assert (fresh(session, fixture.lowered).score, fresh(session, fixture.lowered).engine_version) == (1.0, OLD_ENGINE)
    assert (fresh(session, fixture.now_invalid).status, fresh(session, fixture.now_invalid).score) == ("graded", 0.5)
    assert fresh(session, fixture.raised).score == 1.0


def test_repeat_delivery_and_second_job_change_nothing(app: Flask, session: Session, fixture: RegradeFixture) -> None:
    """A redelivered task finds the job done; a second job finds every verdict current."""
    job = run(app, session, new_job(session, fixture, never_lower=False))
    assert run_regrade(get_db(app), job.id, worker="late-worker", lease_seconds=60) == RegradeStatus.DONE
    assert len(changes(session, job)) == 3
    second = run(app, session, new_job(session, fixture, never_lower=False))
    assert (second.total, second.changed, second.kept) == (4, 0, 0)
    assert changes(session, second) == {}
    assert len(log_of(session, fixture.raised)) == 1


def test_explain_names_each_changed_part() -> None:
    """The reason lists the status change and every part whose verdict moved, and nothing else."""
    old = {"a": {"correct": True, "score": 1.0}, "b": {"correct": False, "score": 0.0, "misconception": "log10"}}
    new = {"a": {"correct": True, "score": 1.0}, "b": {"correct": True, "score": 1.0}}
    assert explain(old, new, "graded", "graded") == "b: ✗ 0.00 [log10] → ✓"
    assert explain(old, None, "graded", "invalid") == "graded → invalid; a: ✓ → —; b: ✗ 0.00 [log10] → —"


def _report_rows(page: str) -> list[int]:
    """The submission ids of the report rows on one page, in order."""
    return [int(found) for found in re.findall(r'<tr data-submission="(\d+)"', page)]


def test_a_long_report_is_shown_a_page_at_a_time(
    app: Flask, session: Session, fixture: RegradeFixture, login: Login, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A regrade after an engine update can change thousands of answers: the report pages through them, every
    change on exactly one page, and an out-of-range or unreadable page number shows the nearest page."""
    job = run(app, session, new_job(session, fixture, never_lower=False))
    monkeypatch.setattr(dashboard_data, "REGRADE_CHANGES_PER_PAGE", 2)  # the 3 changes of the fixture span two pages
    client, _ = login(fixture.teacher.username)
    url = f"/teach/regrades/{job.id}"

    first, second = (client.get(url, query_string={"page": n}).get_data(as_text=True) for n in (1, 2))
    assert len(_report_rows(first)) == 2 and len(_report_rows(second)) == 1
    assert sorted(_report_rows(first) + _report_rows(second)) == sorted(changes(session, job))
    assert "Changes 1–2 of 3" in first and 'rel="next"' in first and 'rel="prev"' not in first
    assert "Changes 3–3 of 3" in second and 'rel="prev"' in second and 'rel="next"' not in second
    assert _report_rows(client.get(url, query_string={"page": 99}).get_data(as_text=True)) == _report_rows(second)
    for unreadable in ("0", "-3", "abc"):
        page = client.get(url, query_string={"page": unreadable})
        assert page.status_code == 200 and _report_rows(page.get_data(as_text=True)) == _report_rows(first)


def test_a_job_that_succeeds_after_a_failed_attempt_carries_no_failure_message(
    app: Flask, session: Session, fixture: RegradeFixture
) -> None:
    """The message of an attempt that failed (a lost database connection) stays on the row while it is queued
    again, and is cleared when a later attempt finishes the job."""
    job = new_job(session, fixture, never_lower=False)
    lease = leases.claim(session, RegradeJob, job.id, "crashed-worker", 60)
    assert lease is not None
    leases.release_after_failure(session, RegradeJob, lease, "OperationalError: connection lost", RegradeStatus.ERROR)
    retried = session.get_one(RegradeJob, job.id, populate_existing=True)
    assert retried.status == RegradeStatus.QUEUED and retried.error_message
    done = run(app, session, job)
    assert done.status == RegradeStatus.DONE and done.error_message is None


@pytest.mark.parametrize("score_policy, kept", [("last", True), ("best", False)])
def test_never_lower_keeps_a_counted_last_attempt(app: Flask, session: Session, score_policy: str, kept: bool) -> None:
    # Found by an audit: a second attempt stored as unreadable that the engine now reads as 0.875 became the
    # counted "last" attempt in place of the first attempt's 1.0, under "never lower a score". Its own worth rose
    # (nothing → 0.875), so only the counted score shows the drop; under "best" nothing drops.
    teacher, student = make_user(session, Role.TEACHER), make_user(session)
    course = Course(code=unique("lastpolicy"), title="Last policy")
    course.enrolments = [
        Enrolment(user=teacher, role=EnrolmentRole.TEACHER),
        Enrolment(user=student, role=EnrolmentRole.STUDENT),
    ]
    assignment = Assignment(
        course=course, title_zh="最后", title_en="Last", exercise_ids=[EXERCISE], score_policy=score_policy
    )
    session.add_all([course, assignment])
    session.commit()
    first = engine.grade(EXERCISE, 0, RIGHT, "en")
    rows = [
        Submission(
            user_id=student.id,
            assignment_id=assignment.id,
            exercise_id=EXERCISE,
            seed=0,
            lang="en",
            raw_answer=answer,
            status=status,
            score=score,
            parts=parts,
            engine_version=version,
        )
        for answer, status, score, parts, version in (
            (RIGHT, "graded", first["score"], first["parts"], engine.ENGINE_VERSION),
            (PARTLY, "invalid", None, {}, OLD_ENGINE),
        )
    ]
    session.add_all(rows)
    session.commit()
    job = RegradeJob(
        assignment_id=assignment.id,
        requested_by_id=teacher.id,
        requested_by=f"user:{teacher.username}",
        never_lower=True,
    )
    session.add(job)
    session.commit()
    job = run(app, session, job)
    second = fresh(session, rows[1])
    assert (job.changed, job.kept) == ((0, 1) if kept else (1, 0))
    assert (second.status, second.score) == (("invalid", None) if kept else ("graded", 0.875))
    assert ("never lower" in changes(session, job)[second.id].reason) is kept


def test_a_running_regrade_never_shows_100_percent(session: Session, fixture: RegradeFixture, login: Login) -> None:
    # 199 of 200 checked rounded to "100%" on the progress bar while the job was still running.
    job = new_job(session, fixture, never_lower=False)
    job.status, job.processed, job.total = RegradeStatus.RUNNING, 199, 200
    session.commit()
    client, _ = login(fixture.teacher.username)
    page = client.get(f"/teach/regrades/{job.id}").get_data(as_text=True)
    assert '<progress max="100" value="99"' in page and "99%" in page
    assert 'value="100"' not in page


def test_the_report_links_only_students_still_in_the_course(
    app: Flask, session: Session, fixture: RegradeFixture, login: Login
) -> None:
    # A removed student's row linked to their page, which is a 404 once they have left the course.
    job = run(app, session, new_job(session, fixture, never_lower=False))
    course = fixture.assignment.course
    assert remove_student(session, course, fixture.raised.user_id) is not None
    client, _ = login(fixture.teacher.username)
    page = client.get(f"/teach/regrades/{job.id}").get_data(as_text=True)
    linked = {int(found) for found in re.findall(r'/students/\d+#sub-(\d+)"', page)}
    assert linked == {fixture.lowered.id, fixture.now_invalid.id}
    assert f'<th scope="row">#{fixture.raised.id}</th>' in page
    for submission_id in linked:
        user_id = fresh(session, session.get_one(Submission, submission_id)).user_id
        assert client.get(f"/teach/courses/{course.id}/students/{user_id}").status_code == 200
