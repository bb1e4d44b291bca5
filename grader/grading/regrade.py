"""Regrading an assignment with the current engine: a background job that reports and logs every change.

The job row is leased like a submission (grader.grading.leases), walks the assignment's final submissions in id
order and keeps a cursor, so a re-delivered task resumes where the last one stopped; re-checking a submission the
job already updated finds nothing to change, so a repeat is harmless.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from flask import current_app
from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from exercises import api as engine
from grader.extensions import Database, rows_matched
from grader.grading import dispatch, grading_rules, heartbeat, leases, policy
from grader.grading.score_changes import counted_scores_changed
from grader.grading.terms import student_terms
from grader.models import (
    ACTIVE_REGRADE_STATUSES,
    Assignment,
    GradeLogEntry,
    RegradeChange,
    RegradeJob,
    RegradeStatus,
    ScorePolicy,
    Submission,
    SubmissionStatus,
    User,
    utcnow,
)

REGRADABLE = (SubmissionStatus.GRADED, SubmissionStatus.INVALID)  # queued/grading rows get the new engine anyway
BATCH_SIZE = 200
SCORE_EPSILON = 1e-9
# The stored reason's wording (RegradeChange.reason, the grade log): English, read back by the teacher pages, which
# re-word it in the page's language (grader.teacher.regrade_reasons).
WEIGHTING_CHANGED = "score weighting changed"
KEPT = "{reason} (kept: {why})"
KEPT_NEVER_LOWER = "never lower"
KEPT_OVER_LIMIT = "over the limit of {allowed} attempts"


@dataclass(frozen=True)
class Recheck:
    """What the current engine makes of one stored submission, compared with what is stored."""

    submission_id: int
    old_status: str
    new_status: str
    old_score: float | None
    new_score: float | None
    old_engine_version: str | None
    new_engine_version: str
    changed: bool  # status, score or some part's verdict differs
    lowered: bool  # the new verdict is worth less than the stored one
    reason: str
    result: dict[str, Any]


def request_regrade(session: Session, *, assignment: Assignment, user: User, never_lower: bool) -> RegradeJob:
    """The assignment's active job, or a new one: committed, then sent (the sweeper re-sends lost ones)."""
    active = session.scalar(
        select(RegradeJob)
        .where(RegradeJob.assignment_id == assignment.id, RegradeJob.status.in_(ACTIVE_REGRADE_STATUSES))
        .order_by(RegradeJob.id.desc())
    )
    if active is not None:
        return active
    job = RegradeJob(
        assignment_id=assignment.id,
        requested_by_id=user.id,
        requested_by=f"user:{user.username}",
        never_lower=never_lower,
        max_attempts=current_app.config["GRADER_MAX_ATTEMPTS"],
        dispatched_at=utcnow(),
    )
    session.add(job)
    session.commit()
    dispatch.send(RegradeJob, job.id)
    return job


def _verdict(part: dict[str, Any] | None) -> str:
    """A part's verdict in a language-neutral form: ✓, or ✗ with its score and misconception tag."""
    if not part:
        return "—"
    if part.get("correct"):
        return "✓"
    tag = f" [{part['misconception']}]" if part.get("misconception") else ""
    return f"✗ {float(part.get('score') or 0):.2f}{tag}"


def explain(
    old_parts: dict[str, Any] | None, new_parts: dict[str, Any] | None, old_status: str, new_status: str
) -> str:
    """Why a verdict changed: the status change and each part whose verdict differs ("field: old → new")."""
    reasons = [f"{old_status} → {new_status}"] if old_status != new_status else []
    old_parts, new_parts = old_parts or {}, new_parts or {}
    for field in sorted(set(old_parts) | set(new_parts)):
        before, after = _verdict(old_parts.get(field)), _verdict(new_parts.get(field))
        if before != after:
            reasons.append(f"{field}: {before} → {after}")
    return "; ".join(reasons) or WEIGHTING_CHANGED


def worth(status: str, score: float | None) -> float:
    """What a verdict is worth for never-lower: an invalid or ungraded answer is worth nothing."""
    return float(score) if status == SubmissionStatus.GRADED and score is not None else 0.0


