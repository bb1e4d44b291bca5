"""The exercise page: the student's variant as tables, the answer form, attempts, key and history; plain-form submit."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from exercises import api as engine
from grader.grading import policy
from grader.grading.student_record import student_record
from grader.grading.submit_use_case import (
    Accepted,
    Caller,
    RateLimited,
    Refused,
    Replay,
    SubmitRequest,
    Unreadable,
    submit_answer,
)
from grader.grading.terms import StudentTerms
from grader.grading.variant_seeds import seed_for
from grader.i18n import t
from grader.models import AnswerKeyPolicy, Assignment, Submission, SubmissionStatus, User
from grader.ui.data_view import Block, PagePrompt
from grader.ui.exercise_catalogue import exercise_entry
from grader.ui.page_helpers import NotVisible
from grader.web.attempts import attempt_numbers
from grader.web.exercise_variant import FieldView, field_views, variant_view, worked_solution
from grader.web.services import (
    AssignmentView,
    ExerciseRow,
    assignment_view,
    locked_for,
    teaches_course,
)

FIELD_PREFIX = "answer."
PENDING_STATUSES = frozenset({SubmissionStatus.QUEUED, SubmissionStatus.GRADING})


@dataclass(frozen=True)
class ExercisePage:
    """Everything the exercise template shows."""

    exercise_id: str
    title: str
    prompt: PagePrompt
    blocks: tuple[Block, ...]
    fields: tuple[FieldView, ...]
    progress: AssignmentView
    attempts_used: int
    attempts_left: int | None
    refusal: str | None  # why submitting is not possible now ("closed", "not_open", "no_attempts"), else None
    key_policy: str
    answer_key: Mapping[str, str] | None  # field -> the key's value as the page writes answers
    key_note: str  # UI string key: why the answer key is hidden (unused while it is shown)
    latest: Submission | None
    locked: bool = False
    worked: tuple[Mapping[str, Any], ...] = ()  # the key's solution as the engine's named steps (shown with the key)
    departed_at: int | None = None  # the step where the latest graded, not fully right answer leaves that solution
    latest_attempt: int | None = None  # the attempt number of ``latest`` (None: it used no attempt)
    previous: ExerciseRow | None = None  # the assignment's graded exercise before this one
    next: ExerciseRow | None = None  # and the one after it


@dataclass(frozen=True)
class LockedPage:
    """An exercise of an assignment not open yet, as a student sees it: its title and when it opens, nothing more."""

    exercise_id: str
    title: str
    progress: AssignmentView
    opens_at: datetime | None
    fields: tuple[FieldView, ...] = ()
    locked: bool = True
    previous: ExerciseRow | None = None
    next: ExerciseRow | None = None


def graded_exercise(assignment: Assignment, exercise_id: str) -> dict[str, Any]:
    """The engine entry of a graded exercise that belongs to the assignment; NotVisible otherwise."""
    entry = exercise_entry(exercise_id)
    if exercise_id not in assignment.exercise_ids or entry is None or not entry["graded"]:
        raise NotVisible(exercise_id)
    return entry


def neighbours(progress: AssignmentView, exercise_id: str) -> tuple[ExerciseRow | None, ExerciseRow | None]:
    """The graded exercises before and after ``exercise_id`` in the assignment's order (None at either end)."""
    graded = [row for row in progress.rows if row.graded]
    index = next(i for i, row in enumerate(graded) if row.exercise_id == exercise_id)
    return (graded[index - 1] if index > 0 else None, graded[index + 1] if index + 1 < len(graded) else None)


def _refusal(state: str, attempts_left: int | None) -> str | None:
    """Why the student cannot submit right now (the assignment's ``state`` for them), or None."""
    if state not in ("open", "late"):
        return state
    return "no_attempts" if attempts_left == 0 else None


def key_note(
    assignment: Assignment, terms: StudentTerms, attempts_left: int | None, last_status: str | None, state: str
) -> str:
    """The UI string that says when a hidden answer key will show (or that it never will), by the key rule and the
    student's own ``terms``."""
    policy = assignment.answer_key_policy
    if policy == AnswerKeyPolicy.NEVER:
        return "exercise.key_never"
    if policy == AnswerKeyPolicy.AFTER_DUE and terms.due_at is None:
        return "exercise.key_no_due"
    if policy == AnswerKeyPolicy.AFTER_DUE and state != "closed":
        return "exercise.key_after_due"
    if policy == AnswerKeyPolicy.AFTER_ATTEMPTS and terms.attempts_allowed is None:
        return "exercise.key_unlimited"
    # An attempt still queued or grading counts as used, but the key waits for its grade (an error gives it back).
    if policy == AnswerKeyPolicy.AFTER_ATTEMPTS and (attempts_left != 0 or last_status in PENDING_STATUSES):
        return "exercise.key_after_attempts"
    # This assignment's own rule allows the key: another assignment with the same exercise (same variant) hides it.
    return "exercise.key_elsewhere"


@dataclass(frozen=True)
class Standing:
    """Where the user stands on an assignment (its progress) and on one of its exercises (its row)."""

    progress: AssignmentView
    row: ExerciseRow


