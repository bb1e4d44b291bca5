"""The API's use cases between parsing and serialising: variants, validation, submitting, waiting for a grade."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from exercises.i18n import Text
from grader import ratelimit
from grader.api import parking, queries, waiting
from grader.api.schemas_submissions import (
    SubmissionRequest,
    ValidateRequest,
    unknown_exercise_message,
)
from grader.api.waiting import notice_mark as notice_mark
from grader.api.waiting import wait_for_own as wait_for_own
from grader.api.waiting import wait_until_final as wait_until_final
from grader.api_errors import ApiError
from grader.auth import Principal
from grader.grading import validate_use_case
from grader.grading.submit_use_case import (
    Accepted,
    Caller,
    RateLimited,
    Refused,
    Replay,
    SubmitRequest,
    Unreadable,
    submit_answer,
    variant_assignment,
)
from grader.grading.validate_use_case import OwnVariant, studied_assignments, validate_answer
from grader.models import Assignment, Submission, utcnow

# HTTP status for each refusal code of the submission service.
REJECTION_STATUS: dict[str, int] = {
    "idempotency_conflict": 409,
    "attempts_exhausted": 409,
    "no_such_assignment": 404,
    "exercise_not_in_assignment": 422,
    "not_open": 403,
    "past_due": 403,
    "course_archived": 403,
}
# The field each refusal names: the assignment whose rules refused (its window, its attempts), or the field at fault.
REJECTION_FIELD = {
    "no_such_assignment": "assignment_id",
    "exercise_not_in_assignment": "exercise_id",
    "idempotency_conflict": "Idempotency-Key",
    "attempts_exhausted": "assignment_id",
    "not_open": "assignment_id",
    "past_due": "assignment_id",
    "course_archived": "assignment_id",
}


def known_exercise(exercise_id: str, field: str | None = "exercise_id") -> str:
    """``exercise_id`` if the engine grades it; 404 for a path segment (field None), 422 for a body field."""
    message = unknown_exercise_message(exercise_id)
    if message:
        status, code = (404, "not_found") if field is None else (422, "unknown_exercise")
        raise ApiError(status, code, message, field=field)
    return exercise_id


def own_variant(
    session: Session,
    principal: Principal,
    exercise_id: str,
    lang: str,
    now: datetime,
    assignment: Assignment | None = None,
) -> OwnVariant:
    """The caller's own variant (``validate_use_case.own_variant``, in ``assignment`` if given); 404 or 403
    ``not_open`` when it is refused."""
    own = validate_use_case.own_variant(session, _caller(principal), exercise_id, now, assignment)
    if isinstance(own, Refused):
        raise _variant_refusal(own, lang)
    return own


def named_assignment(
    session: Session, principal: Principal, exercise_id: str, assignment_id: int | None, lang: str
) -> Assignment | None:
    """The assignment whose variant the caller asks for (None if none is named); 404 naming ``assignment`` if it is
    not one of theirs that sets the exercise (worded alike whether it exists or not)."""
    found = variant_assignment(session, _caller(principal), exercise_id, assignment_id)
    if assignment_id is not None and found is None:
        raise ApiError(
            404,
            "not_found",
            Text(
                zh=f"你的课程里没有编号为 {assignment_id} 且包含练习 {exercise_id} 的作业。",
                en=f"None of your courses has an assignment {assignment_id} that sets exercise {exercise_id}.",
            ).get(lang),
            field="assignment",
        )
    return found


def _caller(principal: Principal, staff_here: bool = False) -> Caller:
    """The use cases' caller for ``principal``."""
    return Caller(principal.user_id, principal.is_admin, principal.is_staff, staff_here)


def _variant_refusal(refused: Refused, lang: str, assignment_field: str = "assignment") -> ApiError:
    """The API error for a refusal to show the caller's own variant: 404 if there is none for them, 422 naming
    ``assignment_field`` if the request must say which assignment's variant it means, else 403."""
    if refused.code == "assignment_required":
        return ApiError(422, refused.code, refused.message.get(lang), field=assignment_field)
    status = 404 if refused.code == "not_found" else 403
    return ApiError(status, refused.code, refused.message.get(lang), field="exercise_id")


def refuse_a_students_seed(principal: Principal, payload: Mapping[str, Any]) -> None:
    """403 for a seed sent by a student, whatever else the body holds (checked before its fields are read)."""
    if payload.get("seed") is not None and not principal.is_staff:  # null is "no seed", as for the other fields
        raise ApiError(
            403, "seed_not_allowed", "Students work on their assigned variant and may not send a seed.", field="seed"
        )