def recheck(submission: Submission, grading_policy: engine.GradingPolicy = engine.DEFAULT_POLICY) -> Recheck | None:
    """Grade a stored submission again under its assignment's ``grading_policy`` (as it is now, so that a changed
    policy is applied by a regrade); None if the engine no longer knows its exercise or seed."""
    try:
        result = engine.grade(
            submission.exercise_id, submission.seed, submission.raw_answer, submission.lang, grading_policy
        )
    except (engine.UnknownExercise, engine.BadSeed):
        return None
    new_status = SubmissionStatus.GRADED if result["status"] == "graded" else SubmissionStatus.INVALID
    old_parts, new_parts = submission.parts or {}, result.get("parts") or {}
    verdicts_differ = any(
        _verdict(old_parts.get(f)) != _verdict(new_parts.get(f)) for f in set(old_parts) | set(new_parts)
    )
    old_worth, new_worth = worth(submission.status, submission.score), worth(new_status, result.get("score"))
    changed = (
        submission.status != new_status
        or abs(old_worth - new_worth) > SCORE_EPSILON
        or (submission.score is None) != (result.get("score") is None)
        or verdicts_differ
    )
    return Recheck(
        submission_id=submission.id,
        old_status=str(submission.status),
        new_status=str(new_status),
        old_score=submission.score,
        new_score=result.get("score"),
        old_engine_version=submission.engine_version,
        new_engine_version=result["engine_version"],
        changed=changed,
        lowered=new_worth < old_worth - SCORE_EPSILON
        or (submission.status == SubmissionStatus.GRADED and new_status != SubmissionStatus.GRADED),
        reason=explain(old_parts, new_parts, str(submission.status), str(new_status)),
        result=result,
    )


def _write_result(session: Session, submission: Submission, check: Recheck) -> bool:
    """Store the new engine result on the submission, only if nobody changed it since it was read."""
    result = check.result
    written = session.execute(
        update(Submission)
        .where(
            Submission.id == submission.id,
            Submission.status == submission.status,
            Submission.score.is_not_distinct_from(submission.score),
            Submission.engine_version.is_not_distinct_from(submission.engine_version),
        )
        .values(
            status=check.new_status,
            score=check.new_score,
            parts=result.get("parts") or {},
            errors=result.get("errors") or [],
            parsed_answer=result.get("parsed"),
            engine_version=check.new_engine_version,
        )
        .execution_options(synchronize_session=False)
    )
    return rows_matched(written) == 1


def _over_attempt_limit(session: Session, submission: Submission, check: Recheck, allowed: int | None) -> bool:
    """True if the re-check would turn an unread answer into a graded attempt the student no longer had.

    An invalid answer used no attempt, so the student may have used them all since; grading it now would give
    them one more graded attempt than the assignment allows (and, under "last counts", a new counted score).
    """
    if allowed is None or check.old_status != SubmissionStatus.INVALID or check.new_status != SubmissionStatus.GRADED:
        return False
    assert submission.assignment_id is not None  # the job walks one assignment's rows
    return (
        policy.attempts_used(session, submission.user_id, submission.assignment_id, submission.exercise_id) >= allowed
    )


def _lowers_counted_score(session: Session, submission: Submission, check: Recheck, score_policy: str) -> bool:
    """True if, under "last attempt counts", the re-check makes an unread answer the student's latest graded
    attempt, counted in place of a higher score (the answer's own worth rises from nothing, so ``lowered`` is
    False, yet the score the teacher sees would drop)."""
    if (
        score_policy != ScorePolicy.LAST
        or check.old_status == SubmissionStatus.GRADED
        or check.new_status != SubmissionStatus.GRADED
    ):
        return False
    latest = session.execute(
        select(Submission.id, Submission.score)
        .where(
            Submission.user_id == submission.user_id,
            Submission.assignment_id == submission.assignment_id,
            Submission.exercise_id == submission.exercise_id,
            Submission.status == SubmissionStatus.GRADED,
            Submission.id != submission.id,
        )
        .order_by(Submission.id.desc())
        .limit(1)
    ).first()
    if latest is None or latest.id > submission.id:
        return False  # nothing counted yet, or a later graded attempt stays the counted one
    return worth(check.new_status, check.new_score) < float(latest.score or 0.0) - SCORE_EPSILON


def _apply(
    session: Session, job: RegradeJob, submission: Submission, check: Recheck, assignment: Assignment
) -> tuple[int, int]:
    """Record one re-check under the assignment's rules (the student's own attempt limit, the score policy):
    (changes applied, changes kept back) — 0/1 each."""
    allowed = student_terms(session, assignment, submission.user_id).attempts_allowed
    score_policy = assignment.score_policy
    lowers = check.lowered or _lowers_counted_score(session, submission, check, score_policy)
    if check.changed and lowers and job.never_lower:
        session.add(_change_row(job, submission, check, applied=False, why=KEPT_NEVER_LOWER))
        return 0, 1
    if check.changed and _over_attempt_limit(session, submission, check, allowed):
        session.add(_change_row(job, submission, check, applied=False, why=KEPT_OVER_LIMIT.format(allowed=allowed)))
        return 0, 1
    refreshed = (
        check.changed
        or submission.engine_version != check.new_engine_version
        or submission.parts != check.result.get("parts")
    )
    if not refreshed or not _write_result(session, submission, check):
        return 0, 0
    if not check.changed:
        return 0, 0  # same verdict, newer engine stamp and wording: nothing to report or log
    session.add(_change_row(job, submission, check, applied=True))
    if submission.assignment_id is not None:
        counted_scores_changed(session, submission.assignment_id, [submission.user_id], utcnow())
    session.add(
        GradeLogEntry(
            submission_id=submission.id,
            old_score=check.old_score,
            new_score=check.new_score,
            old_engine_version=check.old_engine_version,
            new_engine_version=check.new_engine_version,
            reason=f"regrade #{job.id}: {check.reason}",
            actor=job.requested_by,
        )
    )
    return 1, 0


