"""Sending the score outbox: each row claimed by one sender, superseded by a newer row of the same student, line
item and context, sent once with the score as it stands, retried with backoff and jitter on what may pass (time-
outs, 5xx, 429, a rate-limit 403, honouring Retry-After), and stopped as "needs attention" on a refusal for good."""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from email.utils import parsedate_to_datetime
from enum import StrEnum

from sqlalchemy import ColumnElement, func, select, update
from sqlalchemy.orm import Session

from grader.grading.overrides import overrides_of
from grader.grading.points import points_of, total_of
from grader.grading.policy import assignment_results
from grader.lti.ags import LmsAnswer, LmsClient, line_item_url, post_score
from grader.lti.due_rows import take_due
from grader.lti.tokens import TokenRefused
from grader.models import (
    Assignment,
    LtiContext,
    LtiIdentity,
    LtiPlatform,
    LtiScoreOutbox,
    OutboxStatus,
    Submission,
    SubmissionStatus,
    utcnow,
)
from grader.models.overrides import TOTAL

SEND_LEASE = timedelta(minutes=2)  # longer than the HTTP time-outs of one send (token, line item, score)
MAX_ATTEMPTS = 40
MAX_DELAY = 600.0  # seconds; an LMS down for an hour is tried about every 10 minutes
PERMANENT = (400, 404, 409, 410, 422)


class SendOutcome(StrEnum):
    """What one delivery of the send task did."""

    SENT = "sent"
    SUPERSEDED = "superseded"
    SKIPPED = "skipped"  # not pending, not due, or another sender holds it
    RETRY = "retry"
    FAILED = "failed"


def _claim(session: Session, outbox_id: int, now: datetime) -> LtiScoreOutbox | None:
    """Take the row for this sender if it is pending, due and not held (two deliveries: one wins); committed."""
    claimed = session.execute(
        update(LtiScoreOutbox)
        .where(
            LtiScoreOutbox.id == outbox_id,
            LtiScoreOutbox.status == OutboxStatus.PENDING,
            LtiScoreOutbox.next_attempt_at <= now,
            (LtiScoreOutbox.lease_until.is_(None)) | (LtiScoreOutbox.lease_until < now),
        )
        .values(lease_until=now + SEND_LEASE, attempts=LtiScoreOutbox.attempts + 1)
        .execution_options(synchronize_session=False)
    )
    session.commit()
    return session.get(LtiScoreOutbox, outbox_id, populate_existing=True) if claimed.rowcount == 1 else None  # type: ignore[attr-defined]


def _same_score(row: LtiScoreOutbox) -> list[ColumnElement[bool]]:
    """SQL conditions: outbox rows of the same student, assignment and context."""
    return [
        LtiScoreOutbox.context_id == row.context_id,
        LtiScoreOutbox.assignment_id == row.assignment_id,
        LtiScoreOutbox.user_id == row.user_id,
    ]


def _score(session: Session, row: LtiScoreOutbox, assignment: Assignment, sub: str) -> dict[str, object]:
    """The AGS score of the student's total as the gradebook shows it (points, teachers' overrides), as it stands,
    stamped with the time of the change."""
    results = assignment_results(session, assignment, [row.user_id])
    scores = [
        (e, results[(row.user_id, e)].score if (row.user_id, e) in results else None) for e in assignment.exercise_ids
    ]
    total_override = overrides_of(session, assignment, [row.user_id]).get((row.user_id, TOTAL))
    total = total_of(points_of(assignment), scores, None if total_override is None else total_override.score)
    counted = sum(1 for _, score in scores if score is not None)
    submitted = session.scalar(
        select(func.max(Submission.created_at)).where(
            Submission.user_id == row.user_id,
            Submission.assignment_id == assignment.id,
            Submission.status == SubmissionStatus.GRADED,
        )
    )
    graded = counted > 0 or total_override is not None
    score: dict[str, object] = {
        "userId": sub,
        "timestamp": row.changed_at.isoformat(timespec="milliseconds"),
        "activityProgress": "Completed" if counted == len(scores) else ("InProgress" if results else "Initialized"),
        "gradingProgress": "FullyGraded" if graded else "NotReady",
        "scoreMaximum": total.max_points,
    }
    if graded:
        score["scoreGiven"] = round(total.points, 6)
    if submitted is not None:
        score["submittedAt"] = submitted.isoformat(timespec="milliseconds")
    return score


def retry_delay(attempts: int, retry_after: str | None, now: datetime, scale: float = 1.0) -> float:
    """Seconds to wait: Retry-After if the LMS gave one (seconds or an HTTP date; never shortened), else exponential
    backoff with jitter, times ``scale`` (a test hook)."""
    if retry_after:
        seconds = retry_after.strip()
        if seconds.isascii() and seconds.isdigit():  # any length: a delay past the cap is the cap
            return min(float(seconds), MAX_DELAY * 6)
        try:
            return min(max((parsedate_to_datetime(retry_after) - now).total_seconds(), 1.0), MAX_DELAY * 6)
        except (TypeError, ValueError):
            pass
    base = min(2.0 ** min(attempts, 12), MAX_DELAY)
    return (base / 2 + random.uniform(0, base / 2)) * scale


