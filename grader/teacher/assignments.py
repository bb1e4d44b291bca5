"""Setting assignments: the form (exercises from the catalogue, window, attempts, policies) and its checks.

Opening and due times are typed in the course's time zone and stored as UTC instants (see grader.teacher.zones).
"""

from __future__ import annotations

import copy
from dataclasses import asdict, dataclass, field, fields, replace
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, func, select
from sqlalchemy.orm import Session
from werkzeug.datastructures import MultiDict

from exercises import api as engine
from grader.grading import access
from grader.grading.points import points_of
from grader.grading.score_changes import counted_scores_changed
from grader.models import AnswerKeyPolicy, Assignment, ScorePolicy, Submission, utcnow
from grader.models.courses import DEFAULT_TIME_ZONE
from grader.teacher.late_form import LateSettings, check_late
from grader.teacher.points_form import FIELD_PREFIX as POINTS_PREFIX
from grader.teacher.points_form import check_points
from grader.teacher.policy_form import check_policy, policy_texts
from grader.teacher.zones import FORM_TIME, LocalTimeError, form_time, to_utc
from grader.ui.data_view import page_data_blocks, page_prompt
from grader.whole_numbers import whole_number

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
    late_until: str = ""  # empty: no late work
    late_per_day: str = ""
    late_cap: str = ""
    points: dict[str, str] = field(default_factory=dict)  # exercise id -> points as typed
    partial_credit: str = ""  # "on" / "off"; empty: the assignment's setting (grader.teacher.policy_form)
    follow_through: str = ""  # full / half / none; empty likewise
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
    late_until: datetime | None = None
    late_penalty_per_day: float = 0.0
    late_cap: float | None = None
    exercise_points: dict[str, float] = field(default_factory=dict)
    partial_credit: bool = True
    follow_through_credit: str = "full"


def form_from_request(form: MultiDict[str, str]) -> AssignmentForm:
    """The posted form's values, trimmed."""
    return AssignmentForm(
        title_zh=form.get("title_zh", "").strip(),
        title_en=form.get("title_en", "").strip(),
        exercise_ids=tuple(form.getlist("exercise_ids")),
        opens_at=form.get("opens_at", "").strip(),
        due_at=form.get("due_at", "").strip(),
        attempts=form.get("attempts", "").strip(),
        score_policy=form.get("score_policy", ""),
        answer_key_policy=form.get("answer_key_policy", ""),
        late_until=form.get("late_until", "").strip(),
        late_per_day=form.get("late_per_day", "").strip(),
        late_cap=form.get("late_cap", "").strip(),
        points={
            name.removeprefix(POINTS_PREFIX): value.strip()
            for name, value in form.items()
            if name.startswith(POINTS_PREFIX)
        },
        partial_credit=form.get("partial_credit", "").strip(),
        follow_through=form.get("follow_through", "").strip(),
    )


def form_from_assignment(assignment: Assignment) -> AssignmentForm:
    """The form filled with an existing assignment's settings, its times in its course's zone."""
    zone = assignment.course.time_zone
    return AssignmentForm(
        title_zh=assignment.title_zh,
        title_en=assignment.title_en,
        exercise_ids=tuple(assignment.exercise_ids),
        opens_at=form_time(assignment.opens_at, zone),
        due_at=form_time(assignment.due_at, zone),
        attempts="" if assignment.attempts_allowed is None else str(assignment.attempts_allowed),
        score_policy=assignment.score_policy,
        answer_key_policy=assignment.answer_key_policy,
        late_until=form_time(assignment.late_until, zone),
        late_per_day="" if not assignment.late_penalty_per_day else f"{assignment.late_penalty_per_day:g}",
        late_cap="" if assignment.late_cap is None else f"{assignment.late_cap:g}",
        points={exercise_id: f"{value:g}" for exercise_id, value in points_of(assignment).items()},
        partial_credit=policy_texts(assignment)[0],
        follow_through=policy_texts(assignment)[1],
    )


class YearOutOfRange(ValueError):
    """A well-formed form time whose year is outside FORM_YEARS."""