def _change_row(
    job: RegradeJob, submission: Submission, check: Recheck, *, applied: bool, why: str = ""
) -> RegradeChange:
    """The report row for one changed verdict; ``why`` says why one not applied was kept back."""
    reason = check.reason if applied else KEPT.format(reason=check.reason, why=why)
    return RegradeChange(
        job_id=job.id,
        submission_id=submission.id,
        user_id=submission.user_id,
        exercise_id=submission.exercise_id,
        old_status=check.old_status,
        new_status=check.new_status,
        old_score=check.old_score,
        new_score=check.new_score,
        old_engine_version=check.old_engine_version,
        new_engine_version=check.new_engine_version,
        applied=applied,
        reason=reason,
    )


def _regradable(job: RegradeJob) -> Any:
    """SQL condition: a final submission of the job's assignment."""
    return (Submission.assignment_id == job.assignment_id) & Submission.status.in_(REGRADABLE)


def _start(session: Session, lease: leases.Lease) -> RegradeJob:
    """Count the work (total, and what an earlier delivery already did) and stamp the engine version; commits."""
    job = session.get_one(RegradeJob, lease.row_id, populate_existing=True)
    total = session.scalar(select(func.count()).where(_regradable(job))) or 0
    done = session.scalar(select(func.count()).where(_regradable(job), Submission.id <= job.cursor)) or 0
    session.execute(
        update(RegradeJob)
        .where(leases.holds(RegradeJob, lease))
        .values(total=total, processed=done, engine_version=engine.ENGINE_VERSION)
        .execution_options(synchronize_session=False)
    )
    session.commit()
    return session.get_one(RegradeJob, lease.row_id, populate_existing=True)


def _run_batch(session: Session, lease: leases.Lease, lease_seconds: float) -> bool | None:
    """Re-check the next batch; True if more may follow, False when none is left, None if the lease was lost."""
    job = session.get_one(RegradeJob, lease.row_id, populate_existing=True)
    batch = session.scalars(
        select(Submission).where(_regradable(job), Submission.id > job.cursor).order_by(Submission.id).limit(BATCH_SIZE)
    ).all()
    if not batch:
        return False
    applied = kept = 0
    assignment = session.get_one(Assignment, job.assignment_id)
    grading_policy = grading_rules.policy_of(assignment)
    for submission in batch:
        check = recheck(submission, grading_policy)
        if check is not None:
            a, k = _apply(session, job, submission, check, assignment)
            applied, kept = applied + a, kept + k
    # Moving the cursor under the lease in the same transaction makes the batch count exactly once.
    moved = session.execute(
        update(RegradeJob)
        .where(leases.holds(RegradeJob, lease))
        .values(
            cursor=batch[-1].id,
            processed=RegradeJob.processed + len(batch),
            changed=RegradeJob.changed + applied,
            kept=RegradeJob.kept + kept,
            lease_until=utcnow() + timedelta(seconds=lease_seconds),
        )
        .execution_options(synchronize_session=False)
    )
    if rows_matched(moved) != 1:
        session.rollback()
        return None
    session.commit()
    return True


def run_regrade(database: Database, job_id: int, *, worker: str, lease_seconds: float, renew_every: float = 0.0) -> str:
    """Run one regrade job under a lease, batch by batch, renewing the lease every ``renew_every`` seconds (0:
    only each batch's commit extends it); returns the job's status when this delivery stops."""
    with database.session() as session:
        lease = leases.claim_or_status(session, RegradeJob, job_id, worker, lease_seconds, RegradeStatus.ERROR)
        if isinstance(lease, str):
            return lease
        try:
            _start(session, lease)
            more: bool | None = True
            # A batch may take longer than the short lease: the heartbeat keeps it while this worker lives.
            with heartbeat.renewing(database, RegradeJob, lease, lease_seconds, renew_every):
                while more:
                    more = _run_batch(session, lease, lease_seconds)
        except Exception as exc:
            # Keep the message on the job for the teacher's page, then let Celery record the failure.
            session.rollback()
            leases.release_after_failure(
                session, RegradeJob, lease, f"{type(exc).__name__}: {exc}", RegradeStatus.ERROR
            )
            raise
        if more is None:
            return RegradeStatus.RUNNING  # another worker took over
        written = leases.finish(session, RegradeJob, lease, RegradeStatus.DONE)
        session.commit()
        return RegradeStatus.DONE if written else RegradeStatus.RUNNING