def _retryable(exc: LmsAnswer | TokenRefused) -> bool:
    """Time-outs, 5xx, 429 and a rate-limit 403 may pass; other answers are refusals for good."""
    if exc.status is None or exc.status >= 500 or exc.status == 429:
        return True
    return exc.status == 403 and (exc.retry_after is not None or "rate" in str(exc).lower())


def _finish(session: Session, row: LtiScoreOutbox, status: OutboxStatus, now: datetime, error: str | None) -> None:
    """Record the outcome of a claimed row; committed."""
    row.status, row.lease_until, row.last_error = status, None, error
    if status is OutboxStatus.SENT:
        row.sent_at = now
        session.execute(
            update(LtiScoreOutbox)
            .where(*_same_score(row), LtiScoreOutbox.id < row.id, LtiScoreOutbox.status == OutboxStatus.PENDING)
            .values(status=OutboxStatus.SUPERSEDED)
            .execution_options(synchronize_session=False)
        )
    session.commit()


def send(session: Session, outbox_id: int, now: datetime, backoff_scale: float = 1.0) -> SendOutcome:
    """Send outbox row ``outbox_id`` if it is this sender's to send; every outcome is committed."""
    row = _claim(session, outbox_id, now)
    if row is None:
        return SendOutcome.SKIPPED
    if session.scalar(
        select(LtiScoreOutbox.id)
        .where(*_same_score(row), LtiScoreOutbox.id > row.id, LtiScoreOutbox.status == OutboxStatus.PENDING)
        .limit(1)
    ):
        _finish(session, row, OutboxStatus.SUPERSEDED, now, None)
        return SendOutcome.SUPERSEDED
    context = session.get_one(LtiContext, row.context_id)
    platform = session.get_one(LtiPlatform, context.platform_id)
    assignment = session.get_one(Assignment, row.assignment_id)
    sub = session.scalar(
        select(LtiIdentity.sub).where(LtiIdentity.user_id == row.user_id, LtiIdentity.issuer == platform.issuer)
    )
    if sub is None or not assignment.exercise_ids:
        _finish(session, row, OutboxStatus.FAILED, now, "no LMS identity" if sub is None else "no exercises")
        return SendOutcome.FAILED
    score = _score(session, row, assignment, sub)
    client = LmsClient(session, platform, now)
    try:
        post_score(client, line_item_url(client, context, assignment, float(score["scoreMaximum"])), score)  # type: ignore[arg-type]
    except (LmsAnswer, TokenRefused) as exc:
        if _retryable(exc) and row.attempts < MAX_ATTEMPTS:
            # Counted from the LMS's answer, not from the start of this send (token, line item and a time-out may
            # take seconds): a Retry-After is the LMS's "not before this long after I said so".
            answered = max(now, utcnow())
            wait = retry_delay(row.attempts, exc.retry_after, answered, backoff_scale)
            row.next_attempt_at = answered + timedelta(seconds=wait)
            _finish(session, row, OutboxStatus.PENDING, now, str(exc)[:1000])
            return SendOutcome.RETRY
        _finish(session, row, OutboxStatus.FAILED, now, str(exc)[:1000])
        return SendOutcome.FAILED
    row.score_given = score.get("scoreGiven")  # type: ignore[assignment]
    row.score_maximum = float(score["scoreMaximum"])  # type: ignore[arg-type]
    _finish(session, row, OutboxStatus.SENT, now, None)
    return SendOutcome.SENT


def due_for_dispatch(session: Session, now: datetime, again_after: float, limit: int = 200) -> list[int]:
    """Pending rows that are due and whose task is not already waiting, marked as dispatched; committed. A task
    sent but not yet run is not sent again before ``again_after`` seconds (GRADER_LTI_DISPATCH_AGAIN_SECONDS)."""
    return take_due(
        session,
        LtiScoreOutbox,
        LtiScoreOutbox.dispatched_at,
        (
            LtiScoreOutbox.status == OutboxStatus.PENDING,
            LtiScoreOutbox.next_attempt_at <= now,
            (LtiScoreOutbox.lease_until.is_(None)) | (LtiScoreOutbox.lease_until < now),
            (LtiScoreOutbox.dispatched_at.is_(None))
            | (LtiScoreOutbox.dispatched_at < now - timedelta(seconds=again_after)),
        ),
        now,
        limit,
    )


def resend(session: Session, outbox_id: int, now: datetime) -> bool:
    """A teacher's resend of a row that needs attention: pending again, due now; committed. False if it was not
    failed."""
    changed = session.execute(
        update(LtiScoreOutbox)
        .where(LtiScoreOutbox.id == outbox_id, LtiScoreOutbox.status == OutboxStatus.FAILED)
        .values(status=OutboxStatus.PENDING, next_attempt_at=now, attempts=0, dispatched_at=None, lease_until=None)
        .execution_options(synchronize_session=False)
    )
    session.commit()
    return bool(changed.rowcount)  # type: ignore[attr-defined]
