"""JSON shapes of the API's resources, with what each caller may see (seeds and answer keys) decided here."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from exercises import api as engine
from grader.api import queries
from grader.api.changes import Change
from grader.api.gradebook import GradebookRow, Student, total_score
from grader.auth import Principal
from grader.grading import policy
from grader.grading.feedback import feedback_in
from grader.grading.overrides import overrides_of
from grader.grading.submissions import serialise_submission
from grader.grading.terms import StudentTerms, student_terms
from grader.i18n import t
from grader.models import Assignment, Course, ScoreOverride, Submission, SubmissionStatus, User, iso_timestamp
from grader.models.overrides import TOTAL


def answer_key_allowed(
    session: Session, principal: Principal, submission: Submission, now: datetime, staff: bool
) -> bool:
    """Staff of the submission's assignment see its key; anyone else only when the assignment's key rule allows.

    ``staff``: ``queries.acts_as_staff_in`` the row's assignment (a teacher's student-role token, or a teacher
    enrolled in that course as a student, sees what a student would).
    """
    if staff:
        return True
    if submission.assignment is None:
        return False
    return policy.answer_key_visible(session, principal.user_id, submission.assignment, submission.exercise_id, now)


def _owner_json(principal: Principal, submission: Submission) -> dict[str, Any]:
    """Who made the submission; the caller's own rows need no look-up of the owner."""
    if submission.user_id == principal.user_id:
        return {"id": principal.user_id, "username": principal.username}
    return {"id": submission.user.id, "username": submission.user.username}


def submission_json(
    session: Session, principal: Principal, submission: Submission, now: datetime, feedback_lang: str | None = None
) -> dict[str, Any]:
    """A submission as the caller may see it: only staff of its assignment see the seed, others the key only when
    allowed.

    With ``feedback_lang`` the feedback texts come in that language (the verdict is the stored one).
    """
    data = serialise_submission(submission)
    shown = feedback_in(submission, feedback_lang or submission.lang)
    data["parts"], data["errors"], data["feedback_lang"] = shown.parts, shown.errors, shown.lang
    data["user"] = _owner_json(principal, submission)
    staff = queries.acts_as_staff_in(session, principal, submission.assignment_id)
    if not staff:
        # With the seed, anyone holding the engine could compute the answer; a student's seed stays server-side.
        data.pop("seed", None)
        data.pop("seed_text", None)
        # An exception's text is for staff; students learn only that grading failed, once it has for good (a
        # queued row may carry the message of a failed try that will be retried, and still counts as an attempt).
        failed = data["status"] == SubmissionStatus.ERROR and data.get("error_message")
        data["error_message"] = t("exercise.grading_error", data["feedback_lang"]) if failed else None  # as pages say
    if answer_key_allowed(session, principal, submission, now, staff):
        data["answer_key"] = engine.answer_key(submission.exercise_id, submission.seed)
    return data


def submission_summary(principal: Principal, submission: Submission, staff: bool) -> dict[str, Any]:
    """A listing row: no answer, no parts, no key; the seed for ``staff`` of its assignment (``staff_row_ids``)."""
    row = {
        "id": submission.id,
        "exercise_id": submission.exercise_id,
        "assignment_id": submission.assignment_id,
        "user": _owner_json(principal, submission),
        "status": submission.status,
        "score": submission.score,
        "engine_version": submission.engine_version,
        "created_at": iso_timestamp(submission.created_at),
        "finished_at": iso_timestamp(submission.finished_at),
    }
    if staff:
        row["seed"], row["seed_text"] = submission.seed, str(submission.seed)
    return row


def user_json(user: User, role: str) -> dict[str, Any]:
    """The caller's own account as /me shows it."""
    return {
        "id": user.id,
        "username": user.username,
        "display_name": user.display_name,
        "role": role,
        "account_role": user.role,
    }


def course_json(course: Course, role: str, lang: str) -> dict[str, Any]:
    """A course with the caller's part in it and its assignments."""
    return {
        "id": course.id,
        "code": course.code,
        "title": course.title,
        "role": role,
        "time_zone": course.time_zone,
        "archived_at": iso_timestamp(course.archived_at),
        "session_hours": course.session_hours,
        "assignments": [assignment_json(a, lang) for a in course.assignments],
    }


def assignment_json(assignment: Assignment, lang: str) -> dict[str, Any]:
    """An assignment's public settings."""
    return {
        "id": assignment.id,
        "course_id": assignment.course_id,
        "title": assignment.title(lang),
        "exercise_ids": list(assignment.exercise_ids),
        "opens_at": iso_timestamp(assignment.opens_at),
        "due_at": iso_timestamp(assignment.due_at),
        "attempts_allowed": assignment.attempts_allowed,
        "score_policy": assignment.score_policy,
        "answer_key_policy": assignment.answer_key_policy,
        "late_until": iso_timestamp(assignment.late_until),
        "late_penalty_per_day": assignment.late_penalty_per_day,
        "late_cap": assignment.late_cap,
        "fresh_variants": assignment.fresh_variants,
        "partial_credit": assignment.partial_credit,
        "follow_through_credit": assignment.follow_through_credit,
        "updated_at": iso_timestamp(assignment.updated_at),
    }