def exercise_standing(
    session: Session,
    user: User,
    assignment: Assignment,
    exercise_id: str,
    lang: str,
    now: datetime,
    staff: bool | None = None,
) -> Standing:
    """The user's progress on ``assignment`` and their row for ``exercise_id`` (NotVisible: not one of its graded
    exercises), as the exercise page shows them (``staff``: the user teaches the course, if known)."""
    graded_exercise(assignment, exercise_id)
    progress = assignment_view(session, user, assignment, lang, now, staff=staff)
    return Standing(progress, next(r for r in progress.rows if r.exercise_id == exercise_id))


def exercise_page(
    session: Session,
    user: User,
    assignment: Assignment,
    exercise_id: str,
    lang: str,
    now: datetime,
    staff: bool | None = None,
) -> ExercisePage | LockedPage:
    """The page for one exercise of one assignment, with the student's own variant (seed fixed on first view);
    before the assignment opens, a student gets the locked page (the same variant may show through an open one).
    ``staff``: the user teaches the course, if known (``visible_assignment_as``)."""
    entry = graded_exercise(assignment, exercise_id)
    # Staff here means teaching this course: a teacher enrolled as a student in it sees what students see.
    staff = teaches_course(session, user, assignment.course_id) if staff is None else staff
    # Read once: the progress, the attempts, the history and the key rule are all made of it.
    record = student_record(session, user.id, assignment)
    progress = assignment_view(session, user, assignment, lang, now, staff=staff, record=record)
    previous, following = neighbours(progress, exercise_id)
    if progress.locked:
        return LockedPage(
            exercise_id, entry["title"][lang], progress, assignment.opens_at, previous=previous, next=following
        )
    seed = seed_for(session, user.id, exercise_id, assignment)
    shown = variant_view(exercise_id, seed, lang)
    row = next(r for r in progress.rows if r.exercise_id == exercise_id)
    key_visible = policy.answer_key_visible(
        session, user.id, assignment, exercise_id, now, staff=staff, terms=record.terms
    )
    history = record.history(exercise_id)
    latest = history[0] if history else None
    worked, departed_at = worked_solution(exercise_id, seed, lang, latest) if key_visible else ((), None)
    return ExercisePage(
        exercise_id=exercise_id,
        title=entry["title"][lang],
        prompt=shown.prompt,
        blocks=shown.blocks,
        fields=shown.fields,
        progress=progress,
        attempts_used=row.attempts_used,
        attempts_left=row.attempts_left,
        refusal=_refusal(progress.state, row.attempts_left),
        key_policy=assignment.answer_key_policy,
        answer_key=engine.answer_key_text(exercise_id, seed, lang) if key_visible else None,
        key_note=key_note(assignment, progress.terms, row.attempts_left, row.last_status, progress.state),
        latest=latest,
        worked=worked,
        departed_at=departed_at,
        latest_attempt=attempt_numbers(history).get(latest.id) if latest else None,
        previous=previous,
        next=following,
    )


def form_from_latest(page: ExercisePage | LockedPage) -> dict[str, str]:
    """The form's fields filled with the latest answer as it was typed, so that changing one part of it does not
    mean typing the others again (a part sent as JSON by an API client is shown as JSON)."""
    latest = getattr(page, "latest", None)
    if latest is None or not isinstance(latest.raw_answer, dict):
        return {}
    return {
        FIELD_PREFIX + f.name: value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        for f in page.fields
        if (value := latest.raw_answer.get(f.name)) is not None
    }


def answer_from_form(form: Mapping[str, str], fields: tuple[FieldView, ...]) -> dict[str, str]:
    """The answer object {field: typed text} from a posted form (inputs are named ``answer.<field>``)."""
    return {f.name: form.get(FIELD_PREFIX + f.name, "") for f in fields}


@dataclass(frozen=True)
class FormOutcome:
    """What a plain-form submit did: a submission id, or the validation report / refusal to show instead."""

    submission_id: int | None
    validation: Mapping[str, Any] | None = None
    refusal: str | None = None
    status: int = 422  # of the page shown instead of the submission


def submit_form(
    session: Session,
    user: User,
    assignment: Assignment,
    exercise_id: str,
    form: Mapping[str, str],
    lang: str,
    now: datetime,
) -> FormOutcome:
    """Submit the posted form through ``submit_answer`` (an unreadable answer costs no attempt and stores nothing)
    and say what the page shows instead of the submission if it was not accepted."""
    entry = graded_exercise(assignment, exercise_id)
    if locked_for(session, user, assignment, now):
        # Refused before reading: reading on the student's variant could tell what the opening date holds back.
        return FormOutcome(None, status=403)
    key = form.get("idempotency_key") or None
    request = SubmitRequest(
        exercise_id,
        answer_from_form(form, field_views(entry["fields"], lang)),
        lang,
        assignment_id=assignment.id,
        idempotency_key=key[:128] if key else None,
    )
    match submit_answer(session, Caller(user.id), request, now):
        case Accepted(submission) | Replay(submission):
            return FormOutcome(submission.id)
        case Refused(code, message):
            # Archived is read-only, as the API answers it; the other rules refuse this answer, now.
            return FormOutcome(None, refusal=message.get(lang), status=403 if code == "course_archived" else 422)
        case RateLimited(retry_after):
            return FormOutcome(None, refusal=t("exercise.rate_limited", lang, seconds=retry_after), status=429)
        case Unreadable(reading):
            return FormOutcome(None, validation=reading)