def check_submission(session: Session, principal: Principal, parsed: SubmissionRequest) -> SubmissionRequest:
    """``parsed`` if the caller may send it as it is: only admins and the assignment's teachers (any teacher outside
    an assignment) may choose the seed or leave out the assignment."""
    staff = queries.acts_as_staff_in(session, principal, parsed.assignment_id)
    if parsed.seed is not None and not staff:
        # A teacher enrolled in the course as a student works on their own variant, as every student does: a chosen
        # seed (the book's, say) would spend an attempt on numbers they already know.
        raise ApiError(
            403,
            "seed_not_allowed",
            "Only the course's teachers may send a seed with an assignment of "
            "it; its students work on their own variant: leave 'seed' out.",
            field="seed",
        )
    if parsed.assignment_id is None and not staff:
        # Outside an assignment nothing limits the attempts, and the per-part verdicts on the student's own variant
        # would give away the answers that the assignment's attempts and key rule protect.
        raise ApiError(
            422,
            "missing_field",
            "Students submit to an assignment: give its id in 'assignment_id'.",
            field="assignment_id",
        )
    if (
        parsed.seed is None
        and staff
        and not principal.is_admin
        and studied_assignments(session, principal.user_id, parsed.exercise_id)
    ):
        # Without a seed a teacher's try is graded on their own variant, a student's where they study the exercise:
        # as a teacher's row it would show that variant's seed and key.
        raise ApiError(
            422,
            "missing_field",
            f"You are enrolled as a student in a course that sets "
            f"{parsed.exercise_id}, so your own variant of it is a student's: send a 'seed' to try the "
            "exercise as a teacher, or submit to that course's assignment.",
            field="seed",
        )
    return parsed


def invalid_answer_error(reading: dict[str, Any]) -> ApiError:
    """The 422 for an answer the engine cannot read, carrying the engine's errors."""
    first = reading["errors"][0] if reading["errors"] else {}
    field = f"answer.{first['field']}" if first.get("field") else "answer"
    return ApiError(
        422,
        "invalid_answer",
        first.get("message") or "The answer cannot be read.",
        field=field,
        details={"errors": reading["errors"], "interpreted": reading["interpreted"]},
    )


def reading_for_preview(session: Session, principal: Principal, wanted: ValidateRequest) -> dict[str, Any]:
    """The engine's reading for the live preview (``validate_answer``). With an ``assignment_id`` of a course the
    caller does not teach, a teacher reads as its students do."""
    caller = _caller(principal, queries.acts_as_staff_in(session, principal, wanted.assignment_id))
    outcome = validate_answer(
        session,
        caller,
        validate_use_case.ValidateRequest(
            wanted.exercise_id, wanted.answer, wanted.lang, wanted.seed, wanted.assignment_id
        ),
        utcnow(),
    )
    if isinstance(outcome, Refused):
        raise _variant_refusal(outcome, wanted.lang, "assignment_id")
    return outcome.reading


def create_submission(
    session: Session, principal: Principal, request: SubmissionRequest, key: str | None
) -> tuple[Submission, bool]:
    """Submit through ``submit_answer``; returns the submission and whether it is a replay of an earlier key, or
    raises the API error for a refusal, the rate limit or an unreadable answer."""
    resumed = parking.resumed()
    if resumed is not None and resumed.created is not None:
        # The re-run of a parked POST (grader.api.parking): the submission is stored already, and the notice
        # that woke it most likely carried its grade.
        submission = waiting.graded_from_notice(session, resumed)
        if submission is None:
            submission = queries.own_submission(session, principal, resumed.created[0])
        return submission, resumed.created[1]
    outcome = submit_answer(
        session,
        _caller(principal),
        SubmitRequest(
            exercise_id=request.exercise_id,
            answer=request.answer,
            lang=request.lang,
            assignment_id=request.assignment_id,
            seed=request.seed,
            idempotency_key=key,
        ),
        utcnow(),
    )
    match outcome:
        case Accepted(submission) | Replay(submission):
            parking.note_created(submission.id, isinstance(outcome, Replay))
            return submission, isinstance(outcome, Replay)
        case Refused(code, message):
            raise ApiError(
                REJECTION_STATUS.get(code, 409), code, message.get(request.lang), field=REJECTION_FIELD.get(code)
            )
        case RateLimited(retry_after):
            raise ratelimit.submission_limit_error(retry_after)
        case Unreadable(reading):
            raise invalid_answer_error(reading)
