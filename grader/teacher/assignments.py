"""Setting assignments: the form (exercises from the catalogue, window, attempts, policies) and its checks."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from datetime import datetime, timezone
from typing import Any

from sqlalchemy.orm import Session
from werkzeug.datastructures import MultiDict

from exercises import api as engine
from grader.models import AnswerKeyPolicy, Assignment, ScorePolicy

FORM_TIME = "%Y-%m-%dT%H:%M"  # what <input type="datetime-local"> sends; read as UTC
# Years a window may use. PostgreSQL stores any year but hands a time back in its session's time zone, where
# 9999-12-31T23:59 UTC falls in the year 10000 (east of UTC) and 0001-01-01 UTC before year 1 (west of it): the
# driver cannot read either, and every page showing the assignment would fail. No course needs more than these.
FORM_YEARS = (2000, 2999)
MAX_TITLE = 200
MAX_ATTEMPTS = 1000
SCORE_POLICIES = tuple(p.value for p in ScorePolicy)
KEY_POLICIES = tuple(p.value for p in AnswerKeyPolicy)


@dataclass(frozen=True)
class AssignmentForm:
    """The assignment form as typed, so it can be shown again with its errors."""

    title_zh: str = ""
    title_en: str = ""
    exercise_ids: tuple[str, ...] = ()
    opens_at: str = ""
    due_at: str = ""
    attempts: str = ""
    score_policy: str = ScorePolicy.BEST.value
    answer_key_policy: str = AnswerKeyPolicy.AFTER_DUE.value
    errors: dict[str, str] = field(default_factory=dict)  # form field -> teacher-page string key


@dataclass(frozen=True)
class AssignmentSettings:
    """Checked values ready to store on an Assignment."""

    title_zh: str
    title_en: str
    exercise_ids: list[str]
    opens_at: datetime | None
    due_at: datetime | None
    attempts_allowed: int | None
    score_policy: str
    answer_key_policy: str


def form_from_request(form: MultiDict[str, str]) -> AssignmentForm:
    """The posted form's values, trimmed."""
    return AssignmentForm(
        title_zh=form.get("title_zh", "").strip(), title_en=form.get("title_en", "").strip(),
        exercise_ids=tuple(form.getlist("exercise_ids")), opens_at=form.get("opens_at", "").strip(),
        due_at=form.get("due_at", "").strip(), attempts=form.get("attempts", "").strip(),
        score_policy=form.get("score_policy", ""), answer_key_policy=form.get("answer_key_policy", ""),
    )


def _form_time(moment: datetime | None) -> str:
    """A stored UTC time as the form shows it."""
    return moment.astimezone(timezone.utc).strftime(FORM_TIME) if moment else ""


def form_from_assignment(assignment: Assignment) -> AssignmentForm:
    """The form filled with an existing assignment's settings."""
    return AssignmentForm(
        title_zh=assignment.title_zh, title_en=assignment.title_en, exercise_ids=tuple(assignment.exercise_ids),
        opens_at=_form_time(assignment.opens_at), due_at=_form_time(assignment.due_at),
        attempts="" if assignment.attempts_allowed is None else str(assignment.attempts_allowed),
        score_policy=assignment.score_policy, answer_key_policy=assignment.answer_key_policy,
    )


class YearOutOfRange(ValueError):
    """A well-formed form time whose year is outside FORM_YEARS."""


def _parse_time(text: str) -> datetime | None:
    """A form time as aware UTC; raises ValueError for bad text (YearOutOfRange for a year outside FORM_YEARS)."""
    if not text:
        return None
    moment = datetime.strptime(text, FORM_TIME).replace(tzinfo=timezone.utc)
    if not FORM_YEARS[0] <= moment.year <= FORM_YEARS[1]:
        raise YearOutOfRange(text)
    return moment


def check(form: AssignmentForm) -> tuple[AssignmentSettings | None, AssignmentForm]:
    """Checked settings, or None and the form with an error key per bad field."""
    errors: dict[str, str] = {}
    if not form.title_zh or not form.title_en or max(len(form.title_zh), len(form.title_en)) > MAX_TITLE:
        errors["titles"] = "asg.err_title"
    graded = engine.exercise_ids(graded_only=True)
    chosen = [e for e in graded if e in form.exercise_ids]  # catalogue order; unknown ids are dropped
    if not chosen:
        errors["exercise_ids"] = "asg.err_exercises"
    times: dict[str, datetime | None] = {}
    for name in ("opens_at", "due_at"):
        try:
            times[name] = _parse_time(getattr(form, name))
        except YearOutOfRange:
            errors[name] = "asg.err_year"
        except ValueError:
            errors[name] = "asg.err_date"
    if times.get("opens_at") and times.get("due_at") and times["due_at"] <= times["opens_at"]:
        errors["due_at"] = "asg.err_window"
    attempts: int | None = None
    if form.attempts:
        is_number = form.attempts.isascii() and form.attempts.isdigit() and len(form.attempts) <= 4
        attempts = int(form.attempts) if is_number else 0
        if not 1 <= attempts <= MAX_ATTEMPTS:
            errors["attempts"] = "asg.err_attempts"
    if form.score_policy not in SCORE_POLICIES:
        errors["score_policy"] = "asg.err_choice"
    if form.answer_key_policy not in KEY_POLICIES:
        errors["answer_key_policy"] = "asg.err_choice"
    if errors:
        return None, replace(form, errors=errors)
    return AssignmentSettings(form.title_zh, form.title_en, chosen, times["opens_at"], times["due_at"], attempts,
                              form.score_policy, form.answer_key_policy), form


def save(session: Session, course_id: int, settings: AssignmentSettings, assignment: Assignment | None = None) -> Assignment:
    """Create an assignment in the course, or update ``assignment``; commits."""
    target = assignment or Assignment(course_id=course_id)
    for name, value in asdict(settings).items():
        setattr(target, name, value)
    session.add(target)
    session.commit()
    return target


def catalogue(lang: str) -> list[dict[str, Any]]:
    """Graded exercises for the picker: id, chapter and title in ``lang``."""
    return [{"id": e["id"], "chapter": e["chapter"], "title": e["title"][lang]}
            for e in engine.list_exercises() if e["graded"]]


def parse_seed(text: str | None) -> int | None:
    """A preview seed from the query string (default 0); None if it is not a valid seed."""
    if not text:
        return 0
    if not text.isascii() or not text.isdigit() or len(text) > 19 or int(text) >= 2**63:
        return None
    return int(text)


def preview(exercise_id: str, seed: int, lang: str) -> dict[str, Any]:
    """A sample variant with its answer key, for the teacher; raises engine.UnknownExercise."""
    return {"variant": engine.variant(exercise_id, seed, lang), "key": engine.answer_key(exercise_id, seed)}