def progress_json(session: Session, student: User, assignment: Assignment, lang: str) -> dict[str, Any]:
    """Per exercise: attempts used and left, the counted score, and the best and last graded scores."""
    graded = session.execute(
        select(Submission.exercise_id, Submission.score)
        .where(
            Submission.user_id == student.id,
            Submission.assignment_id == assignment.id,
            Submission.status == SubmissionStatus.GRADED,
        )
        .order_by(Submission.id)
    ).all()
    exercises = []
    for item in policy.assignment_progress(session, student, assignment):
        scores = [score for exercise_id, score in graded if exercise_id == item.exercise_id]
        exercises.append(
            {
                "exercise_id": item.exercise_id,
                "attempts_used": item.attempts_used,
                "attempts_left": item.attempts_left,
                "score": item.score,
                "best_score": policy.counted_score(scores, "best"),
                "last_score": policy.counted_score(scores, "last"),
                "last_status": item.last_status,
                "override": None if item.override is None else override_json(item.override),
                "late": None
                if item.late is None
                else {"days": item.late.days, "penalty_percent": item.late.penalty_percent, "cap": item.late.cap},
            }
        )
    return {
        "assignment": assignment_json(assignment, lang),
        "student": {"id": student.id, "username": student.username},
        "exercises": exercises,
        "terms": terms_json(student_terms(session, assignment, student.id)),
        "total_override": _total_override(session, assignment, student.id),
    }


def _total_override(session: Session, assignment: Assignment, student_id: int) -> dict[str, Any] | None:
    """The teacher's override of the student's assignment total, if any."""
    found = overrides_of(session, assignment, [student_id]).get((student_id, TOTAL))
    return None if found is None else override_json(found)


def override_json(override: ScoreOverride) -> dict[str, Any]:
    """A teacher's override as the API shows it (``exercise_id`` "" is the assignment's total)."""
    return {
        "student_id": override.user_id,
        "exercise_id": override.exercise_id,
        "score": override.score,
        "reason": override.reason,
        "set_by": override.set_by,
        "updated_at": iso_timestamp(override.updated_at),
    }


def terms_json(terms: StudentTerms) -> dict[str, Any]:
    """A student's own due date and attempt limit on an assignment (an extension applied)."""
    return {
        "due_at": iso_timestamp(terms.due_at),
        "attempts_allowed": terms.attempts_allowed,
        "extended_due": terms.extended_due,
        "extra_attempts": terms.extra_attempts,
    }


def variant_json(variant: dict[str, Any], with_seed: bool) -> dict[str, Any]:
    """An engine variant; one seen as a student's own (``OwnVariant.as_student``) comes without its seed."""
    if with_seed:
        return variant
    return {name: value for name, value in variant.items() if name != "seed"}


def student_json(student: Student) -> dict[str, Any]:
    """An enrolled student as the roster lists them."""
    return {
        "id": student.id,
        "username": student.username,
        "display_name": student.display_name,
        "enrolled_at": iso_timestamp(student.enrolled_at),
    }


def gradebook_row_json(row: GradebookRow) -> dict[str, Any]:
    """A student's gradebook row: per exercise attempts used and counted score, the total, and when it changed."""
    counted, graded = total_score(row)
    total: dict[str, Any] = {
        "score": counted.fraction,
        "points": counted.points,
        "max_points": counted.max_points,
        "graded": graded,
        "exercises": len(row.results),
        "override": None if row.total_override is None else override_json(row.total_override),
    }
    return {
        "id": row.student.id,
        "username": row.student.username,
        "display_name": row.student.display_name,
        "exercises": [
            {
                "exercise_id": exercise_id,
                "attempts_used": result.attempts_used,
                "score": result.score,
                "points": None if result.score is None else result.score * row.points[exercise_id],
                "max_points": row.points[exercise_id],
                "late": result.late,
                "overridden": result.overridden,
            }
            for exercise_id, result in row.results
        ],
        "total": total,
        "scores_changed_at": iso_timestamp(row.scores_changed_at),
        "terms": terms_json(row.terms),
    }


def change_json(change: Change) -> dict[str, Any]:
    """A grade-log entry with its submission's student, assignment and exercise; the actor for staff only."""
    entry = change.entry
    return {
        "id": entry.id,
        "submission_id": entry.submission_id,
        "student_id": change.student_id,
        "assignment_id": change.assignment_id,
        "exercise_id": change.exercise_id,
        "old_score": entry.old_score,
        "new_score": entry.new_score,
        "old_engine_version": entry.old_engine_version,
        "new_engine_version": entry.new_engine_version,
        "reason": entry.reason,
        "actor": entry.actor if change.staff else None,
        "created_at": iso_timestamp(entry.created_at),
    }
