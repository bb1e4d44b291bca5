"""Submitting an answer, the one use case behind the API's POST /submissions and the exercise page's form.

Both transports build a ``SubmitRequest``, call ``submit_answer`` and map its outcome to their own response; the
order of the checks (replay, rate limit, reading, the assignment's rules) is decided here only.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from exercises import api as engine
from exercises.i18n import Text
from grader import ratelimit
from grader.grading import access, policy, submissions
from grader.grading.refusals import SubmissionRejected
from grader.grading.variant_seeds import seed_for
from grader.models import Assignment, Submission


@dataclass(frozen=True)
class Caller:
    """Who asks (signed in), with the powers the transport's access rules gave them; submitting needs only the id
    (what a caller may send was checked by the transport)."""

    user_id: int
    is_admin: bool = False
    is_staff: bool = False  # a teacher's or an admin's account
    staff_here: bool = False  # staff powers over the request's assignment (or, with none, their own tries)


@dataclass(frozen=True)
class SubmitRequest:
    """One answer to submit: ``seed`` None means the caller's own variant."""

    exercise_id: str
    answer: dict[str, Any]
    lang: str
    assignment_id: int | None = None
    seed: int | None = None
    idempotency_key: str | None = None


@dataclass(frozen=True)
class Accepted:
    """A new submission, committed and sent for grading."""

    submission: Submission


@dataclass(frozen=True)
class Replay:
    """The earlier submission made with the request's idempotency key: nothing new was stored or sent."""

    submission: Submission


@dataclass(frozen=True)
class Refused:
    """Not accepted, and nothing stored: an assignment rule or a reused key (``code`` and ``message`` of the
    SubmissionRejected)."""

    code: str
    message: Text


@dataclass(frozen=True)
class RateLimited:
    """Not accepted: the caller has submitted too often; they may again in ``retry_after`` seconds."""

    retry_after: int


@dataclass(frozen=True)
class Unreadable:
    """Not accepted: the engine cannot read the answer (its ``reading``, with the errors); no attempt is used."""

    reading: dict[str, Any]


SubmitOutcome = Accepted | Replay | Refused | RateLimited | Unreadable


def variant_assignment(
    session: Session, caller: Caller, exercise_id: str, assignment_id: int | None
) -> Assignment | None:
    """Assignment ``assignment_id`` if it sets ``exercise_id`` in a course of the caller's (any course for an
    admin): the one whose variant (its own, with fresh variants) the caller works on there; else None."""
    found = session.get(Assignment, assignment_id) if assignment_id is not None else None
    if found is None or exercise_id not in found.exercise_ids:
        return None
    return found if caller.is_admin or access.is_member(session, caller.user_id, found.course_id) else None


def submit_answer(session: Session, caller: Caller, request: SubmitRequest, now: datetime) -> SubmitOutcome:
    """Accept ``request`` for grading under the assignment's rules, or say why not.

    A replay is answered first, before the rate limit counts: it is not a new submission, and a client retrying
    after a lost reply must get its submission back, not a refusal for an attempt that was already stored.
    """
    seed = (
        request.seed
        if request.seed is not None
        else seed_for(
            session,
            caller.user_id,
            request.exercise_id,
            variant_assignment(session, caller, request.exercise_id, request.assignment_id),
        )
    )
    key = request.idempotency_key
    try:
        if key is not None:
            earlier = submissions.replay_of(
                session,
                user_id=caller.user_id,
                idempotency_key=key,
                exercise_id=request.exercise_id,
                seed=seed,
                lang=request.lang,
                raw_answer=request.answer,
                assignment_id=request.assignment_id,
            )
            if earlier is not None:
                return Replay(earlier)
        retry_after = ratelimit.submission_retry_after(caller.user_id)
        if retry_after:
            return RateLimited(retry_after)
        reading = engine.validate(request.exercise_id, request.answer, request.lang, seed)
        if reading["status"] != "valid":
            # An answer the assignment would refuse anyway gets that refusal instead: the reading's errors, made on
            # the student's variant, could tell what an assignment not open yet holds back (how many items it has).
            if request.assignment_id is not None:
                _check_the_rules(session, caller, request, now)
            return Unreadable(reading)
        submission, replay = submissions.accept(
            session,
            user_id=caller.user_id,
            exercise_id=request.exercise_id,
            seed=seed,
            raw_answer=request.answer,
            parsed_answer=reading["parsed"],
            lang=request.lang,
            assignment_id=request.assignment_id,
            idempotency_key=key,
        )
    except SubmissionRejected as exc:
        return Refused(exc.code, exc.message)
    return Replay(submission) if replay else Accepted(submission)


def _check_the_rules(session: Session, caller: Caller, request: SubmitRequest, now: datetime) -> None:
    """Raise the SubmissionRejected of the assignment's rule that refuses this submission, if one does."""
    assignment = session.get(Assignment, request.assignment_id)
    if assignment is None:
        raise SubmissionRejected("no_such_assignment", policy.NO_SUCH_ASSIGNMENT)
    policy.check_can_submit(session, caller.user_id, assignment, request.exercise_id, now)
