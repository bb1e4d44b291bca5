"""Assignment rules: who may submit when, how many attempts count, which score counts, when keys show."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from sqlalchemy import and_, case, func, select
from sqlalchemy.orm import Session, aliased

from exercises.i18n import Text
from grader.grading import access
from grader.grading.overrides import overrides_of
from grader.grading.refusals import SubmissionRejected
from grader.grading.student_record import StudentRecord, student_record
from grader.grading.terms import Lateness, StudentTerms, student_terms, terms_of_students
from grader.models import (
    AnswerKeyPolicy,
    Assignment,
    Course,
    Enrolment,
    ScoreOverride,
    ScorePolicy,
    Submission,
    SubmissionStatus,
    User,
)

NO_SUCH_ASSIGNMENT = Text(zh="没有这个作业。", en="There is no such assignment.")
COURSE_ARCHIVED = Text(
    zh="这门课程已归档：你仍可查看自己的成绩和提交，但不能再提交答案。",
    en="This course is archived: you can still see your results and submissions, but you cannot "
    "submit any more answers.",
)
# Invalid answers and the system's own errors do not use up an attempt.
COUNTED_STATUSES = (SubmissionStatus.QUEUED, SubmissionStatus.GRADING, SubmissionStatus.GRADED)


def attempts_used(
    session: Session, user_id: int, assignment_id: int, exercise_id: str, statuses: tuple[str, ...] = COUNTED_STATUSES
) -> int:
    """How many of the user's submissions to this exercise of this assignment count as attempts (or, with
    ``statuses``, have one of those statuses)."""
    return (
        session.scalar(
            select(func.count(Submission.id)).where(
                Submission.user_id == user_id,
                Submission.assignment_id == assignment_id,
                Submission.exercise_id == exercise_id,
                Submission.status.in_(statuses),
            )
        )
        or 0
    )


def course_archived(session: Session, course_id: int) -> bool:
    """True if the course is archived, read in ``session`` (under the submitting student's lock, when it holds one)."""
    return session.scalar(select(Course.archived_at).where(Course.id == course_id)) is not None


def check_can_submit(session: Session, user_id: int, assignment: Assignment, exercise_id: str, now: datetime) -> None:
    """Raise SubmissionRejected unless user ``user_id`` may submit ``exercise_id`` to ``assignment`` at ``now``."""
    # Membership and the archive flag in one read: every submission to an assignment passes here.
    membership = session.execute(
        select(Course.archived_at).where(
            Course.id == assignment.course_id, Course.id.in_(access.member_course_ids(user_id))
        )
    ).first()
    if membership is None:
        # First, and worded like a missing assignment: outsiders learn neither that it exists nor what it holds.
        raise SubmissionRejected("no_such_assignment", NO_SUCH_ASSIGNMENT)
    if membership.archived_at is not None:
        raise SubmissionRejected("course_archived", COURSE_ARCHIVED)
    if exercise_id not in assignment.exercise_ids:
        raise SubmissionRejected(
            "exercise_not_in_assignment",
            Text(zh=f"作业中没有练习 {exercise_id}。", en=f"Exercise {exercise_id} is not part of this assignment."),
        )
    if assignment.opens_at is not None and now < assignment.opens_at:
        raise SubmissionRejected("not_open", Text(zh="作业尚未开放。", en="This assignment is not open yet."))
    # The student's own terms: an extension moves the due date and adds attempts.
    terms = student_terms(session, assignment, user_id)
    if terms.closed(now):
        raise SubmissionRejected("past_due", Text(zh="作业已过截止时间。", en="This assignment is past its due date."))
    allowed = terms.attempts_allowed
    if allowed is not None and attempts_used(session, user_id, assignment.id, exercise_id) >= allowed:
        raise SubmissionRejected(
            "attempts_exhausted",
            Text(zh=f"这道题的 {allowed} 次机会已经用完。", en=f"All {allowed} attempts at this exercise are used."),
        )


def answer_key_visible(
    session: Session,
    user_id: int,
    assignment: Assignment,
    exercise_id: str,
    now: datetime,
    *,
    staff: bool = False,
    terms: StudentTerms | None = None,
) -> bool:
    """True if the caller may see the key of their variant of ``exercise_id`` with ``assignment`` at ``now``.

    ``staff`` (a teacher or admin acting as one) always may. For a student the assignment's key rule must allow it.
    With fresh variants that is all: the variant is this assignment's own. Otherwise no other assignment of theirs
    that shares variants, sets the exercise and may still take their answers to it may hide it: the shared variant
    belongs to the student and the exercise, so the key shown with one such assignment answers them all.
    ``terms``: the student's terms on ``assignment``, if the caller has read them already.
    """
    if staff:
        return True
    if not _key_rule_allows(session, user_id, assignment, exercise_id, now, terms):
        return False
    if assignment.fresh_variants:
        return True
    others = session.scalars(
        select(Assignment)
        .join(Enrolment, Enrolment.course_id == Assignment.course_id)
        .where(Enrolment.user_id == user_id, Assignment.id != assignment.id, Assignment.fresh_variants.is_(False))
    ).all()
    return not any(
        exercise_id in other.exercise_ids
        and _may_take_answers(session, user_id, other, exercise_id, now)
        and not _key_rule_allows(session, user_id, other, exercise_id, now)
        for other in others
    )


def assignments_setting(
    session: Session, user_id: int, exercise_id: str, roles: tuple[str, ...] | None = None
) -> list[Assignment]:
    """The assignments of the user's courses (those they are enrolled in with one of ``roles``, if given) that set
    ``exercise_id``."""
    query = (
        select(Assignment)
        .join(Enrolment, Enrolment.course_id == Assignment.course_id)
        .where(Enrolment.user_id == user_id)
    )
    if roles is not None:
        query = query.where(Enrolment.role.in_(roles))
    # exercise_ids is a JSON list: filtered here, the same on SQLite and PostgreSQL.
    return [assignment for assignment in session.scalars(query) if exercise_id in assignment.exercise_ids]


def first_opening(setting: list[Assignment], now: datetime) -> datetime | None:
    """None if one of ``setting`` is open or past (or there are none), else the earliest opening among them."""
    if not setting or any(a.opens_at is None or now >= a.opens_at for a in setting):
        return None
    return min(a.opens_at for a in setting if a.opens_at is not None)


def _graded_attempts(session: Session, user_id: int, assignment: Assignment, exercise_id: str) -> int:
    """Attempts that are settled: graded. A queued one may still end as an error, which gives the attempt back."""
    return attempts_used(session, user_id, assignment.id, exercise_id, (SubmissionStatus.GRADED,))


def _key_rule_allows(
    session: Session,
    user_id: int,
    assignment: Assignment,
    exercise_id: str,
    now: datetime,
    terms: StudentTerms | None = None,
) -> bool:
    """The assignment's own key rule for this student: always, never, after the due date, or after every attempt
    has been graded (their own due date and attempts, with an extension: ``terms``, read here if not given)."""
    policy = assignment.answer_key_policy
    if policy == AnswerKeyPolicy.ALWAYS:
        return True
    if policy == AnswerKeyPolicy.AFTER_DUE:
        # After the close, not the due date: late work may still be taken until then.
        terms = terms if terms is not None else student_terms(session, assignment, user_id)
        return terms.closed(now)
    if policy == AnswerKeyPolicy.AFTER_ATTEMPTS:
        terms = terms if terms is not None else student_terms(session, assignment, user_id)
        allowed = terms.attempts_allowed
        return allowed is not None and _graded_attempts(session, user_id, assignment, exercise_id) >= allowed
    return False


def _may_take_answers(session: Session, user_id: int, assignment: Assignment, exercise_id: str, now: datetime) -> bool:
    """True if the assignment is open or will open, and the student may still have an attempt there."""
    terms = student_terms(session, assignment, user_id)
    if terms.closed(now):
        return False
    if course_archived(session, assignment.course_id):  # takes no answers any more, so it holds no key back
        return False
    allowed = terms.attempts_allowed
    return allowed is None or _graded_attempts(session, user_id, assignment, exercise_id) < allowed


@dataclass(frozen=True)
class ExerciseProgress:
    """One student's standing on one exercise of one assignment."""

    exercise_id: str
    attempts_used: int
    attempts_left: int | None  # None: unlimited
    score: float | None  # the counted score (best or last graded); None before any graded attempt
    last_status: str | None
    late: Lateness | None = None  # how late the counted attempt was (its penalty is in ``score``)
    override: ScoreOverride | None = None  # a teacher's correction: ``score`` is its score


def assignment_progress(
    session: Session, user: User, assignment: Assignment, record: StudentRecord | None = None
) -> list[ExerciseProgress]:
    """The user's progress on every exercise of ``assignment``, in assignment order (from ``record``, their
    record on it, if the caller has read it already)."""
    record = record if record is not None else student_record(session, user.id, assignment)
    rows, terms, corrected = record.submissions, record.terms, record.overrides
    progress = []
    allowed = terms.attempts_allowed
    for exercise_id in assignment.exercise_ids:
        mine = [s for s in rows if s.exercise_id == exercise_id]
        used = sum(1 for s in mine if s.status in COUNTED_STATUSES)
        left = None if allowed is None else max(allowed - used, 0)
        counted = counted_attempt(
            [(s.score, s.created_at) for s in mine if s.status == SubmissionStatus.GRADED],
            terms,
            assignment.score_policy,
        )
        override = corrected.get((user.id, exercise_id))
        progress.append(
            ExerciseProgress(
                exercise_id=exercise_id,
                attempts_used=used,
                attempts_left=left,
                score=counted.score if override is None else override.score,
                last_status=mine[-1].status if mine else None,
                late=counted.late,
                override=override,
            )
        )
    return progress


@dataclass(frozen=True)
class CountedAttempt:
    """The attempt that counts on one exercise: its counted score (a late penalty applied) and how late it was."""

    score: float | None
    late: Lateness | None


def counted_attempt(
    graded: Sequence[tuple[float | None, datetime]], terms: StudentTerms, score_policy: str
) -> CountedAttempt:
    """Of graded attempts (engine score, submitted at) in submission order, the one that counts under the score
    policy, compared by their counted values: a late penalty lowers what counts, never the engine's verdict."""
    values = [(terms.counted(score, at), terms.lateness(at)) for score, at in graded if score is not None]
    if not values:
        return CountedAttempt(None, None)
    chosen = max(values, key=lambda value: value[0] or 0.0) if score_policy == ScorePolicy.BEST else values[-1]
    return CountedAttempt(*chosen)


def counted_score(graded_scores: list[float | None], policy: str) -> float | None:
    """The score that counts from graded scores in submission order: the best, or the last."""
    scores = [s for s in graded_scores if s is not None]
    if not scores:
        return None
    return max(scores) if policy == ScorePolicy.BEST else scores[-1]


@dataclass(frozen=True)
class ExerciseResult:
    """One student's attempts and counted score on one exercise of an assignment (a gradebook cell)."""

    attempts_used: int
    score: float | None  # the counted score (best or last graded); None before any graded attempt
    late: bool = False  # the counted attempt was late (its penalty is in ``score``)
    overridden: bool = False  # a teacher's override is the score


def assignment_results(
    session: Session, assignment: Assignment, user_ids: Collection[int]
) -> dict[tuple[int, str], ExerciseResult]:
    """``assignment_progress``'s attempts and counted scores for many students at once, teachers' overrides applied
    (an overridden pair without a submission is present, with no attempts). Keyed by (user id, exercise id)."""
    results = _counted_results(session, assignment, user_ids)
    for (user_id, exercise_id), override in overrides_of(session, assignment, user_ids).items():
        if exercise_id in assignment.exercise_ids:
            found = results.get((user_id, exercise_id), ExerciseResult(0, None))
            results[(user_id, exercise_id)] = replace(found, score=override.score, overridden=True)
    return results


def _counted_results(
    session: Session, assignment: Assignment, user_ids: Collection[int]
) -> dict[tuple[int, str], ExerciseResult]:
    """``assignment_progress``'s attempts and counted scores for many students at once, in one statement.

    Keyed by (user id, exercise id); pairs without a submission are absent. Per pair the statement returns the
    best graded score and the last one (by submission id): those two, in that order, are all ``counted_score``
    needs to pick what counts under either policy, so the rule is that function's.
    """
    if not user_ids or not assignment.exercise_ids:
        return {}
    if assignment.late_until is not None:
        return _results_with_late_work(session, assignment, user_ids)
    scored = and_(Submission.status == SubmissionStatus.GRADED, Submission.score.is_not(None))
    grouped = (
        select(
            Submission.user_id,
            Submission.exercise_id,
            func.count(case((Submission.status.in_(COUNTED_STATUSES), 1))).label("used"),
            func.max(case((scored, Submission.score))).label("best"),
            func.max(case((scored, Submission.id))).label("last_id"),
        )
        .where(
            Submission.assignment_id == assignment.id,
            Submission.user_id.in_(list(user_ids)),
            Submission.exercise_id.in_(list(assignment.exercise_ids)),
        )
        .group_by(Submission.user_id, Submission.exercise_id)
        .subquery("grouped")
    )
    last = aliased(Submission, name="last_graded")
    rows = session.execute(
        select(grouped.c.user_id, grouped.c.exercise_id, grouped.c.used, grouped.c.best, last.score).outerjoin(
            last, last.id == grouped.c.last_id
        )
    )
    return {
        (user_id, exercise_id): ExerciseResult(
            int(used or 0), counted_score([best, last_score], assignment.score_policy)
        )
        for user_id, exercise_id, used, best, last_score in rows
    }


def _results_with_late_work(
    session: Session, assignment: Assignment, user_ids: Collection[int]
) -> dict[tuple[int, str], ExerciseResult]:
    """``assignment_results`` where late work is taken: each attempt's penalty depends on when it came and on the
    student's own due date, so the attempts are read (one statement) and counted by ``counted_attempt``."""
    rows = session.execute(
        select(Submission.user_id, Submission.exercise_id, Submission.status, Submission.score, Submission.created_at)
        .where(
            Submission.assignment_id == assignment.id,
            Submission.user_id.in_(list(user_ids)),
            Submission.exercise_id.in_(list(assignment.exercise_ids)),
        )
        .order_by(Submission.id)
    ).all()
    own_terms = terms_of_students(session, assignment, user_ids)
    grouped: dict[tuple[int, str], list[tuple[str, float | None, datetime]]] = {}
    for user_id, exercise_id, status, score, created_at in rows:
        grouped.setdefault((user_id, exercise_id), []).append((status, score, created_at))
    results = {}
    for (user_id, exercise_id), attempts in grouped.items():
        graded = [(score, at) for status, score, at in attempts if status == SubmissionStatus.GRADED]
        counted = counted_attempt(graded, own_terms[user_id], assignment.score_policy)
        results[(user_id, exercise_id)] = ExerciseResult(
            sum(1 for status, _, _ in attempts if status in COUNTED_STATUSES), counted.score, counted.late is not None
        )
    return results