def _parse_time(text: str, zone: str) -> datetime | None:
    """A form time typed in ``zone`` as aware UTC; raises ValueError for bad text (YearOutOfRange for a year outside
    FORM_YEARS, LocalTimeError for a time the zone skips or repeats)."""
    if not text:
        return None
    local = datetime.strptime(text, FORM_TIME)
    if not FORM_YEARS[0] <= local.year <= FORM_YEARS[1]:
        raise YearOutOfRange(text)
    return to_utc(local, zone)


def _time_field(text: str, zone: str, stored: datetime | None) -> datetime | None:
    """The instant a time field sets. Left as the edit form showed it, it keeps the stored instant exactly (its
    seconds, and a time in an hour the zone repeats, which the form alone could not tell apart)."""
    if stored is not None and text == form_time(stored, zone):
        return stored
    return _parse_time(text, zone)


TIME_ERRORS = {"gap": "asg.err_gap_", "repeated": "asg.err_repeated_"}  # + the field's name


def check(
    form: AssignmentForm, zone: str = DEFAULT_TIME_ZONE, assignment: Assignment | None = None
) -> tuple[AssignmentSettings | None, AssignmentForm]:
    """Checked settings (times typed in ``zone``, the course's), or None and the form with an error key per bad
    field; ``assignment`` is the one being edited, if any."""
    errors: dict[str, str] = {}
    if not form.title_zh or not form.title_en or max(len(form.title_zh), len(form.title_en)) > MAX_TITLE:
        errors["titles"] = "asg.err_title"
    graded = engine.exercise_ids(graded_only=True)
    chosen = [e for e in graded if e in form.exercise_ids]  # catalogue order; unknown ids are dropped
    if not chosen:
        errors["exercise_ids"] = "asg.err_exercises"
    points = check_points(form.points, chosen, errors)
    times: dict[str, datetime | None] = {}
    for name in ("opens_at", "due_at"):
        try:
            times[name] = _time_field(getattr(form, name), zone, getattr(assignment, name) if assignment else None)
        except YearOutOfRange:
            errors[name] = "asg.err_year"
        except LocalTimeError as exc:
            errors[name] = TIME_ERRORS[exc.kind] + name
        except ValueError:
            errors[name] = "asg.err_date"
    opens, due = times.get("opens_at"), times.get("due_at")
    if opens and due and due <= opens:
        errors["due_at"] = "asg.err_window"
    attempts: int | None = None
    if form.attempts:
        attempts = whole_number(form.attempts, 9999) or 0
        if not 1 <= attempts <= MAX_ATTEMPTS:
            errors["attempts"] = "asg.err_attempts"
    if form.score_policy not in SCORE_POLICIES:
        errors["score_policy"] = "asg.err_choice"
    if form.answer_key_policy not in KEY_POLICIES:
        errors["answer_key_policy"] = "asg.err_choice"
    kept_partial, kept_follow = policy_texts(assignment)
    form = replace(
        form, partial_credit=form.partial_credit or kept_partial, follow_through=form.follow_through or kept_follow
    )
    grading = check_policy(form.partial_credit, form.follow_through, errors)
    late = LateSettings()
    if "due_at" not in errors:  # the close is checked against the due date, which must be readable first
        stored_close = assignment.late_until if assignment else None
        late = check_late(
            {"late_until": form.late_until, "late_per_day": form.late_per_day, "late_cap": form.late_cap},
            times.get("due_at"),
            lambda text: _time_field(text, zone, stored_close),
            errors,
        )
    if errors:
        return None, replace(form, errors=errors)
    return AssignmentSettings(
        form.title_zh,
        form.title_en,
        chosen,
        times["opens_at"],
        times["due_at"],
        attempts,
        form.score_policy,
        form.answer_key_policy,
        late.late_until,
        late.late_penalty_per_day,
        late.late_cap,
        points,
        grading.partial_credit,
        grading.follow_through_credit,
    ), form


# Settings that change no student's counted score: a change of only these sends nothing to an LMS gradebook (a new
# grading policy changes scores only through the regrade that applies it, which announces each change itself).
_NOT_COUNTED = frozenset({"title_zh", "title_en", "answer_key_policy", "partial_credit", "follow_through_credit"})


def _counted_settings(target: Assignment) -> dict[str, object]:
    """A copy of the assignment's settings that a counted score depends on (policy, exercises, points, times)."""
    return {
        item.name: copy.copy(getattr(target, item.name))
        for item in fields(AssignmentSettings)
        if item.name not in _NOT_COUNTED
    }


def save(
    session: Session, course_id: int, settings: AssignmentSettings, assignment: Assignment | None = None
) -> Assignment:
    """Create an assignment in the course, or update ``assignment``; commits (an edit may change every student's
    counted score: the late policy, the score policy, the exercise list)."""
    # A new assignment gets fresh variants; an existing one keeps its mode, so no student's variant changes.
    target = assignment or Assignment(course_id=course_id, fresh_variants=True)
    counted_before = _counted_settings(target) if assignment is not None else None
    for name, value in asdict(settings).items():
        setattr(target, name, value)
    session.add(target)
    if counted_before is not None and counted_before != _counted_settings(target):
        session.flush()
        counted_scores_changed(session, target.id, None, utcnow())  # every student's counted total may move
    session.commit()
    return target


def _by_staff(assignment: Assignment) -> ColumnElement[bool]:
    """SQL condition: a submission by someone who acts as staff of the assignment's course (grader.grading.access)."""
    return Submission.user_id.in_(access.course_staff_user_ids(assignment.course_id))


def has_student_work(session: Session, assignment: Assignment) -> bool:
    """True if anyone but the course's teachers submitted to the assignment (any status): students' work, which
    deleting the assignment would cut off from it. A former student's submissions count too."""
    return (
        session.scalar(
            select(Submission.id).where(Submission.assignment_id == assignment.id, ~_by_staff(assignment)).limit(1)
        )
        is not None
    )


def staff_tries(session: Session, assignment: Assignment) -> int:
    """How many submissions the course's teachers made to the assignment (trying it out as a student would)."""
    return (
        session.scalar(
            select(func.count(Submission.id)).where(Submission.assignment_id == assignment.id, _by_staff(assignment))
        )
        or 0
    )


def delete(session: Session, assignment_id: int) -> bool:
    """Delete the assignment if no student submitted to it; commits. False (nothing deleted) if one did.

    Teachers' own tries do not stop it: the database keeps them, detached (submissions.assignment_id is ON DELETE
    SET NULL), in their authors' submission history. The row is locked first (PostgreSQL): a submission being stored
    for it holds a key-share lock on it until committed, so the check below sees it, and none can be stored while the
    delete is under way.
    """
    found = session.scalar(select(Assignment).where(Assignment.id == assignment_id).with_for_update())
    if found is None:
        session.rollback()
        return True
    if has_student_work(session, found):
        session.rollback()
        return False
    session.delete(found)
    session.commit()
    return True


def catalogue(lang: str) -> list[dict[str, Any]]:
    """Graded exercises for the picker: id, chapter and title in ``lang``."""
    return [
        {"id": e["id"], "chapter": e["chapter"], "title": e["title"][lang]}
        for e in engine.list_exercises()
        if e["graded"]
    ]


def parse_seed(text: str | None) -> int | None:
    """A preview seed from the query string (default 0); None if it is not a valid seed."""
    if not text:
        return 0
    return whole_number(text, engine.SEED_LIMIT - 1)


def preview(exercise_id: str, seed: int, lang: str) -> dict[str, Any]:
    """A sample variant, for the teacher: its prompt and data as the student's page shows them, and its answer key
    as students see it once it shows (values written as answers are, by field label); raises engine.UnknownExercise."""
    variant = engine.variant(exercise_id, seed, lang)
    prompt = page_prompt(exercise_id, seed, lang, variant["data"])
    return {
        "variant": variant,
        "key": engine.answer_key_text(exercise_id, seed, lang),
        "labels": {f["name"]: f["label"][lang] for f in variant["fields"]},
        "prompt": prompt,
        "blocks": page_data_blocks(prompt, variant["data"], lang, exercise_id),
    }
